/**
 * A wallet added with a backfill while the others run (found by the soak): its events are added
 * to the records of the blocks they come from, so that a later reorganisation retracts them
 * (below the reorg window too) and no check of a recorded block takes them for new. Against the
 * simulator over real HTTP: once the retractions are applied, what was printed (the others'
 * watching, the backfill, then all of them watched together) is the ground truth of the new chain.
 */
import { assert, describe, it } from "@effect/vitest"
import { Simulator } from "@chainquery/simulator"
import { Effect } from "effect"
import { Backfill, Engine, StateStore, type WatchEvent } from "../src/index.js"
import { allEvm, busiestEvm, evmTruth, harness, positionOf, type Sim } from "./support/engineHarness.js"

const chain = "0x1"
const head = (sim: Sim) => BigInt(sim.world.evm.chain(chain).head)

const standing = (events: ReadonlyArray<WatchEvent.WatchEvent>) => {
  const gone = new Set(events.flatMap((event) => (event.kind === "retracted" ? [event.retracts] : [])))
  return events.filter((event) => event.kind !== "retracted" && !gone.has(event.id))
}

describe("a wallet added with a backfill", () => {
  for (const strategy of ["block-scan", "per-wallet"] as const) {
    it.effect(`${strategy}: its events are on record: a deep reorganisation retracts them, nothing is printed twice`, () =>
      Effect.gen(function*() {
        const sim = yield* Simulator.Simulator
        const store = yield* StateStore.StateStore
        const added = busiestEvm(sim, chain, 1)[0]!
        const others = allEvm(sim, chain).filter((wallet) => wallet.address !== added.address)
        const printed: Array<WatchEvent.WatchEvent> = []
        const write = (events: ReadonlyArray<WatchEvent.WatchEvent>) => Effect.sync(() => printed.push(...events))
        const first = yield* Engine.make({ wallets: others, strategy, confirmations: 0, watch: ["transfers"] })
        yield* first.step(write)
        const baseline = (yield* positionOf(others)).min
        for (let i = 0; i < 12; i++) {
          yield* sim.advance(1)
          yield* first.step(write)
        }
        const from = baseline - 4n
        const summary = yield* Backfill.run({ wallets: [added], from: { _tag: "Block", block: from }, watch: ["transfers"], write })
        assert.isAbove(summary.events, 0)
        // Every block on record holds the new wallet's events of that block.
        const records = yield* store.blockEvents(chain)
        const backfilled = printed.filter((event) => event.wallet === added.address)
        for (const event of backfilled) {
          if (!("blockNumber" in event)) continue
          const record = records.find((entry) => entry.number === event.blockNumber)
          if (record !== undefined) assert.include(record.events.map((e) => e.id), event.id, `block ${event.blockNumber} on record without ${event.id}`)
        }
        const all = [...others, added]
        const second = yield* Engine.make({ wallets: all, strategy, confirmations: 0, watch: ["transfers"] })
        const fromBlock = BigInt(yield* sim.reorg(chain, 10))
        const doomed = backfilled.filter((event) => "blockNumber" in event && event.blockNumber >= fromBlock && event.blockNumber < head(sim) - 5n)
        assert.isAbove(doomed.length, 0, "the backfill printed events in blocks below the window that the reorganisation replaces")
        yield* second.step(write)
        for (let i = 0; i < 2; i++) {
          yield* sim.advance(1)
          yield* second.step(write)
        }
        const truth = [
          ...(yield* evmTruth(sim, chain, others, baseline, head(sim))),
          ...(yield* evmTruth(sim, chain, [added], from - 1n, head(sim)))
        ]
        const ids = standing(printed).map((event) => event.id)
        assert.strictEqual(new Set(ids).size, ids.length, "an event stands twice")
        assert.deepStrictEqual(ids.toSorted(), truth.map((event) => event.id).toSorted())
      }).pipe(Effect.provide(harness({ seed: `backfill-records-${strategy}`, indexing: false, chains: [chain], wallets: 30, history: 20 }))), 60_000)
  }
})
