/**
 * Key paths of JSON values: where a body has fields, written `result[].token_id`. They tell
 * whether decoding then encoding a response kept every field the service sent (`Schema.Struct`
 * drops unknown fields silently), which is how this package checks its schemas against real
 * responses and how a user can notice a field the service added after this version.
 *
 * @since 0.1.0
 */
import { Predicate, Schema } from "effect"

/**
 * The JSON type of a value at a key path: what `typeof` says, with `null` and `array` apart.
 *
 * @example
 * ```ts
 * import type { KeyPaths } from "@chainquery/schema"
 *
 * const nullable = (types: ReadonlySet<KeyPaths.JsonType>) => types.has("null")
 * ```
 * @since 0.1.0
 */
export type JsonType = "null" | "boolean" | "number" | "string" | "array" | "object"

const typeOf = (value: unknown): JsonType =>
  value === null ? "null" : Array.isArray(value) ? "array" : (typeof value as JsonType)

/** Reads JSON text back into the value it holds, where a path's text stands for one. */
type ReadText = (path: string, text: string) => unknown

const visit = (value: unknown, prefix: string, into: Map<string, Set<JsonType>>, readText?: ReadText): void => {
  if (Array.isArray(value)) {
    for (const item of value) visit(item, `${prefix}[]`, into, readText)
    return
  }
  if (!Predicate.isObject(value)) return
  for (const [key, item] of Object.entries(value)) {
    const path = prefix === "" ? key : `${prefix}.${key}`
    const types = into.get(path)
    if (types === undefined) into.set(path, new Set([typeOf(item)]))
    else types.add(typeOf(item))
    visit(typeof item === "string" && readText !== undefined ? readText(path, item) : item, path, into, readText)
  }
}

const parseOrKeep = (text: string): unknown => {
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

/**
 * The shape of a JSON value: each key path (see {@link of}) with the JSON types found there.
 * The shapes of many bodies of one operation, merged, describe what that operation sends.
 *
 * @example
 * ```ts
 * import { KeyPaths } from "@chainquery/schema"
 *
 * KeyPaths.shape({ result: [{ label: null }, { label: "x" }] })
 * // Map { "result" => Set { "array" }, "result[].label" => Set { "null", "string" } }
 * ```
 * @since 0.1.0
 */
export const shape = (value: unknown): ReadonlyMap<string, ReadonlySet<JsonType>> => {
  const paths = new Map<string, Set<JsonType>>()
  visit(value, "", paths)
  return paths
}

/**
 * Every key path of a JSON value: the keys of objects, nested objects joined with `.`, the items
 * of an array written `[]` (all items of an array share their paths). Text is a leaf, even text
 * that holds JSON.
 *
 * @example
 * ```ts
 * import { KeyPaths } from "@chainquery/schema"
 *
 * KeyPaths.of({ total: null, result: [{ token_id: "1", labels: { a: 1 } }] })
 * // Set { "total", "result", "result[].token_id", "result[].labels", "result[].labels.a" }
 * ```
 * @since 0.1.0
 */
export const of = (value: unknown): ReadonlySet<string> => new Set(shape(value).keys())

/**
 * The key paths of `before` that `after` does not have, sorted. Where `before` has an object (or
 * an array) and `after` has JSON text at the same path, the text is read: a field kept as its
 * JSON text (`metadata`, `token_properties`) keeps what it holds.
 *
 * @example
 * ```ts
 * import { KeyPaths } from "@chainquery/schema"
 *
 * KeyPaths.lost({ a: 1, b: [{ c: 2 }] }, { a: 1, b: [] }) // ["b[].c"]
 * KeyPaths.lost({ props: { hp: 1 } }, { props: "{\"hp\":1}" }) // []
 * ```
 * @since 0.1.0
 */
export const lost = (before: unknown, after: unknown): ReadonlyArray<string> => {
  const sent = shape(before)
  const kept = new Map<string, Set<JsonType>>()
  visit(after, "", kept, (path, text) => {
    const types = sent.get(path)
    return types !== undefined && (types.has("object") || types.has("array")) ? parseOrKeep(text) : text
  })
  return [...sent.keys()].filter((path) => !kept.has(path)).toSorted()
}

/**
 * The key paths of a body that `schema` drops: the body is decoded and encoded back, and the
 * paths the encoded form lacks are returned (see {@link lost}; empty when nothing is lost).
 * Fails like `Schema.decodeUnknownSync` when the body does not decode. Useful in a test of your
 * own captures, or to log when the service starts sending a field this version does not know.
 *
 * Two limits: a record a page rejected (see `rejected`) is written back as it came, so its
 * fields are not checked (the record is reported already); and a field a schema reads under
 * another name is reported as dropped (A7's single `position`, which decodes into `positions`).
 *
 * @example
 * ```ts
 * import { EvmPage, KeyPaths } from "@chainquery/schema"
 *
 * const dropped = KeyPaths.droppedBy(EvmPage.TradesPage)
 * dropped({ page: 0, page_size: 1, cursor: "", result: [], brand_new: 1 }) // ["brand_new"]
 * ```
 * @since 0.1.0
 */
export const droppedBy = <S extends Schema.Codec<any, any>>(schema: S): (body: unknown) => ReadonlyArray<string> => {
  const decode = Schema.decodeUnknownSync(schema)
  const encode = Schema.encodeSync(schema)
  return (body) => lost(body, encode(decode(body)))
}
