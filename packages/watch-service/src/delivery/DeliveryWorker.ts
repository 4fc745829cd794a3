/**
 * Delivers one stream's webhooks: its pending deliveries one at a time, in sequence order (a batch
 * is not sent before the one before it succeeded or finally failed), each signed per Standard
 * Webhooks with the stream's secret and the same `webhook-id` on every attempt. The URL is checked
 * again before each attempt, and the connection refuses private addresses (DNS can change).
 *
 * - 2xx: delivered. 5xx, 408, 429, a timeout, a connection error: tried again on the schedule,
 *   then `failed` (kept, replayable). Another 4xx or a redirect (never followed): `failed` at once.
 * - 410 Gone: the stream goes to `error` ("the receiver answered 410 Gone"); the batch waits, as
 *   it is, for the stream to be resumed.
 * - Once a stream's last 100 attempts succeeded less than the minimum rate (70% by default), it
 *   goes to `error` with the rate; resuming it delivers what was held.
 * - A stream that starts failing is logged once (WARN), and once (INFO) when it delivers again.
 *
 * @since 0.2.0
 */
import { DateTime, Effect, Option, Schema } from "effect"
import type { SqlError } from "effect/sql"
import { checkUrl } from "./AddressPolicy.js"
import type { CoveredWallet, Range } from "../store/Coverage.js"
import type { WalletRange } from "../store/Outbox.js"
import { type Attempt, DeliveryStore, type Recorded } from "../store/DeliveryStore.js"
import { ServiceConfig } from "../model/ServiceConfig.js"
import { countAttempt } from "./ServiceMetrics.js"
import { StreamStore } from "../store/StreamStore.js"
import * as SignedRequest from "./SignedRequest.js"
import { errorOf, type SendOutcome } from "./WebhookSender.js"
import { WebhookBatch } from "./WebhookBatch.js"
import * as StreamFilters from "../model/StreamFilters.js"

/** A range as the batch has it: `chain`, `fromBlock`, `toBlock`; for Aptos `network`, `fromVersion`, `toVersion`. */
const rangeOf = (range: Range) =>
  range.scope.startsWith("aptos:")
    ? { network: range.scope.slice("aptos:".length), fromVersion: String(range.from), toVersion: String(range.to) }
    : { chain: range.scope, fromBlock: String(range.from), toBlock: String(range.to) }

/** A wallet as announced: its chain (or network), address, first covered block (or version) and, with its history, where that starts. */
const walletOf = (wallet: CoveredWallet) => {
  const history = wallet.historyFrom === undefined ? {} : { historyFrom: String(wallet.historyFrom) }
  return wallet.scope.startsWith("aptos:")
    ? { network: wallet.scope.slice("aptos:".length), address: wallet.address, coveredFrom: String(wallet.coveredFrom), ...history }
    : { chain: wallet.scope, address: wallet.address, coveredFrom: String(wallet.coveredFrom), ...history }
}

/** A wallet's history range as the batch has it: `chain`, `address`, `fromBlock`, `toBlock` (Aptos: `network`, versions). */
const historyOf = (range: WalletRange) =>
  range.scope.startsWith("aptos:")
    ? { network: range.scope.slice("aptos:".length), address: range.address, fromVersion: String(range.from), toVersion: String(range.to) }
    : { chain: range.scope, address: range.address, fromBlock: String(range.from), toBlock: String(range.to) }

const encodeBatch = Schema.encodeSync(WebhookBatch)
const emptyEvents = '"events":[]}'

/**
 * The JSON body of a webhook: the stream, the delivery, its place in the stream's order (gapless
 * per stream), whether it is a replay (or a batch sent again as it was) or a heartbeat, the ranges of blocks it states again (a
 * reorganisation) and those it covers, the wallets added since the batch before, and the events,
 * each exactly as the CLI writes it as NDJSON. Written by encoding the contract's schema
 * (`WebhookBatch`, the receiver kit's); the events, encoded by `WatchEvent.toJson` when they were
 * stored, go in as they are. Blocks and versions are decimal strings.
 *
 * @example
 * ```ts
 * import { DeliveryWorker } from "@chainquery/watch-service"
 *
 * DeliveryWorker.body({
 *   streamId: "str_1", deliveryId: "msg_1", sequence: 1, events: ['{"kind":"nft.received"}'],
 *   coverage: [{ scope: "0x1", from: 101n, to: 120n }]
 * })
 * // '{"streamId":"str_1","deliveryId":"msg_1","sequence":1,"replay":false,"heartbeat":false,"test":false,"phase":"live","replaces":[],
 * //   "coverage":[{"chain":"0x1","fromBlock":"101","toBlock":"120"}],"wallets":[],"history":[],"filters":null,"events":[{"kind":"nft.received"}]}'
 * ```
 * @since 0.2.0
 */
