/**
 * `DeliveryWorker.body`, the JSON a receiver parses: the sequence, replay, heartbeat and phase, several
 * ranges in `replaces` and `coverage` (a batch over two chains, a reorganisation on both), several
 * wallets, a history batch's wallet ranges, and Aptos networks in versions, blocks as decimal
 * strings; empty lists when a batch has none. Each a valid JSON value with the fields SERVE.md names.
 */
import { assert, describe, it } from "@effect/vitest"
import * as DeliveryWorker from "../src/delivery/DeliveryWorker.js"

describe("DeliveryWorker.body", () => {
  it("two ranges in replaces and coverage, two wallets, an Aptos network: valid JSON with every field", () => {
    const text = DeliveryWorker.body({
      streamId: "str_1",
      deliveryId: "msg_1",
      sequence: 9,
      replaces: [{ scope: "0x1", from: 10n, to: 12n }, { scope: "0x89", from: 20n, to: 21n }],
      coverage: [{ scope: "0x1", from: 10n, to: 15n }, { scope: "aptos:mainnet", from: 100n, to: 200n }],
      wallets: [{ scope: "0x1", address: "0xaa", coveredFrom: 11n }, { scope: "aptos:mainnet", address: "0xbb", coveredFrom: 150n }],
      events: ["{\"kind\":\"retracted\"}", "{\"kind\":\"nft.received\"}"]
    })
    assert.deepStrictEqual(JSON.parse(text), {
      streamId: "str_1",
      deliveryId: "msg_1",
      sequence: 9,
      replay: false,
      heartbeat: false,
      test: false,
      phase: "live",
      replaces: [{ chain: "0x1", fromBlock: "10", toBlock: "12" }, { chain: "0x89", fromBlock: "20", toBlock: "21" }],
      coverage: [{ chain: "0x1", fromBlock: "10", toBlock: "15" }, { network: "mainnet", fromVersion: "100", toVersion: "200" }],
      wallets: [{ chain: "0x1", address: "0xaa", coveredFrom: "11" }, { network: "mainnet", address: "0xbb", coveredFrom: "150" }],
      history: [],
      filters: null,
      events: [{ kind: "retracted" }, { kind: "nft.received" }]
    })
  })

  it("states the sequence, replay and heartbeat, the ranges (Aptos in versions) and the wallets, blocks as decimal strings", () => {
    const text = DeliveryWorker.body({
      streamId: "str_1",
      deliveryId: "msg_1",
      sequence: 3,
      heartbeat: true,
      replaces: [{ scope: "0x1", from: 9n, to: 10n }],
      coverage: [{ scope: "0x1", from: 9n, to: 12n }, { scope: "aptos:mainnet", from: 5n, to: 7n }],
      wallets: [{ scope: "aptos:testnet", address: "0x1", coveredFrom: 4n }],
      events: ['{"id":"e"}']
    })
    assert.deepStrictEqual(JSON.parse(text), {
      streamId: "str_1",
      deliveryId: "msg_1",
      sequence: 3,
      replay: false,
      heartbeat: true,
      test: false,
      phase: "live",
      replaces: [{ chain: "0x1", fromBlock: "9", toBlock: "10" }],
      coverage: [{ chain: "0x1", fromBlock: "9", toBlock: "12" }, { network: "mainnet", fromVersion: "5", toVersion: "7" }],
      wallets: [{ network: "testnet", address: "0x1", coveredFrom: "4" }],
      history: [],
      filters: null,
      events: [{ id: "e" }]
    })
    assert.strictEqual(DeliveryWorker.body({ streamId: "s", deliveryId: "d", sequence: 1, events: [] }),
      '{"streamId":"s","deliveryId":"d","sequence":1,"replay":false,"heartbeat":false,"test":false,"phase":"live","replaces":[],"coverage":[],"wallets":[],"history":[],"filters":null,"events":[]}')
  })

  it("a history batch: its phase, each wallet's range of history (Aptos in versions), the wallets announced with where their history starts", () => {
    const text = DeliveryWorker.body({
      streamId: "str_1",
      deliveryId: "msg_2",
      sequence: 4,
      phase: "history",
      wallets: [{ scope: "0x1", address: "0xaa", coveredFrom: 200n, historyFrom: 100n }],
      history: [{ scope: "0x1", address: "0xaa", from: 100n, to: 149n }, { scope: "aptos:mainnet", address: "0xbb", from: 7n, to: 9n }],
      events: ['{"id":"e"}']
    })
    const batch = JSON.parse(text)
    assert.strictEqual(batch.phase, "history")
    assert.deepStrictEqual(batch.wallets, [{ chain: "0x1", address: "0xaa", coveredFrom: "200", historyFrom: "100" }])
    assert.deepStrictEqual(batch.history, [
      { chain: "0x1", address: "0xaa", fromBlock: "100", toBlock: "149" },
      { network: "mainnet", address: "0xbb", fromVersion: "7", toVersion: "9" }
    ])
  })
})
