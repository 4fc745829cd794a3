/**
 * The service's own metrics, beside the engine's (`chainquery_watch_*`, per scan) and the
 * transport's (`chainquery_requests_total`, `chainquery_compute_units_total`,
 * `chainquery_rate_limited_total`), all at `/metrics` and over OTLP: webhook attempts by outcome,
 * and the outbox's depth and oldest pending delivery (read every interval by the sweeper).
 *
 * @since 0.2.0
 */
import { Effect, Metric } from "effect"
import type { Attempt, Progress } from "./DeliveryStore.js"
import { nameOf } from "./Scopes.js"

const attempts = Metric.counter("chainquery_deliveries_total", {
  description: "Webhook attempts by outcome: delivered, retry (5xx, timeout, connection), failed (not retried), held (410)",
  incremental: true
})

const byResult = new Map<Attempt["result"], Metric.Metric<number, unknown>>()

/**
 * Counts one webhook attempt by its outcome.
 *
 * @example
 * ```ts
 * import { ServiceMetrics } from "@chainquery/watcher"
 *
 * const counted = ServiceMetrics.countAttempt("delivered")
 * ```
 * @since 0.2.0
 */
export const countAttempt = (result: Attempt["result"]): Effect.Effect<void> => {
  const counter = byResult.get(result) ?? byResult.set(result, Metric.withAttributes(attempts, { result })).get(result)!
  return Metric.update(counter, 1)
}

const outboxDepth = Metric.gauge("chainquery_outbox_depth", { description: "Deliveries pending, all streams" })
const oldestPending = Metric.gauge("chainquery_outbox_oldest_pending_seconds", { description: "Age of the oldest pending delivery, in seconds (0: none)" })

/**
 * Records the outbox's depth and the age of its oldest pending delivery.
 *
 * @example
 * ```ts
 * import { ServiceMetrics } from "@chainquery/watcher"
 *
 * const recorded = ServiceMetrics.recordBacklog({ pending: 3, oldestSeconds: 12.5 })
 * ```
 * @since 0.2.0
 */
export const recordBacklog = (backlog: { readonly pending: number; readonly oldestSeconds: number | null }): Effect.Effect<void> =>
  Effect.andThen(Metric.update(outboxDepth, backlog.pending), Metric.update(oldestPending, backlog.oldestSeconds ?? 0))

const deliveredSequence = Metric.gauge("chainquery_stream_delivered_sequence", {
  description: "Per stream: the sequence of the last batch its receiver took (0: none yet)"
})
const coveredTo = Metric.gauge("chainquery_stream_covered_to", {
  description: "Per stream and chain: the last block (Aptos: ledger version) of the last batch delivered"
})

/**
 * Records each stream's progress: its last delivered sequence, and per chain its covered-to
 * block (a chain with no batch delivered yet is left out).
 *
 * @example
 * ```ts
 * import { ServiceMetrics } from "@chainquery/watcher"
 *
 * const recorded = ServiceMetrics.recordProgress([{ streamId: "str_1", deliveredSequence: 7, coverage: [{ scope: "0x1", coveredFrom: 100n, coveredTo: 120n }] }])
 * ```
 * @since 0.3.0
 */
export const recordProgress = (progress: ReadonlyArray<Progress>): Effect.Effect<void> =>
  Effect.forEach(progress, (stream) =>
    Effect.andThen(
      Metric.update(Metric.withAttributes(deliveredSequence, { stream: stream.streamId }), stream.deliveredSequence ?? 0),
      Effect.forEach(stream.coverage, (chain) =>
        chain.coveredTo === null
          ? Effect.void
          : Metric.update(Metric.withAttributes(coveredTo, { stream: stream.streamId, chain: nameOf(chain.scope) }), Number(chain.coveredTo)), { discard: true })
    ), { discard: true })
