/**
 * Small pieces every operation's `prepare` uses: validating the paging parameters, rejecting two
 * alternatives given together, and dropping absent query values. They validate with the `check`
 * of `Input.checked`, so a `prepare` stays a plain function.
 *
 * @internal
 */
import { type Input, Paging } from "@chainquery/schema"
import { Schema } from "effect"

/** The query with its `undefined` values dropped (the endpoint's schemas want absent keys). */
export const compact = (query: Record<string, unknown>): Record<string, unknown> => {
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(query)) if (value !== undefined) out[key] = value
  return out
}

/**
 * Fails with `InvalidInput` on `second` when both alternatives are given (the types already rule
 * it out; this catches callers that go around them). The service would silently use the first.
 */
export const exclusive = (
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
