/**
 * Event constructors: received vs sent, self-transfers, mints and burns, trades, Aptos, DeFi
 * thresholds, retractions; ids stable (same record, same id) and distinct (no two events alike).
 */
import { assert, describe, it } from "@effect/vitest"
import { DateTime, Schema } from "effect"
import { DefiChanges, WatchEvent } from "../src/index.js"
import { alice, aptosAlice, aptosBob, aptosTransfer, bob, collection, nftTransfer, summary, trade, zero } from "./fixtures.js"

const txHash = "0x" + "11".repeat(32)

const buildIds = () => [
  ...WatchEvent.fromNftTransfer("0x1", alice, nftTransfer()),
  ...WatchEvent.fromNftTransfer("0x1", bob, nftTransfer()),
  ...WatchEvent.fromNftTransfer("0x89", alice, nftTransfer()),
  ...WatchEvent.fromNftTransfer("0x1", alice, nftTransfer({ log_index: 8 })),
  ...WatchEvent.fromNftTransfer("0x1", alice, nftTransfer({ token_id: "1235" })),
  ...WatchEvent.fromNftTransfer("0x1", alice, nftTransfer({ transaction_hash: "0x" + "12".repeat(32) }))
].map((e) => e.id)

describe("fromNftTransfer", () => {
  it("the recipient gets nft.received with the sender as counterparty; the sender gets nft.sent", () => {
    const transfer = nftTransfer()
    const [received, ...rest] = WatchEvent.fromNftTransfer("0x1", alice, transfer)
    assert.strictEqual(rest.length, 0)
    assert.strictEqual(received?.kind, "nft.received")
    assert.strictEqual(received?.counterparty, bob)
    assert.strictEqual(received?.collection, collection)
    assert.strictEqual(received?.tokenId, 1234n)
    assert.strictEqual(received?.amount, 1n)
    assert.strictEqual(received?.blockNumber, 19_000_000n)
    assert.strictEqual(received?.logIndex, 7)
    assert.strictEqual(received?.transfer, "transfer")
    assert.strictEqual(received?.id, `evm:0x1:${txHash}:7:1234:received`)
    const sent = WatchEvent.fromNftTransfer("0x1", bob, transfer)
    assert.deepStrictEqual(sent.map((e) => [e.kind, e.counterparty]), [["nft.sent", alice]])
    assert.strictEqual(sent[0]?.id, `evm:0x1:${txHash}:7:1234:sent`)
    assert.deepStrictEqual(WatchEvent.fromNftTransfer("0x1", ("0x" + "99".repeat(20)) as typeof alice, transfer), [])
  })

  it("addresses in the record are compared and written in lower case", () => {
    const transfer = nftTransfer({ to_address: "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed", token_address: collection.toUpperCase().replace("0X", "0x") })
    const [received] = WatchEvent.fromNftTransfer("0x1", alice, transfer)
    assert.strictEqual(received?.kind, "nft.received")
    assert.strictEqual(received?.collection, collection)
  })

  it("a transfer from a watched wallet to itself gives both events, with distinct ids", () => {
    const events = WatchEvent.fromNftTransfer("0x1", alice, nftTransfer({ from_address: alice }))
    assert.deepStrictEqual(events.map((e) => e.kind), ["nft.sent", "nft.received"])
    assert.notStrictEqual(events[0]?.id, events[1]?.id)
    assert.isTrue(events.every((e) => e.counterparty === alice))
  })

  it("a mint comes from the zero address, a burn goes to it", () => {
    const [minted] = WatchEvent.fromNftTransfer("0x1", alice, nftTransfer({ from_address: zero }))
    assert.strictEqual(minted?.kind, "nft.received")
    assert.strictEqual(minted?.transfer, "mint")
    assert.strictEqual(minted?.counterparty, zero)
    const [burned, ...others] = WatchEvent.fromNftTransfer("0x1", alice, nftTransfer({ from_address: alice, to_address: zero }))
    assert.strictEqual(others.length, 0)
    assert.strictEqual(burned?.kind, "nft.sent")
    assert.strictEqual(burned?.transfer, "burn")
    assert.strictEqual(burned?.counterparty, zero)
  })

  it("ids are stable and tell apart chains, logs, batch items and directions", () => {
    const ids = buildIds()
    assert.strictEqual(ids.length, 6)
    assert.strictEqual(new Set(ids).size, 6)
    assert.deepStrictEqual(buildIds(), ids)
    const decodedAgain = WatchEvent.fromNftTransfer("0x1", alice, nftTransfer({ transaction_hash: txHash.toUpperCase().replace("0X", "0x"), log_index: "7" }))
    assert.strictEqual(decodedAgain[0]?.id, ids[0])
  })
})

