/**
 * Standard Webhooks (https://www.standardwebhooks.com), both ends, the one implementation the
 * service signs with and the kit verifies with: the key is the base64 after `whsec_`; a request
 * carries `webhook-id`, `webhook-timestamp` (unix seconds) and `webhook-signature`,
 * space-separated `v1,<base64 of HMAC-SHA256(key, "<id>.<timestamp>.<body>")>` entries, one of
 * which must match, compared in constant time. Pure and synchronous: every outcome is a `Result`.
 * Nothing here puts the secret or a signature into a message.
 *
 * @since 0.5.0
 */
import { Predicate, Redacted, Result } from "effect"
import { Base64 } from "effect/encoding"
import { createHmac, timingSafeEqual } from "node:crypto"
import { InvalidConfig, InvalidSignature, StaleTimestamp } from "./ReceiveError.js"

/**
 * The stream's secret, `whsec_<base64>` (the prefix is optional), as a `Redacted` or a string.
 *
 * @example
 * ```ts
 * import { Redacted } from "effect"
 * import type { Signature } from "@chainquery/webhook-receiver"
 *
 * const secret: Signature.Secret = Redacted.make(process.env.WEBHOOK_SECRET ?? "")
 * ```
 * @since 0.5.0
 */
export type Secret = Redacted.Redacted<string> | string

/**
 * One secret, or several: while a stream's secret is being rotated, requests carry a signature
 * under each (the new and the old), and a receiver may hold both (the new one first).
 *
 * @example
 * ```ts
 * import { Redacted } from "effect"
 * import type { Signature } from "@chainquery/webhook-receiver"
 *
 * const secrets: Signature.Secrets = [Redacted.make(process.env.WEBHOOK_SECRET ?? ""), Redacted.make(process.env.WEBHOOK_SECRET_OLD ?? "")]
 * ```
 * @since 0.5.0
 */
export type Secrets = Secret | ReadonlyArray<Secret>

/**
 * A request's headers: Node's `IncomingHttpHeaders` as they are (`request.headers`), any record
 * of names to values, or a fetch `Headers` (anything with `get(name)`). Names are matched
 * whatever their case.
 *
 * @example
 * ```ts
 * import type { Signature } from "@chainquery/webhook-receiver"
 *
 * const headers: Signature.HeadersInput = new Headers({ "webhook-id": "msg_1" })
 * ```
 * @since 0.5.0
 */
export type HeadersInput =
  | Readonly<Record<string, string | ReadonlyArray<string> | undefined>>
  | { readonly get: (name: string) => string | null }

/**
 * A body, exactly as sent or received: the signature covers its bytes.
 *
 * @example
 * ```ts
 * import type { Signature } from "@chainquery/webhook-receiver"
 *
 * const body: Signature.Body = '{"streamId":"str_1"}'
 * ```
 * @since 0.5.0
 */
export type Body = string | Uint8Array

const prefix = "whsec_"

/**
 * The HMAC key of a secret: the bytes of its base64 (after an optional `whsec_`; surrounding
 * whitespace, such as a file's newline, is not part of it).
 *
 * @example
 * ```ts
 * import { Result } from "effect"
 * import { Signature } from "@chainquery/webhook-receiver"
 *
 * Result.isSuccess(Signature.keyOf("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")) // true
 * ```
 * @since 0.5.0
 */
export const keyOf = (secret: Secret): Result.Result<Uint8Array, InvalidConfig> => {
  const text = (Redacted.isRedacted(secret) ? Redacted.value(secret) : secret).trim()
  const bytes = Base64.decode(text.startsWith(prefix) ? text.slice(prefix.length) : text)
  return Result.isFailure(bytes) || bytes.success.length === 0
    ? Result.fail(new InvalidConfig({ setting: "secret", message: "the webhook secret is not of the form whsec_<base64> (of at least one byte)" }))
    : Result.succeed(bytes.success)
}

/**
 * The HMAC keys of one secret or several, in order; an empty list, or any secret that is not
 * `whsec_<base64>`, is an `InvalidConfig` (whose message names the position, never the secret).
 *
 * @example
 * ```ts
 * import { Result } from "effect"
 * import { Signature } from "@chainquery/webhook-receiver"
 *
 * Result.map(Signature.keysOf(["whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "whsec_c2VjcmV0"]), (keys) => keys.length) // Result.succeed(2)
 * ```
 * @since 0.5.0
 */
