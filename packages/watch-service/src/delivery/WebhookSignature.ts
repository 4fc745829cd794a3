/**
 * Signing webhooks the Standard Webhooks way (https://www.standardwebhooks.com), so that a
 * receiver can check with any of its libraries that a request comes from us and was not replayed:
 *
 * - each stream has a secret `whsec_<base64>`, whose decoded bytes are the HMAC-SHA256 key;
 * - each request carries `webhook-id`, `webhook-timestamp` (unix seconds) and
 *   `webhook-signature`: `v1,<base64 of HMAC(key, "<id>.<timestamp>.<body>")>`, several
 *   space-separated while a secret is being rotated.
 *
 * The secret is a `Redacted` and never appears in an error or a log.
 *
 * @since 0.2.0
 */
import { Effect, Redacted, Result, Schema } from "effect"
import { Mac, SecureRandom } from "effect/crypto"
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
 * A request whose signature does not hold: a header is missing (`missing-header`), the timestamp
 * is not unix seconds or lies in the future beyond the tolerance (`bad-timestamp`), it is older
 * than the tolerance (`too-old`), or no `v1` signature matches (`mismatch`).
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
  reason: Schema.Literals(["missing-header", "bad-timestamp", "too-old", "mismatch"]),
  message: Schema.String
}) {}

/** What a signature covers. */
interface Signed {
  readonly secret: Redacted.Redacted<string>
  readonly id: string
  /** Unix seconds. */
  readonly timestamp: number
  readonly body: string
}

const prefix = "whsec_"
const encoder = new TextEncoder()

/** The HMAC-SHA256 key of a secret: the bytes of its base64 after `whsec_` (the prefix is optional). */
const keyOf = Effect.fnUntraced(function*(secret: Redacted.Redacted<string>): Effect.fn.Return<Mac.Key, InvalidSecret> {
  const text = Redacted.value(secret)
  const bytes = Base64.decode(text.startsWith(prefix) ? text.slice(prefix.length) : text)
  if (Result.isFailure(bytes) || bytes.success.length === 0) {
    return yield* new InvalidSecret({ message: "the webhook secret is not of the form whsec_<base64>" })
  }
  // A non-empty key is all that HMAC can refuse: a failure here is a defect.
  return yield* Effect.orDie(Mac.key(Mac.hmacSha256, bytes.success))
})

const content = (id: string, timestamp: number | string, body: string): Uint8Array => encoder.encode(`${id}.${timestamp}.${body}`)

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
 * The `webhook-signature` value of a request: `v1,<base64 of HMAC-SHA256("<id>.<timestamp>.<body>")>`.
 *
 * @example
 * ```ts
 * import { Effect, Redacted } from "effect"
 * import { NodeCrypto } from "@effect/platform-node"
 * import { WebhookSignature } from "@chainquery/watch-service"
 *
 * const signature = WebhookSignature.sign({
 *   secret: Redacted.make("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"),
 *   id: "msg_1",
 *   timestamp: 1_700_000_000,
 *   body: "{\"events\":[]}"
 * }).pipe(Effect.provide(NodeCrypto.layerMac)) // Effect<string, InvalidSecret>: "v1,…"
 * ```
 * @since 0.2.0
 */
export const sign = Effect.fnUntraced(function*(options: Signed): Effect.fn.Return<string, InvalidSecret, Mac.Mac> {
  const key = yield* keyOf(options.secret)
  const mac = yield* Mac.Mac
  const tag = yield* Effect.orDie(mac.sign(key, content(options.id, options.timestamp, options.body)))
  return `v1,${Base64.encode(tag)}`
})

/**
 * The three Standard Webhooks headers of a request.
 *
 * @example
 * ```ts
 * import { Effect, Redacted } from "effect"
 * import { NodeCrypto } from "@effect/platform-node"
 * import { WebhookSignature } from "@chainquery/watch-service"
 *
 * const headers = WebhookSignature.headers({
 *   secret: Redacted.make("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"),
 *   id: "msg_1",
 *   timestamp: Math.floor(Date.now() / 1000),
 *   body: "{}"
 * }).pipe(Effect.provide(NodeCrypto.layerMac))
 * // { "webhook-id": "msg_1", "webhook-timestamp": "…", "webhook-signature": "v1,…" }
 * ```
 * @since 0.2.0
 */
