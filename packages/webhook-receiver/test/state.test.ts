/**
 * The state a receiver stores: the initial one, a JSON round trip through the Schema that the
 * next batch continues from, and stored states the Schema refuses.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Schema } from "effect"
import { Receive, ReceiverState } from "../src/index.js"
import { aptos, batchRequest, evm, now, secret, streamId } from "./support/signing.js"

describe("ReceiverState", () => {
  it("the initial state expects sequence 1 of any stream and covers nothing", () => {
    assert.deepStrictEqual(ReceiverState.initial, { streamId: null, sequence: 0, lastDeliveryId: null, coverage: {} })
    assert.isTrue(Schema.is(ReceiverState.ReceiverState)(ReceiverState.initial))
  })

  it.effect("a state survives JSON.stringify and decoding with the Schema, and the stream continues from it", () =>
    Effect.gen(function*() {
      const first = yield* Receive.receive({
        ...batchRequest({ sequence: 1, coverage: [evm("0x1", "118", "21000000000000000000"), aptos("mainnet", 1001, 1500)] }),
        secret,
        state: ReceiverState.initial,
        now
      })
      const stored = JSON.stringify(first.state)
      const decoded = Schema.decodeUnknownSync(ReceiverState.ReceiverState)(JSON.parse(stored))
      assert.deepStrictEqual(decoded, {
        streamId,
        sequence: 1,
        lastDeliveryId: "msg_1",
        coverage: { "0x1": { from: "118", to: "21000000000000000000" }, "aptos:mainnet": { from: "1001", to: "1500" } }
      })
      // The same through the Json schema, both ways.
      assert.deepStrictEqual(Schema.decodeUnknownSync(ReceiverState.Json)(Schema.encodeSync(ReceiverState.Json)(decoded)), decoded)
      const second = yield* Receive.receive({
        ...batchRequest({ sequence: 2, coverage: [evm("0x1", "21000000000000000001", "21000000000000000002")] }),
        secret,
        state: decoded,
        now
      })
      assert.deepStrictEqual(second.state.coverage["0x1"], { from: "118", to: "21000000000000000002" })
    }))

  it("the Schema refuses a stored state that is not one", () => {
    const valid = { streamId, sequence: 3, lastDeliveryId: "msg_3", coverage: { "0x1": { from: "100", to: "99" } } }
    const is = Schema.is(ReceiverState.ReceiverState)
    assert.isTrue(is(valid))
    assert.isTrue(is({ ...valid, coverage: { "0x1": { from: "0", to: "-1" } } }))
    for (const bad of [
      { ...valid, sequence: -1 },
      { ...valid, sequence: 1.5 },
      { ...valid, streamId: "" },
      { ...valid, coverage: { "0x1": { from: "x", to: "9" } } },
      { ...valid, coverage: { "0x1": { from: 1, to: 9 } } },
      { ...valid, coverage: { "0x1": { from: "100", to: "98" } } },
      { ...valid, coverage: { "0x1": { from: "1", to: "-1" } } },
      { ...valid, coverage: { "0x1": { from: "0", to: "-2" } } },
      { ...valid, coverage: { "0x1": { from: "0", to: "-10" } } },
      { ...valid, coverage: { "0x1": { from: "0", to: "5-1" } } },
      { ...valid, coverage: { "0x1": { from: "0", to: "12a" } } },
      { streamId, sequence: 3, coverage: {} }
    ]) {
      assert.isFalse(is(bad), JSON.stringify(bad))
    }
  })

  it.effect("receiving with a state that bypassed the Schema is a defect that says so, not a wrong answer", () =>
    Effect.gen(function*() {
      const state = { streamId, sequence: 0, lastDeliveryId: null, coverage: { "0x1": { from: "1e3", to: "5" } } }
      const exit = yield* Effect.exit(Receive.receive({ ...batchRequest({ sequence: 1 }), secret, state, now }))
      assert.isTrue(Exit.hasDies(exit))
      assert.include(String(exit), "not a ReceiverState")
    }))
})
