/**
 * Wire fidelity: no field of a real response is dropped. Every 200 fixture in test/fixtures is
 * decoded with its schema and encoded back; every key path of the real body (nested objects and
 * arrays included) must still be there. A field the service sends that a schema does not know
 * would be dropped silently by `Schema.Struct`, so a new field in a fixture fails here until the
 * schema has it.
 *
 * What the round trip cannot see is checked beside it:
 * - a record the page rejected is written back as it came: its fields must be fields of the
 *   record schema;
 * - A7's single `position` object is encoded as a `positions` list of one (a rename, not a loss).
 * A JSON-text field sent as an object (`token_properties`) is compared through its text by
 * `KeyPaths.lost` itself.
 */
import { Exit, Schema } from "effect"
import { describe, expect, it } from "vitest"
import { KeyPaths } from "../src/index.js"
import { loadFixtures } from "./support/fixtures.js"
import { recordFieldsOf, successSchemaOf } from "./support/successSchemas.js"

const successes = loadFixtures().filter((fixture) => fixture.status === 200)

/** Where a path of the real body is found after encoding, under the renames schemas document. */
const renamed = (path: string): string =>
  path === "[].position" ? "[].positions" : path.replace(/^\[\]\.position\./, "[].positions[].")

interface Rejected {
  readonly rejected?: ReadonlyArray<{ readonly raw: unknown }>
}

/** The key paths of `body` that its decode-then-encode round trip lost, or that no schema reads. */
const lostByRoundTrip = (key: string, body: unknown): ReadonlyArray<string> => {
  const schema = successSchemaOf(key)
  const decoded = Schema.decodeUnknownExit(schema)(body)
  if (Exit.isFailure(decoded)) throw new Error(`${key} did not decode: ${String(decoded.cause)}`)
  const encoded: unknown = Schema.encodeUnknownSync(schema)(decoded.value)
  const kept = KeyPaths.of(encoded)
  const lost = KeyPaths.lost(body, encoded).filter((path) => !kept.has(renamed(path)))
  const fields = recordFieldsOf(key)
  const unread = ((decoded.value as Rejected).rejected ?? []).flatMap(({ raw }) =>
    typeof raw === "object" && raw !== null && fields !== undefined
      ? Object.keys(raw).filter((field) => !fields.has(field)).map((field) => `result[].${field}`)
      : []
  )
  return [...new Set([...lost, ...unread])].toSorted()
}

describe("no key path of a real 200 response is lost by decode then encode", () => {
  it("covers the 200 fixtures of all 14 operations", () => {
    expect(new Set(successes.map((fixture) => fixture.operation)).size).toBe(14)
  })

  it.each(successes.map((f) => [`${f.operation}/${f.file}`, f] as const))("%s", (key, fixture) => {
    expect(lostByRoundTrip(key, fixture.body)).toEqual([])
  })

  const withNewField = (key: string, add: (body: any) => void) => {
    const body = structuredClone(successes.find((f) => `${f.operation}/${f.file}` === key)!.body)
    add(body)
    return lostByRoundTrip(key, body)
  }

  it("fails for a field the schemas do not know, however deep", () => {
    expect(withNewField("A6/docs-howto-block.json", (body) => {
      body.transactions[0].logs[0].brand_new_field = 1
    })).toEqual(["transactions[].logs[].brand_new_field"])
  })

  it("fails for a new field in a record the page rejected (written back as it came)", () => {
    expect(withNewField("A4/swagger-example-onchain-skills.json", (body) => {
      body.result[0].brand_new_field = 1
    })).toEqual(["result[].brand_new_field"])
  })

  it("reads a JSON-text field sent as an object through its text: its own keys pass, a new field beside it fails", () => {
    expect(withNewField("B5/code-comment-single-item-2024.json", (body) => {
      body.token_properties.ANOTHER_TRAIT = "x"
    })).toEqual([])
    expect(withNewField("B5/code-comment-single-item-2024.json", (body) => {
      body.brand_new_field = "x"
    })).toEqual(["brand_new_field"])
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

  it("lost: reads JSON text where the first value had an object, and only there", () => {
    expect(KeyPaths.lost({ props: { hp: 1, mp: 2 } }, { props: "{\"hp\":1}" })).toEqual(["props.mp"])
    expect(KeyPaths.lost({ props: [{ hp: 1 }] }, { props: "not json" })).toEqual(["props[].hp"])
    expect(KeyPaths.lost({ note: "{\"a\":1}" }, { note: "{\"a\":1}" })).toEqual([])
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
