/**
 * One request of a stream as it goes out, for its batches and its test events alike: in a slot of
 * the runner's (`DeliverySlots`), signed with the stream's secrets of that moment (the new one and
 * the one before while a rotation's grace lasts, see `StreamStore.signingSecrets`) and the time it
 * goes (not when it started waiting for a slot), then posted (`WebhookSender.post`), the slot held
 * for as long as the receiver takes to answer.
 *
 * @since 0.5.0
 */
import { Clock, Effect, Option } from "effect"
import type { SqlError } from "effect/sql"
import { inSlot } from "./DeliverySlots.js"
import { ServiceConfig } from "../model/ServiceConfig.js"
import type { SecretsKeyError } from "../store/StreamSecrets.js"
import { StreamStore } from "../store/StreamStore.js"
import { post, type SendOutcome } from "./WebhookSender.js"
import { headers } from "./WebhookSignature.js"

/**
 * What came of a request sent: the receiver's outcome, when it was signed (epoch milliseconds) and
 * how long the answer took.
 *
 * @example
 * ```ts
 * import type { SignedRequest } from "@chainquery/watch-service"
 *
 * const slow = (sent: SignedRequest.Sent) => sent.durationMillis > 5_000
 * ```
 * @since 0.5.0
 */
export interface Sent {
  readonly outcome: SendOutcome
  readonly signedAt: number
  readonly durationMillis: number
}

/**
 * Sends `body` to `url` as the stream's request `deliveryId`; `None` when the stream is gone. A
 * secret this runner cannot open (it has no key, or another, than the runner that encrypted it)
 * fails with `SecretsKeyError`, and nothing is sent.
 *
 * @example
 * ```ts
 * import { SignedRequest } from "@chainquery/watch-service"
 *
 * const sent = SignedRequest.send({
 *   streamId: "str_0mwxp89sc8710d9595292",
 *   deliveryId: "msg_0mwxp89sc0123456789abcd",
 *   url: new URL("https://example.com/hook"),
 *   body: "{}"
 * })
 * ```
 * @since 0.5.0
 */
export const send = (request: {
  readonly streamId: string
  readonly deliveryId: string
  readonly url: URL
  readonly body: string
}): Effect.Effect<Option.Option<Sent>, SecretsKeyError | SqlError.SqlError, StreamStore | ServiceConfig> =>
  inSlot(Effect.gen(function*() {
    const config = yield* ServiceConfig
    const secrets = yield* (yield* StreamStore).signingSecrets(request.streamId)
    if (Option.isNone(secrets)) return Option.none()
    const signedAt = yield* Clock.currentTimeMillis
    const signed = yield* headers({ secret: secrets.value, id: request.deliveryId, timestamp: Math.floor(signedAt / 1000), body: request.body }).pipe(
      Effect.orDie
    )
    const outcome = yield* post({ url: request.url, headers: signed, body: request.body, timeout: config.deliveryTimeout, allowPrivate: config.allowPrivateWebhooks })
    return Option.some({ outcome, signedAt, durationMillis: (yield* Clock.currentTimeMillis) - signedAt })
  }))