export const keysOf = (secrets: Secrets): Result.Result<ReadonlyArray<Uint8Array>, InvalidConfig> => {
  if (typeof secrets === "string" || Redacted.isRedacted(secrets)) return Result.map(keyOf(secrets), (key) => [key])
  const list: ReadonlyArray<Secret> = secrets
  if (list.length === 0) return Result.fail(new InvalidConfig({ setting: "secret", message: "give at least one webhook secret (the list is empty)" }))
  const keys: Array<Uint8Array> = []
  for (const [index, secret] of list.entries()) {
    const key = keyOf(secret)
    if (Result.isFailure(key)) {
      return Result.fail(new InvalidConfig({ setting: "secret", message: `the webhook secret at position ${index} is not of the form whsec_<base64> (of at least one byte)` }))
    }
    keys.push(key.success)
  }
  return Result.succeed(keys)
}

/** HMAC-SHA256 of `<id>.<timestamp>.<body>`. */
const mac = (key: Uint8Array, id: string, timestamp: string, body: Body): Uint8Array => {
  const hmac = createHmac("sha256", key).update(`${id}.${timestamp}.`, "utf8")
  return (typeof body === "string" ? hmac.update(body, "utf8") : hmac.update(body)).digest()
}

const invalid = (reason: InvalidSignature["reason"], message: string) => Result.fail(new InvalidSignature({ reason, message }))

/** Every value of a header, whatever the case of its name, however the headers are held. */
const valuesOf = (headers: HeadersInput, name: string): ReadonlyArray<string> => {
  if (Predicate.hasProperty(headers, "get") && Predicate.isFunction(headers.get)) {
    const value = headers.get(name)
    return typeof value === "string" && value.trim() !== "" ? [value.trim()] : []
  }
  const values: Array<string> = []
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() !== name || value === undefined) continue
    if (typeof value === "string") values.push(value)
    else values.push(...value)
  }
  return values.map((value) => value.trim()).filter((value) => value !== "")
}

/** The one value of a header that must appear once; `undefined` when absent. */
const single = (headers: HeadersInput, name: string): Result.Result<string | undefined, InvalidSignature> => {
  const values = [...new Set(valuesOf(headers, name))]
  return values.length > 1 ? invalid("malformed-header", `the request has ${values.length} different ${name} headers`) : Result.succeed(values[0])
}

/**
 * What a verified request says of itself.
 *
 * @example
 * ```ts
 * import type { Signature } from "@chainquery/webhook-receiver"
 *
 * const verified: Signature.Verified = { id: "msg_1", timestamp: 1_700_000_000 }
 * ```
 * @since 0.5.0
 */
export interface Verified {
  /** The `webhook-id` header: the delivery id. */
  readonly id: string
  /** The `webhook-timestamp` header, unix seconds. */
  readonly timestamp: number
}

/**
 * Checks the headers, then the timestamp against `now` (unix seconds) and `toleranceSeconds`
 * (either way), then the signatures of the body: one `v1` entry must match under one of the keys
 * (several while a secret is rotated).
 *
 * @example
 * ```ts
 * import { Result } from "effect"
 * import { Signature } from "@chainquery/webhook-receiver"
 *
 * declare const key: Uint8Array
 * declare const request: { headers: Signature.HeadersInput; body: string }
 * const verified = Signature.verify(key, { ...request, now: Math.floor(Date.now() / 1000), toleranceSeconds: 300 })
 * if (Result.isSuccess(verified)) console.log(verified.success.id)
 * ```
 * @since 0.5.0
 */
