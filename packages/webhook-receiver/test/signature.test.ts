/**
 * The request's signature and age: accepted however the headers, body and secret are held;
 * refused with a typed error for a tampered body, another secret, a stale or future timestamp, a
 * missing or malformed header; never a secret or a signature in a message.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import type { IncomingHttpHeaders } from "node:http"
import { Receive, type ReceiveError, ReceiverState } from "../src/index.js"
import { batchRequest, body, encodedSecret, now, otherSecret, request, secret, sign } from "./support/signing.js"

const receive = (req: { readonly headers: Receive.HeadersInput; readonly body: string | Uint8Array }, options: Partial<Receive.Options> = {}) =>
  Receive.receive({ headers: req.headers, body: req.body, secret, state: ReceiverState.initial, now, ...options })

const failure = (req: { readonly headers: Receive.HeadersInput; readonly body: string | Uint8Array }, options: Partial<Receive.Options> = {}) =>
  Effect.flip(receive(req, options))

/** No text of the error shows the secret (either form) or a signature of the request. */
const assertDiscreet = (error: ReceiveError.ReceiveError, signatures: ReadonlyArray<string>) => {
  for (const text of [error.message, String(error), JSON.stringify(error)]) {
    assert.notInclude(text, encodedSecret)
    for (const signature of signatures) assert.notInclude(text, signature.slice(3))
  }
}

const assertInvalid = (error: ReceiveError.ReceiveError, reason: ReceiveError.InvalidSignature["reason"]) => {
  assert.strictEqual(error._tag, "InvalidSignature")
  assert.strictEqual((error as ReceiveError.InvalidSignature).reason, reason)
}

