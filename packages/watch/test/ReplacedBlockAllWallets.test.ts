/**
 * The record of a chain's recent blocks and how a block read again is reconciled with it
 * (`internal/cycle/recentBlocks.ts`): a replaced block is corrected for every wallet that covers
 * it at once (what is gone retracted, what is new printed, what stays kept with the block's new
 * hash, a trade with its transfer), the events of wallets that did not derive the block left
 * alone, and the wallets of the state this engine does not watch put right too. Pure functions, on
 * records built from wire-shaped JSON as the service sends them.
 */
import { assert, describe, it } from "@effect/vitest"
import { EvmAddress } from "@chainquery/schema"
import { Effect, Schema } from "effect"
import {
  byAddressOf,
  byChainOrder,
  covers,
  eventsOf,
  hashOf,
  loadRecent,
  type Printed,
  reconcile,
  restingOf,
  type Tracked,
  withResting
} from "../src/internal/cycle/recentBlocks.js"
import { StateStore, WatchEvent, type WatchedWallet } from "../src/index.js"
import { alice, bob, nftTransfer, trade } from "./fixtures.js"

const chain = "0x1"
const carol = Schema.decodeUnknownSync(EvmAddress.EvmAddress)("0x" + "ca".repeat(20))
const wallet = (address: EvmAddress.EvmAddress, on: "0x1" | "0x89" = chain): WatchedWallet.EvmWallet => ({ family: "evm", chain: on, address })
const tracked = (address: EvmAddress.EvmAddress, since: bigint, position: bigint): Tracked => ({ wallet: wallet(address), since, position })

const oldHash = "0x" + "aa".repeat(32)
const newHash = "0x" + "bb".repeat(32)
const tx = (n: number) => "0x" + n.toString(16).padStart(2, "0").repeat(32)

/** Bob sends alice a token in block 100 (transaction `n`, log `n`), in the block of `hash`. */
const bobToAlice = (n: number, hash = oldHash, overrides: Record<string, unknown> = {}) =>
  nftTransfer({ block_number: "100", block_hash: hash, transaction_hash: tx(n), log_index: n, token_id: String(n), ...overrides })

const ids = (events: ReadonlyArray<{ readonly id: string }>) => events.map((event) => event.id).toSorted()

describe("which blocks are a wallet's", () => {
  it("a block after its since and at or before its checkpoint", () => {
    const t = tracked(alice, 10n, 20n)
    assert.deepStrictEqual([9n, 10n, 11n, 20n, 21n].map((block) => covers(t, block)), [false, false, true, true, false])
  })

  it("the state's wallets on the chain this engine does not watch rest; their since defaults to 0", () => {
    const checkpoints = new Map([
      ["a", { wallet: wallet(alice), position: 50n, hash: null, since: 7n }],
      ["b", { wallet: wallet(bob), position: 60n, hash: null }],
      ["c", { wallet: wallet(carol), position: 70n, hash: null, since: 1n }],
      ["d", { wallet: wallet(bob, "0x89"), position: 80n, hash: null, since: 2n }],
      ["e", { wallet: { family: "aptos" as const, network: "mainnet" as const, address: "0xa11ce" as never }, position: 90n, hash: null }]
    ])
    const resting = restingOf(chain, [wallet(carol)], checkpoints)
    assert.deepStrictEqual(resting, [
      { wallet: wallet(alice), position: 50n, since: 7n, resting: true },
      { wallet: wallet(bob), position: 60n, since: 0n, resting: true }
    ])
  })
})

