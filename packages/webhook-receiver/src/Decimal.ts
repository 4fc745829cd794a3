/**
 * Block numbers and ledger versions as they travel in the webhooks and in the receiver's state:
 * decimal strings (`"118"`), so that numbers beyond 2^53 survive JSON untouched. Compare them with
 * `BigInt`, never as strings or JavaScript numbers.
 *
 * @since 0.3.0
 */
import { Schema } from "effect"

/**
 * A non-negative integer written in decimal digits, with no sign, no leading zero and no
 * exponent: `"0"`, `"118"`, `"21000000000000000000"`.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { Decimal } from "@chainquery/webhook-receiver"
 *
 * Schema.decodeUnknownSync(Decimal.Decimal)("118") // "118"
 * Schema.is(Decimal.Decimal)("0118") // false
 * ```
 * @since 0.3.0
 */
export const Decimal = Schema.String.check(
  Schema.isPattern(/^(0|[1-9][0-9]*)$/, { message: "Expected a decimal string of digits (no sign, no leading zero)" })
)

/**
 * The type of {@link Decimal}: a string of decimal digits.
 *
 * @example
 * ```ts
 * import type { Decimal } from "@chainquery/webhook-receiver"
 *
 * const block: Decimal.Decimal = "118"
 * ```
 * @since 0.3.0
 */
export type Decimal = typeof Decimal.Type
