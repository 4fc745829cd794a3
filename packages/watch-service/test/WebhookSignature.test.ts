/**
 * WebhookSignature: secrets, signatures equal to node:crypto's HMAC and to the Standard Webhooks
 * example, and each way `verify` refuses a request, with a typed reason and never the secret.
 */
import { assert, describe, it } from "@effect/vitest"
import { NodeCrypto } from "@effect/platform-node"
import { Effect, Layer, Redacted } from "effect"
import { createHmac } from "node:crypto"
import * as WebhookSignature from "../src/delivery/WebhookSignature.js"

const crypto = Layer.mergeAll(NodeCrypto.layerMac, NodeCrypto.layerSecureRandom)
const encoded = "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
const secret = Redacted.make(`whsec_${encoded}`)
const now = 1_700_000_000
const signed = { secret, id: "msg_2Lf0example", timestamp: now, body: "{\"events\":[{\"id\":\"é→😀\"}]}" }

/** Verifies `headers` against `signed.body` at `now`, and returns the failure (or undefined). */
const failure = (
  headers: Record<string, string | undefined>,
  options: { readonly body?: string; readonly at?: number; readonly secret?: Redacted.Redacted<string> } = {}
) =>
  WebhookSignature.verify({ secret: options.secret ?? secret, headers, body: options.body ?? signed.body, now: options.at ?? now }).pipe(Effect.flip)

/** Asserts an `InvalidSignature` of `reason` whose text does not contain the secret. */
const assertInvalid = (error: WebhookSignature.InvalidSignature | WebhookSignature.InvalidSecret, reason: WebhookSignature.InvalidSignature["reason"]) => {
  assert.strictEqual(error._tag, "InvalidSignature")
  assert.strictEqual((error as WebhookSignature.InvalidSignature).reason, reason)
  for (const text of [error.message, String(error), JSON.stringify(error)]) assert.notInclude(text, encoded)
}

