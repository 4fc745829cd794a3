/**
 * Block scanning at the head moves every wallet at the lowest checkpoint in one
 * `StateStore.Advance`, not one checkpoint each, and never moves a wallet of the state that the
 * run does not watch (a resting one standing at the same block), nor one another writer put there
 * behind the engine's back (the store refuses the advance: it counts what stands at the block).
 * Against the simulator over real HTTP: the events printed over both runs are exactly the ground
 * truth, and each run's batches say how they moved. Wallets that joined below the others (placed
 * there by a service) cost one advance more, not a checkpoint each.
 */
import { assert, describe, it } from "@effect/vitest"
import { Simulator } from "@chainquery/simulator"
import { Effect } from "effect"
import { Engine, StateStore, type WatchEvent } from "../src/index.js"
import { allEvm, evmTruth, harness, positionOf } from "./support/engineHarness.js"

const chain = "0x1"

describe("wallets at one block move together", () => {
  it.effect("one advance for the watched wallets; resting ones at the same block stay; nothing lost", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const all = allEvm(sim, chain)
      const some = all.slice(0, 3)
      const others = all.slice(3)
      const printed: Array<WatchEvent.WatchEvent> = []
      const write = (events: ReadonlyArray<WatchEvent.WatchEvent>) => Effect.sync(() => printed.push(...events))

      const everyone = yield* Engine.make({ wallets: all, strategy: "block-scan", confirmations: 0, watch: ["transfers"] })
      yield* everyone.step(write)
      const baseline = yield* positionOf(all)
      assert.strictEqual(baseline.min, baseline.max, "every wallet starts at one block")
      yield* sim.advance(2)
      const read = yield* everyone.cycle
      assert.deepStrictEqual(read.batch.advances, [{ chain, from: baseline.min, to: baseline.min + 2n, hash: read.batch.advances![0]!.hash, count: all.length }])
      assert.deepStrictEqual(read.batch.checkpoints, [], "no checkpoint one by one")
      yield* everyone.publish(read, write)
      const moved = yield* positionOf(all)
      assert.deepStrictEqual([moved.min, moved.max, moved.count], [baseline.min + 2n, baseline.min + 2n, all.length])

      // A run of a few: the others rest at the same block, and an advance would move them too.
      const few = yield* Engine.make({ wallets: some, strategy: "block-scan", confirmations: 0, watch: ["transfers"] })
      yield* sim.advance(3)
      const fewRead = yield* few.cycle
      assert.deepStrictEqual(fewRead.batch.advances, [], "no advance while a resting wallet stands at the block")
      assert.strictEqual(fewRead.batch.checkpoints?.length, some.length)
      yield* few.publish(fewRead, write)
      assert.deepStrictEqual((yield* positionOf(others)).max, baseline.min + 2n, "the resting wallets stay")
      assert.deepStrictEqual((yield* positionOf(some)).min, baseline.min + 5n)

      // Everyone again: the others catch up from where they rested, and nothing is lost or doubled.
      const again = yield* Engine.make({ wallets: all, strategy: "block-scan", confirmations: 0, watch: ["transfers"] })
      yield* sim.advance(1)
      yield* again.step(write)
      const ids = printed.map((event) => event.id)
      assert.strictEqual(new Set(ids).size, ids.length, "an event printed twice")
      const truth = yield* evmTruth(sim, chain, all, baseline.min, baseline.min + 6n)
      assert.isAbove(truth.length, 0, "the blocks had events")
      assert.deepStrictEqual(ids.toSorted(), truth.map((event) => event.id).toSorted())
    }).pipe(Effect.provide(harness({ seed: "moving-together", indexing: false, chains: [chain], wallets: 30, history: 20 }))), 60_000)

  it.effect("a checkpoint another writer put at the block is never moved: that commit fails, the state is read again, the next one goes on", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const store = yield* StateStore.StateStore
      const all = allEvm(sim, chain)
      const watched = all.slice(0, 20)
      const stranger = all[25]!
      const engine = yield* Engine.make({ wallets: watched, strategy: "block-scan", confirmations: 0, watch: ["transfers"] })
      yield* engine.step(() => Effect.void)
      const start = (yield* positionOf(watched)).min
      // Behind the engine's back (as a backfill of a wallet it does not watch yet would): a checkpoint at its block.
      yield* store.commit({ checkpoints: [{ wallet: stranger, position: start, hash: null }], eventIds: [] })
      yield* sim.advance(2)
      const read = yield* engine.cycle
      assert.deepStrictEqual(read.batch.advances?.map((a) => a.count), [watched.length], "the engine counted only its own")
      const refused = yield* Effect.flip(engine.commitAhead(read))
      assert.strictEqual(refused._tag, "StateStoreError")
      assert.match(refused.message, /21 checkpoint\(s\) stood at block \d+, not the 20 the engine counted/)
      assert.deepStrictEqual((yield* positionOf([stranger])).max, start, "nothing was written")
      // Read again, the stranger is a wallet it does not watch at that block: the others move one by one, it stays.
      const again = yield* engine.cycle
      assert.deepStrictEqual(again.batch.advances, [])
      yield* engine.commitAhead(again)
      assert.deepStrictEqual((yield* positionOf(watched)).min, start + 2n)
      assert.deepStrictEqual((yield* positionOf([stranger])).max, start)
    }).pipe(Effect.provide(harness({ seed: "moving-together-stranger", indexing: false, chains: [chain], wallets: 30, history: 20 }))), 60_000)

  it.effect("wallets placed one block below the others move in an advance of their own, and the others still move together", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const store = yield* StateStore.StateStore
      const all = allEvm(sim, chain)
      const watched = all.slice(0, 20)
      const joined = all.slice(20, 25)
      const printed: Array<WatchEvent.WatchEvent> = []
      const write = (events: ReadonlyArray<WatchEvent.WatchEvent>) => Effect.sync(() => printed.push(...events))
      const first = yield* Engine.make({ wallets: watched, strategy: "block-scan", confirmations: 0, watch: ["transfers"] })
      yield* first.step(write)
      yield* sim.advance(2)
      yield* first.step(write)
      const at = (yield* positionOf(watched)).min
      // As a service adds wallets: their first checkpoints one block below the scan's, before any engine watches them.
      yield* store.commit({ checkpoints: joined.map((wallet) => ({ wallet, position: at - 1n, hash: null })), eventIds: [] })
      const both = yield* Engine.make({ wallets: [...watched, ...joined], strategy: "block-scan", confirmations: 0, watch: ["transfers"] })
      yield* sim.advance(2)
      const read = yield* both.cycle
      assert.deepStrictEqual(read.batch.advances?.map((a) => [a.from, a.to, a.count]), [[at - 1n, at + 2n, joined.length], [at, at + 2n, watched.length]])
      assert.deepStrictEqual(read.batch.checkpoints, [], "no checkpoint one by one")
      yield* both.publish(read, write)
      const moved = yield* positionOf([...watched, ...joined])
      assert.deepStrictEqual([moved.min, moved.max], [at + 2n, at + 2n])
      const truth = [...yield* evmTruth(sim, chain, joined, at - 1n, at + 2n), ...yield* evmTruth(sim, chain, watched, at - 2n, at + 2n)]
      assert.isAbove(truth.length, 0, "the blocks had events")
      assert.deepStrictEqual(printed.map((event) => event.id).toSorted(), truth.map((event) => event.id).toSorted())
    }).pipe(Effect.provide(harness({ seed: "moving-together-joined", indexing: false, chains: [chain], wallets: 30, history: 20 }))), 60_000)
})
