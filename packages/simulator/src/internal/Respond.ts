/**
 * Writing page responses quickly. The wire form of a record never changes once the record exists,
 * so each record object's JSON is produced once (with the schema's encoder) and cached; a page's
 * body is then its envelope's fields, encoded by the page schema, with the cached records spliced
 * in. The bytes are exactly what encoding the whole page with the schema would give.
 *
 * @internal
 */
import { Schema } from "effect"
import { HttpServerResponse } from "effect/http"

/** A page of records as the handlers build it. */
interface Page<A> {
  readonly result: ReadonlyArray<A>
  readonly rejected: ReadonlyArray<unknown>
}

/** A response writer for pages of `pageSchema`, whose records are `recordSchema`. */
export const pageResponder = <P extends Page<A>, A extends object>(
  pageSchema: Schema.Encoder<unknown>,
  recordSchema: Schema.Encoder<unknown>
) => {
  const encodePage = Schema.encodeSync(pageSchema as Schema.Codec<P, unknown>)
  const encodeRecord = Schema.encodeSync(recordSchema as Schema.Codec<A, unknown>)
  const cache = new WeakMap<A, string>()
  const recordJson = (record: A): string => {
    let json = cache.get(record)
    if (json === undefined) {
      json = JSON.stringify(encodeRecord(record))
      cache.set(record, json)
    }
    return json
  }
  return (page: P): HttpServerResponse.HttpServerResponse => {
    const envelope = JSON.stringify(encodePage({ ...page, result: [], rejected: [] }))
    const records = page.result.map(recordJson).join(",")
    const body = `${envelope.slice(0, envelope.lastIndexOf('"result":[]'))}"result":[${records}]${
      envelope.slice(envelope.lastIndexOf('"result":[]') + '"result":[]'.length)
    }`
    return HttpServerResponse.text(body, { contentType: "application/json" })
  }
}
