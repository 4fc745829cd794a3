/**
 * `WebhookReceiver`: `Receive.receive` as an Effect service, with the secret and the tolerance
 * given once to its layer (and checked there) and the time read from the `Clock` (so `TestClock`
 * drives it in tests).
 *
 * @since 0.3.0
 */
import { Context, Effect, Layer } from "effect"
import { check, checkTolerance, clockSeconds } from "./internal/receiving.js"
import * as Signature from "./Signature.js"
import type { Body, HeadersInput, Received } from "./Receive.js"
import type { ReceiverState } from "./ReceiverState.js"
import type { InvalidConfig, RequestError } from "./ReceiveError.js"

/**
 * One request to receive: its headers and raw body, and the state stored after the last batch
 * processed (`ReceiverState.initial` at first).
 *
 * @example
 * ```ts
 * import { ReceiverState, type WebhookReceiver } from "@chainquery/webhook-receiver"
 *
 * declare const body: string
 * const request: WebhookReceiver.Request = { headers: { "webhook-id": "msg_1" }, body, state: ReceiverState.initial }
 * ```
 * @since 0.3.0
 */
export interface Request {
  readonly headers: HeadersInput
  readonly body: Body
  readonly state: ReceiverState
}

/**
 * The service: `receive` checks one request as `Receive.receive` does and succeeds with the batch
 * and the state to store after it, or fails with the first problem.
 *
 * @example
 * ```ts
 * import type { WebhookReceiver } from "@chainquery/webhook-receiver"
 *
 * declare const receiver: WebhookReceiver.Service
 * declare const request: WebhookReceiver.Request
 * const received = receiver.receive(request) // Effect<Received, RequestError>
 * ```
 * @since 0.3.0
 */
export interface Service {
  readonly receive: (request: Request) => Effect.Effect<Received, RequestError>
}

/**
 * The service's tag.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { WebhookReceiver } from "@chainquery/webhook-receiver"
 *
 * declare const request: WebhookReceiver.Request
 * const program = Effect.gen(function*() {
 *   const receiver = yield* WebhookReceiver.WebhookReceiver
 *   return yield* receiver.receive(request)
 * })
 * ```
 * @since 0.3.0
 */
export class WebhookReceiver extends Context.Service<WebhookReceiver, Service>()("@chainquery/webhook-receiver/WebhookReceiver") {}

/**
 * The settings of a receiver: the stream's `secret` (`whsec_<base64>`; a list of them while it is
 * being rotated: the new one and the old) and how far a request's
 * timestamp may be from now, either way (`toleranceSeconds`, default 300).
 *
 * @example
 * ```ts
 * import { Redacted } from "effect"
 * import type { WebhookReceiver } from "@chainquery/webhook-receiver"
 *
 * const options: WebhookReceiver.Options = { secret: Redacted.make("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"), toleranceSeconds: 60 }
 * ```
 * @since 0.3.0
 */
export interface Options {
  readonly secret: Signature.Secrets
  readonly toleranceSeconds?: number | undefined
}

/**
 * Makes the service, checking the settings once: a secret that is not base64 or a negative
 * tolerance fails with `InvalidConfig`.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { WebhookReceiver } from "@chainquery/webhook-receiver"
 *
 * const receiver = WebhookReceiver.make({ secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw" }) // Effect<Service, InvalidConfig>
 * ```
 * @since 0.3.0
 */
export const make = Effect.fnUntraced(function*(options: Options): Effect.fn.Return<Service, InvalidConfig> {
  const key = yield* Effect.fromResult(Signature.keysOf(options.secret))
  const toleranceSeconds = yield* Effect.fromResult(checkTolerance(options.toleranceSeconds))
  return WebhookReceiver.of({
    receive: (request) =>
      Effect.flatMap(clockSeconds, (now) => Effect.fromResult(check(key, toleranceSeconds, { ...request, now })))
  })
})

/**
 * The service's layer; it fails to build with `InvalidConfig` on an unusable secret or
 * tolerance.
 *
 * @example
 * ```ts
 * import { Effect, Redacted } from "effect"
 * import { ReceiverState, WebhookReceiver } from "@chainquery/webhook-receiver"
 *
 * declare const request: { headers: Record<string, string>; body: string }
 * const program = Effect.gen(function*() {
 *   const receiver = yield* WebhookReceiver.WebhookReceiver
 *   const { batch, state } = yield* receiver.receive({ ...request, state: ReceiverState.initial })
 *   return { events: batch.events.length, state }
 * }).pipe(Effect.provide(WebhookReceiver.layer({ secret: Redacted.make("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw") })))
 * ```
 * @since 0.3.0
 */
export const layer = (options: Options): Layer.Layer<WebhookReceiver, InvalidConfig> => Layer.effect(WebhookReceiver, make(options))
