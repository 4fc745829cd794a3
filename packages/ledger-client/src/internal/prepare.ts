/**
 * What the seven operations' `prepare` functions share: the paging parameters, optional lists,
 * name bounds, and dropping absent query keys (the endpoints' query schemas use optional keys,
 * which must be absent rather than `undefined`). They validate with the `check` of
 * `Input.checked`, so a `prepare` stays a plain function.
 *
 * @internal
 */
import { type Input, Paging } from "@chainquery/schema"
import type { Schema } from "effect"
import type { PagingParameters } from "../LedgerOperation.js"

/** Validates `limit`, `offset` and `cursor`, in that order. */
export const paging = (check: Input.Check, params: PagingParameters): {
  readonly limit: number
  readonly offset: number | undefined
  readonly cursor: string | undefined
} => {
  const limit = check.value(Paging.Limit, "limit", params.limit)
  const offset = check.optional(Paging.Offset, "offset", params.offset)
  const cursor = check.optional(Paging.Cursor, "cursor", params.cursor)
  return { limit, offset, cursor }
}

/** Validates an optional list element by element; `undefined` stays `undefined`. */
export const optionalList = <S extends Schema.Decoder<unknown>>(
  check: Input.Check,
  schema: S,
  field: string,
  values: unknown
): ReadonlyArray<S["Type"]> | undefined => values === undefined ? undefined : check.all(schema, field, values)

/** The record without its `undefined` entries. */
export const compact = (record: Record<string, unknown>): Record<string, unknown> => {
  const out: Record<string, unknown> = {}
  for (const key of Object.keys(record)) if (record[key] !== undefined) out[key] = record[key]
  return out
}