describe("fromTrade", () => {
  it("buyer gets trade.bought, seller trade.sold, with price, token and marketplace", () => {
    const [bought] = WatchEvent.fromTrade("0x1", alice, trade())
    assert.strictEqual(bought?.kind, "trade.bought")
    assert.strictEqual(bought?.counterparty, bob)
    assert.strictEqual(bought?.price, 1_500_000_000_000_000_000n)
    assert.isNull(bought?.priceToken)
    assert.strictEqual(bought?.marketplace, "0x" + "ee".repeat(20))
    assert.deepStrictEqual(bought?.tokenIds, [1n, 2n])
    const [sold] = WatchEvent.fromTrade("0x1", bob, trade({ price_token_address: "0x" + "AB".repeat(20) }))
    assert.strictEqual(sold?.kind, "trade.sold")
    assert.strictEqual(sold?.counterparty, alice)
    assert.strictEqual(sold?.priceToken, "0x" + "ab".repeat(20))
    assert.notStrictEqual(bought?.id, sold?.id)
    assert.deepStrictEqual(WatchEvent.fromTrade("0x1", alice, trade())[0]?.id, bought?.id)
    // The same tokens bought from another seller in the same transaction: another id.
    const other = WatchEvent.fromTrade("0x1", alice, trade({ seller_address: "0x" + "99".repeat(20) }))[0]
    assert.notStrictEqual(other?.id, bought?.id)
  })
})

describe("fromAptosTransfer", () => {
  it("in for the recipient, out for the sender, both for a self-transfer; mints have no counterparty", () => {
    const [tokenIn] = WatchEvent.fromAptosTransfer("mainnet", aptosAlice, aptosTransfer())
    assert.strictEqual(tokenIn?.kind, "aptos.token.in")
    assert.strictEqual(tokenIn?.counterparty, aptosBob)
    assert.strictEqual(tokenIn?.version, 123_456_789n)
    assert.strictEqual(tokenIn?.id, `aptos:mainnet:123456789:${aptosAlice}:4:9:in`)
    const [tokenOut] = WatchEvent.fromAptosTransfer("mainnet", aptosBob, aptosTransfer())
    assert.strictEqual(tokenOut?.kind, "aptos.token.out")
    assert.strictEqual(tokenOut?.counterparty, aptosAlice)
    const self = WatchEvent.fromAptosTransfer("mainnet", aptosAlice, aptosTransfer({ from_address: aptosAlice }))
    assert.deepStrictEqual(self.map((e) => e.kind), ["aptos.token.out", "aptos.token.in"])
    const [minted] = WatchEvent.fromAptosTransfer("testnet", aptosAlice, aptosTransfer({ from_address: null, transfer_type: "0x3::token::MintTokenEvent" }))
    assert.isNull(minted?.counterparty)
    assert.strictEqual(minted?.network, "testnet")
    const short = WatchEvent.fromAptosTransfer("mainnet", aptosAlice, aptosTransfer({ to_address: "0xA11CE" }))
    assert.strictEqual(short[0]?.kind, "aptos.token.in")
    assert.notStrictEqual(tokenIn?.id, tokenOut?.id)
    assert.notStrictEqual(minted?.id, tokenIn?.id, "the network is part of the id")
    const otherHandle = WatchEvent.fromAptosTransfer("mainnet", aptosAlice, aptosTransfer({ event_account_address: aptosBob }))
    assert.notStrictEqual(otherHandle[0]?.id, tokenIn?.id, "the event handle's account is part of the id")
    assert.strictEqual(WatchEvent.fromAptosTransfer("mainnet", aptosAlice, aptosTransfer())[0]?.id, tokenIn?.id)
  })
})

