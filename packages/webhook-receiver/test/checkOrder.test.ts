/**
 * "The checks run in this order, and the first problem found is the error" (README, The errors):
 * for each two neighbours of the table, a request with both problems is the earlier one's error.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { Receive, type ReceiveError, ReceiverState } from "../src/index.js"
import { batchRequest, evm, now, otherSecret, request, secret, streamId } from "./support/signing.js"

/** A state bound to the test stream after sequence 3, covering 0x1 100..130. */
const state: ReceiverState.ReceiverState = { streamId, sequence: 3, lastDeliveryId: "msg_3", coverage: { "0x1": { from: "100", to: "130" } } }

/** The tag of the error receiving `signed` against `state`, with `options`. */
const tagOf = (signed: { readonly headers: Receive.HeadersInput; readonly body: string | Uint8Array }, options: Partial<Receive.Options> = {}) =>
  Effect.map(Effect.flip(Receive.receive({ ...signed, secret, state, now, ...options })), (error: ReceiveError.ReceiveError) => error._tag)

describe("the order of the checks", () => {
  it.effect("InvalidConfig before InvalidSignature: an unusable secret, a tolerance or a now, with no header at all", () =>
    Effect.gen(function*() {
      const bare = { headers: {}, body: "{" }
      assert.strictEqual(yield* tagOf(bare, { secret: "whsec_" }), "InvalidConfig")
      assert.strictEqual(yield* tagOf(bare, { toleranceSeconds: -1 }), "InvalidConfig")
      assert.strictEqual(yield* tagOf(bare, { now: -1 }), "InvalidConfig")
    }))

  it.effect("InvalidSignature (a header) before StaleTimestamp; StaleTimestamp before InvalidSignature (mismatch)", () =>
    Effect.gen(function*() {
      const stale = batchRequest({ sequence: 4 }, { timestamp: now - 1000 })
      assert.strictEqual(yield* tagOf({ ...stale, headers: { ...stale.headers, "webhook-signature": "" } }), "InvalidSignature")
      assert.strictEqual(yield* tagOf({ ...stale, headers: { ...stale.headers, "webhook-id": "msg 4" } }), "InvalidSignature")
      assert.strictEqual(yield* tagOf(batchRequest({ sequence: 4 }, { timestamp: now - 1000, secret: otherSecret })), "StaleTimestamp")
    }))

  it.effect("InvalidSignature before MalformedBatch: a body that is no batch, signed with another secret", () =>
    Effect.gen(function*() {
      assert.strictEqual(yield* tagOf(request("{", { id: "msg_4", secret: otherSecret })), "InvalidSignature")
      assert.strictEqual(yield* tagOf(request("{", { id: "msg_4" })), "MalformedBatch")
    }))

  it.effect("MalformedBatch (deliveryId) before WrongStream; WrongStream before AlreadyProcessed", () =>
    Effect.gen(function*() {
      const other = batchRequest({ sequence: 4, streamId: "str_other" })
      assert.strictEqual(yield* tagOf(request(other.body, { id: "msg_other" })), "MalformedBatch")
      assert.strictEqual(yield* tagOf(batchRequest({ sequence: 2, streamId: "str_other" })), "WrongStream")
      assert.strictEqual(yield* tagOf(batchRequest({ sequence: 4, deliveryId: "msg_3", streamId: "str_other" })), "WrongStream")
    }))

  it.effect("AlreadyProcessed before Gap and Overlap: a retry whose coverage would be a hole or covered twice", () =>
    Effect.gen(function*() {
      assert.strictEqual(yield* tagOf(batchRequest({ sequence: 3, coverage: [evm("0x1", 140, 150)] })), "AlreadyProcessed")
      assert.strictEqual(yield* tagOf(batchRequest({ sequence: 2, coverage: [evm("0x1", 120, 125)] })), "AlreadyProcessed")
      assert.strictEqual(yield* tagOf(batchRequest({ sequence: 6, deliveryId: "msg_3", coverage: [evm("0x1", 140, 150)] })), "AlreadyProcessed")
    }))
})