describe("the events of a block, for the wallets that derive it", () => {
  it("a block's hash is its first transfer's, lower-cased; none without transfers", () => {
    assert.strictEqual(hashOf([bobToAlice(1, "0x" + "AB".repeat(32)), bobToAlice(2, newHash)]), "0x" + "ab".repeat(32))
    assert.strictEqual(hashOf([]), "")
  })

  it("both sides of a transfer, matched whatever the case of the addresses, for the wallets wanted", () => {
    const a = tracked(alice, 0n, 200n)
    const b = tracked(bob, 0n, 200n)
    const byAddress = byAddressOf([a, b])
    const transfer = bobToAlice(1, oldHash, { from_address: bob.toUpperCase().replace("0X", "0x"), to_address: alice.toUpperCase().replace("0X", "0x") })
    const both = eventsOf(chain, byAddress, [transfer], () => true)
    assert.deepStrictEqual(both.map((event) => `${event.kind} ${event.wallet}`).toSorted(), [`nft.received ${alice}`, `nft.sent ${bob}`])
    const onlyAlice = eventsOf(chain, byAddress, [transfer], (t) => t === a)
    assert.deepStrictEqual(onlyAlice.map((event) => `${event.kind} ${event.wallet}`), [`nft.received ${alice}`])
  })

  it("a transfer with one side watched gives that side's events only", () => {
    const byAddress = byAddressOf([tracked(alice, 0n, 200n)])
    assert.deepStrictEqual(eventsOf(chain, byAddress, [bobToAlice(1)], () => true).map((event) => `${event.kind} ${event.wallet}`), [`nft.received ${alice}`])
    const bobOnly = byAddressOf([tracked(bob, 0n, 200n)])
    assert.deepStrictEqual(eventsOf(chain, bobOnly, [bobToAlice(1)], () => true).map((event) => `${event.kind} ${event.wallet}`), [`nft.sent ${bob}`])
  })

  it("a transfer to oneself gives that wallet its two events once, and none to a wallet not watched", () => {
    const byAddress = byAddressOf([tracked(alice, 0n, 200n)])
    const events = eventsOf(chain, byAddress, [bobToAlice(1, oldHash, { from_address: alice })], () => true)
    assert.deepStrictEqual(events.map((event) => event.kind), ["nft.sent", "nft.received"])
    assert.deepStrictEqual(eventsOf(chain, byAddress, [bobToAlice(1, oldHash, { to_address: bob })], () => true), [])
  })

  it("wallets are found by address, one each (a chain's wallets are its addresses); the resting ones join only when there are some", () => {
    const a = tracked(alice, 0n, 10n)
    const b = tracked(bob, 0n, 10n)
    const byAddress = byAddressOf([a, b])
    assert.strictEqual(byAddress.get(alice), a)
    assert.strictEqual(byAddress.get(bob), b)
    assert.isUndefined(byAddress.get(carol))
    assert.strictEqual(withResting(byAddress, [a, b], []), byAddress)
    const c = { ...tracked(carol, 0n, 10n), resting: true as const }
    const all = withResting(byAddress, [a, b], [c])
    assert.strictEqual(all.get(carol), c)
    assert.strictEqual(all.get(alice), a)
    assert.isUndefined(byAddress.get(carol), "the watched wallets' own map is left as it was")
  })

  it("chain order: by block, then log index", () => {
    const events = [
      bobToAlice(5, oldHash, { block_number: "101" }),
      bobToAlice(9),
      bobToAlice(1, oldHash, { block_number: "103" }),
      bobToAlice(2),
      bobToAlice(7, oldHash, { block_number: "99" }),
      bobToAlice(3, oldHash, { block_number: "102" })
    ].flatMap((t) => WatchEvent.fromNftTransfer(chain, alice, t))
    const order = ["99:7", "100:2", "100:9", "101:5", "102:3", "103:1"]
    assert.deepStrictEqual(events.toSorted(byChainOrder).map((event) => `${event.blockNumber}:${event.logIndex}`), order)
    assert.deepStrictEqual(events.toReversed().toSorted(byChainOrder).map((event) => `${event.blockNumber}:${event.logIndex}`), order)
  })
})

/** The events of `transfers` for `wallets`, as printed. */
const printedOf = (transfers: ReadonlyArray<ReturnType<typeof bobToAlice>>, wallets: ReadonlyArray<EvmAddress.EvmAddress>): Array<Printed> =>
  transfers.flatMap((t) => wallets.flatMap((w) => WatchEvent.fromNftTransfer(chain, w, t)))

