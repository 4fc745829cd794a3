/**
 * Why a webhook was not accepted as the next batch, in the order the checks run: the receiver's
 * own settings (`InvalidConfig`), the request's signature (`InvalidSignature`, `StaleTimestamp`),
 * the body (`MalformedBatch`), then its place in the stream (`WrongStream`, `AlreadyProcessed`,
 * `Gap`, `Overlap`). No message ever contains the secret or a signature.
 *
 * @since 0.3.0
 */
import { Schema } from "effect"
import { Batch } from "./Batch.js"
import * as Missing from "./Missing.js"
import { ReceiverState } from "./ReceiverState.js"

/**
 * A setting of the receiver is unusable: the `secret` is not `whsec_<base64>` (or plain base64)
 * of at least one byte, `toleranceSeconds` is not a non-negative number, or `now` is not a unix
 * time in seconds. Nothing can be checked: answer 500 and fix the configuration.
 *
 * @example
 * ```ts
 * import { ReceiveError } from "@chainquery/webhook-receiver"
 *
 * new ReceiveError.InvalidConfig({ setting: "secret", message: "the webhook secret is not of the form whsec_<base64>" })
 * ```
 * @since 0.3.0
 */
export class InvalidConfig extends Schema.TaggedError<InvalidConfig>()("InvalidConfig", {
  setting: Schema.Literals(["secret", "toleranceSeconds", "now"]),
  message: Schema.String
}) {}

/**
 * The request is not signed by the holder of the secret: a header is missing (`missing-header`)
 * or malformed (`malformed-header`), the `webhook-timestamp` is not unix seconds
 * (`bad-timestamp`), or no `v1` signature matches the id, timestamp and body (`mismatch`: a
 * tampered body, another secret). Answer 401.
 *
 * @example
 * ```ts
 * import { ReceiveError } from "@chainquery/webhook-receiver"
 *
 * new ReceiveError.InvalidSignature({ reason: "mismatch", message: "no v1 signature of the webhook-signature header matches" })
 * ```
 * @since 0.3.0
 */
export class InvalidSignature extends Schema.TaggedError<InvalidSignature>()("InvalidSignature", {
  reason: Schema.Literals(["missing-header", "malformed-header", "bad-timestamp", "mismatch"]),
  message: Schema.String
}) {}

/**
 * The request's `webhook-timestamp` is further from now than the tolerance: older (`ageSeconds`
 * positive, a replayed request) or in the future (`ageSeconds` negative, a clock far off).
 * Answer 401; a genuine delivery is retried with a fresh timestamp.
 *
 * @example
 * ```ts
 * import { ReceiveError } from "@chainquery/webhook-receiver"
 *
 * new ReceiveError.StaleTimestamp({
 *   timestamp: 1_700_000_000,
 *   now: 1_700_000_400,
 *   ageSeconds: 400,
 *   toleranceSeconds: 300,
 *   message: "the request is 400 s old, more than the 300 s tolerated"
 * })
 * ```
 * @since 0.3.0
 */
export class StaleTimestamp extends Schema.TaggedError<StaleTimestamp>()("StaleTimestamp", {
  timestamp: Schema.Int,
  now: Schema.Int,
  ageSeconds: Schema.Int,
  toleranceSeconds: Schema.Finite,
  message: Schema.String
}) {}

/**
 * The body, though signed, is not a batch: not UTF-8 or not JSON (`field` is `"body"`), not the
 * shape of a batch (`field` is the path of the first problem, e.g. `"coverage[1].toBlock"`), or
 * its `deliveryId` is not the `webhook-id` header (`field` is `"deliveryId"`). Answer 400.
 *
 * @example
 * ```ts
 * import { ReceiveError } from "@chainquery/webhook-receiver"
 *
 * new ReceiveError.MalformedBatch({ field: "sequence", message: "the batch's sequence is invalid: Expected an integer" })
 * ```
 * @since 0.3.0
 */
export class MalformedBatch extends Schema.TaggedError<MalformedBatch>()("MalformedBatch", {
  field: Schema.String,
  message: Schema.String
}) {}

/**
 * The batch belongs to another stream than the one the state is bound to.
 *
 * @example
 * ```ts
 * import { ReceiveError } from "@chainquery/webhook-receiver"
 *
 * new ReceiveError.WrongStream({
 *   expectedStreamId: "str_a",
 *   streamId: "str_b",
 *   deliveryId: "msg_1",
 *   message: "delivery msg_1 belongs to stream str_b, not to str_a"
 * })
 * ```
 * @since 0.3.0
 */
export class WrongStream extends Schema.TaggedError<WrongStream>()("WrongStream", {
  expectedStreamId: Schema.String,
  streamId: Schema.String,
  deliveryId: Schema.String,
  message: Schema.String
}) {}

/**
 * The batch was processed already: a retry of a delivery whose answer was lost, or an old one
 * sent again (`sequence` is at most `lastSequence`, or `deliveryId` is the last one processed).
 * Answer 2xx and do nothing.
 *
 * @example
 * ```ts
 * import { ReceiveError } from "@chainquery/webhook-receiver"
 *
 * new ReceiveError.AlreadyProcessed({
 *   deliveryId: "msg_7",
 *   sequence: 7,
 *   lastSequence: 9,
 *   message: "delivery msg_7 (sequence 7) was processed already: the last one processed is sequence 9"
 * })
 * ```
 * @since 0.3.0
 */
