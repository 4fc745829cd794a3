/**
 * Catching up after a stop: whatever the strategy, a cycle reads at most `maxBlocksPerCycle`
 * blocks past the lowest checkpoint and commits them, so a long backlog is printed in bounded,
 * committed batches; together they are the ground truth, each event once.
 */
import { assert, describe, it } from "@effect/vitest"
import { Simulator } from "@chainquery/simulator"
import { Effect } from "effect"
import { Engine, type WatchEvent } from "../src/index.js"
import { busiestEvm, evmTruth, harness, positionOf } from "./support/engineHarness.js"

const ids = (events: ReadonlyArray<WatchEvent.WatchEvent>) => events.map((event) => event.id)

describe("Engine, catching up in bounded cycles", () => {
  for (const strategy of ["block-scan", "per-wallet", "auto"] as const) {
    for (const confirmations of [0, 2]) {
      it.effect(`${strategy}, confirmations ${confirmations}: 23 new blocks, at most 5 per cycle`, () =>
        Effect.gen(function*() {
          const sim = yield* Simulator.Simulator
          const wallets = busiestEvm(sim, "0x1", 3)
          const engine = yield* Engine.make({ wallets, strategy, confirmations, maxBlocksPerCycle: 5, watch: ["transfers"] })
          yield* engine.step(() => Effect.void)
          const baseline = yield* positionOf(wallets)
          yield* sim.advance(23)
          const emitted: Array<WatchEvent.WatchEvent> = []
          const reached: Array<bigint> = []
          for (let cycle = 0; cycle < 6; cycle++) {
            emitted.push(...(yield* engine.step(() => Effect.void)))
            reached.push((yield* positionOf(wallets)).min)
          }
          const head = BigInt(sim.world.evm.chain("0x1").head - confirmations)
          assert.deepStrictEqual(reached, [5n, 10n, 15n, 20n, 23n, 23n].map((n) => (baseline.min + n > head ? head : baseline.min + n)))
          const truth = yield* evmTruth(sim, "0x1", wallets, baseline.min, head)
          assert.isAbove(truth.length, 0)
          assert.strictEqual(new Set(ids(emitted)).size, emitted.length)
          assert.deepStrictEqual(ids(emitted).toSorted(), ids(truth).toSorted())
        }).pipe(Effect.provide(harness({ seed: 23, indexing: false, chains: ["0x1"] }))))
    }
  }
})
