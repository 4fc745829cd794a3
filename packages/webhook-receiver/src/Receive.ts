/**
 * Receiving one webhook: the signature (Standard Webhooks, HMAC-SHA256, constant-time), the
 * timestamp's age, the body as a batch, and the batch's place in the stream against the state
 * you stored. The result is the batch with the state to store once you have processed it, or the
 * first problem found as a typed error (see `ReceiveError`). `receive` is the Effect;
 * `receivePromise` the same for code that does not use Effect.
 *
 * @since 0.3.0
 */
import { Effect } from "effect"
import type { Batch } from "./Batch.js"
import { check, checkTolerance, clockSeconds } from "./internal/receiving.js"
import * as Signature from "./Signature.js"
import type { Missing } from "./Missing.js"
import type { ReceiverState } from "./ReceiverState.js"
import { InvalidConfig, type ReceiveError } from "./ReceiveError.js"

/**
 * The stream's secret, `whsec_<base64>` (the prefix is optional), as a `Redacted` or a string.
 *
 * @example
 * ```ts
 * import { Redacted } from "effect"
 * import type { Receive } from "@chainquery/webhook-receiver"
 *
 * const secret: Receive.Secret = Redacted.make(process.env.WEBHOOK_SECRET ?? "")
 * ```
 * @since 0.3.0
 */
export type Secret = Signature.Secret

/**
 * The request's headers: Node's `IncomingHttpHeaders` as they are (`request.headers`), any
 * record of names to values, or a fetch `Headers` (anything with `get(name)`). Names are matched
 * whatever their case.
 *
 * @example
 * ```ts
 * import type { IncomingMessage } from "node:http"
 * import type { Receive } from "@chainquery/webhook-receiver"
 *
 * declare const request: IncomingMessage
 * const headers: Receive.HeadersInput = request.headers
 * ```
 * @since 0.3.0
 */
export type HeadersInput = Signature.HeadersInput

/**
 * The raw body, exactly as received: the signature covers its bytes, so do not parse and
 * re-serialise it first.
 *
 * @example
 * ```ts
 * import type { Receive } from "@chainquery/webhook-receiver"
 *
 * declare const chunks: Array<Buffer>
 * const body: Receive.Body = Buffer.concat(chunks)
 * ```
 * @since 0.3.0
 */
export type Body = Signature.Body

/**
 * What `receive` takes: the request (`headers`, `body`), the `secret` (or, while the stream's
 * secret is being rotated, a list of secrets, any of which may have signed it), the `state` stored after
 * the last batch processed (`ReceiverState.initial` at first), and optionally
 * `toleranceSeconds` (how far the `webhook-timestamp` may be from now, either way; default 300)
 * and `now` (unix seconds; default the `Clock`'s).
 *
 * @example
 * ```ts
 * import { ReceiverState, type Receive } from "@chainquery/webhook-receiver"
 *
 * declare const request: { headers: Receive.HeadersInput; body: Buffer }
 * const options: Receive.Options = {
 *   headers: request.headers,
 *   body: request.body,
 *   secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
 *   state: ReceiverState.initial
 * }
 * ```
 * @since 0.3.0
 */
export interface Options {
  readonly headers: HeadersInput
  readonly body: Body
  readonly secret: Signature.Secrets
  readonly state: ReceiverState
  readonly toleranceSeconds?: number | undefined
  readonly now?: number | undefined
}

/**
 * A webhook accepted: the verified, decoded `batch`, and the `state` to store once it is
 * processed (in the same transaction as its effects, ideally). Either the next batch, or a batch
 * sent again (`POST …/replay` by sequence or blocks) that fills holes the state had (`missing`):
 * then `healed` says which sequences and blocks it filled, and the state lacks them no more; or a
 * test event (`test: true`, from `POST …/test` or `verify`): no events, and the state as it was.
 *
 * @example
 * ```ts
 * import type { Receive } from "@chainquery/webhook-receiver"
 *
 * declare const received: Receive.Received
 * const next = received.state.sequence + 1 // the sequence expected next
 * const healing = received.healed !== undefined // a lost batch, come back
 * const testing = received.test === true // a test event: answer 2xx, nothing to process
 * ```
 * @since 0.3.0
 */
