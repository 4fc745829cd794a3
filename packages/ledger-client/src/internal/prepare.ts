/**
 * What the seven operations' `prepare` functions share: the paging parameters, optional lists,
 * name bounds, and dropping absent query keys (the endpoints' query schemas use optional keys,
 * which must be absent rather than `undefined`).
 *
 * @internal
 */
import { type Errors, Input, Paging } from "@chainquery/schema"
import { Effect, Schema } from "effect"
import type { PagingParameters } from "../LedgerOperation.js"

/** Validates `limit`, `offset` and `cursor`, in that order. */
export const paging: (params: PagingParameters) => Effect.Effect<{
  readonly limit: number
  readonly offset: number | undefined
  readonly cursor: string | undefined
}, Errors.InvalidInput> = Effect.fnUntraced(function*(params: PagingParameters) {
  const limit = yield* Input.validate(Paging.Limit, "limit", params.limit)
  const offset = yield* Input.validateOptional(Paging.Offset, "offset", params.offset)
  const cursor = yield* Input.validateOptional(Paging.Cursor, "cursor", params.cursor)
  return { limit, offset, cursor }
})

/** Validates an optional list element by element; `undefined` stays `undefined`. */
export const optionalList = <S extends Schema.Decoder<unknown>>(
  schema: S,
  field: string,
  values: unknown
): Effect.Effect<ReadonlyArray<S["Type"]> | undefined, Errors.InvalidInput> =>
  values === undefined ? Effect.succeed(undefined) : Input.validateAll(schema, field, values)

/** The record without its `undefined` entries. */
export const compact = (record: Record<string, unknown>): Record<string, unknown> => {
  const out: Record<string, unknown> = {}
  for (const key of Object.keys(record)) if (record[key] !== undefined) out[key] = record[key]
  return out
}