describe("the signature", () => {
  it.effect("a signed batch is received, whatever holds the body, the secret and the headers", () =>
    Effect.gen(function*() {
      const signed = batchRequest()
      const text = signed.body as string
      const upper = Object.fromEntries(Object.entries(signed.headers).map(([name, value]) => [name.toUpperCase(), value]))
      const node: IncomingHttpHeaders = { ...signed.headers, "webhook-signature": [signed.headers["webhook-signature"]!] }
      const variants: ReadonlyArray<Partial<Receive.Options>> = [
        {},
        { body: Buffer.from(text, "utf8") },
        { body: new TextEncoder().encode(text) },
        { secret: Redacted.make(secret) },
        { secret: encodedSecret },
        { headers: upper },
        { headers: node },
        { headers: new Headers(signed.headers) }
      ]
      for (const variant of variants) {
        const received = yield* receive(signed, variant)
        assert.strictEqual(received.batch.deliveryId, "msg_1")
        assert.strictEqual(received.state.sequence, 1)
      }
    }))

  it.effect("the Standard Webhooks example vector verifies (its body is then refused as a batch, not as a signature)", () =>
    Effect.gen(function*() {
      const example = { id: "msg_p5jXN8AQM9LWM0D4loKWxJek", timestamp: 1614265330, body: "{\"test\": 2432232314}" }
      assert.strictEqual(sign(example), "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=")
      const headers = { "webhook-id": example.id, "webhook-timestamp": String(example.timestamp), "webhook-signature": sign(example) }
      const error = yield* failure({ headers, body: example.body }, { now: example.timestamp })
      assert.strictEqual(error._tag, "MalformedBatch")
      const tampered = yield* failure({ headers, body: "{\"test\": 2432232315}" }, { now: example.timestamp })
      assertInvalid(tampered, "mismatch")
    }))

  it.effect("one matching v1 entry among several is enough (a secret being rotated)", () =>
    Effect.gen(function*() {
      const signed = batchRequest()
      const good = signed.headers["webhook-signature"]!
      const other = sign({ id: "msg_1", timestamp: now, body: signed.body, secret: otherSecret })
      const rotated = { ...signed.headers, "webhook-signature": `${other} v2,${good.slice(3)} v1,not*base64 ${good}` }
      const received = yield* receive({ headers: rotated, body: signed.body })
      assert.strictEqual(received.state.lastDeliveryId, "msg_1")
    }))

  it.effect("a tampered body is a mismatch", () =>
    Effect.gen(function*() {
      const signed = batchRequest()
      const tampered = (signed.body as string).replace("\"tokenId\":\"7\"", "\"tokenId\":\"8\"")
      assert.notStrictEqual(tampered, signed.body)
      const error = yield* failure({ headers: signed.headers, body: tampered })
      assertInvalid(error, "mismatch")
      assertDiscreet(error, [signed.headers["webhook-signature"]!])
      // A byte appended to a Buffer body too.
      assertInvalid(yield* failure({ headers: signed.headers, body: Buffer.from(`${signed.body as string} `) }), "mismatch")
    }))

  it.effect("another secret is a mismatch, and a signature of another id or timestamp is one too", () =>
    Effect.gen(function*() {
      const signed = batchRequest({}, { secret: otherSecret })
      const error = yield* failure(signed)
      assertInvalid(error, "mismatch")
      assertDiscreet(error, [signed.headers["webhook-signature"]!])
      const good = batchRequest()
      assertInvalid(yield* failure({ ...good, headers: { ...good.headers, "webhook-timestamp": String(now - 1) } }), "mismatch")
      assertInvalid(yield* failure({ ...good, headers: { ...good.headers, "webhook-signature": `v2,${good.headers["webhook-signature"]!.slice(3)}` } }), "mismatch")
    }))

  it.effect("a secret read with whitespace around it (a file's newline) is the same secret; a tolerance of 0 and now 0 are settings", () =>
    Effect.gen(function*() {
      const signed = batchRequest()
      for (const padded of [`${secret}\n`, ` ${secret} `, Redacted.make(`\t${encodedSecret}\r\n`)]) {
        assert.strictEqual((yield* receive(signed, { secret: padded })).batch.sequence, 1)
      }
      // A tolerance of 0: the timestamp must be now exactly.
      assert.strictEqual((yield* receive(signed, { toleranceSeconds: 0 })).batch.sequence, 1)
      assert.strictEqual((yield* failure(signed, { toleranceSeconds: 0, now: now + 1 }))._tag, "StaleTimestamp")
      const epoch = batchRequest({}, { timestamp: 0 })
      assert.strictEqual((yield* receive(epoch, { now: 0 })).batch.sequence, 1)
    }))

  it.effect("a timestamp older than the tolerance is a StaleTimestamp naming the age and the tolerance", () =>
    Effect.gen(function*() {
      const signed = batchRequest({}, { timestamp: now - 301 })
      const error = yield* failure(signed)
      assert.strictEqual(error._tag, "StaleTimestamp")
      const stale = error as ReceiveError.StaleTimestamp
      assert.deepStrictEqual([stale.ageSeconds, stale.toleranceSeconds, stale.timestamp, stale.now], [301, 300, now - 301, now])
      assert.include(stale.message, "301 s old")
      assert.include(stale.message, "300 s")
      // At the tolerance exactly, it is accepted; a tolerance of its own is honoured.
      yield* receive(batchRequest({}, { timestamp: now - 300 }))
      const strict = yield* failure(batchRequest({}, { timestamp: now - 11 }), { toleranceSeconds: 10 })
      assert.strictEqual((strict as ReceiveError.StaleTimestamp).toleranceSeconds, 10)
    }))

  it.effect("a timestamp further in the future than the tolerance is a StaleTimestamp with a negative age", () =>
    Effect.gen(function*() {
      const error = yield* failure(batchRequest({}, { timestamp: now + 301 }))
      assert.strictEqual(error._tag, "StaleTimestamp")
      assert.strictEqual((error as ReceiveError.StaleTimestamp).ageSeconds, -301)
      assert.include(error.message, "301 s in the future")
      yield* receive(batchRequest({}, { timestamp: now + 300 }))
    }))

  it.effect("the timestamp is checked before the signature: a stale request with a bad signature is stale", () =>
    Effect.gen(function*() {
      const signed = batchRequest({}, { timestamp: now - 1000, secret: otherSecret })
      assert.strictEqual((yield* failure(signed))._tag, "StaleTimestamp")
    }))

  it.effect("a missing header, each of the three (or empty), is named", () =>
    Effect.gen(function*() {
      const signed = batchRequest()
      for (const name of ["webhook-id", "webhook-timestamp", "webhook-signature"]) {
        for (const value of [undefined, ""]) {
          const error = yield* failure({ ...signed, headers: { ...signed.headers, [name]: value } })
          assertInvalid(error, "missing-header")
          assert.include(error.message, name)
        }
      }
      const none = yield* failure({ headers: {}, body: signed.body })
      assertInvalid(none, "missing-header")
      assert.include(none.message, "webhook-id, webhook-timestamp, webhook-signature")
    }))

  it.effect("a malformed header: two different ids, an id with spaces, a signature with no entry", () =>
    Effect.gen(function*() {
      const signed = batchRequest()
      const twice: IncomingHttpHeaders = { ...signed.headers, "webhook-id": ["msg_1", "msg_2"] }
      assertInvalid(yield* failure({ headers: twice, body: signed.body }), "malformed-header")
      assertInvalid(yield* failure({ ...signed, headers: { ...signed.headers, "webhook-id": "msg 1" } }), "malformed-header")
      assertInvalid(yield* failure({ ...signed, headers: { ...signed.headers, "webhook-signature": "garbage" } }), "malformed-header")
      // The same id twice (a proxy repeating it) is still one id.
      const repeated: IncomingHttpHeaders = { ...signed.headers, "webhook-id": ["msg_1", "msg_1"] }
      assert.strictEqual((yield* receive({ headers: repeated, body: signed.body })).batch.sequence, 1)
    }))

  it.effect("a timestamp that is not unix seconds is a bad-timestamp", () =>
    Effect.gen(function*() {
      for (const timestamp of ["abc", "1700000000.5", "-5", "1e9", String(now * 1000)]) {
        const text = body()
        const error = yield* failure(request(text, { timestamp }))
        assertInvalid(error, "bad-timestamp")
      }
      assert.include((yield* failure(request(body(), { timestamp: String(now * 1000) }))).message, "milliseconds")
    }))

  it.effect("an unusable secret or tolerance is an InvalidConfig that does not show the secret", () =>
    Effect.gen(function*() {
      const signed = batchRequest()
      for (const bad of ["whsec_", "whsec_not base64!", "", "whsec_***"]) {
        const error = yield* failure(signed, { secret: Redacted.make(bad) })
        assert.strictEqual(error._tag, "InvalidConfig")
        assert.strictEqual((error as ReceiveError.InvalidConfig).setting, "secret")
        if (bad.length > "whsec_".length) assert.notInclude(`${error.message} ${JSON.stringify(error)}`, bad.slice("whsec_".length))
      }
      for (const toleranceSeconds of [-1, Number.NaN, Number.POSITIVE_INFINITY]) {
        const error = yield* failure(signed, { toleranceSeconds })
        assert.strictEqual((error as ReceiveError.InvalidConfig).setting, "toleranceSeconds")
      }
      const error = yield* failure(signed, { now: 1.5 })
      assert.strictEqual((error as ReceiveError.InvalidConfig).setting, "now")
    }))
})
