/**
 * Small pieces every operation's `prepare` uses: validating the paging parameters, rejecting two
 * alternatives given together, and dropping absent query values.
 *
 * @internal
 */
import { type Errors, Input, Paging } from "@chainquery/schema"
import { Effect, Schema } from "effect"

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
  first: string,
  firstValue: unknown,
  second: string,
  secondValue: unknown
): Effect.Effect<void, Errors.InvalidInput> =>
  firstValue !== undefined && secondValue !== undefined
    ? Input.validate(
      Schema.Undefined.annotate({ description: `no ${second} when ${first} is given (give one of them, not both)` }),
      second,
      secondValue
    ).pipe(Effect.asVoid)
    : Effect.void

/** Validates `limit` and `cursor`. */
export const paging = (
  params: { readonly limit?: unknown; readonly cursor?: unknown }
): Effect.Effect<{ readonly limit: number | undefined; readonly cursor: string | undefined }, Errors.InvalidInput> =>
  Effect.all({
    limit: Input.validateOptional(Paging.Limit, "limit", params.limit),
    cursor: Input.validateOptional(Paging.Cursor, "cursor", params.cursor)
  })
