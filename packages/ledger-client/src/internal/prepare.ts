/**
 * What the seven operations' `prepare` functions share: the paging parameters, optional lists and
 * the collection filters. They validate with the `check` of `Input.checked`, so a `prepare` stays
 * a plain function.
 *
 * @internal
 */
import { AptosAddress, type Input, Paging } from "@chainquery/schema"
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

/** Validates the optional `collectionBlacklist` and `collectionWhitelist`, in that order. */
export const collectionFilters = (
  check: Input.Check,
  params: { readonly collectionBlacklist?: unknown; readonly collectionWhitelist?: unknown }
): { readonly collection_blacklist: ReadonlyArray<string> | undefined; readonly collection_whitelist: ReadonlyArray<string> | undefined } => ({
  collection_blacklist: optionalList(check, AptosAddress.AptosHash, "collectionBlacklist", params.collectionBlacklist),
  collection_whitelist: optionalList(check, AptosAddress.AptosHash, "collectionWhitelist", params.collectionWhitelist)
})