describe("WebhookSignature", () => {
  it.effect("newSecret: whsec_ and the base64 of 24 random bytes, different each time", () =>
    Effect.gen(function*() {
      const first = Redacted.value(yield* WebhookSignature.newSecret)
      const second = Redacted.value(yield* WebhookSignature.newSecret)
      assert.match(first, /^whsec_[A-Za-z0-9+/]{32}$/)
      assert.strictEqual(Buffer.from(first.slice("whsec_".length), "base64").length, 24)
      assert.notStrictEqual(first, second)
    }).pipe(Effect.provide(crypto)))

  it.effect("sign: v1, and the base64 HMAC-SHA256 of id.timestamp.body keyed by the decoded secret (as node:crypto computes it)", () =>
    Effect.gen(function*() {
      const signature = yield* WebhookSignature.sign(signed)
      const expected = createHmac("sha256", Buffer.from(encoded, "base64")).update(`${signed.id}.${signed.timestamp}.${signed.body}`).digest("base64")
      assert.strictEqual(signature, `v1,${expected}`)
      // The example of the Standard Webhooks specification.
      const example = yield* WebhookSignature.sign({ secret, id: "msg_p5jXN8AQM9LWM0D4loKWxJek", timestamp: 1614265330, body: "{\"test\": 2432232314}" })
      assert.strictEqual(example, "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=")
      // The prefix is optional, as in the Standard Webhooks libraries.
      assert.strictEqual(yield* WebhookSignature.sign({ ...signed, secret: Redacted.make(encoded) }), signature)
    }).pipe(Effect.provide(crypto)))

  it.effect("headers: webhook-id, webhook-timestamp and webhook-signature, which verify", () =>
    Effect.gen(function*() {
      const headers = yield* WebhookSignature.headers(signed)
      assert.deepStrictEqual(headers, {
        "webhook-id": signed.id,
        "webhook-timestamp": String(now),
        "webhook-signature": yield* WebhookSignature.sign(signed)
      })
      yield* WebhookSignature.verify({ secret, headers, body: signed.body, now })
      // Within the tolerance either way, and with header names in any case.
      yield* WebhookSignature.verify({ secret, headers, body: signed.body, now: now + 300 })
      yield* WebhookSignature.verify({ secret, headers, body: signed.body, now: now - 300 })
      const upper = { "Webhook-Id": headers["webhook-id"], "WEBHOOK-TIMESTAMP": headers["webhook-timestamp"], "Webhook-Signature": headers["webhook-signature"] }
      yield* WebhookSignature.verify({ secret, headers: upper, body: signed.body, now })
    }).pipe(Effect.provide(crypto)))

  it.effect("verify: one matching v1 entry among several is enough (secret rotation)", () =>
    Effect.gen(function*() {
      const headers = yield* WebhookSignature.headers(signed)
      const other = yield* WebhookSignature.sign({ ...signed, secret: Redacted.make("whsec_c2Vjb25kIHNlY3JldCBvZiAyNCBieXRlcw==") })
      const good = headers["webhook-signature"]
      const rotated = { ...headers, "webhook-signature": `${other} v1a,${good.slice(3)} v1,not*base64 ${good}` }
      yield* WebhookSignature.verify({ secret, headers: rotated, body: signed.body, now })
    }).pipe(Effect.provide(crypto)))

  it.effect("verify: a missing header, each of the three", () =>
    Effect.gen(function*() {
      const headers = yield* WebhookSignature.headers(signed)
      for (const name of ["webhook-id", "webhook-timestamp", "webhook-signature"] as const) {
        const error = yield* failure({ ...headers, [name]: undefined })
        assertInvalid(error, "missing-header")
        assert.strictEqual(error.message, `the request has no ${name} header`)
      }
      const none = yield* failure({})
      assertInvalid(none, "missing-header")
      assert.strictEqual(none.message, "the request has no webhook-id, webhook-timestamp, webhook-signature header")
    }).pipe(Effect.provide(crypto)))

  it.effect("verify: a timestamp that is not unix seconds, or too far in the future", () =>
    Effect.gen(function*() {
      const headers = yield* WebhookSignature.headers(signed)
      for (const timestamp of ["abc", "1700000000.5", "-5", "1e9"]) {
        const error = yield* failure({ ...headers, "webhook-timestamp": timestamp })
        assertInvalid(error, "bad-timestamp")
        assert.strictEqual(error.message, "the webhook-timestamp header is not a unix time in seconds")
      }
      const micros = yield* failure({ ...headers, "webhook-timestamp": String(now * 1000 * 1000) })
      assertInvalid(micros, "bad-timestamp")
      assert.strictEqual(micros.message, "the webhook-timestamp header is not a unix time in seconds (milliseconds?)")
      // An empty header is no header.
      assertInvalid(yield* failure({ ...headers, "webhook-timestamp": "" }), "missing-header")
      const future = yield* failure(headers, { at: now - 301 })
      assertInvalid(future, "bad-timestamp")
      assert.strictEqual(future.message, "the request's timestamp is 301 s in the future, more than the 300 s tolerated")
    }).pipe(Effect.provide(crypto)))

  it.effect("verify: a request older than the tolerance (300 s by default, or as given)", () =>
    Effect.gen(function*() {
      const headers = yield* WebhookSignature.headers(signed)
      const error = yield* failure(headers, { at: now + 301 })
      assertInvalid(error, "too-old")
      assert.include(error.message, "301 s")
      const strict = yield* Effect.flip(WebhookSignature.verify({ secret, headers, body: signed.body, now: now + 11, toleranceSeconds: 10 }))
      assertInvalid(strict, "too-old")
    }).pipe(Effect.provide(crypto)))

  it.effect("verify: a mismatch for another body, id, timestamp, secret, or a non-v1 entry; a signature not of its form is malformed", () =>
    Effect.gen(function*() {
      const headers = yield* WebhookSignature.headers(signed)
      assertInvalid(yield* failure(headers, { body: `${signed.body} ` }), "mismatch")
      assertInvalid(yield* failure({ ...headers, "webhook-id": "msg_other" }), "mismatch")
      assertInvalid(yield* failure({ ...headers, "webhook-timestamp": String(now - 1) }), "mismatch")
      assertInvalid(yield* failure(headers, { secret: Redacted.make("whsec_c2Vjb25kIHNlY3JldCBvZiAyNCBieXRlcw==") }), "mismatch")
      const good = headers["webhook-signature"]
      assertInvalid(yield* failure({ ...headers, "webhook-signature": `v2,${good.slice(3)}` }), "mismatch")
      assertInvalid(yield* failure({ ...headers, "webhook-signature": `${good.slice(0, -4)}AAA=` }), "mismatch")
      assertInvalid(yield* failure({ ...headers, "webhook-signature": good.slice(3) }), "malformed-header")
      assertInvalid(yield* failure({ ...headers, "webhook-signature": "" }), "missing-header")
    }).pipe(Effect.provide(crypto)))

  it.effect("a secret that is not whsec_<base64> is an InvalidSecret that does not show it", () =>
    Effect.gen(function*() {
      for (const text of ["whsec_", "whsec_not base64!", ""]) {
        const error = yield* Effect.flip(WebhookSignature.sign({ ...signed, secret: Redacted.make(text) }))
        assert.strictEqual(error._tag, "InvalidSecret")
        if (text.length > "whsec_".length) assert.notInclude(`${error.message} ${JSON.stringify(error)}`, "not base64")
      }
      const headers = yield* WebhookSignature.headers(signed)
      const error = yield* failure(headers, { secret: Redacted.make("whsec_***") })
      assert.strictEqual(error._tag, "InvalidSecret")
    }).pipe(Effect.provide(crypto)))
})