export interface Received {
  readonly batch: Batch
  readonly state: ReceiverState
  /** What a batch sent again filled (since 0.5.0); absent for the next batch. */
  readonly healed?: Missing | undefined
  /** `true` for a test event (since 0.5.0): its `state` is the one given, unchanged. */
  readonly test?: true | undefined
}

/**
 * What `receivePromise` resolves to: `{ ok: true, batch, state }` for the next batch (with
 * `healed` for a batch sent again that filled holes, `test` for a test event), or `{ ok: false, error }`, `error` being one
 * of `ReceiveError.ReceiveError` (tell them apart by `error._tag`).
 *
 * @example
 * ```ts
 * import type { Receive } from "@chainquery/webhook-receiver"
 *
 * declare const result: Receive.Result
 * const status = result.ok || result.error._tag === "AlreadyProcessed" ? 200 : 400
 * ```
 * @since 0.3.0
 */
export type Result =
  | {
    readonly ok: true
    readonly batch: Batch
    readonly state: ReceiverState
    readonly healed?: Missing | undefined
    readonly test?: true | undefined
  }
  | { readonly ok: false; readonly error: ReceiveError }

/**
 * Receives one webhook: checks the settings, the headers, the timestamp (within
 * `toleranceSeconds` of `now`), the signature, the body, the stream, the sequence and the
 * coverage, in that order, and succeeds with the batch and the next state, or fails with the
 * first problem (see `ReceiveError`). Nothing is stored: store `state` yourself once the batch
 * is processed.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Receive, ReceiverState } from "@chainquery/webhook-receiver"
 *
 * declare const request: { headers: Receive.HeadersInput; body: string }
 * const program = Receive.receive({
 *   headers: request.headers,
 *   body: request.body,
 *   secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
 *   state: ReceiverState.initial
 * }).pipe(
 *   Effect.catchTag("Gap", (gap) => Effect.logWarning(gap.message).pipe(Effect.as({ batch: gap.batch, state: gap.state })))
 * )
 * ```
 * @since 0.3.0
 */
export const receive = Effect.fnUntraced(function*(options: Options): Effect.fn.Return<Received, ReceiveError> {
  const key = yield* Effect.fromResult(Signature.keysOf(options.secret))
  const toleranceSeconds = yield* Effect.fromResult(checkTolerance(options.toleranceSeconds))
  const now = options.now ?? (yield* clockSeconds)
  if (!Number.isSafeInteger(now) || now < 0) {
    return yield* new InvalidConfig({ setting: "now", message: `now must be a unix time in whole seconds, not ${now}` })
  }
  return yield* Effect.fromResult(check(key, toleranceSeconds, { headers: options.headers, body: options.body, state: options.state, now }))
})

/**
 * `receive` for code that does not use Effect: resolves to `{ ok: true, batch, state }` or
 * `{ ok: false, error }` (it rejects only on a defect, a bug). `now` defaults to the system clock, in seconds.
 *
 * @example
 * ```ts
 * import { createServer } from "node:http"
 * import { Receive, ReceiverState } from "@chainquery/webhook-receiver"
 *
 * let state = ReceiverState.initial
 * createServer(async (request, response) => {
 *   const chunks: Array<Buffer> = []
 *   for await (const chunk of request) chunks.push(chunk as Buffer)
 *   const result = await Receive.receivePromise({ headers: request.headers, body: Buffer.concat(chunks), secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", state })
 *   if (result.ok) state = result.state // after processing result.batch.events
 *   response.writeHead(result.ok || result.error._tag === "AlreadyProcessed" ? 200 : 400).end()
 * })
 * ```
 * @since 0.3.0
 */
export const receivePromise = (options: Options): Promise<Result> =>
  Effect.runPromise(
    receive(options).pipe(
      Effect.match({
        onFailure: (error): Result => ({ ok: false, error }),
        onSuccess: (received): Result => ({ ok: true, ...received })
      })
    )
  )
