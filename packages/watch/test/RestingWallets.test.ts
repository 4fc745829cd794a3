/**
 * A run that watches only some of the state file's wallets (found by the soak: a `--backfill`
 * run of the new wallets alone noticed a reorganisation): a replaced block is put right for the
 * wallets it does not watch too, so that when all of them are watched again nothing of theirs is
 * lost or left standing from the orphaned block. Against the simulator over real HTTP: once the
 * retractions are applied, what every run printed is the ground truth of the new chain.
 */
import { assert, describe, it } from "@effect/vitest"
import { Simulator } from "@chainquery/simulator"
import { Effect } from "effect"
import { Engine, type WatchEvent } from "../src/index.js"
import { allEvm, evmTruth, harness, positionOf, type Sim } from "./support/engineHarness.js"
import { standing } from "./support/standing.js"

const chain = "0x1"
const head = (sim: Sim) => BigInt(sim.world.evm.chain(chain).head)


const cases = [
  { strategy: "block-scan", confirmations: 2, depth: 5 },
  { strategy: "per-wallet", confirmations: 0, depth: 3 },
  { strategy: "block-scan", confirmations: 0, depth: 3 }
] as const

describe("a run that watches only some of the state file's wallets", () => {
  for (const { confirmations, depth, strategy } of cases) {
    it.effect(`${strategy}, confirmations ${confirmations}: a reorganisation it notices is put right for the others too`, () =>
      Effect.gen(function*() {
        const sim = yield* Simulator.Simulator
        const all = allEvm(sim, chain)
        const some = all.slice(0, 2)
        const printed: Array<WatchEvent.WatchEvent> = []
        const write = (events: ReadonlyArray<WatchEvent.WatchEvent>) => Effect.sync(() => printed.push(...events))
        const everyone = yield* Engine.make({ wallets: all, strategy, confirmations, watch: ["transfers"] })
        yield* everyone.step(write)
        const baseline = (yield* positionOf(all)).min
        for (let i = 0; i < 8; i++) {
          yield* sim.advance(1)
          yield* everyone.step(write)
        }
        const fromBlock = BigInt(yield* sim.reorg(chain, depth))
        const orphaned = printed.filter((event) => "blockNumber" in event && event.kind !== "retracted" && event.blockNumber >= fromBlock)
        assert.isTrue(orphaned.some((event) => !some.some((wallet) => wallet.address === event.wallet)), "the others had events in the orphaned blocks")
        const few = yield* Engine.make({ wallets: some, strategy, confirmations, watch: ["transfers"] })
        yield* few.step(write)
        const again = yield* Engine.make({ wallets: all, strategy, confirmations, watch: ["transfers"] })
        for (let i = 0; i < 2; i++) {
          yield* sim.advance(1)
          yield* again.step(write)
        }
        const truth = yield* evmTruth(sim, chain, all, baseline, head(sim) - BigInt(confirmations))
        const ids = standing(printed).map((event) => event.id)
        assert.strictEqual(new Set(ids).size, ids.length, "an event stands twice")
        assert.deepStrictEqual(ids.toSorted(), truth.map((event) => event.id).toSorted())
      }).pipe(Effect.provide(harness({ seed: `resting-${strategy}-${confirmations}`, indexing: false, chains: [chain], wallets: 30, history: 20 }))), 60_000)
  }
})