export class AlreadyProcessed extends Schema.TaggedError<AlreadyProcessed>()("AlreadyProcessed", {
  deliveryId: Schema.String,
  sequence: Schema.Int,
  lastSequence: Schema.Int,
  message: Schema.String
}) {}

/**
 * Sequences `from` to `to`, inclusive (`Missing.Sequences`).
 *
 * @example
 * ```ts
 * import type { ReceiveError } from "@chainquery/webhook-receiver"
 *
 * const missing: ReceiveError.Sequences = { from: 3, to: 4 }
 * ```
 * @since 0.3.0
 */
export const Sequences = Missing.Sequences

/**
 * The type of {@link Sequences}.
 *
 * @example
 * ```ts
 * import type { ReceiveError } from "@chainquery/webhook-receiver"
 *
 * declare const missing: ReceiveError.Sequences
 * const count = missing.to - missing.from + 1
 * ```
 * @since 0.3.0
 */
export type Sequences = Missing.Sequences

/**
 * Blocks (or Aptos ledger versions) `from` to `to`, inclusive, of the chain named by `scope`
 * (`Missing.Blocks`).
 *
 * @example
 * ```ts
 * import type { ReceiveError } from "@chainquery/webhook-receiver"
 *
 * const missing: ReceiveError.Blocks = { scope: "0x1", from: "126", to: "130" }
 * ```
 * @since 0.3.0
 */
export const Blocks = Missing.Blocks

/**
 * The type of {@link Blocks}.
 *
 * @example
 * ```ts
 * import type { ReceiveError } from "@chainquery/webhook-receiver"
 *
 * declare const missing: ReceiveError.Blocks
 * const count = BigInt(missing.to) - BigInt(missing.from) + 1n
 * ```
 * @since 0.3.0
 */
export type Blocks = Missing.Blocks

/**
 * Something is missing before this batch: deliveries (`missingSequences`, `null` when the
 * sequence follows on), blocks of one or more chains (`missingBlocks`: a coverage range that
 * starts after the covered-to + 1, or a `replaces` that ends after it) and/or blocks of a wallet's
 * history (`missingHistory`: a history range that starts after the wallet's last + 1). `overlaps` lists
 * the blocks the batch also covers twice, if any (see {@link Overlap}). The batch is verified and
 * decoded (`batch`), and `state` is the state to store if you accept it anyway: log the gap,
 * process the batch, store `state`, answer 2xx and ask for a replay of what is missing.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import type { ReceiveError } from "@chainquery/webhook-receiver"
 *
 * const acceptAnyway = (gap: ReceiveError.Gap) =>
 *   Effect.logWarning(gap.message).pipe(Effect.as({ batch: gap.batch, state: gap.state }))
 * ```
 * @since 0.3.0
 */
export class Gap extends Schema.TaggedError<Gap>()("Gap", {
  missingSequences: Schema.NullOr(Sequences),
  missingBlocks: Schema.Array(Blocks),
  /** Of wallets added with their history: the blocks of it no batch accounted for (since 0.5.0). */
  missingHistory: Schema.Array(Missing.WalletBlocks),
  overlaps: Schema.Array(Blocks),
  batch: Batch,
  state: ReceiverState,
  message: Schema.String
}) {}

/**
 * The batch covers blocks already covered, with no `replaces` that restates them: a coverage
 * range starting at or before the covered-to, a `replaces` that does not end at the covered-to
 * or starts before the chain's first covered block, or a `replaces` of a chain never covered.
 * `overlaps` names each chain and the blocks concerned. Its events may repeat ones you have:
 * refuse it (409) and investigate, or, if your processing is idempotent by event `id`, accept
 * `batch` and store `state` as for a {@link Gap}.
 *
 * @example
 * ```ts
 * import type { ReceiveError } from "@chainquery/webhook-receiver"
 *
 * declare const overlap: ReceiveError.Overlap
 * const chains = overlap.overlaps.map((blocks) => `${blocks.scope} ${blocks.from}..${blocks.to}`)
 * ```
 * @since 0.3.0
 */
export class Overlap extends Schema.TaggedError<Overlap>()("Overlap", {
  overlaps: Schema.Array(Blocks),
  batch: Batch,
  state: ReceiverState,
  message: Schema.String
}) {}

/**
 * Every way a webhook can fail to be the next batch.
 *
 * @example
 * ```ts
 * import type { ReceiveError } from "@chainquery/webhook-receiver"
 *
 * const status = (error: ReceiveError.ReceiveError): number => {
 *   switch (error._tag) {
 *     case "AlreadyProcessed": return 200
 *     case "InvalidSignature":
 *     case "StaleTimestamp": return 401
 *     case "InvalidConfig": return 500
 *     default: return 400
 *   }
 * }
 * ```
 * @since 0.3.0
 */
export type ReceiveError =
  | InvalidConfig
  | InvalidSignature
  | StaleTimestamp
  | MalformedBatch
  | WrongStream
  | AlreadyProcessed
  | Gap
  | Overlap

/**
 * The errors of a request to a receiver whose settings were checked already (the
 * `WebhookReceiver` service): every {@link ReceiveError} but {@link InvalidConfig}.
 *
 * @example
 * ```ts
 * import type { ReceiveError } from "@chainquery/webhook-receiver"
 *
 * declare const error: ReceiveError.RequestError
 * const unauthorised = error._tag === "InvalidSignature" || error._tag === "StaleTimestamp"
 * ```
 * @since 0.3.0
 */
export type RequestError = Exclude<ReceiveError, InvalidConfig>
