/**
 * Wire fidelity: no field of a real response is dropped. Every 200 fixture in test/fixtures is
 * decoded with its schema and encoded back; every key path of the real body (nested objects and
 * arrays included) must still be there. A field the service sends that a schema does not know
 * would be dropped silently by `Schema.Struct`, so a new field in a fixture fails here until the
 * schema has it.
 *
 * Two documented normalisations move data without losing it, and are followed here:
 * - a JSON-text field (`token_properties`, `metadata`) sent as an object is encoded as its JSON
 *   text; the paths inside that text count;
 * - A7's single `position` object is encoded as a `positions` list of one.
 */
import { Exit, Schema } from "effect"
import { describe, expect, it } from "vitest"
import { KeyPaths } from "../src/index.js"
import { loadFixtures } from "./support/fixtures.js"
import { successSchemaOf } from "./support/successSchemas.js"

const successes = loadFixtures().filter((fixture) => fixture.status === 200)

const jsonTextFields: ReadonlySet<string> = new Set(["token_properties", "metadata"])

/** The encoded value with its JSON-text fields read back into the objects they hold. */
const withJsonTextRead = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(withJsonTextRead)
  if (typeof value !== "object" || value === null) return value
  return Object.fromEntries(Object.entries(value).map(([key, item]) => {
    if (jsonTextFields.has(key) && typeof item === "string") {
      try {
        return [key, JSON.parse(item) as unknown]
      } catch {
        return [key, item]
      }
    }
    return [key, withJsonTextRead(item)]
  }))
}

/** Where a path of the real body is found after encoding, under the renames schemas document. */
const renamed = (path: string): string =>
  path === "[].position" ? "[].positions" : path.replace(/^\[\]\.position\./, "[].positions[].")

/** The key paths of `body` that its decode-then-encode round trip lost. */
const lostByRoundTrip = (body: unknown, encoded: unknown): ReadonlyArray<string> => {
  const kept = KeyPaths.of(withJsonTextRead(encoded))
  return [...KeyPaths.of(body)].filter((path) => !kept.has(renamed(path))).toSorted()
}

describe("no key path of a real 200 response is lost by decode then encode", () => {
  it("covers the 200 fixtures of all 14 operations", () => {
    expect(new Set(successes.map((fixture) => fixture.operation)).size).toBe(14)
  })

  it.each(successes.map((f) => [`${f.operation}/${f.file}`, f] as const))("%s", (key, fixture) => {
    const schema = successSchemaOf(key)
    const decoded = Schema.decodeUnknownExit(schema)(fixture.body)
    if (Exit.isFailure(decoded)) throw new Error(`${key} did not decode: ${String(decoded.cause)}`)
    const encoded = Schema.encodeUnknownSync(schema)(decoded.value)
    expect(lostByRoundTrip(fixture.body, encoded)).toEqual([])
  })

  it("fails for a field the schemas do not know, however deep", () => {
    const a6 = successes.find((f) => f.operation === "A6")!
    const body = structuredClone(a6.body) as { transactions: Array<Record<string, unknown>> }
    body.transactions[0]!["brand_new_field"] = 1
    const schema = successSchemaOf(`A6/${a6.file}`)
    const encoded = Schema.encodeUnknownSync(schema)(Schema.decodeUnknownSync(schema)(body))
    expect(lostByRoundTrip(body, encoded)).toEqual(["transactions[].brand_new_field"])
  })
})

describe("KeyPaths", () => {
  it("names nested objects and array items, and stops at text", () => {
    const body = { a: 1, b: { c: null, d: [{ e: "x" }, { f: [1] }] }, metadata: "{\"g\":1}" }
    expect([...KeyPaths.of(body)].toSorted()).toEqual(
      ["a", "b", "b.c", "b.d", "b.d[].e", "b.d[].f", "metadata"].toSorted()
    )
  })

  it("shape: the JSON types found at each path, across array items", () => {
    const shape = KeyPaths.shape({ result: [{ label: null, n: 1 }, { label: "x", n: [true] }] })
    expect(Object.fromEntries([...shape].map(([path, types]) => [path, [...types].toSorted()]))).toEqual({
      result: ["array"],
      "result[].label": ["null", "string"],
      "result[].n": ["array", "number"]
    })
  })

  it("lost: what the second value lacks, sorted", () => {
    const body = { result: [{ kept: 1, dropped: 2 }], extra: { inner: true } }
    expect(KeyPaths.lost(body, { result: [{ kept: 1 }], extra: {} })).toEqual(["extra.inner", "result[].dropped"])
    expect(KeyPaths.lost(body, body)).toEqual([])
  })

  it("droppedBy: the fields a schema drops from a body", () => {
    const trades = { total: null, page: 0, page_size: 1, cursor: "", result: [] }
    expect(KeyPaths.droppedBy(successSchemaOf("A4/any.json"))({ ...trades, brand_new: { a: 1 } })).toEqual([
      "brand_new",
      "brand_new.a"
    ])
    expect(KeyPaths.droppedBy(successSchemaOf("A4/any.json"))(trades)).toEqual([])
  })
})