export const body = (delivery: {
  readonly streamId: string
  readonly deliveryId: string
  readonly sequence: number
  readonly replay?: boolean | undefined
  /** How many times the batch was sent again as it was (`Resend`): if any, it says `replay` too. */
  readonly resends?: number | undefined
  readonly heartbeat?: boolean | undefined
  readonly replaces?: ReadonlyArray<Range> | undefined
  readonly coverage?: ReadonlyArray<Range> | undefined
  readonly wallets?: ReadonlyArray<CoveredWallet> | undefined
  readonly phase?: "live" | "history" | undefined
  readonly history?: ReadonlyArray<WalletRange> | undefined
  /** A test event (`POST …/test`, `verify`): sequence 0, outside the stream's order, no events. */
  readonly test?: boolean | undefined
  /** The stream's content filter, in the first batch made after it changed (`null` otherwise). */
  readonly filters?: StreamFilters.Filters | null | undefined
  readonly events: ReadonlyArray<string>
}): string => {
  const envelope = JSON.stringify(encodeBatch({
    streamId: delivery.streamId,
    deliveryId: delivery.deliveryId,
    sequence: delivery.sequence,
    replay: delivery.replay === true || (delivery.resends ?? 0) > 0,
    heartbeat: delivery.heartbeat === true,
    test: delivery.test === true,
    phase: delivery.phase ?? "live",
    replaces: (delivery.replaces ?? []).map(rangeOf),
    coverage: (delivery.coverage ?? []).map(rangeOf),
    wallets: (delivery.wallets ?? []).map(walletOf),
    history: (delivery.history ?? []).map(historyOf),
    filters: delivery.filters === undefined || delivery.filters === null ? null : StreamFilters.toJson(delivery.filters),
    events: []
  }))
  // `events` is the schema's last field: the envelope ends with `"events":[]}`.
  if (!envelope.endsWith(emptyEvents)) throw new Error(`the webhook batch's schema does not end with its events: ${envelope.slice(-40)}`)
  return `${envelope.slice(0, -"]}".length)}${delivery.events.join(",")}]}`
}

/** What an outcome means for the delivery. */
const attemptOf = (outcome: SendOutcome): Attempt => {
  switch (outcome._tag) {
    case "Delivered":
      return { result: "delivered", status: outcome.status, error: null }
    case "Rejected":
      return { result: outcome.gone ? "held" : outcome.retryable ? "retry" : "failed", status: outcome.status, error: errorOf(outcome) }
    case "TimedOut":
    case "Unreachable":
      return { result: "retry", status: null, error: errorOf(outcome) }
  }
}

/** What a request sent means for the delivery, with how long it took. */
const timedAttemptOf = (sent: SignedRequest.Sent): Attempt => ({ ...attemptOf(sent.outcome), durationMs: sent.durationMillis })

/**
 * One line when a stream's deliveries turn: a WARN when an attempt fails after one that did not
 * (the error, and when the next attempt is), an INFO when one succeeds after one that failed; none
 * per attempt in between. The turn is read from the stream's attempt before, in the database, so
 * that a restart or another runner of the cluster taking the stream over neither repeats nor misses
 * it. A 410 has its own line.
 */
const logTurn = (streamId: string, sequence: number, attempt: Attempt, recorded: Recorded): Effect.Effect<void> => {
  if (attempt.result === "delivered") {
    return recorded.afterFailure ? Effect.logInfo(`stream ${streamId}: webhooks delivered again (batch ${sequence} taken by the receiver)`) : Effect.void
  }
  if (attempt.result === "held" || recorded.afterFailure) return Effect.void
  const next = recorded.nextAttemptAt === null
    ? "not retried (failed, replayable), the next batch goes now"
    : `next attempt at ${DateTime.formatIso(recorded.nextAttemptAt)}`
  return Effect.logWarning(`stream ${streamId}: webhook delivery failing (batch ${sequence}: ${attempt.error ?? "failed"}); ${next}`)
}

/** Percent, for messages. */
const percent = (rate: number): string => `${Math.round(rate * 1000) / 10}%`