export const verify = (
  key: Uint8Array | ReadonlyArray<Uint8Array>,
  request: { readonly headers: HeadersInput; readonly body: Body; readonly now: number; readonly toleranceSeconds: number }
): Result.Result<Verified, InvalidSignature | StaleTimestamp> =>
  Result.gen(function*() {
    const id = yield* single(request.headers, "webhook-id")
    const timestamp = yield* single(request.headers, "webhook-timestamp")
    const signatures = valuesOf(request.headers, "webhook-signature").join(" ")
    const missing = [
      id === undefined ? "webhook-id" : undefined,
      timestamp === undefined ? "webhook-timestamp" : undefined,
      signatures === "" ? "webhook-signature" : undefined
    ].filter((name) => name !== undefined)
    if (id === undefined || timestamp === undefined || missing.length > 0) {
      return yield* invalid("missing-header", `the request has no ${missing.join(", ")} header`)
    }
    if (/\s/.test(id)) return yield* invalid("malformed-header", "the webhook-id header contains whitespace")
    const entries = signatures.split(/\s+/).map((entry) => entry.replace(/,$/, ""))
    if (!entries.some((entry) => entry.indexOf(",") > 0)) {
      return yield* invalid("malformed-header", "the webhook-signature header has no <version>,<signature> entry")
    }
    if (!/^[0-9]{1,10}$/.test(timestamp)) {
      const hint = /^[0-9]{11,}$/.test(timestamp) ? " (milliseconds?)" : ""
      return yield* invalid("bad-timestamp", `the webhook-timestamp header is not a unix time in seconds${hint}`)
    }
    const seconds = Number(timestamp)
    const age = request.now - seconds
    if (Math.abs(age) > request.toleranceSeconds) {
      const message = age > 0
        ? `the request is ${age} s old, more than the ${request.toleranceSeconds} s tolerated`
        : `the request's timestamp is ${-age} s in the future, more than the ${request.toleranceSeconds} s tolerated`
      return yield* Result.fail(
        new StaleTimestamp({ timestamp: seconds, now: request.now, ageSeconds: age, toleranceSeconds: request.toleranceSeconds, message })
      )
    }
    const candidates = entries.flatMap((entry) => {
      const comma = entry.indexOf(",")
      if (entry.slice(0, comma) !== "v1") return []
      const candidate = Base64.decode(entry.slice(comma + 1))
      return Result.isSuccess(candidate) ? [candidate.success] : []
    })
    for (const each of key instanceof Uint8Array ? [key] : key) {
      const expected = mac(each, id, timestamp, request.body)
      if (candidates.some((candidate) => candidate.length === expected.length && timingSafeEqual(candidate, expected))) {
        return { id, timestamp: seconds }
      }
    }
    return yield* invalid("mismatch", "no v1 signature of the webhook-signature header matches the request")
  })

/**
 * What is signed: the secret (or several: one signature under each, while a secret is rotated),
 * the message's `webhook-id`, its `webhook-timestamp` (unix seconds: when this attempt goes) and
 * its body.
 *
 * @example
 * ```ts
 * import type { Signature } from "@chainquery/webhook-receiver"
 *
 * const signed: Signature.Signed = { secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", id: "msg_1", timestamp: 1_700_000_000, body: "{}" }
 * ```
 * @since 0.5.0
 */
export interface Signed {
  readonly secret: Secrets
  readonly id: string
  readonly timestamp: number
  readonly body: Body
}

/**
 * The `webhook-signature` of a message: `v1,` and the base64 HMAC-SHA256 of
 * `<id>.<timestamp>.<body>` under the secret's key; with several secrets, one such entry per
 * secret, space-separated, in their order. Fails only when a secret is not `whsec_<base64>` (or
 * the list is empty).
 *
 * @example
 * ```ts
 * import { Signature } from "@chainquery/webhook-receiver"
 *
 * const signature = Signature.sign({ secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", id: "msg_1", timestamp: 1_700_000_000, body: "{}" })
 * // Result.succeed("v1,…")
 * ```
 * @since 0.5.0
 */
export const sign = (signed: Signed): Result.Result<string, InvalidConfig> =>
  Result.map(keysOf(signed.secret), (keys) => keys.map((key) => `v1,${Base64.encode(mac(key, signed.id, String(signed.timestamp), signed.body))}`).join(" "))

/**
 * The three headers of a message: `webhook-id`, `webhook-timestamp` and `webhook-signature`.
 *
 * @example
 * ```ts
 * import { Result } from "effect"
 * import { Signature } from "@chainquery/webhook-receiver"
 *
 * const headers = Signature.headers({ secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", id: "msg_1", timestamp: 1_700_000_000, body: "{}" })
 * if (Result.isSuccess(headers)) console.log(headers.success["webhook-signature"])
 * ```
 * @since 0.5.0
 */
export const headers = (
  signed: Signed
): Result.Result<Record<"webhook-id" | "webhook-timestamp" | "webhook-signature", string>, InvalidConfig> =>
  Result.map(sign(signed), (signature) => ({
    "webhook-id": signed.id,
    "webhook-timestamp": String(signed.timestamp),
    "webhook-signature": signature
  }))
