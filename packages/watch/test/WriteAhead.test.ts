/**
 * Write-ahead batches (found by the soak: a batch printed, then `kill -9` before its commit, then a
 * reorganisation of its blocks before the restart: nothing could retract what it had printed).
 * `step` commits a batch with its events pending before it writes them; a process that dies while
 * writing leaves them pending, and the next run writes them again first (same ids), with the
 * records of their blocks committed, so that a reorganisation meanwhile retracts them. Against the
 * simulator over real HTTP, and the store's pending events read back.
 */
import { assert, describe, it } from "@effect/vitest"
import { Simulator } from "@chainquery/simulator"
import { Data, Effect } from "effect"
import { Engine, StateStore, type WatchEvent } from "../src/index.js"
import { allEvm, evmTruth, harness, positionOf, type Sim } from "./support/engineHarness.js"
import { standing } from "./support/standing.js"

const chain = "0x1"
const head = (sim: Sim) => BigInt(sim.world.evm.chain(chain).head)

class Died extends Data.TaggedError("Died")<{}> {}


describe("write-ahead batches", () => {
  for (const strategy of ["block-scan", "per-wallet"] as const) {
    it.effect(`${strategy}: a batch written, the process dead before it settled, its blocks replaced: written again, then retracted`, () =>
      Effect.gen(function*() {
        const sim = yield* Simulator.Simulator
        const store = yield* StateStore.StateStore
        const wallets = allEvm(sim, chain)
        const printed: Array<WatchEvent.WatchEvent> = []
        const write = (events: ReadonlyArray<WatchEvent.WatchEvent>) => Effect.sync(() => printed.push(...events))
        const first = yield* Engine.make({ wallets, strategy, confirmations: 0, watch: ["transfers"] })
        yield* first.step(write)
        const baseline = (yield* positionOf(wallets)).min
        yield* sim.advance(3)
        // Written in full, then the process dies before the pending events are forgotten.
        const died = yield* Effect.flip(first.step((events) => Effect.andThen(write(events), Effect.fail(new Died()))))
        assert.instanceOf(died, Died)
        const batch = [...printed]
        assert.isAbove(batch.length, 0)
        assert.deepStrictEqual((yield* store.pendingEvents).map((event) => event.id), batch.map((event) => event.id))
        const fromBlock = BigInt(yield* sim.reorg(chain, 2))
        const orphaned = batch.filter((event) => "blockNumber" in event && event.blockNumber >= fromBlock)
        assert.isAbove(orphaned.length, 0, "the reorganisation orphans events of the batch")

        const second = yield* Engine.make({ wallets, strategy, confirmations: 0, watch: ["transfers"] })
        const replayed = yield* second.recover(write)
        assert.deepStrictEqual(replayed.map((event) => event.id), batch.map((event) => event.id), "the batch is written again first")
        assert.deepStrictEqual(yield* store.pendingEvents, [])
        yield* second.step(write)
        const retracted = new Set(printed.flatMap((event) => (event.kind === "retracted" ? [event.retracts] : [])))
        for (const event of orphaned) assert.isTrue(retracted.has(event.id), `${event.id} retracted`)
        const truth = yield* evmTruth(sim, chain, wallets, baseline, head(sim))
        const ids = standing(printed).map((event) => event.id)
        assert.deepStrictEqual([...new Set(ids)].toSorted(), truth.map((event) => event.id).toSorted())
        // A clean step leaves nothing pending, and a recovery then writes nothing.
        assert.deepStrictEqual(yield* store.pendingEvents, [])
        assert.deepStrictEqual(yield* second.recover(write), [])
      }).pipe(Effect.provide(harness({ seed: `write-ahead-${strategy}`, indexing: false, chains: [chain], wallets: 30, history: 20 }))), 60_000)
  }
})
