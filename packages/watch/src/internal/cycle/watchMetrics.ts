/**
 * The engine's metrics, in the Effect metric registry (what `PrometheusMetrics` and OTLP export),
 * with the attributes of the context (`Metric.CurrentMetricAttributes`: a service running one
 * stream per chain puts its chain there): each cycle's duration, the events produced, and how far
 * each EVM chain's reading is behind its head.
 *
 * @internal
 */
import type { Chain } from "@chainquery/schema"
import { Effect, Metric } from "effect"

/** How long the engine's cycles take (reading and committing), in seconds. */
export const cycleSeconds = Metric.histogram("chainquery_watch_cycle_seconds", {
  description: "Duration of the engine's cycles (reading and committing the batch), in seconds",
  boundaries: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60]
})

/** The events the engine produced. */
export const eventsTotal = Metric.counter("chainquery_watch_events_total", { description: "Events produced by the engine", incremental: true })

const headLag = Metric.gauge("chainquery_watch_head_lag_blocks", {
  description: "Blocks between a chain's head and the newest block the engine read completely, after a cycle"
})

const lagByChain = new Map<string, Metric.Metric<number, unknown>>()

/** Records how many blocks `chain`'s reading is behind its head. */
export const recordHeadLag = (chain: Chain.ChainId, blocks: bigint): Effect.Effect<void> => {
  const gauge = lagByChain.get(chain) ?? lagByChain.set(chain, Metric.withAttributes(headLag, { chain })).get(chain)!
  return Metric.update(gauge, Number(blocks < 0n ? 0n : blocks))
}
