/**
 * The service's own metrics, beside the engine's (`chainquery_watch_*`, per scan) and the
 * transport's (`chainquery_requests_total`, `chainquery_compute_units_total`,
 * `chainquery_rate_limited_total`), all at `/metrics` and over OTLP: webhook attempts by outcome,
 * the outbox's depth and oldest pending delivery (read every interval by the sweeper), each
 * stream's progress and the events its content filter kept out (its series removed with the
 * stream), the history its wallets added with one
 * still owe (`chainquery_stream_history_blocks_left`, `chainquery_stream_history_wallets`, per
 * stream and chain), and the process's memory
 * (`process_resident_memory_bytes`, `nodejs_heap_size_used_bytes`, ...: the names of Prometheus's
 * Node client, so that existing dashboards and alerts apply).
 *
 * @since 0.2.0
 */
import { getHeapStatistics } from "node:v8"
import { Effect, Metric, type Scope } from "effect"
import type { Attempt, Progress } from "../store/DeliveryStore.js"
import { nameOf } from "../model/Scopes.js"

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
 * import { ServiceMetrics } from "@chainquery/watch-service"
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
 * import { ServiceMetrics } from "@chainquery/watch-service"
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
const filteredEvents = Metric.gauge("chainquery_stream_filtered_events", {
  description: "Per stream: the events its content filter kept out since it was created (covered, not sent)"
})

/** The per-stream series recorded last, by a key of their own: a stream's are removed once it is gone. */
let progressSeries: ReadonlyMap<string, Metric.Metric<number, unknown>> = new Map()

/**
 * Records each stream's progress: its last delivered sequence, the events its content filter kept
 * out, and per chain its covered-to block (a chain with no batch delivered yet is left out). The series of a stream (or a chain of
 * it) missing from `progress`, deleted since the last call, are removed: the metrics hold the
 * streams there are, not every stream there ever was.
 *
 * @example
 * ```ts
 * import { ServiceMetrics } from "@chainquery/watch-service"
 *
 * const recorded = ServiceMetrics.recordProgress([{ streamId: "str_1", deliveredSequence: 7, coverage: [{ scope: "0x1", coveredFrom: 100n, coveredTo: 120n }] }])
 * ```
 * @since 0.3.0
 */
export const recordProgress = (progress: ReadonlyArray<Progress>): Effect.Effect<void> =>
  Effect.suspend(() => {
    const values = new Map<string, readonly [Metric.Metric<number, unknown>, number]>()
    for (const stream of progress) {
      const sequenceOf = progressSeries.get(stream.streamId) ?? Metric.withAttributes(deliveredSequence, { stream: stream.streamId })
      values.set(stream.streamId, [sequenceOf, stream.deliveredSequence ?? 0])
      const filteredKey = `${stream.streamId} filtered`
      values.set(filteredKey, [progressSeries.get(filteredKey) ?? Metric.withAttributes(filteredEvents, { stream: stream.streamId }), stream.filteredEvents ?? 0])
      for (const chain of stream.coverage) {
        if (chain.coveredTo === null) continue
        const key = `${stream.streamId} ${chain.scope}`
        values.set(key, [progressSeries.get(key) ?? Metric.withAttributes(coveredTo, { stream: stream.streamId, chain: nameOf(chain.scope) }), Number(chain.coveredTo)])
      }
    }
    const gone = [...progressSeries].flatMap(([key, series]) => (values.has(key) ? [] : [series]))
    progressSeries = new Map([...values].map(([key, [series]]) => [key, series] as const))
    return Effect.andThen(
      Effect.forEach(gone, Metric.remove, { discard: true }),
      Effect.forEach(values.values(), ([series, value]) => Metric.update(series, value), { discard: true })
    )
  })

const historyLeft = Metric.gauge("chainquery_stream_history_blocks_left", {
  description: "Per stream and chain: the blocks of history its wallets added with one still owe it (summed over the wallets)"
})
const historyWallets = Metric.gauge("chainquery_stream_history_wallets", {
  description: "Per stream and chain: how many wallets added with their history are not done yet"
})
const walletHistoryLeft = Metric.gauge("chainquery_stream_history_wallet_blocks_left", {
  description: "Per stream and wallet (the first 100 of each stream not done, those read first): the blocks of its history left"
})

/** The most wallets of one stream with a series of their own (the rest are in the stream's totals and in its stats). */
export const walletSeriesPerStream = 100

/** The history series recorded last, by `<stream> <chain> <gauge>`: removed once the stream's histories there are done or gone. */
let historySeries: ReadonlyMap<string, Metric.Metric<number, unknown>> = new Map()

