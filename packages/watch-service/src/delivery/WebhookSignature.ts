/**
 * Signing webhooks the Standard Webhooks way (https://www.standardwebhooks.com), so that a
 * receiver can check with any of its libraries that a request comes from us and was not replayed:
 *
 * - each stream has a secret `whsec_<base64>`, whose decoded bytes are the HMAC-SHA256 key;
 * - each request carries `webhook-id`, `webhook-timestamp` (unix seconds) and
 *   `webhook-signature`: `v1,<base64 of HMAC(key, "<id>.<timestamp>.<body>")>`, several
 *   space-separated while a secret is being rotated.
 *
 * The scheme is written once, in `@chainquery/webhook-receiver`'s `Signature`, which receivers
 * verify with; this module signs with it, and makes the streams' secrets. The secret is a
 * `Redacted` and never appears in an error or a log.
 *
 * @since 0.2.0
 */
import { Signature } from "@chainquery/webhook-receiver"
import { Effect, Redacted, Result, Schema } from "effect"
import { SecureRandom } from "effect/crypto"
import { Base64 } from "effect/encoding"

/**
 * The secret is not of the form `whsec_<base64>` (or its base64 is empty). The message never
 * contains the secret.
 *
 * @example
 * ```ts
 * import { WebhookSignature } from "@chainquery/watch-service"
 *
 * new WebhookSignature.InvalidSecret({ message: "the webhook secret is not of the form whsec_<base64>" })
 * ```
 * @since 0.2.0
 */
export class InvalidSecret extends Schema.TaggedError<InvalidSecret>()("InvalidSecret", {
  message: Schema.String
}) {}

/**
 * A request whose signature does not hold: a header is missing (`missing-header`), repeated with
 * two values or not of its form (`malformed-header`), the timestamp is not unix seconds or lies in
 * the future beyond the tolerance (`bad-timestamp`), it is older than the tolerance (`too-old`),
 * or no `v1` signature matches (`mismatch`).
 *
 * @example
 * ```ts
 * import { WebhookSignature } from "@chainquery/watch-service"
 *
 * new WebhookSignature.InvalidSignature({ reason: "mismatch", message: "no v1 signature matches the body" })
 * ```
 * @since 0.2.0
 */
export class InvalidSignature extends Schema.TaggedError<InvalidSignature>()("InvalidSignature", {
  reason: Schema.Literals(["missing-header", "malformed-header", "bad-timestamp", "too-old", "mismatch"]),
  message: Schema.String
}) {}

/** What a signature covers: one secret, or several (a rotation in grace signs with the new one and the one before). */
interface Signed {
  readonly secret: Redacted.Redacted<string> | ReadonlyArray<Redacted.Redacted<string>>
  readonly id: string
  /** Unix seconds. */
  readonly timestamp: number
  readonly body: string
}

const prefix = "whsec_"

/** The secret refused, without a word of it. */
const invalidSecret = () => new InvalidSecret({ message: "the webhook secret is not of the form whsec_<base64>" })

/**
 * A new secret: `whsec_` and the base64 of 24 random bytes.
 *
 * @example
 * ```ts
 * import { Effect, Redacted } from "effect"
 * import { NodeCrypto } from "@effect/platform-node"
 * import { WebhookSignature } from "@chainquery/watch-service"
 *
 * const secret = WebhookSignature.newSecret.pipe(Effect.map(Redacted.value), Effect.provide(NodeCrypto.layerSecureRandom))
 * // Effect<string>: "whsec_…" (32 base64 characters)
 * ```
 * @since 0.2.0
 */
export const newSecret: Effect.Effect<Redacted.Redacted<string>, never, SecureRandom.SecureRandom> = Effect.gen(function*() {
  const random = yield* SecureRandom.SecureRandom
  const bytes = yield* random.randomBytes(24)
  return Redacted.make(`${prefix}${Base64.encode(bytes)}`, { label: "webhook secret" })
})

/**
 * The `webhook-signature` of a message: `v1,` and the base64 HMAC-SHA256 of
 * `<id>.<timestamp>.<body>` under the secret's key; with several secrets, one entry each,
 * space-separated.
 *
 * @example
 * ```ts
 * import { Redacted } from "effect"
 * import { WebhookSignature } from "@chainquery/watch-service"
 *
 * const signature = WebhookSignature.sign({
 *   secret: Redacted.make("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"),
 *   id: "msg_1",
 *   timestamp: 1_700_000_000,
 *   body: "{\"events\":[]}"
 * }) // Effect<string, InvalidSecret>: "v1,…"
 * ```
 * @since 0.2.0
 */
export const sign = (options: Signed): Effect.Effect<string, InvalidSecret> =>
  Effect.fromResult(Result.mapError(Signature.sign(options), invalidSecret))

/**
 * The three headers of a webhook: `webhook-id`, `webhook-timestamp` and `webhook-signature`.
 *
 * @example
 * ```ts
 * import { Redacted } from "effect"
 * import { WebhookSignature } from "@chainquery/watch-service"
 *
 * const headers = WebhookSignature.headers({
 *   secret: Redacted.make("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"),
 *   id: "msg_1",
 *   timestamp: Math.floor(Date.now() / 1000),
 *   body: "{}"
 * })
 * // { "webhook-id": "msg_1", "webhook-timestamp": "…", "webhook-signature": "v1,…" }
 * ```
 * @since 0.2.0
 */
export const headers = (
  options: Signed
): Effect.Effect<Record<"webhook-id" | "webhook-timestamp" | "webhook-signature", string>, InvalidSecret> =>
  Effect.fromResult(Result.mapError(Signature.headers(options), invalidSecret))

/**
 * Checks a request's signature and age, as a receiver does (the receiver kit's check): the
 * headers, then the timestamp against `now` (unix seconds) within `toleranceSeconds` either way
 * (300 by default), then the signatures of the body.
 *
 * @example
 * ```ts
 * import { Redacted } from "effect"
 * import { WebhookSignature } from "@chainquery/watch-service"
 *
 * declare const request: { headers: Record<string, string | undefined>; body: string }
 * const checked = WebhookSignature.verify({
 *   secret: Redacted.make("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"),
 *   headers: request.headers,
 *   body: request.body,
 *   now: Math.floor(Date.now() / 1000)
 * }) // Effect<void, InvalidSignature | InvalidSecret>
 * ```
 * @since 0.2.0
 */
export const verify = (options: {
  readonly secret: Redacted.Redacted<string>
  readonly headers: Readonly<Record<string, string | undefined>>
  readonly body: string
  readonly now: number
  readonly toleranceSeconds?: number | undefined
}): Effect.Effect<void, InvalidSignature | InvalidSecret> => {
  const key = Signature.keyOf(options.secret)
  if (Result.isFailure(key)) return Effect.fail(invalidSecret())
  const checked = Signature.verify(key.success, {
    headers: options.headers,
    body: options.body,
    now: options.now,
    toleranceSeconds: options.toleranceSeconds ?? 300
  })
  if (Result.isSuccess(checked)) return Effect.void
  const error = checked.failure
  return Effect.fail(
    error._tag === "StaleTimestamp"
      ? new InvalidSignature({ reason: error.ageSeconds > 0 ? "too-old" : "bad-timestamp", message: error.message })
      : new InvalidSignature({ reason: error.reason, message: error.message })
  )
}