describe("a block read again, reconciled with its record", () => {

  it("replaced: for every wallet that derived it, what is gone is retracted, what is new printed, what stays recorded with the new hash", () => {
    const printed = printedOf([bobToAlice(1), bobToAlice(2)], [alice, bob])
    const now = printedOf([bobToAlice(1, newHash), bobToAlice(3, newHash)], [alice, bob]) as ReadonlyArray<WatchEvent.NftEvent>
    const result = reconcile(chain, 100n, newHash, now, printed, () => true)
    const gone = printed.filter((event) => event.transactionHash === tx(2))
    assert.strictEqual(gone.length, 2, "alice's and bob's events of transaction 2")
    assert.deepStrictEqual(result.retractions, gone.map(WatchEvent.retract))
    assert.deepStrictEqual(ids(result.events), ids(now.filter((event) => event.transactionHash === tx(3))))
    assert.deepStrictEqual(result.block, { chain, number: 100n, hash: newHash })
    assert.deepStrictEqual({ ...result.blockEvents, events: [] }, { chain, number: 100n, hash: newHash, events: [] })
    assert.deepStrictEqual(ids(result.blockEvents.events), ids(now))
    for (const event of result.blockEvents.events) assert.strictEqual(event.blockHash, newHash, `${event.id} recorded with the block's new hash`)
    assert.isTrue(result.changed)
  })

  it("the events of a wallet that did not derive the block stay as printed, gone or not", () => {
    const printed = printedOf([bobToAlice(1), bobToAlice(2)], [alice, bob])
    const now = printedOf([bobToAlice(1, newHash)], [alice]) as ReadonlyArray<WatchEvent.NftEvent>
    const result = reconcile(chain, 100n, newHash, now, printed, (w) => w === alice)
    assert.deepStrictEqual(ids(result.retractions.map((r) => ({ id: r.retracts }))), ids(printed.filter((e) => e.wallet === alice && e.transactionHash === tx(2))))
    const bobs = printed.filter((event) => event.wallet === bob)
    assert.deepStrictEqual(result.blockEvents.events.filter((event) => event.wallet === bob), bobs, "bob's record untouched")
    assert.deepStrictEqual(result.events, [])
  })

  it("unchanged: nothing printed, nothing retracted, not changed", () => {
    const printed = printedOf([bobToAlice(1)], [alice])
    const now = printedOf([bobToAlice(1)], [alice]) as ReadonlyArray<WatchEvent.NftEvent>
    const result = reconcile(chain, 100n, oldHash, now, printed, () => true)
    assert.deepStrictEqual(result.retractions, [])
    assert.deepStrictEqual(result.events, [])
    assert.deepStrictEqual(result.blockEvents.events, printed)
    assert.isFalse(result.changed)
  })

  it("an NFT event stands by its own id, not by its transaction: moved to another log it is retracted; one that stays is recorded as read now", () => {
    for (const side of [alice, bob]) {
      const printed = printedOf([bobToAlice(1)], [side])
      const moved = printedOf([bobToAlice(1, newHash, { log_index: 4 })], [side]) as ReadonlyArray<WatchEvent.NftEvent>
      const result = reconcile(chain, 100n, newHash, moved, printed, () => true)
      assert.deepStrictEqual(result.retractions, printed.map(WatchEvent.retract), `${printed[0]!.kind} moved`)
      assert.deepStrictEqual(result.events, moved)
      const later = printedOf([bobToAlice(1, newHash, { block_timestamp: "2024-05-01T12:00:19.000Z" })], [side]) as ReadonlyArray<WatchEvent.NftEvent>
      assert.deepStrictEqual(reconcile(chain, 100n, newHash, later, printed, () => true).blockEvents.events, later, `${printed[0]!.kind} read now`)
    }
  })

  it("a block whose events are all gone is changed", () => {
    const result = reconcile(chain, 100n, newHash, [], printedOf([bobToAlice(1)], [alice]), () => true)
    assert.isTrue(result.changed)
    assert.deepStrictEqual(result.events, [])
    assert.deepStrictEqual(result.blockEvents.events, [])
  })

  it("a new event listed twice is printed once", () => {
    const now = printedOf([bobToAlice(1), bobToAlice(1)], [alice]) as ReadonlyArray<WatchEvent.NftEvent>
    const result = reconcile(chain, 100n, oldHash, now, [], () => true)
    assert.strictEqual(result.events.length, 1)
    assert.strictEqual(result.blockEvents.events.length, 1)
    assert.isTrue(result.changed)
  })

  it("a trade stays with its transfer (moved to the new hash), and is retracted with it", () => {
    const sale = WatchEvent.fromTrade(chain, alice, trade({ transaction_hash: tx(1), block_number: "100", block_hash: oldHash }))
    assert.strictEqual(sale.length, 1)
    const transfer = printedOf([bobToAlice(1)], [alice])
    const printed = [...transfer, ...sale]
    const stays = reconcile(chain, 100n, newHash, printedOf([bobToAlice(1, newHash)], [alice]) as ReadonlyArray<WatchEvent.NftEvent>, printed, () => true)
    assert.deepStrictEqual(stays.retractions, [])
    const kept = stays.blockEvents.events.find((event) => event.kind === "trade.bought")
    assert.deepStrictEqual(kept, { ...sale[0]!, blockHash: newHash })
    const unknownHash = reconcile(chain, 100n, "", printedOf([bobToAlice(1)], [alice]) as ReadonlyArray<WatchEvent.NftEvent>, printed, () => true)
    assert.deepStrictEqual(unknownHash.blockEvents.events.find((event) => event.kind === "trade.bought"), sale[0], "no hash: kept as printed")
    const gone = reconcile(chain, 100n, newHash, printedOf([bobToAlice(2, newHash)], [alice]) as ReadonlyArray<WatchEvent.NftEvent>, printed, () => true)
    assert.deepStrictEqual(ids(gone.retractions.map((r) => ({ id: r.retracts }))), ids(printed))
    const otherWallet = reconcile(chain, 100n, newHash, printedOf([bobToAlice(1, newHash)], [bob]) as ReadonlyArray<WatchEvent.NftEvent>, printed, () => true)
    assert.include(otherWallet.retractions.map((r) => r.retracts), sale[0]!.id, "bob's transfer in that transaction does not hold alice's trade")
  })
})

describe("the record as the store keeps it", () => {
  it.effect("loaded per chain: each recorded block's hash, and the events printed from it", () =>
    Effect.gen(function*() {
      const store = yield* StateStore.StateStore
      const printed = WatchEvent.fromNftTransfer(chain, alice, bobToAlice(1))
      yield* store.commit({
        blocks: [{ chain, number: 99n, hash: "" }, { chain, number: 100n, hash: oldHash }, { chain: "0x89", number: 100n, hash: newHash }],
        blockEvents: [{ chain, number: 100n, hash: oldHash, events: printed }],
        eventIds: []
      })
      const recent = yield* loadRecent(store, chain)
      assert.deepStrictEqual([...recent.hashes], [[99n, ""], [100n, oldHash]])
      assert.deepStrictEqual([...recent.printed], [[100n, printed]])
    }).pipe(Effect.provide(StateStore.layerMemory)))
})
