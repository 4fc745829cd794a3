/**
 * History told from live (issue #41): `Watch.batches` flags the backfill's batches
 * `phase: "history"` and the cycles' `"live"`, over the simulator and a SQLite state file; a
 * history batch left unacknowledged (the consumer interrupted in it) is produced again first by
 * the next run, still `"history"`, and a live one left so, still `"live"`.
 */
import { assert, describe, it } from "@effect/vitest"
import { Simulator } from "@chainquery/simulator"
import { Effect, Stream } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll } from "vitest"
import { StateStore, Watch } from "../src/index.js"
import { busiestEvm, harness } from "./support/engineHarness.js"

const dir = mkdtempSync(join(tmpdir(), "chainquery-watch-phase-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe("Watch.batches: history told from live", () => {
  it.live("the backfill's batches are history, the cycles' live; an unacknowledged batch comes again with its phase", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const wallets = busiestEvm(sim, "0x1", 4)
      const head = BigInt(sim.world.evm.chain("0x1").head)
      const state = join(dir, "phase.db")
      const run = (options: Partial<Watch.Options>, take: number, acknowledge: boolean) =>
        Watch.batches({ wallets, watch: ["transfers"], interval: "50 millis", ...options }).pipe(
          Stream.mapEffect((batch) => acknowledge ? Effect.as(batch.ack, batch) : Effect.succeed(batch)),
          Stream.take(take),
          Stream.runCollect,
          Effect.provide(StateStore.layer(state))
        )

      // A backfill, left in its first batch (not acknowledged: the consumer stops there).
      const [first] = yield* run({ backfill: { _tag: "Block", block: head - 30n } }, 1, false)
      assert.deepStrictEqual([first!.phase, first!.redelivered], ["history", false])
      assert.isAbove(first!.events.length, 0)
      // The next run produces it again first, still history.
      const [again] = yield* run({}, 1, false)
      assert.deepStrictEqual([again!.phase, again!.redelivered, again!.events.map((event) => event.id)], ["history", true, first!.events.map((event) => event.id)])
      // Then the rest of the backfill (history), then a cycle (live), once the chain grew.
      yield* sim.advance(6)
      const rest = yield* run({ once: true }, 1_000, true)
      const phases = rest.map((batch) => batch.phase)
      assert.strictEqual(phases[0], "history")
      assert.isTrue(rest[0]!.redelivered)
      assert.include(phases, "live")
      assert.deepStrictEqual(phases, phases.toSorted((a, b) => (a === b ? 0 : a === "history" ? -1 : 1)), "history before live")
      // A live batch left unacknowledged comes again live.
      let left: Watch.Batch | undefined
      for (let step = 0; step < 20 && left === undefined; step++) {
        yield* sim.advance(2)
        left = (yield* run({ once: true }, 1, false))[0]
      }
      assert.deepStrictEqual([left?.phase, left?.redelivered], ["live", false])
      const [live] = yield* run({ once: true }, 1, false)
      assert.deepStrictEqual([live!.phase, live!.redelivered, live!.events.map((event) => event.id)], ["live", true, left!.events.map((event) => event.id)])
    }).pipe(Effect.provide(harness({ seed: 71, indexing: false, chains: ["0x1"] }))))
})
