/**
 * "Every error has a message for your logs" and names what is wrong (README, The errors): the
 * exact message of each kind of problem, so that a log says which header, which field, which
 * blocks; and the errors' Schemas, which encode an error whole (to log it as JSON).
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { Decimal, Receive, ReceiveError, ReceiverState } from "../src/index.js"
import { aptos, batchRequest, body, type BatchFields, evm, now, request, secret, streamId } from "./support/signing.js"

/** A state bound to the test stream after sequence 2, covering 0x1 100..125. */
const state: ReceiverState.ReceiverState = { streamId, sequence: 2, lastDeliveryId: "msg_2", coverage: { "0x1": { from: "100", to: "125" } } }

/** The message of the error receiving `signed` against `state`. */
const messageOf = (signed: { readonly headers: Receive.HeadersInput; readonly body: string | Uint8Array }, options: Partial<Receive.Options> = {}) =>
  Effect.map(Effect.flip(Receive.receive({ ...signed, secret, state, now, ...options })), (error) => error.message)

/** The message of the error receiving batch `fields`. */
const batchMessage = (fields: BatchFields) => messageOf(batchRequest(fields))

describe("the messages of the errors", () => {
  it.effect("InvalidConfig names the setting and, but for the secret, the value", () =>
    Effect.gen(function*() {
      const signed = batchRequest({ sequence: 3 })
      assert.strictEqual(yield* messageOf(signed, { secret: "whsec_" }), "the webhook secret is not of the form whsec_<base64> (of at least one byte)")
      assert.strictEqual(yield* messageOf(signed, { toleranceSeconds: -5 }), "toleranceSeconds must be a number of seconds >= 0, not -5")
      assert.strictEqual(yield* messageOf(signed, { now: 1.5 }), "now must be a unix time in whole seconds, not 1.5")
    }))

  it.effect("InvalidSignature says which header and what is wrong with it", () =>
    Effect.gen(function*() {
      const signed = batchRequest({ sequence: 3 })
      const cases: ReadonlyArray<readonly [Record<string, string | ReadonlyArray<string>>, string]> = [
        [{ "webhook-id": ["msg_3", "msg_4"] }, "the request has 2 different webhook-id headers"],
        [{ "webhook-id": "msg 3" }, "the webhook-id header contains whitespace"],
        [{ "webhook-signature": "nothing-here" }, "the webhook-signature header has no <version>,<signature> entry"],
        [{ "webhook-timestamp": "17000000x" }, "the webhook-timestamp header is not a unix time in seconds"],
        [{ "webhook-timestamp": "x17000000000000" }, "the webhook-timestamp header is not a unix time in seconds"],
        [{ "webhook-timestamp": "17000000000000x" }, "the webhook-timestamp header is not a unix time in seconds"],
        [{ "webhook-timestamp": "17000000000000" }, "the webhook-timestamp header is not a unix time in seconds (milliseconds?)"],
        [{ "webhook-signature": "v1,AAAA" }, "no v1 signature of the webhook-signature header matches the request"]
      ]
      for (const [headers, message] of cases) assert.strictEqual(yield* messageOf({ ...signed, headers: { ...signed.headers, ...headers } }), message)
    }))

  it.effect("StaleTimestamp says how old, or how far in the future, and the tolerance", () =>
    Effect.gen(function*() {
      assert.strictEqual(yield* messageOf(batchRequest({ sequence: 3 }, { timestamp: now - 400 })), "the request is 400 s old, more than the 300 s tolerated")
      assert.strictEqual(
        yield* messageOf(batchRequest({ sequence: 3 }, { timestamp: now + 400 })),
        "the request's timestamp is 400 s in the future, more than the 300 s tolerated"
      )
    }))

  it.effect("MalformedBatch names the field and the problem", () =>
    Effect.gen(function*() {
      const cases: ReadonlyArray<readonly [BatchFields, string]> = [
        [{ coverage: [evm("0x1", 5, 4)] }, "the batch's coverage[0] is invalid: fromBlock 5 is after toBlock 4"],
        [{ replaces: [aptos("mainnet", 9, 3)] }, "the batch's replaces[0] is invalid: fromVersion 9 is after toVersion 3"],
        [{ coverage: [evm("0xa", 1, 4), evm("0x1", 5, 6), evm("0xA", 7, 8)] }, "the batch's coverage[2] is invalid: 0xa is named twice in the list"],
        [{ coverage: [evm("0x", 1, 2)] }, "the batch's coverage[0].chain is invalid: Expected a hex chain id such as 0x1"],
        [{ coverage: [aptos("main net", 1, 2)] }, "the batch's coverage[0].network is invalid: Expected an Aptos network name such as mainnet"],
        [{ coverage: [evm("0x1", "01", 2)] }, "the batch's coverage[0].fromBlock is invalid: Expected a decimal string of digits (no sign, no leading zero)"],
        [{ coverage: [{ fromBlock: "1", toBlock: "2" }] }, "the batch's coverage[0] is invalid: Expected a chain (EVM) or a network (Aptos)"]
      ]
      for (const [fields, message] of cases) assert.strictEqual(yield* batchMessage({ sequence: 3, ...fields }), message, JSON.stringify(fields))
      assert.strictEqual(yield* messageOf(request(body({ sequence: 3 }), { id: "msg_x" })), "the batch's deliveryId msg_3 is not the webhook-id header msg_x")
    }))

  it.effect("a Gap names only what is missing: sequences alone, blocks alone, both", () =>
    Effect.gen(function*() {
      assert.strictEqual(
        yield* batchMessage({ sequence: 5, coverage: [evm("0x1", 126, 130)] }),
        "delivery msg_5 (sequence 5) leaves a gap: sequences never received: 3..4"
      )
      assert.strictEqual(
        yield* batchMessage({ sequence: 3, coverage: [evm("0x1", 127, 130)] }),
        "delivery msg_3 (sequence 3) leaves a gap: blocks never covered: 0x1 126"
      )
      assert.strictEqual(
        yield* batchMessage({ sequence: 4, coverage: [evm("0x1", 120, 130), aptos("testnet", 5, 9)] }),
        "delivery msg_4 (sequence 4) leaves a gap: sequences never received: 3; blocks covered twice: 0x1 120..125"
      )
    }))

  it("a stored state refused by the Schema says why", () => {
    const covered = { streamId, sequence: 2, lastDeliveryId: "msg_2", coverage: { "0x1": { from: "100", to: "98" } } }
    assert.throws(() => Schema.decodeUnknownSync(ReceiverState.ReceiverState)(covered), "from 100 is after to 98 + 1")
    assert.throws(() => Schema.decodeUnknownSync(Decimal.Decimal)("-1"), "Expected a decimal string of digits (no sign, no leading zero)")
    const badTo = { ...covered, coverage: { "0x1": { from: "0", to: "-2" } } }
    assert.throws(() => Schema.decodeUnknownSync(ReceiverState.ReceiverState)(badTo), "Expected a decimal string of digits (no sign, no leading zero), or -1")
  })
})

