/**
 * `onHead`: each EVM chain's head as a cycle found it, told to the caller of `Watch.batches` (what
 * the service keeps to say how far a stream's receiver is behind the chain): the newest block the
 * simulator indexed, whatever the confirmations and however few blocks the cycle read.
 */
import { assert, describe, it } from "@effect/vitest"
import { Simulator } from "@chainquery/simulator"
import { Effect, Ref, Stream } from "effect"
import { type Engine, Watch } from "../src/index.js"
import { busiestEvm, harness } from "./support/engineHarness.js"

describe("Watch.batches onHead", () => {
  it.live("tells each cycle's head: the newest indexed block, not the safe head nor the blocks read", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const wallets = [...busiestEvm(sim, "0x1", 2), ...busiestEvm(sim, "0x89", 2)]
      const told = yield* Ref.make<ReadonlyArray<Engine.Head>>([])
      const run = Watch.batches({
        wallets,
        watch: ["transfers"],
        once: true,
        confirmations: 2,
        maxBlocksPerCycle: 4,
        onHead: (head) => Ref.update(told, (all) => [...all, head])
      }).pipe(Stream.runForEach((batch) => batch.ack))
      // The first cycle places the wallets (a baseline): no head is told for it.
      yield* run
      assert.deepStrictEqual(yield* Ref.get(told), [])
      yield* sim.advance(12)
      yield* run
      const indexed = (chain: "0x1" | "0x89") => BigInt(sim.world.evm.indexedHead(chain))
      assert.deepStrictEqual(
        (yield* Ref.get(told)).toSorted((a, b) => a.chain.localeCompare(b.chain)),
        [{ chain: "0x1", block: indexed("0x1") }, { chain: "0x89", block: indexed("0x89") }],
        "once per chain, at the indexed head (12 blocks on, 4 of them read, 2 confirmations)"
      )
    }).pipe(Effect.provide(harness({ seed: 2612, indexing: false, chains: ["0x1", "0x89"] }))))

  it.live("a callback that throws is logged; the cycle goes on and its events come", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const run = Watch.batches({
        wallets: busiestEvm(sim, "0x1", 3),
        watch: ["transfers"],
        once: true,
        onHead: () => {
          throw new Error("the caller's bug")
        }
      }).pipe(Stream.mapEffect((batch) => Effect.as(batch.ack, batch.events.length)), Stream.runFold(() => 0, (n, size) => n + size))
      yield* run
      yield* sim.advance(12)
      assert.isAbove(yield* run, 0, "the cycle's events, the callback's failure aside")
    }).pipe(Effect.provide(harness({ seed: 2613, indexing: false, chains: ["0x1"] }))))
})
