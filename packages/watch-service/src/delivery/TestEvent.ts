/**
 * A test event: a signed batch that carries no events, marked `test: true` with sequence 0, sent
 * at once to a stream's URL, outside the stream's order (nothing is stored, no sequence is used,
 * the receiver's state does not move). It checks what a real batch meets: the URL policy, the
 * signature with the stream's secrets (both while a rotation is in grace), the receiver's answer
 * within the delivery timeout. `POST …/test` answers its outcome; `verify: true` on create, update
 * and resume makes a stream active only once its receiver answered one with a 2xx.
 *
 * @since 0.5.0
 */
import { DateTime, Effect, Option } from "effect"
import { checkUrl } from "./AddressPolicy.js"
import { body } from "./DeliveryWorker.js"
import { ServiceConfig } from "../model/ServiceConfig.js"
import { newDeliveryId } from "../store/Outbox.js"
import type { Stream } from "../store/StreamStore.js"
import * as SignedRequest from "./SignedRequest.js"
import { errorOf } from "./WebhookSender.js"

/**
 * What came of a test event: its id (its `webhook-id`), when it went and how long the receiver
 * took, whether it answered 2xx, its status (`null`: no answer) and what went wrong (`null`: nothing).
 *
 * @example
 * ```ts
 * import type { TestEvent } from "@chainquery/watch-service"
 *
 * const verdict = (outcome: TestEvent.Outcome) => outcome.delivered ? "ok" : outcome.error
 * ```
 * @since 0.5.0
 */
export interface Outcome {
  readonly deliveryId: string
  readonly sentAt: DateTime.Utc
  readonly durationMillis: number
  readonly delivered: boolean
  readonly status: number | null
  readonly error: string | null
}

/**
 * Sends a test event to the stream's URL and answers what came of it (never fails: a refused URL,
 * a secret this runner cannot open, a timeout are outcomes with an `error`).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { StreamStore, TestEvent } from "@chainquery/watch-service"
 *
 * const check = (id: string) =>
 *   Effect.gen(function*() {
 *     const stream = yield* StreamStore.StreamStore.use((streams) => streams.get(id))
 *     return stream._tag === "Some" ? yield* TestEvent.send(stream.value) : undefined
 *   })
 * ```
 * @since 0.5.0
 */
export const send = Effect.fn("TestEvent.send")(function*(stream: Stream) {
  const config = yield* ServiceConfig
  const sentAt = yield* DateTime.now
  const deliveryId = newDeliveryId(DateTime.toEpochMillis(sentAt))
  yield* Effect.annotateCurrentSpan({ "stream.id": stream.id, "delivery.id": deliveryId })
  const failed = (error: string): Outcome => ({ deliveryId, sentAt, durationMillis: 0, delivered: false, status: null, error })
  const url = yield* Effect.result(checkUrl(stream.url, { allowPrivate: config.allowPrivateWebhooks }))
  if (url._tag === "Failure") return failed(`the URL is refused: ${url.failure.reason}`)
  const text = body({ streamId: stream.id, deliveryId, sequence: 0, test: true, events: [] })
  const sent = yield* SignedRequest.send({ streamId: stream.id, deliveryId, url: url.success, body: text }).pipe(
    Effect.catchTag("SecretsKeyError", (error) => Effect.succeed(error.message)),
    Effect.orDie
  )
  if (typeof sent === "string") return failed(`the stream's secret cannot be opened by this runner: ${sent}`)
  if (Option.isNone(sent)) return failed(`no stream ${stream.id}`)
  const { durationMillis, outcome, signedAt } = sent.value
  return {
    deliveryId,
    sentAt: DateTime.makeUnsafe(signedAt),
    durationMillis,
    delivered: outcome._tag === "Delivered",
    status: outcome._tag === "Delivered" || outcome._tag === "Rejected" ? outcome.status : null,
    error: errorOf(outcome)
  } satisfies Outcome
})