/**
 * Records, per stream and chain, how many wallets added with their history are not done yet and
 * how many blocks of it they still owe, and per wallet the blocks it still owes for the first
 * {@link walletSeriesPerStream} of each stream in `open`'s order (those read first: a request of
 * 10,000 wallets would otherwise be 10,000 series; `GET …/stats` lists each wallet). The series of
 * a history done, or gone, since the last call are removed.
 *
 * @example
 * ```ts
 * import { ServiceMetrics } from "@chainquery/watch-service"
 *
 * const recorded = ServiceMetrics.recordHistory([{ streamId: "str_1", scope: "0x1", address: "0xaa", left: 120n }])
 * ```
 * @since 0.5.0
 */
export const recordHistory = (
  open: ReadonlyArray<{ readonly streamId: string; readonly scope: string; readonly address: string; readonly left: bigint }>
): Effect.Effect<void> =>
  Effect.suspend(() => {
    const totals = new Map<string, { readonly streamId: string; readonly scope: string; wallets: number; left: number }>()
    for (const job of open) {
      const key = `${job.streamId} ${job.scope}`
      const total = totals.get(key) ?? totals.set(key, { streamId: job.streamId, scope: job.scope, wallets: 0, left: 0 }).get(key)!
      total.wallets += 1
      total.left += Number(job.left)
    }
    const values = new Map<string, readonly [Metric.Metric<number, unknown>, number]>()
    const perStream = new Map<string, number>()
    for (const job of open) {
      const count = (perStream.get(job.streamId) ?? 0) + 1
      perStream.set(job.streamId, count)
      if (count > walletSeriesPerStream) continue
      const key = `${job.streamId} ${job.scope} ${job.address} wallet`
      const attributes = { stream: job.streamId, wallet: `${nameOf(job.scope)}:${job.address}` }
      values.set(key, [historySeries.get(key) ?? Metric.withAttributes(walletHistoryLeft, attributes), Number(job.left)])
    }
    for (const [key, total] of totals) {
      const attributes = { stream: total.streamId, chain: nameOf(total.scope) }
      values.set(`${key} left`, [historySeries.get(`${key} left`) ?? Metric.withAttributes(historyLeft, attributes), total.left])
      values.set(`${key} wallets`, [historySeries.get(`${key} wallets`) ?? Metric.withAttributes(historyWallets, attributes), total.wallets])
    }
    const gone = [...historySeries].flatMap(([key, series]) => (values.has(key) ? [] : [series]))
    historySeries = new Map([...values].map(([key, [series]]) => [key, series] as const))
    return Effect.andThen(
      Effect.forEach(gone, Metric.remove, { discard: true }),
      Effect.forEach(values.values(), ([series, value]) => Metric.update(series, value), { discard: true })
    )
  })

/**
 * The process's memory: gauges read when `/metrics` (or an OTLP export) reads them. The heap's come
 * from `v8.getHeapStatistics()`, which reads V8's counters alone; `process.memoryUsage()` would
 * read the resident set from `/proc` again for each of them.
 */
const memoryGauges: ReadonlyArray<readonly [Metric.Gauge<number>, () => number]> = [
  [Metric.gauge("process_resident_memory_bytes", { description: "Resident memory of the process (RSS), in bytes" }), () => process.memoryUsage.rss()],
  [
    Metric.gauge("nodejs_heap_size_used_bytes", { description: "V8 heap in use, in bytes (live objects and garbage not yet collected)" }),
    () => getHeapStatistics().used_heap_size
  ],
  [Metric.gauge("nodejs_heap_size_total_bytes", { description: "V8 heap reserved, in bytes" }), () => getHeapStatistics().total_heap_size],
  [
    Metric.gauge("nodejs_external_memory_bytes", { description: "Memory of C++ objects bound to JavaScript objects (buffers), in bytes" }),
    () => getHeapStatistics().external_memory
  ]
]

/**
 * Reports the process's memory at `/metrics` for the scope: resident set, V8 heap used and
 * reserved, external, each read when the metrics are. Over weeks `nodejs_heap_size_used_bytes`
 * saws between collections around a level floor; a rising floor is a leak (SERVE.md, "Memory over time").
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { ServiceMetrics } from "@chainquery/watch-service"
 *
 * const reported = Effect.scoped(ServiceMetrics.reportProcessMemory)
 * ```
 * @since 0.5.0
 */
export const reportProcessMemory: Effect.Effect<void, never, Scope.Scope> = Effect.gen(function*() {
  const context = yield* Effect.context<never>()
  for (const [gauge, read] of memoryGauges) {
    yield* Effect.acquireRelease(
      Effect.sync(() => Metric.registerUnsafe(gauge, context, { get: () => ({ value: read() }), update: () => {}, modify: () => {} })),
      (registration) => Effect.sync(() => registration.remove())
    )
  }
})