/**
 * Sends the stream's due deliveries until none is due, one fails, or the stream is not active.
 * Safe to run again at any time (it is what waking a stream does); run it for one stream at a
 * time (the stream's cluster entity does).
 *
 * @example
 * ```ts
 * import { DeliveryWorker } from "@chainquery/watch-service"
 *
 * const drain = DeliveryWorker.deliverDue("str_0mwxp89sc8710d9595292")
 * ```
 * @since 0.2.0
 */
export const deliverDue = (
  streamId: string
): Effect.Effect<void, SqlError.SqlError, StreamStore | DeliveryStore | ServiceConfig> =>
  Effect.gen(function*() {
    const streams = yield* StreamStore
    const deliveries = yield* DeliveryStore
    const config = yield* ServiceConfig
    while (true) {
      const stream = yield* streams.get(streamId)
      if (Option.isNone(stream) || stream.value.status !== "active") return
      const next = yield* deliveries.next(streamId)
      if (Option.isNone(next)) return
      const { bodies, delivery, due } = next.value
      if (!due) return
      const url = yield* Effect.result(checkUrl(stream.value.url, { allowPrivate: config.allowPrivateWebhooks }))
      // Sent as `SignedRequest` sends: in a slot, signed with the secrets of that moment (a rotation
      // applies from the next attempt on). A secret this runner cannot open is not signed with: the
      // batches wait.
      const attempt: Attempt | undefined = yield* (url._tag === "Failure"
        ? Effect.succeed<Attempt>({ result: "retry", status: null, error: `the URL is refused: ${url.failure.reason}` })
        : Effect.gen(function*() {
          let text: string
          try {
            text = body({ ...delivery, streamId, deliveryId: delivery.id, events: bodies })
          } catch (error) {
            // A batch the contract's schema refuses (a bug of ours): failed, kept, and said; the next goes.
            const reason = `the batch breaks the webhook contract: ${error instanceof Error ? error.message : String(error)}`
            yield* Effect.logError(`stream ${streamId}: batch ${delivery.sequence} not sent: ${reason}`)
            return { result: "failed", status: null, error: reason } satisfies Attempt
          }
          const sent = yield* SignedRequest.send({ streamId, deliveryId: delivery.id, url: url.success, body: text })
          return Option.isNone(sent) ? undefined : timedAttemptOf(sent.value)
        })).pipe(
          Effect.catchTag("SecretsKeyError", (error) =>
            Effect.logError(`stream ${streamId}: not delivered: ${error.message}`).pipe(Effect.as(undefined))),
          // One span an attempt, with what an operator looks for: the stream, the batch, the outcome.
          Effect.tap((made) =>
            made === undefined ? Effect.void : Effect.annotateCurrentSpan(
              made.status === null
                ? { "delivery.result": made.result }
                : { "delivery.result": made.result, "http.response.status_code": made.status }
            )
          ),
          Effect.withSpan("DeliveryWorker.attempt", {
            attributes: { "stream.id": streamId, "delivery.id": delivery.id, "delivery.sequence": delivery.sequence, "delivery.events": bodies.length }
          })
        )
      if (attempt === undefined) return
      // Counted before it is recorded: once the outbox shows it done, /metrics counts it.
      yield* countAttempt(attempt.result)
      const recorded = yield* deliveries.record(delivery, attempt, config.retrySchedule)
      yield* logTurn(streamId, delivery.sequence, attempt, recorded)
      if (attempt.result === "delivered") continue
      if (attempt.result === "held") {
        yield* streams.setStatus(streamId, "error", "the receiver answered 410 Gone: resume the stream once it takes webhooks again", "active")
        yield* Effect.logWarning(`stream ${streamId}: the receiver answered 410 Gone; the stream is in error until resumed`)
        return
      }
      if (config.minSuccessRate > 0) {
        const rate = yield* deliveries.successRate(streamId)
        if (Option.isSome(rate) && rate.value < config.minSuccessRate) {
          const reason = `${percent(rate.value)} of the last 100 attempts succeeded (under ${percent(config.minSuccessRate)}): resume the stream once the receiver is fixed`
          yield* streams.setStatus(streamId, "error", reason, "active")
          yield* Effect.logWarning(`stream ${streamId}: ${reason}`)
        }
      }
      // A batch that failed for good (its retries spent too) is kept (replayable) and the next one
      // goes; one to retry waits.
      if (recorded.nextAttemptAt !== null) return
    }
  }).pipe(Effect.withSpan("DeliveryWorker.deliverDue", { attributes: { "stream.id": streamId } }))
