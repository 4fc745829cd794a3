/**
 * The engine's metrics, read from the Effect metric registry after `Watch.batches` ran against the
 * simulator over real HTTP, with the context's attributes (`Metric.CurrentMetricAttributes`) on
 * each series: every cycle's duration, the events produced, and how far each EVM chain's reading
 * is behind its head after a cycle (confirmations count, and so do blocks left for the next cycle).
 */
import { assert, describe, it } from "@effect/vitest"
import { Simulator } from "@chainquery/simulator"
import { Effect, Metric, Stream } from "effect"
import { Watch } from "../src/index.js"
import { busiestEvm, harness } from "./support/engineHarness.js"

/** The state of the series of a metric with these attributes (its count, or its value); fails when there is none. */
const series = (id: string, attributes: Record<string, string>) =>
  Effect.map(Metric.snapshot, (all) => {
    const found = all.find((m) => m.id === id && Object.entries(attributes).every(([key, value]) => m.attributes?.[key] === value))
    assert.isDefined(found, `no series ${id}`)
    return found!.state as { readonly count?: number | bigint; readonly value?: number | bigint }
  })

describe("the engine's metrics", () => {
  it.live("cycle durations, events produced and head lag, with the context's attributes", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const wallets = busiestEvm(sim, "0x1", 3)
      const run = (options: Partial<Watch.Options>) =>
        Watch.batches({ wallets, watch: ["transfers"], once: true, ...options }).pipe(
          Stream.mapEffect((batch) => Effect.as(batch.ack, batch.events.length)),
          Stream.runFold(() => 0, (count, size) => count + size),
          Effect.provideService(Metric.CurrentMetricAttributes, { scan: "metrics-test" })
        )
      yield* run({ confirmations: 2 })
      yield* sim.advance(12)
      const events = yield* run({ confirmations: 2, maxBlocksPerCycle: 4 })
      assert.isAbove(events, 0, "the cycle produced events")
      const cycles = yield* series("chainquery_watch_cycle_seconds", { scan: "metrics-test" })
      assert.strictEqual(Number(cycles.count), 2, "one observation per cycle")
      const produced = yield* series("chainquery_watch_events_total", { scan: "metrics-test" })
      assert.strictEqual(Number(produced.count), events)
      // The baseline was 2 blocks deep (confirmations); 12 blocks later, 4 were read: 10 behind the head.
      const lag = yield* series("chainquery_watch_head_lag_blocks", { scan: "metrics-test", chain: "0x1" })
      assert.strictEqual(Number(lag.value), 10)
    }).pipe(Effect.provide(harness({ seed: 2611, indexing: false, chains: ["0x1"] }))))
})