describe("defiChanges", () => {
  const at = { chain: "0x1" as const, wallet: alice, blockNumber: 19_000_100n, timestamp: DateTime.makeUnsafe("2024-05-01T12:30:00Z") }
  const pool = "0x" + "dd".repeat(20)

  it("opened, closed and changed beyond the threshold", () => {
    const before = [summary("aave-v3", [["supplied", pool, 1000], ["borrowed", pool, 500]]), summary("lido", [["staking", pool, 200]])]
    const after = [summary("aave-v3", [["supplied", pool, 1049.99], ["borrowed", pool, 525]]), summary("uniswap-v3", [["liquidity", pool, 80]])]
    const events = WatchEvent.defiChanges(at, before, after, 0.05)
    assert.deepStrictEqual(events.map((e) => [e.kind, e.protocolId, e.positionLabel, e.usdBefore, e.usdAfter]), [
      ["defi.changed", "aave-v3", "borrowed", 500, 525],
      ["defi.opened", "uniswap-v3", "liquidity", null, 80],
      ["defi.closed", "lido", "staking", 200, null]
    ])
    assert.strictEqual(events[0]?.id, `defi:0x1:${alice}:aave-v3/borrowed/${pool}:19000100:changed:500:525`)
    // A second change of the same position seen at the same block keeps its own id.
    const again = WatchEvent.defiChanges(at, after, [summary("aave-v3", [["supplied", pool, 1049.99], ["borrowed", pool, 600]])], 0.05)
    assert.notStrictEqual(again[0]?.id, events[0]?.id)
    assert.strictEqual(new Set(events.map((e) => e.id)).size, 3)
    assert.deepStrictEqual(WatchEvent.defiChanges(at, before, after, 0.05).map((e) => e.id), events.map((e) => e.id))
  })

  it("the threshold is relative; 0 reports every move; a position worth 0 changes on any move", () => {
    const before = [summary("aave-v3", [["supplied", pool, 100], ["rewards", pool, 0]])]
    const after = [summary("aave-v3", [["supplied", pool, 104], ["rewards", pool, 1]])]
    assert.deepStrictEqual(WatchEvent.defiChanges(at, before, after, 0.05).map((e) => e.positionLabel), ["rewards"])
    assert.deepStrictEqual(WatchEvent.defiChanges(at, before, after, 0.04).map((e) => e.positionLabel), ["supplied", "rewards"])
    assert.deepStrictEqual(WatchEvent.defiChanges(at, before, after, 0).length, 2)
    assert.deepStrictEqual(WatchEvent.defiChanges(at, before, before, 0), [])
    const exactly = WatchEvent.defiChanges(at, before, [summary("aave-v3", [["supplied", pool, 105], ["rewards", pool, 0]])], 0.05)
    assert.deepStrictEqual(exactly.map((e) => e.usdAfter), [105])
    const down = WatchEvent.defiChanges(at, before, [summary("aave-v3", [["supplied", pool, 90], ["rewards", pool, 0]])], 0.05)
    assert.deepStrictEqual(down.map((e) => [e.kind, e.usdBefore, e.usdAfter]), [["defi.changed", 100, 90]])
  })

  it("baselineAfter keeps the last reported value of unreported positions: a slow drift is reported once it adds up", () => {
    let snapshot = [summary("aave-v3", [["supplied", pool, 100]])]
    const reported: Array<number | null> = []
    let value = 100
    for (let read = 0; read < 6; read++) {
      value = value * 0.96
      const now = [summary("aave-v3", [["supplied", pool, value]])]
      const events = WatchEvent.defiChanges(at, snapshot, now, 0.05)
      reported.push(...events.map((event) => event.usdAfter))
      snapshot = [...DefiChanges.baselineAfter(snapshot, now, events)]
    }
    // 100 -> 96 (4%, kept at 100) -> 92.16 (7.8% from 100: reported) -> 88.47 (4%) -> 84.93 (7.8%: reported) …
    assert.strictEqual(reported.length, 3)
    assert.closeTo(reported[0] ?? 0, 92.16, 1e-9)
  })

  it("first snapshot: every position is opened; empty after: every position is closed", () => {
    const positions = [summary("aave-v3", [["supplied", pool, 100]])]
    assert.deepStrictEqual(WatchEvent.defiChanges(at, [], positions, 0.05).map((e) => e.kind), ["defi.opened"])
    assert.deepStrictEqual(WatchEvent.defiChanges(at, positions, [], 0.05).map((e) => e.kind), ["defi.closed"])
  })
})

describe("retract and the schema", () => {
  it("a retraction names the event and the orphaned block; its id is stable", () => {
    const [received] = WatchEvent.fromNftTransfer("0x1", alice, nftTransfer())
    const retraction = WatchEvent.retract(received!)
    assert.strictEqual(retraction.kind, "retracted")
    assert.strictEqual(retraction.retracts, received!.id)
    assert.strictEqual(retraction.blockNumber, 19_000_000n)
    assert.strictEqual(retraction.blockHash, "0x" + "aa".repeat(32))
    assert.strictEqual(retraction.id, `retracted:${received!.id}:0x${"aa".repeat(32)}`)
    assert.deepStrictEqual(WatchEvent.retract(received!), retraction)
  })

  it("every constructed event is a valid WatchEvent; the union knows all twelve kinds", () => {
    const at = { chain: "0x1" as const, wallet: alice, blockNumber: 1n, timestamp: DateTime.makeUnsafe(0) }
    const events = [
      ...WatchEvent.fromNftTransfer("0x1", alice, nftTransfer({ from_address: alice })),
      ...WatchEvent.fromTrade("0x1", alice, trade({ seller_address: alice })),
      ...WatchEvent.defiChanges(at, [summary("a", [["x", collection, 1], ["y", collection, 1]])], [summary("a", [["x", collection, 2], ["z", collection, 1]])], 0.05),
      ...WatchEvent.fromAptosTransfer("mainnet", aptosAlice, aptosTransfer({ from_address: aptosAlice })),
      WatchEvent.holdingUpdated("0x1", alice, collection, 7n, 2n, 1n),
      WatchEvent.holdingSyncing("0x1", alice, collection, 1n)
    ]
    const all = [...events, WatchEvent.retract(events[0] as WatchEvent.NftEvent)]
    assert.deepStrictEqual(new Set(all.map((e) => e.kind)), new Set(WatchEvent.kinds))
    assert.strictEqual(WatchEvent.kinds.length, 12)
    for (const event of all) assert.isTrue(Schema.is(WatchEvent.WatchEvent)(event), event.kind)
    assert.strictEqual(new Set(all.map((e) => e.id)).size, all.length)
  })
})
