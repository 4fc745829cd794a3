/**
 * A wallet added with a backfill while the others run (found by the soak): its events are added
 * to the records of the blocks they come from, so that a later reorganisation retracts them
 * (below the reorg window too) and no check of a recorded block takes them for new. Against the
 * simulator over real HTTP: once the retractions are applied, what was printed (the others'
 * watching, the backfill, then all of them watched together) is the ground truth of the new chain.
 * The recent blocks in which the new wallet had no transfer are on record too (found by the soak:
 * a reorganisation that brought it one there went unnoticed).
 */
import { assert, describe, it } from "@effect/vitest"
import { Simulator } from "@chainquery/simulator"
import { Effect } from "effect"
import { Backfill, Engine, StateStore, type WatchedWallet, type WatchEvent } from "../src/index.js"
import { allEvm, busiestEvm, evmTruth, harness, positionOf, type Sim } from "./support/engineHarness.js"
import { standing } from "./support/standing.js"
import { afterReorg } from "./support/twin.js"

const chain = "0x1"
const head = (sim: Sim) => BigInt(sim.world.evm.chain(chain).head)


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

describe("a backfill, then a reorganisation of a recent block in which the wallet had no transfer", () => {
  const world = { seed: "backfill-window", indexing: false, chains: [chain], wallets: 30, history: 20 } as const
  for (const strategy of ["block-scan", "per-wallet", "auto"] as const) {
    it.effect(`${strategy}: the transfer the new block brings it is printed`, () =>
      Effect.gen(function*() {
        // On a twin: a wallet that the reorganisation brings a transfer in a block it had none in.
        const replaced = yield* afterReorg(world, chain, 8, 3)
        const target = replaced.find((r) => r.newcomers.length > 0)
        assert.isDefined(target, "the reorganisation brings some wallet a transfer in a block it had none in")
        const wallet: WatchedWallet.EvmWallet = { family: "evm", chain, address: target!.newcomers[0]! }
        return yield* Effect.gen(function*() {
          const sim = yield* Simulator.Simulator
          const printed: Array<WatchEvent.WatchEvent> = []
          const write = (events: ReadonlyArray<WatchEvent.WatchEvent>) => Effect.sync(() => printed.push(...events))
          for (let i = 0; i < 8; i++) yield* sim.advance(1)
          // The state file is new: the backfill's records are the only ones.
          const from = head(sim) - 10n
          yield* Backfill.run({ wallets: [wallet], from: { _tag: "Block", block: from }, watch: ["transfers"], write })
          yield* sim.reorg(chain, 3)
          const engine = yield* Engine.make({ wallets: [wallet], strategy, confirmations: 0, watch: ["transfers"] })
          yield* engine.step(write)
          const truth = yield* evmTruth(sim, chain, [wallet], from - 1n, head(sim))
          const brought = truth.filter((event) => "blockNumber" in event && event.blockNumber === target!.block)
          assert.isAbove(brought.length, 0)
          const ids = standing(printed).map((event) => event.id)
          for (const event of brought) assert.include(ids, event.id, `its transfer in replaced block ${target!.block}`)
          assert.strictEqual(new Set(ids).size, ids.length, "an event stands twice")
          assert.deepStrictEqual(ids.toSorted(), truth.map((event) => event.id).toSorted())
        }).pipe(Effect.provide(harness(world)))
      }), 60_000)
  }
})
