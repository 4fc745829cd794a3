/**
 * The body as a batch: a signed body that is not UTF-8, not JSON or not the shape of a batch is a
 * MalformedBatch naming the field; a deliveryId other than the webhook-id header too. Unknown
 * fields are tolerated, absent optional ones default, events are kept whole.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { Receive, type ReceiveError, ReceiverState } from "../src/index.js"
import { aptos, batchRequest, body, evm, now, request, secret, streamId } from "./support/signing.js"

const receive = (req: { readonly headers: Receive.HeadersInput; readonly body: string | Uint8Array }) =>
  Receive.receive({ headers: req.headers, body: req.body, secret, state: ReceiverState.initial, now })

/** The MalformedBatch of a signed `text`. */
const malformed = (text: string | Uint8Array, id = "msg_1") =>
  Effect.gen(function*() {
    const error = yield* Effect.flip(receive(request(text, { id })))
    assert.strictEqual(error._tag, "MalformedBatch", error.message)
    return error as ReceiveError.MalformedBatch
  })

describe("the body", () => {
  it.effect("not JSON, not an object, or not UTF-8: the field is body", () =>
    Effect.gen(function*() {
      for (const text of ["{", "", "null", "[1]", "\"text\"", "12"]) {
        const error = yield* malformed(text)
        assert.strictEqual(error.field, "body", text)
        assert.include(error.message, "the body is not a batch")
      }
      const notUtf8 = yield* malformed(new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]))
      assert.strictEqual(notUtf8.field, "body")
      assert.include(notUtf8.message, "UTF-8")
    }))

  it.effect("not the shape of a batch: the error names the field of the first problem", () =>
    Effect.gen(function*() {
      const cases: ReadonlyArray<readonly [Record<string, unknown>, string]> = [
        [{ sequence: 1.5 }, "sequence"],
        [{ sequence: 0 }, "sequence"],
        [{ sequence: "1" }, "sequence"],
        [{ streamId: 7 }, "streamId"],
        [{ replay: "yes" }, "replay"],
        [{ events: "none" }, "events"],
        [{ events: [{ id: "ev_1" }, 3] }, "events[1]"],
        [{ events: [null] }, "events[0]"],
        [{ events: [[1]] }, "events[0]"],
        [{ coverage: [evm("0x1", 1, 2), { chain: "0x1", fromBlock: "1", toBlock: "1e3" }] }, "coverage[1].toBlock"],
        [{ coverage: [{ chain: "0x1", fromBlock: 1, toBlock: "2" }] }, "coverage[0].fromBlock"],
        [{ coverage: [{ chain: "0x1", fromBlock: "01", toBlock: "2" }] }, "coverage[0].fromBlock"],
        [{ coverage: [{ chain: "0x1", fromBlock: "1" }] }, "coverage[0].toBlock"],
        [{ coverage: [{ chain: "ethereum", fromBlock: "1", toBlock: "2" }] }, "coverage[0].chain"],
        [{ coverage: [{ network: "mainnet", fromVersion: "1" }] }, "coverage[0].toVersion"],
        [{ coverage: [{ fromBlock: "1", toBlock: "2" }] }, "coverage[0]"],
        [{ coverage: [evm("0x1", 5, 4)] }, "coverage[0]"],
        [{ coverage: [evm("0x1", 1, 4), evm("0x1", 5, 6)] }, "coverage[1]"],
        [{ replaces: [aptos("mainnet", 9, 3)] }, "replaces[0]"],
        [{ wallets: [{ address: "0xabc", coveredFrom: "1" }] }, "wallets[0]"],
        [{ wallets: [{ chain: "0x1", address: "0xabc", coveredFrom: "-1" }] }, "wallets[0].coveredFrom"]
      ]
      for (const [fields, field] of cases) {
        const error = yield* malformed(body(fields))
        assert.strictEqual(error.field, field, JSON.stringify(fields))
        assert.include(error.message, field)
      }
    }))

  it.effect("a deliveryId other than the webhook-id header is a MalformedBatch on deliveryId naming both", () =>
    Effect.gen(function*() {
      const error = yield* malformed(body({ deliveryId: "msg_other" }), "msg_1")
      assert.strictEqual(error.field, "deliveryId")
      assert.include(error.message, "msg_other")
      assert.include(error.message, "msg_1")
    }))

  it.effect("unknown fields are tolerated; absent optional fields default; events are kept whole", () =>
    Effect.gen(function*() {
      const event = { id: "ev_9", kind: "nft.sent", nested: { amount: "1", list: [1, 2] }, future: null }
      const text = JSON.stringify({
        streamId,
        deliveryId: "msg_1",
        sequence: 1,
        events: [event],
        schemaVersion: 2,
        coverage: [{ ...evm("0x1", 100, 110), finality: "safe" }]
      })
      const { batch, state } = yield* receive(request(text))
      assert.deepStrictEqual(batch, {
        streamId,
        deliveryId: "msg_1",
        sequence: 1,
        replay: false,
        heartbeat: false,
        test: false,
        phase: "live",
        replaces: [],
        coverage: [evm("0x1", 100, 110)],
        wallets: [],
        history: [],
        filters: null,
        events: [event]
      })
      assert.deepStrictEqual(state.coverage, { "0x1": { from: "100", to: "110" } })
    }))

  it.effect("a batch of only its required fields: the optional ones default to false and empty", () =>
    Effect.gen(function*() {
      const { batch, state } = yield* receive(request(JSON.stringify({ streamId, deliveryId: "msg_1", sequence: 1, events: [] })))
      assert.deepStrictEqual(batch, {
        streamId,
        deliveryId: "msg_1",
        sequence: 1,
        replay: false,
        heartbeat: false,
        test: false,
        phase: "live",
        replaces: [],
        coverage: [],
        wallets: [],
        history: [],
        filters: null,
        events: []
      })
      assert.deepStrictEqual(state.coverage, {})
    }))

  it.effect("a chain id or a network name is all of the field, not a part of it", () =>
    Effect.gen(function*() {
      for (const chain of ["x0x1", "0x1g", "0x1 ", "eth0x1"]) {
        assert.strictEqual((yield* malformed(body({ coverage: [evm(chain, 1, 2)] }))).field, "coverage[0].chain", chain)
      }
      for (const network of ["mainnet!", "!mainnet", "main.net"]) {
        assert.strictEqual((yield* malformed(body({ coverage: [aptos(network, 1, 2)] }))).field, "coverage[0].network", network)
      }
    }))

  it.effect("wallets added are decoded for both families", () =>
    Effect.gen(function*() {
      const wallets = [{ chain: "0x1", address: "0xabc", coveredFrom: "121" }, { network: "mainnet", address: "0x1::a", coveredFrom: "1001" }]
      const { batch } = yield* receive(batchRequest({ wallets }))
      assert.deepStrictEqual(batch.wallets, wallets)
    }))
})
