/**
 * The two stream controls a receiver sees:
 *
 * - a secret rotated with a grace: the service signs with the new secret and the old, one `v1`
 *   entry each; the reference library (`standardwebhooks`) verifies such a request under either,
 *   and so does the kit, which also takes a list of secrets (so a receiver can hold both across
 *   the switch); a request under neither fails; an empty or bad list is an `InvalidConfig` that
 *   names the position, not the secret;
 * - a test event (`test: true`, sequence 0): received as `test`, the state returned as given (at
 *   the start of a stream and in the middle of one), any other stream's a `WrongStream`; sequence 0
 *   without `test`, or `test` with another sequence, a `MalformedBatch` naming `sequence`.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Redacted, Result } from "effect"
import { Webhook } from "standardwebhooks"
import { Receive, ReceiverState, Signature } from "../src/index.js"
import { batchRequest, body, now, otherSecret, request, secret, streamId } from "./support/signing.js"

const text = body({ coverage: [{ chain: "0x1", fromBlock: "100", toBlock: "110" }] })

/** The headers of `text` signed by the kit under `secrets`. */
const signedUnder = (secrets: Signature.Secrets) => Result.getOrThrow(Signature.headers({ secret: secrets, id: "msg_1", timestamp: now, body: text }))

const receive = (headers: Receive.HeadersInput, secrets: Signature.Secrets, payload: string = text, state = ReceiverState.initial) =>
  Receive.receive({ headers, body: payload, secret: secrets, state, now })

describe("a secret rotated with a grace", () => {
  it.effect("signed under both, the reference library and the kit verify it with either secret, or both", () =>
    Effect.gen(function*() {
      const headers = signedUnder([otherSecret, secret])
      assert.strictEqual(headers["webhook-signature"].split(" ").length, 2)
      for (const one of [secret, otherSecret]) {
        const reference = new Webhook(one)
        // The reference library checks the timestamp against the system clock: give it now's.
        const fresh = Math.floor(Date.now() / 1000)
        const live = Result.getOrThrow(Signature.headers({ secret: [otherSecret, secret], id: "msg_1", timestamp: fresh, body: text }))
        assert.doesNotThrow(() => reference.verify(text, live, { jsonParse: false }))
        assert.strictEqual((yield* receive(headers, one)).state.sequence, 1)
        assert.strictEqual((yield* receive(headers, Redacted.make(one))).state.sequence, 1)
      }
      assert.strictEqual((yield* receive(headers, [secret, otherSecret])).state.sequence, 1)
    }))

  it.effect("signed under the new one only, the old one alone fails and a list holding the new one passes, in any order", () =>
    Effect.gen(function*() {
      const headers = signedUnder(otherSecret)
      const refused = yield* Effect.flip(receive(headers, secret))
      assert.strictEqual(refused._tag, "InvalidSignature")
      assert.throws(() => new Webhook(secret).verify(text, request(text, { secret: otherSecret, timestamp: Math.floor(Date.now() / 1000) }).headers))
      assert.strictEqual((yield* receive(headers, [secret, otherSecret])).state.sequence, 1)
      assert.strictEqual((yield* receive(headers, [otherSecret, secret])).state.sequence, 1)
    }))

  it.effect("an empty list, or a bad secret in one, is an InvalidConfig naming the position and not the secret", () =>
    Effect.gen(function*() {
      const headers = signedUnder(secret)
      const empty = yield* Effect.flip(receive(headers, []))
      assert.strictEqual(empty._tag, "InvalidConfig")
      assert.include(empty.message, "at least one")
      const bad = yield* Effect.flip(receive(headers, [secret, "whsec_not base64!"]))
      assert.strictEqual(bad._tag, "InvalidConfig")
      assert.include(bad.message, "position 1")
      assert.notInclude(JSON.stringify(bad), "not base64")
      assert.isTrue(Result.isFailure(Signature.sign({ secret: [], id: "msg_1", timestamp: now, body: text })))
    }))
})

/** A test event of `stream` (sequence 0 unless given). */
const testEvent = (fields: { readonly streamId?: string; readonly sequence?: number; readonly test?: boolean } = {}) =>
  body({ deliveryId: "msg_test", sequence: 0, test: true, events: [], ...fields })

describe("a test event", () => {
  it.effect("is received as a test, the state given back unchanged, at the start of a stream and in its middle", () =>
    Effect.gen(function*() {
      const first = yield* receive(request(testEvent()).headers, secret, testEvent())
      assert.isTrue(first.test)
      assert.strictEqual(first.batch.test, true)
      assert.strictEqual(first.state, ReceiverState.initial)
      const mid = (yield* Receive.receive({ ...batchRequest({ coverage: [{ chain: "0x1", fromBlock: "100", toBlock: "110" }] }), secret, state: ReceiverState.initial, now })).state
      const again = yield* receive(request(testEvent()).headers, secret, testEvent(), mid)
      assert.isTrue(again.test)
      assert.strictEqual(again.state, mid)
      // The next batch is still sequence 2, as if no test had come.
      const next = yield* Receive.receive({ ...batchRequest({ sequence: 2, coverage: [{ chain: "0x1", fromBlock: "111", toBlock: "112" }] }), secret, state: again.state, now })
      assert.strictEqual(next.state.sequence, 2)
      assert.isUndefined(next.test)
      const promised = yield* Effect.promise(() => Receive.receivePromise({ ...request(testEvent()), secret, state: mid, now }))
      assert.isTrue(promised.ok && promised.test === true && promised.state === mid)
    }))

  it.effect("of another stream, once the receiver is bound to one, is a WrongStream", () =>
    Effect.gen(function*() {
      const mid = (yield* Receive.receive({ ...batchRequest(), secret, state: ReceiverState.initial, now })).state
      assert.strictEqual(mid.streamId, streamId)
      const other = testEvent({ streamId: "str_0mwxp89sc0000000000000000" })
      const error = yield* Effect.flip(receive(request(other).headers, secret, other, mid))
      assert.strictEqual(error._tag, "WrongStream")
    }))

  it.effect("sequence 0 without test, or test with another sequence, is a MalformedBatch naming sequence", () =>
    Effect.gen(function*() {
      for (const payload of [testEvent({ test: false }), testEvent({ sequence: 3 })]) {
        const error = yield* Effect.flip(receive(request(payload).headers, secret, payload))
        assert.strictEqual(error._tag, "MalformedBatch")
        assert.strictEqual((error as { field: string }).field, "sequence")
      }
    }))
})
