/**
 * Wallets added to a running engine (`Engine.setWallets` with the others, or `Engine.addWallets`
 * alone, which also extends the chain's index in place) cost a read of theirs, not of every
 * wallet's: the engine keeps what it holds of the others and reads the new ones' checkpoints
 * (`StateStore.checkpointsOf`), so a wallet whose checkpoint was placed outside the engine (by a
 * service, or a backfill) goes on from it, its blocks read and their events emitted once. A
 * wallet taken away makes the engine read every checkpoint again, as before. A wallet with no
 * checkpoint starts where the others reach in its first cycle, however they moved (together, or
 * one by one).
 */
import { assert, describe, it } from "@effect/vitest"
import { Simulator } from "@chainquery/simulator"
import { Effect, Layer, Ref } from "effect"
import { Engine, StateStore, type WatchedWallet } from "../src/index.js"
import { busiestEvm, evmTruth, harness, positionOf } from "./support/engineHarness.js"

const idsOf = (events: ReadonlyArray<{ readonly id: string }>) => events.map((event) => event.id).toSorted()

/** The store in context, its reads of every checkpoint and of some counted. */
const counted = (reads: Ref.Ref<{ readonly all: number; readonly some: ReadonlyArray<ReadonlyArray<WatchedWallet.WatchedWallet>> }>) =>
  Layer.effect(
    StateStore.StateStore,
    Effect.map(StateStore.StateStore, (store) => ({
      ...store,
      checkpoints: Effect.andThen(Ref.update(reads, (n) => ({ ...n, all: n.all + 1 })), store.checkpoints),
      checkpointsOf: (wallets: ReadonlyArray<WatchedWallet.WatchedWallet>) =>
        Effect.andThen(Ref.update(reads, (n) => ({ ...n, some: [...n.some, wallets] })), store.checkpointsOf(wallets))
    }))
  )

/** The two ways of adding `more` to an engine watching `watching`. */
const adding = {
  setWallets: (engine: Engine.Engine, watching: ReadonlyArray<WatchedWallet.WatchedWallet>, more: WatchedWallet.WatchedWallet) =>
    engine.setWallets([...watching, more]),
  // With one already watched: left as it is.
  addWallets: (engine: Engine.Engine, watching: ReadonlyArray<WatchedWallet.WatchedWallet>, more: WatchedWallet.WatchedWallet) =>
    engine.addWallets([more, watching[0]!])
} as const

describe.each(["setWallets", "addWallets"] as const)("Engine: wallets added while it runs (%s)", (how) => {
  it.live("only the new wallets' checkpoints are read; one placed outside the engine goes on from it; a removal reads all again", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const [outside, ...wallets] = busiestEvm(sim, "0x1", 6)
      const reads = yield* Ref.make({ all: 0, some: [] as ReadonlyArray<ReadonlyArray<WatchedWallet.WatchedWallet>> })
      const store = yield* StateStore.StateStore
      const engine = yield* Engine.make({ wallets, strategy: "block-scan", confirmations: 0, watch: ["transfers"] }).pipe(Effect.provide(counted(reads)))
      const cycle = Effect.gen(function*() {
        const { batch, events } = yield* engine.cycle
        yield* engine.commit(batch)
        return events
      })
      // The first cycle places the wallets (every checkpoint read once), then 6 blocks are followed.
      yield* cycle
      yield* sim.advance(6)
      yield* cycle
      const at = (yield* positionOf(wallets)).max
      assert.strictEqual((yield* Ref.get(reads)).all, 1)
      // Placed outside the engine 4 blocks behind the others (as a service places a wallet it adds).
      yield* store.commit({ checkpoints: [{ wallet: outside!, position: at - 4n, hash: null }], eventIds: [] })
      yield* adding[how](engine, wallets, outside!)
      const caughtUp = yield* cycle
      const read = yield* Ref.get(reads)
      assert.strictEqual(read.all, 1, "every checkpoint was read again for one wallet added")
      assert.deepStrictEqual(read.some, [[outside!]])
      assert.deepStrictEqual(idsOf(caughtUp), idsOf(yield* evmTruth(sim, "0x1", [outside!], at - 4n, at)), "the added wallet's 4 blocks, from its checkpoint")
      assert.isAbove(caughtUp.length, 0, "the busiest wallet moved NFTs in 4 blocks")
      // Then with the others, block by block.
      yield* sim.advance(3)
      const head = BigInt(sim.world.evm.chain("0x1").head)
      const all = [...wallets, outside!]
      assert.deepStrictEqual(idsOf(yield* cycle), idsOf(yield* evmTruth(sim, "0x1", all, at, head)))
      assert.deepStrictEqual(yield* positionOf(all), { min: head, max: head, count: all.length })
      // A wallet taken away: every checkpoint is read again.
      yield* engine.setWallets(all.slice(1))
      yield* cycle
      assert.strictEqual((yield* Ref.get(reads)).all, 2)
    }).pipe(Effect.provide(harness({ seed: 4403, indexing: false, chains: ["0x1"] }))))

  it.live("a wallet with no checkpoint, added while the others are read one by one, starts where they reach in that cycle", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const [fresh, ...wallets] = busiestEvm(sim, "0x1", 3)
      const engine = yield* Engine.make({ wallets, strategy: "per-wallet", confirmations: 0, watch: ["transfers"] })
      const cycle = Effect.flatMap(engine.cycle, ({ batch }) => engine.commit(batch))
      yield* cycle
      yield* sim.advance(3)
      yield* adding[how](engine, wallets, fresh!)
      yield* cycle
      const head = BigInt(sim.world.evm.chain("0x1").head)
      assert.deepStrictEqual(yield* positionOf([fresh!]), { min: head, max: head, count: 1 }, "placed where the others reached, not where they stood")
    }).pipe(Effect.provide(harness({ seed: 4404, indexing: false, chains: ["0x1"] }))))
})
