/**
 * Reorganisations deeper than what a cycle reads again, against the simulator over real HTTP:
 * without confirmations, deeper than the 6-block reorg window; with confirmations, deeper than
 * them. Each is noticed through the recorded block hashes, logged as an error with the depth
 * found, and read again back to the common ancestor: once the retractions are applied, what was
 * printed is the ground truth of the new chain, for both strategies.
 */
import { assert, describe, it } from "@effect/vitest"
import { Simulator } from "@chainquery/simulator"
import { Effect } from "effect"
import { Engine, type WatchEvent } from "../src/index.js"
import { allEvm, evmTruth, harness, positionOf, type Sim } from "./support/engineHarness.js"
import { collectingErrors } from "./support/recentRecord.js"
import { standing } from "./support/standing.js"

const chain = "0x1"
const head = (sim: Sim) => BigInt(sim.world.evm.chain(chain).head)


/** `deep`: the depth the error gives; 0: within what is read again, no error. */
const cases = [
  { strategy: "block-scan", confirmations: 0, depth: 3, deep: 0 },
  { strategy: "per-wallet", confirmations: 0, depth: 3, deep: 0 },
  { strategy: "block-scan", confirmations: 0, depth: 9, deep: 9 },
  { strategy: "per-wallet", confirmations: 0, depth: 9, deep: 9 },
  { strategy: "block-scan", confirmations: 2, depth: 5, deep: 3 },
  { strategy: "per-wallet", confirmations: 2, depth: 5, deep: 3 }
] as const

describe("a reorganisation deeper than what a cycle reads again", () => {
  for (const { confirmations, deep, depth, strategy } of cases) {
    it.effect(`${strategy}, confirmations ${confirmations}: depth ${depth} is ${deep === 0 ? "put right without an error" : `logged as ${deep} blocks deep and read again to the common ancestor`}`, () =>
      collectingErrors((errors) =>
        Effect.gen(function*() {
          const sim = yield* Simulator.Simulator
          const wallets = allEvm(sim, chain)
          const engine = yield* Engine.make({ wallets, strategy, confirmations, watch: ["transfers"] })
          const printed: Array<WatchEvent.WatchEvent> = []
          const step = Effect.flatMap(engine.step(() => Effect.void), (events) => Effect.sync(() => printed.push(...events)))
          yield* step
          const baseline = (yield* positionOf(wallets)).min
          // One block a cycle, as a watcher at the head sees them: every block is recorded.
          for (let i = 0; i < 12; i++) {
            yield* sim.advance(1)
            yield* step
          }
          const before = printed.length
          const fromBlock = BigInt(yield* sim.reorg(chain, depth))
          const orphaned = printed.filter((event) => "blockNumber" in event && event.kind !== "retracted" && event.blockNumber >= fromBlock)
          assert.isAbove(orphaned.length, 0, "the reorganisation orphans printed events")
          assert.deepStrictEqual(errors, [])
          yield* step
          if (deep === 0) assert.deepStrictEqual(errors, [], "a reorganisation within the window is no error")
          else {
            assert.strictEqual(errors.length, 1, `one error for the deep reorganisation: ${errors.join("; ")}`)
            assert.match(errors[0]!, new RegExp(`a reorganisation ${deep} blocks deep`))
            assert.match(errors[0]!, /common ancestor/)
          }
          // Every orphaned event is retracted, in the cycle that noticed it.
          const retracted = new Set(printed.slice(before).flatMap((event) => (event.kind === "retracted" ? [event.retracts] : [])))
          for (const event of orphaned) assert.isTrue(retracted.has(event.id), `${event.id} (block ${String((event as { blockNumber: bigint }).blockNumber)}) retracted`)
          for (let i = 0; i < 3; i++) {
            yield* sim.advance(1)
            yield* step
          }
          assert.strictEqual(errors.length, deep === 0 ? 0 : 1, "noticed once")
          const truth = yield* evmTruth(sim, chain, wallets, baseline, head(sim) - BigInt(confirmations))
          const ids = standing(printed).map((event) => event.id)
          assert.strictEqual(new Set(ids).size, ids.length, "an event stands twice")
          assert.deepStrictEqual(ids.toSorted(), truth.map((event) => event.id).toSorted())
        }).pipe(Effect.provide(harness({ seed: `deep-${strategy}-${confirmations}-${depth}`, indexing: false, chains: [chain], wallets: 30, history: 20 })))
      ), 60_000)
  }
})