describe("the errors' Schemas", () => {
  it.effect("a Gap encodes whole, its sequences and blocks with it, and decodes back", () =>
    Effect.gen(function*() {
      const gap = yield* Effect.flip(Receive.receive({ ...batchRequest({ sequence: 4, coverage: [evm("0x1", 130, 131)] }), secret, state, now }))
      assert.strictEqual(gap._tag, "Gap")
      const encoded = Schema.encodeUnknownSync(ReceiveError.Gap)(gap) as Record<string, unknown>
      assert.deepStrictEqual(encoded.missingSequences, { from: 3, to: 3 })
      assert.deepStrictEqual(encoded.missingBlocks, [{ scope: "0x1", from: "126", to: "129" }])
      const back = Schema.decodeUnknownSync(ReceiveError.Gap)(JSON.parse(JSON.stringify(encoded)))
      assert.deepStrictEqual([back.missingSequences, back.missingBlocks, back.state], [{ from: 3, to: 3 }, [{ scope: "0x1", from: "126", to: "129" }], (gap as ReceiveError.Gap).state])
      assert.isFalse(Schema.is(ReceiveError.Sequences)({ from: 3 }))
      assert.isFalse(Schema.is(ReceiveError.Blocks)({ scope: "0x1", from: "1", to: "x" }))
    }))
})
