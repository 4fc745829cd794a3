/**
 * Writing page bodies quickly. The wire form of a record never changes once the record exists,
 * so each record object's JSON is produced once (with the schema's encoder) and cached as UTF-8
 * bytes, and so is the comma-joined run of a page's records (the same page is often asked for
 * again). A page's body is its envelope's fields, encoded by the page schema (and kept for the
 * next page with the same envelope values), with the records' bytes spliced in: exactly the bytes
 * encoding the whole page with the schema would give, without encoding an 80 KiB string on every
 * request. The body comes as three chunks (envelope head, records, envelope tail), so that a
 * writer can send them without copying them into one buffer.
 *
 * @internal
 */
import { Option, Schema } from "effect"
import { HttpServerResponse } from "effect/http"
import { BoundedMap } from "./BoundedMap.js"

const emptyResult = '"result":[]'
const comma = Buffer.from(",", "utf8")

/** Runs of records kept, keyed by their first record (each at most a page, ~80 KiB). */
const runsKept = 64

/** Envelopes kept, keyed by their field values (a few hundred bytes each). */
const envelopesKept = 256

/** A page body: the envelope up to the records, the records, and the rest of the envelope. */
export type PageBody = readonly [Uint8Array, Uint8Array, Uint8Array]

/** A page of records as the handlers build it. */
interface Page<A> {
  readonly result: ReadonlyArray<A>
  readonly rejected: ReadonlyArray<unknown>
}

interface Run<A> {
  readonly records: ReadonlyArray<A>
  readonly bytes: Buffer
}

const sameRecords = <A>(a: ReadonlyArray<A>, b: ReadonlyArray<A>): boolean => {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}

/**
 * A key that identifies an envelope field's value, or `undefined` for a value the key does not
 * cover (then the envelope is encoded and not kept).
 */
const valueKey = (value: unknown): string | undefined => {
  if (Option.isOption(value)) {
    if (Option.isNone(value)) return "N"
    const inner = valueKey(value.value)
    return inner === undefined ? undefined : `S${inner}`
  }
  switch (typeof value) {
    case "string":
      return JSON.stringify(value)
    case "number":
    case "boolean":
    case "bigint":
    case "undefined":
      return `${typeof value}:${String(value)}`
    default:
      return undefined
  }
}

/** The key of a page's envelope (every field but the records), or `undefined`. */
const envelopeKey = (page: object): string | undefined => {
  let key = ""
  for (const [name, value] of Object.entries(page)) {
    if (name === "result" || name === "rejected") continue
    const part = valueKey(value)
    if (part === undefined) return undefined
    key += `${name}=${part};`
  }
  return key
}

/**
 * The body writer for pages of `pageSchema`, whose records are `recordSchema`: page in, body bytes
 * out (to be sent as `application/json`).
 */
export const pageBody = <P extends Page<A>, A extends object>(
  pageSchema: Schema.Encoder<unknown>,
  recordSchema: Schema.Encoder<unknown>
): (page: P) => PageBody => {
  const encodePage = Schema.encodeSync(pageSchema as Schema.Codec<P, unknown>)
  const encodeRecord = Schema.encodeSync(recordSchema as Schema.Codec<A, unknown>)
  const recordBytes = new WeakMap<A, Buffer>()
  const recordJson = (record: A): Buffer => {
    let json = recordBytes.get(record)
    if (json === undefined) {
      json = Buffer.from(JSON.stringify(encodeRecord(record)), "utf8")
      recordBytes.set(record, json)
    }
    return json
  }
  const runs = new BoundedMap<A, Run<A>>(runsKept)
  const runOf = (records: ReadonlyArray<A>): Buffer => {
    const first = records[0]
    if (first === undefined) return Buffer.alloc(0)
    const kept = runs.get(first)
    if (kept !== undefined && sameRecords(kept.records, records)) return kept.bytes
    const parts: Array<Buffer> = []
    records.forEach((record, i) => {
      if (i > 0) parts.push(comma)
      parts.push(recordJson(record))
    })
    const bytes = Buffer.concat(parts)
    runs.set(first, { records, bytes })
    return bytes
  }
  const envelopes = new BoundedMap<string, readonly [Buffer, Buffer]>(envelopesKept)
  const envelopeOf = (page: P): readonly [Buffer, Buffer] => {
    const key = envelopeKey(page)
    const kept = key === undefined ? undefined : envelopes.get(key)
    if (kept !== undefined) return kept
    const envelope = JSON.stringify(encodePage({ ...page, result: [], rejected: [] }))
    const at = envelope.lastIndexOf(emptyResult)
    const halves = [
      Buffer.from(`${envelope.slice(0, at)}"result":[`, "utf8"),
      Buffer.from(`]${envelope.slice(at + emptyResult.length)}`, "utf8")
    ] as const
    if (key !== undefined) envelopes.set(key, halves)
    return halves
  }
  return (page) => {
    const [head, tail] = envelopeOf(page)
    return [head, runOf(page.result), tail]
  }
}

/** A page body as the HttpApi handler's response. */
export const jsonResponse = (body: PageBody): HttpServerResponse.HttpServerResponse =>
  HttpServerResponse.uint8Array(Buffer.concat(body), { contentType: "application/json" })