export const headers = (
  options: Signed
): Effect.Effect<Record<"webhook-id" | "webhook-timestamp" | "webhook-signature", string>, InvalidSecret, Mac.Mac> =>
  Effect.map(sign(options), (signature) => ({
    "webhook-id": options.id,
    "webhook-timestamp": String(options.timestamp),
    "webhook-signature": signature
  }))

const invalid = (reason: InvalidSignature["reason"], message: string) => new InvalidSignature({ reason, message })

/** The value of a header, whatever the case of its name. */
const header = (all: Readonly<Record<string, string | undefined>>, name: string): string | undefined =>
  all[name] ?? Object.entries(all).find(([key]) => key.toLowerCase() === name)?.[1]

/**
 * Checks a request the way a receiver does: the three headers are present, the timestamp is
 * within `toleranceSeconds` (default 300) of `now` (unix seconds), and one of the space-separated
 * `v1,<signature>` entries is the body's, compared in constant time.
 *
 * @example
 * ```ts
 * import { Effect, Redacted } from "effect"
 * import { NodeCrypto } from "@effect/platform-node"
 * import { WebhookSignature } from "@chainquery/watch-service"
 *
 * declare const request: { headers: Record<string, string | undefined>; body: string }
 * const checked = WebhookSignature.verify({
 *   secret: Redacted.make("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"),
 *   headers: request.headers,
 *   body: request.body,
 *   now: Math.floor(Date.now() / 1000)
 * }).pipe(Effect.provide(NodeCrypto.layerMac)) // Effect<void, InvalidSignature | InvalidSecret>
 * ```
 * @since 0.2.0
 */
export const verify = Effect.fnUntraced(function*(options: {
  readonly secret: Redacted.Redacted<string>
  readonly headers: Readonly<Record<string, string | undefined>>
  readonly body: string
  readonly now: number
  readonly toleranceSeconds?: number | undefined
}): Effect.fn.Return<void, InvalidSignature | InvalidSecret, Mac.Mac> {
  const id = header(options.headers, "webhook-id")
  const timestamp = header(options.headers, "webhook-timestamp")
  const signatures = header(options.headers, "webhook-signature")
  if (id === undefined || timestamp === undefined || signatures === undefined) {
    const missing = [id === undefined && "webhook-id", timestamp === undefined && "webhook-timestamp", signatures === undefined && "webhook-signature"]
    return yield* invalid("missing-header", `the request has no ${missing.filter(Boolean).join(", ")} header`)
  }
  if (!/^\d{1,15}$/.test(timestamp)) {
    return yield* invalid("bad-timestamp", "the webhook-timestamp header is not a unix time in seconds")
  }
  const tolerance = options.toleranceSeconds ?? 300
  const age = options.now - Number(timestamp)
  if (age > tolerance) return yield* invalid("too-old", `the request is ${age} s old, more than the ${tolerance} s tolerated`)
  if (-age > tolerance) {
    return yield* invalid("bad-timestamp", `the webhook-timestamp is ${-age} s in the future, more than the ${tolerance} s tolerated`)
  }
  const key = yield* keyOf(options.secret)
  const mac = yield* Mac.Mac
  const data = content(id, timestamp, options.body)
  for (const entry of signatures.split(" ")) {
    const comma = entry.indexOf(",")
    if (comma < 0 || entry.slice(0, comma) !== "v1") continue
    const tag = Base64.decode(entry.slice(comma + 1))
    if (Result.isFailure(tag)) continue
    if (yield* Effect.orDie(mac.verify(key, tag.success, data))) return
  }
  return yield* invalid("mismatch", "no v1 signature of the webhook-signature header matches the body")
})
