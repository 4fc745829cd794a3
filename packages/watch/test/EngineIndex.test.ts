/**
 * The engine keeps each chain's wallets indexed between cycles (a cycle without a new block does
 * no work per wallet), moves them in the index as a commit moves them, and indexes them again
 * when the wallets change: one engine, kept across cycles, emits each block's events once,
 * whether the cycles between found new blocks or none, its idle cycles read no block below where
 * the wallets stand, and a wallet added while it
 * runs starts where the others stand.
 */
import { assert, describe, it } from "@effect/vitest"
import { Simulator } from "@chainquery/simulator"
import { Effect } from "effect"
import { Engine } from "../src/index.js"
import { busiestEvm, evmTruth, harness, positionOf } from "./support/engineHarness.js"

const idsOf = (events: ReadonlyArray<{ readonly id: string }>) => events.map((event) => event.id).toSorted()

describe("Engine: the chain's index kept between cycles", () => {
  it.live("idle cycles between blocks; each block's events once; a wallet added goes on from where the others stand", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const [added, ...wallets] = busiestEvm(sim, "0x1", 7)
      const engine = yield* Engine.make({ wallets, strategy: "block-scan", confirmations: 0, watch: ["transfers"] })
      const cycle = Effect.gen(function*() {
        const { batch, events } = yield* engine.cycle
        yield* engine.commit(batch)
        return events
      })
      /** A cycle that finds no new block: no event, and the lowest block it read (the index knows where the wallets stand: none below). */
      const idle = Effect.gen(function*() {
        const seen = (yield* sim.requests).length
        assert.deepStrictEqual(yield* cycle, [])
        const blocks = (yield* sim.requests).slice(seen).flatMap((request) => {
          const read = /\/block\/(\d+)/.exec(request.path)
          return read === null ? [] : [BigInt(read[1]!)]
        })
        return blocks.reduce((a, b) => (b < a ? b : a))
      })
      // The first cycle places the wallets.
      yield* cycle
      const placed = (yield* positionOf(wallets)).max
      for (let round = 0; round < 3; round++) {
        const before = (yield* positionOf(wallets)).max
        // Cycles with no new block: nothing, no block read below the wallets, and the checkpoints stay.
        assert.strictEqual(yield* idle, before, `round ${round}: an idle cycle reads from where the wallets stand`)
        assert.strictEqual(yield* idle, before)
        assert.strictEqual((yield* positionOf(wallets)).min, before)
        yield* sim.advance(4)
        const head = BigInt(sim.world.evm.chain("0x1").head)
        const events = yield* cycle
        assert.deepStrictEqual(idsOf(events), idsOf(yield* evmTruth(sim, "0x1", wallets, before, head)), `round ${round}: the 4 new blocks' events, once`)
        assert.deepStrictEqual(yield* positionOf(wallets), { min: head, max: head, count: wallets.length })
      }
      assert.isAbove(Number((yield* positionOf(wallets)).max - placed), 0)
      // A wallet added after an idle cycle (the index made again for it): placed at the block the others stand at, then read with them.
      assert.deepStrictEqual(yield* cycle, [])
      yield* engine.setWallets([...wallets, added!])
      yield* cycle
      const all = [...wallets, added!]
      const at = (yield* positionOf(wallets)).max
      assert.deepStrictEqual(yield* positionOf(all), { min: at, max: at, count: all.length })
      yield* sim.advance(4)
      const head = BigInt(sim.world.evm.chain("0x1").head)
      const truth = yield* evmTruth(sim, "0x1", all, at, head)
      assert.deepStrictEqual(idsOf(yield* cycle), idsOf(truth))
      assert.isAbove(truth.length, 0, "the busiest wallets moved NFTs in 4 blocks")
    }).pipe(Effect.provide(harness({ seed: 4402, indexing: false, chains: ["0x1"], requestLog: 1_000 }))))
})
