/**
 * `History.reader`: one wallet's history over a range of blocks, in slices complete up to their
 * `through`, contiguous, in chain order, its events the ground truth (transfers and trades, the
 * same ids as the engine's); read again from the block after a slice kept, the rest and nothing
 * else; from a date, from the first block at or after it; a range starting after its end, nothing.
 */
import { assert, describe, it } from "@effect/vitest"
import { Simulator } from "@chainquery/simulator"
import { DateTime, Effect } from "effect"
import { History, type WatchEvent, type WatchedWallet } from "../src/index.js"
import { busiestEvm, evmTruth, harness, type Sim, tradeTruth } from "./support/engineHarness.js"

const headOf = (sim: Sim) => BigInt(sim.world.evm.chain("0x1").head)

/** Every slice of the wallet's history from `from` to `upTo`. */
const slices = (wallet: WatchedWallet.EvmWallet, from: History.Options["from"], upTo: bigint, sliceRecords?: number) =>
  Effect.scoped(Effect.gen(function*() {
    const reader = yield* History.reader({ wallet, from, upTo, watch: ["transfers", "trades"], sliceRecords })
    const all: Array<History.Slice> = []
    for (let slice = yield* reader.next; slice !== undefined; slice = yield* reader.next) all.push(slice)
    return all
  }))

const placeOf = (event: WatchEvent.WatchEvent): readonly [bigint, number] =>
  "blockNumber" in event ? [event.blockNumber, "logIndex" in event ? event.logIndex : 0] : [0n, 0]

describe("History.reader", () => {
  it.live("slices complete up to their through, contiguous, in chain order: the ground truth; resumed after a slice, the rest", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const [wallet] = busiestEvm(sim, "0x1", 1)
      const head = headOf(sim)
      const from = head - 50n
      const all = yield* slices(wallet!, { _tag: "Block", block: from }, head, 5)
      assert.isAbove(all.length, 2, "several slices")
      assert.strictEqual(all.at(-1)!.through, head, "the last slice ends at upTo")
      for (const [index, slice] of all.entries()) {
        assert.strictEqual(slice.origin, from)
        if (index > 0) assert.isTrue(slice.through > all[index - 1]!.through, "slices move on")
        const lowest = index === 0 ? from : all[index - 1]!.through + 1n
        for (const event of slice.events) {
          const [block] = placeOf(event)
          if (event.kind === "nft.received" || event.kind === "nft.sent") assert.isTrue(block >= lowest && block <= slice.through, `${event.id} in its slice`)
        }
      }
      const events = all.flatMap((slice) => slice.events)
      const transfers = events.filter((event) => event.kind === "nft.received" || event.kind === "nft.sent")
      const truth = yield* evmTruth(sim, "0x1", [wallet!], from - 1n, head)
      assert.deepStrictEqual(transfers.map((event) => event.id), truth.map((event) => event.id), "the transfers, in chain order")
      const trades = events.filter((event) => event.kind === "trade.bought" || event.kind === "trade.sold").map((event) => event.id)
      assert.deepStrictEqual(trades.toSorted(), tradeTruth(sim, "0x1", [wallet!], from, head).toSorted())
      // Resumed after the second slice: the rest, nothing else.
      const kept = all[1]!.through
      const rest = yield* slices(wallet!, { _tag: "Block", block: kept + 1n }, head, 5)
      assert.deepStrictEqual(
        rest.flatMap((slice) => slice.events).map((event) => event.id),
        all.slice(2).flatMap((slice) => slice.events).map((event) => event.id)
      )
      // A range starting after its end: nothing.
      assert.deepStrictEqual(yield* slices(wallet!, { _tag: "Block", block: head + 1n }, head), [])
    }).pipe(Effect.provide(harness({ seed: 61, indexing: false, chains: ["0x1"] }))))

  it.live("from a date: the events of the blocks at or after it", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const [wallet] = busiestEvm(sim, "0x1", 1)
      const head = headOf(sim)
      const block = head - 30n
      const date = DateTime.makeUnsafe(sim.world.evm.chain("0x1").timestampOf(Number(block)))
      const all = yield* slices(wallet!, { _tag: "Date", date }, head)
      const truth = yield* evmTruth(sim, "0x1", [wallet!], block - 1n, head)
      assert.deepStrictEqual(
        all.flatMap((slice) => slice.events).filter((event) => event.kind === "nft.received" || event.kind === "nft.sent").map((event) => event.id),
        truth.map((event) => event.id)
      )
    }).pipe(Effect.provide(harness({ seed: 62, indexing: false, chains: ["0x1"] }))))

  it.live("blockAt: the first block at or after an instant; before the chain's first block, or after the head, said so", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const chain = sim.world.evm.chain("0x1")
      const head = headOf(sim)
      const timeOf = (block: bigint) => chain.timestampOf(Number(block))
      assert.deepStrictEqual(yield* History.blockAt("0x1", DateTime.makeUnsafe(timeOf(head - 20n)), head), { _tag: "Found", block: head - 20n })
      assert.deepStrictEqual(yield* History.blockAt("0x1", DateTime.makeUnsafe(timeOf(head - 20n) + 5000), head), { _tag: "Found", block: head - 19n })
      const first = BigInt(chain.profile.firstBlock)
      const atFirst = yield* History.blockAt("0x1", DateTime.makeUnsafe(timeOf(first)), head)
      assert.deepStrictEqual(atFirst, { _tag: "Found", block: first })
      const before = yield* History.blockAt("0x1", DateTime.makeUnsafe(timeOf(first) - 1000), head)
      assert.deepStrictEqual(before, { _tag: "BeforeHistory", first, firstAt: DateTime.makeUnsafe(timeOf(first)) })
      const after = yield* History.blockAt("0x1", DateTime.makeUnsafe(timeOf(head) + 1000), head)
      assert.deepStrictEqual(after, { _tag: "AfterHead", headAt: DateTime.makeUnsafe(timeOf(head)) })
    }).pipe(Effect.provide(harness({ seed: 63, indexing: false, chains: ["0x1"] }))))
})
