/**
 * What a receiver stores between webhooks, and hands back with the next one: the stream it is
 * bound to, the last sequence it processed (and that delivery's id), and per chain the range of
 * blocks (or Aptos ledger versions) the batches processed so far cover. Plain JSON: block numbers
 * are decimal strings. Store it in the same transaction as the effects of the batch that produced
 * it, so that the two never disagree.
 *
 * @since 0.3.0
 */
import { Schema } from "effect"
import { Decimal } from "./Decimal.js"
import { Missing } from "./Missing.js"

/** A covered-to: a decimal string, or `"-1"` (a chain covered from block 0, its whole range restated). */
const CoveredTo = Schema.String.check(
  Schema.isPattern(/^(-1|0|[1-9][0-9]*)$/, { message: "Expected a decimal string of digits (no sign, no leading zero), or -1" })
)

/**
 * The blocks of one chain covered so far: from `from` (the first block covered, where the chain
 * was first seen) to `to` (the covered-to), inclusive. Right after a reorganisation that restated
 * the whole range, `to` is `from - 1` (nothing covered yet; `"-1"` for a chain covered from 0).
 *
 * @example
 * ```ts
 * import type { ReceiverState } from "@chainquery/webhook-receiver"
 *
 * const covered: ReceiverState.Covered = { from: "118", to: "125" }
 * ```
 * @since 0.3.0
 */
export const Covered = Schema.Struct({ from: Decimal, to: CoveredTo }).check(
  Schema.makeFilter((covered) => BigInt(covered.from) <= BigInt(covered.to) + 1n || `from ${covered.from} is after to ${covered.to} + 1`)
)

/**
 * The type of {@link Covered}.
 *
 * @example
 * ```ts
 * import type { ReceiverState } from "@chainquery/webhook-receiver"
 *
 * const empty: ReceiverState.Covered = { from: "118", to: "117" }
 * ```
 * @since 0.3.0
 */
export type Covered = typeof Covered.Type

/**
 * One wallet's history, as its `phase: "history"` batches accounted for it: from `from` (its
 * `historyFrom`) to `to` (`from - 1` before the first range), and `until`, the block its live
 * events start at (its `coveredFrom`), once a batch announced it. Complete when `to` is
 * `until - 1` (see {@link historyComplete}).
 *
 * @example
 * ```ts
 * import type { ReceiverState } from "@chainquery/webhook-receiver"
 *
 * const history: ReceiverState.History = { from: "18000000", to: "18000099", until: "18000200" }
 * ```
 * @since 0.5.0
 */
export const History = Schema.Struct({ from: Decimal, to: CoveredTo, until: Schema.optionalKey(Decimal) })

/**
 * The type of {@link History}.
 *
 * @example
 * ```ts
 * import type { ReceiverState } from "@chainquery/webhook-receiver"
 *
 * const started: ReceiverState.History = { from: "18000000", to: "17999999" }
 * ```
 * @since 0.5.0
 */
export type History = typeof History.Type

/**
 * Whether a wallet's history is complete: every block from its `historyFrom` to the block before
 * its live events start was accounted for.
 *
 * @example
 * ```ts
 * import { ReceiverState } from "@chainquery/webhook-receiver"
 *
 * ReceiverState.historyComplete({ from: "100", to: "199", until: "200" }) // true
 * ReceiverState.historyComplete({ from: "100", to: "150", until: "200" }) // false
 * ```
 * @since 0.5.0
 */
export const historyComplete = (history: History): boolean => history.until !== undefined && BigInt(history.to) + 1n === BigInt(history.until)

/**
 * The receiver's state, as a Schema to decode what was stored (`Schema.decodeUnknownSync`) and
 * to encode it (it is already plain JSON).
 *
 * - `streamId`: the stream this receiver is bound to; `null` until the first batch.
 * - `sequence`: the last sequence processed; `0` before the first batch (the next expected is
 *   `sequence + 1`).
 * - `lastDeliveryId`: the `webhook-id` of that batch; `null` before the first.
 * - `coverage`: per scope (`"0x1"`, `"aptos:mainnet"`: see `Batch.scopeOf`), the blocks covered.
 * - `missing`: present only while something is missing: the sequences and blocks of the `Gap`s
 *   accepted anyway, until batches sent again fill them (see `Missing`). Absent: no hole.
 * - `history`: present once a wallet was added with its history: per wallet (by
 *   `Batch.walletKeyOf`), how far its history was accounted for (see {@link History}).
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { ReceiverState } from "@chainquery/webhook-receiver"
 *
 * declare const stored: string // what JSON.stringify(state) gave
 * const state = Schema.decodeUnknownSync(ReceiverState.ReceiverState)(JSON.parse(stored))
 * ```
 * @since 0.3.0
 */
export const ReceiverState = Schema.Struct({
  streamId: Schema.NullOr(Schema.NonEmptyString),
  sequence: Schema.Int.check(Schema.isGreaterThanOrEqualTo(0)),
  lastDeliveryId: Schema.NullOr(Schema.NonEmptyString),
  coverage: Schema.Record(Schema.String, Covered),
  missing: Schema.optionalKey(Missing),
  history: Schema.optionalKey(Schema.Record(Schema.String, History))
})

/**
 * The type of {@link ReceiverState}.
 *
 * @example
 * ```ts
 * import type { ReceiverState } from "@chainquery/webhook-receiver"
 *
 * const state: ReceiverState.ReceiverState = {
 *   streamId: "str_1",
 *   sequence: 12,
 *   lastDeliveryId: "msg_12",
 *   coverage: { "0x1": { from: "100", to: "125" }, "aptos:mainnet": { from: "1001", to: "1500" } }
 * }
 * ```
 * @since 0.3.0
 */
export type ReceiverState = typeof ReceiverState.Type

/**
 * The state of a receiver that has processed nothing yet: it expects sequence 1 and binds to the
 * first stream it receives a batch of.
 *
 * @example
 * ```ts
 * import { ReceiverState } from "@chainquery/webhook-receiver"
 *
 * ReceiverState.initial // { streamId: null, sequence: 0, lastDeliveryId: null, coverage: {} }
 * ```
 * @since 0.3.0
 */
export const initial: ReceiverState = { streamId: null, sequence: 0, lastDeliveryId: null, coverage: {} }

/**
 * The state as a JSON string, both ways: decode what was stored, encode what to store.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { ReceiverState } from "@chainquery/webhook-receiver"
 *
 * const text = Schema.encodeSync(ReceiverState.Json)(ReceiverState.initial)
 * const state = Schema.decodeUnknownSync(ReceiverState.Json)(text)
 * ```
 * @since 0.3.0
 */
export const Json = Schema.fromJsonString(ReceiverState)
