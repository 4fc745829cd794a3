/**
 * Small pieces every operation's `prepare` uses: validating the paging parameters, a block or
 * date range, and rejecting two alternatives given together. They validate with the `check` of `Input.checked`, so a
 * `prepare` stays a plain function.
 *
 * @internal
 */
import { BlockNumberOrHash, type Input, Paging } from "@chainquery/schema"
import { Schema } from "effect"

/**
 * Fails with `InvalidInput` on `second` when both alternatives are given (the types already rule
 * it out; this catches callers that go around them). The service would silently use the first.
 */
const exclusive = (
  check: Input.Check,
  first: string,
  firstValue: unknown,
  second: string,
  secondValue: unknown
): void => {
  if (firstValue !== undefined && secondValue !== undefined) {
    check.value(
      Schema.Undefined.annotate({ description: `no ${second} when ${first} is given (give one of them, not both)` }),
      second,
      secondValue
    )
  }
}

/** Validates `limit` and `cursor`, in that order. */
export const paging = (
  check: Input.Check,
  params: { readonly limit?: unknown; readonly cursor?: unknown }
): { readonly limit: number | undefined; readonly cursor: string | undefined } => {
  const limit = check.optional(Paging.Limit, "limit", params.limit)
  const cursor = check.optional(Paging.Cursor, "cursor", params.cursor)
  return { limit, cursor }
}

/**
 * Validates a range bounded by blocks or dates (one kind per bound, never both), in the order
 * `fromBlock`, `fromDate`, `toBlock`, `toDate`, with `dates` for the date bounds.
 */
export const range = <D extends Schema.Decoder<unknown>>(
  check: Input.Check,
  dates: D,
  params: { readonly fromBlock?: unknown; readonly fromDate?: unknown; readonly toBlock?: unknown; readonly toDate?: unknown }
) => {
  exclusive(check, "fromBlock", params.fromBlock, "fromDate", params.fromDate)
  exclusive(check, "toBlock", params.toBlock, "toDate", params.toDate)
  const from_block = check.optional(BlockNumberOrHash.BlockNumber, "fromBlock", params.fromBlock)
  const from_date = check.optional(dates, "fromDate", params.fromDate)
  const to_block = check.optional(BlockNumberOrHash.BlockNumber, "toBlock", params.toBlock)
  const to_date = check.optional(dates, "toDate", params.toDate)
  return { from_block, to_block, from_date, to_date }
}
