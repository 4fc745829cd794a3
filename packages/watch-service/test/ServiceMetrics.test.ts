/**
 * The service's gauges over time: a stream's progress series go with the stream (a service that
 * creates and deletes streams for months holds the series of the streams there are, not of every
 * stream there ever was), histories' progress is summed per stream and chain (and per wallet for
 * the first 100 of a stream), gone once done, and the process's memory is read when the metrics are.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Metric } from "effect"
import { recordHistory, recordProgress, reportProcessMemory, walletSeriesPerStream } from "../src/delivery/ServiceMetrics.js"

/** The series of the metric `name` in the registry: their attributes, each as `key=value,...`. */
const seriesOf = (name: string) =>
  Effect.map(Metric.snapshot, (snapshots) =>
    snapshots
      .filter((snapshot) => snapshot.id === name)
      .map((snapshot) => Object.entries(snapshot.attributes ?? {}).map(([key, value]) => `${key}=${value}`).join(","))
      .toSorted())

const progress = (streamId: string, deliveredSequence: number, chains: ReadonlyArray<string>) => ({
  streamId,
  deliveredSequence,
  coverage: chains.map((scope) => ({ scope, coveredFrom: 1n, coveredTo: 10n }))
})

/** An open history of a stream: its wallet (an address of `index`) and the blocks it owes. */
const job = (streamId: string, scope: string, index: number, left: bigint) => ({ streamId, scope, address: `0x${String(index).padStart(40, "0")}`, left })

describe("ServiceMetrics", () => {
  it.effect("a thousand streams created and deleted one after another leave the series of the streams there are", () =>
    Effect.gen(function*() {
      // A long-lived stream, and streams that each live for two rounds (as the memory soak's do).
      for (let round = 0; round < 1_000; round++) {
        const living = [`str_${round}`, `str_${round + 1}`].filter((id) => id !== "str_0")
        yield* recordProgress([progress("str_kept", round, ["0x1", "0x89"]), ...living.map((id) => progress(id, 1, ["0x1"]))])
      }
      assert.deepStrictEqual(yield* seriesOf("chainquery_stream_delivered_sequence"), ["stream=str_1000", "stream=str_999", "stream=str_kept"])
      assert.deepStrictEqual(yield* seriesOf("chainquery_stream_covered_to"), [
        "stream=str_1000,chain=eth",
        "stream=str_999,chain=eth",
        "stream=str_kept,chain=eth",
        "stream=str_kept,chain=polygon"
      ])
      // A chain dropped from a stream goes too; the values are the last recorded.
      yield* recordProgress([progress("str_kept", 5, ["0x1"])])
      assert.deepStrictEqual(yield* seriesOf("chainquery_stream_covered_to"), ["stream=str_kept,chain=eth"])
      const snapshots = yield* Metric.snapshot
      assert.deepStrictEqual(snapshots.find((s) => s.id === "chainquery_stream_delivered_sequence")?.state, { value: 5 })
    }).pipe(Effect.provideService(Metric.MetricRegistry, new Map())))

  it.effect("the process's memory is read when the metrics are, and leaves with its scope", () =>
    Effect.gen(function*() {
      const read = Effect.map(Metric.snapshot, (snapshots) => new Map(snapshots.map((s) => [s.id, (s.state as { readonly value: number }).value])))
      const during = yield* Effect.scoped(Effect.andThen(reportProcessMemory, read))
      assert.isAbove(during.get("process_resident_memory_bytes")!, 10 * 1024 * 1024)
      assert.isAbove(during.get("nodejs_heap_size_used_bytes")!, 1024 * 1024)
      assert.isAtMost(during.get("nodejs_heap_size_used_bytes")!, during.get("nodejs_heap_size_total_bytes")!)
      assert.isAbove(during.get("nodejs_external_memory_bytes")!, 0)
      // Read again, not frozen: a 16 MiB buffer kept alive shows in the next reading's external memory.
      const held = Buffer.alloc(16 * 1024 * 1024, 1)
      const later = yield* Effect.scoped(Effect.andThen(reportProcessMemory, read))
      assert.isAtLeast(later.get("nodejs_external_memory_bytes")! - during.get("nodejs_external_memory_bytes")!, 15 * 1024 * 1024, `held ${held.length}`)
      assert.deepStrictEqual([...(yield* read).keys()], [], "no series left once the scope closed")
    }).pipe(Effect.provideService(Metric.MetricRegistry, new Map())))

  it.effect("histories: per stream and chain the wallets not done and the blocks left; per wallet the first 100 of each stream; gone once done", () =>
    Effect.gen(function*() {
      const big = Array.from({ length: 150 }, (_, index) => job("str_big", "0x1", index, 10n))
      yield* recordHistory([...big, job("str_small", "0x89", 1, 7n), job("str_small", "0x1", 2, 5n)])
      const values = Effect.map(Metric.snapshot, (snapshots) =>
        snapshots.filter((s) => s.id === "chainquery_stream_history_blocks_left" || s.id === "chainquery_stream_history_wallets").map((s) =>
          `${s.id.slice("chainquery_stream_history_".length)} ${s.attributes?.["stream"]} ${s.attributes?.["chain"]} ${(s.state as { value: number }).value}`
        ).toSorted())
      assert.deepStrictEqual(yield* values, [
        "blocks_left str_big eth 1500",
        "blocks_left str_small eth 5",
        "blocks_left str_small polygon 7",
        "wallets str_big eth 150",
        "wallets str_small eth 1",
        "wallets str_small polygon 1"
      ])
      const perWallet = yield* seriesOf("chainquery_stream_history_wallet_blocks_left")
      assert.strictEqual(perWallet.filter((series) => series.startsWith("stream=str_big,")).length, walletSeriesPerStream)
      assert.include(perWallet, `stream=str_small,wallet=polygon:0x${"1".padStart(40, "0")}`)
      // Done (or gone): the series go.
      yield* recordHistory([job("str_small", "0x89", 1, 3n)])
      assert.deepStrictEqual(yield* values, ["blocks_left str_small polygon 3", "wallets str_small polygon 1"])
      assert.deepStrictEqual(yield* seriesOf("chainquery_stream_history_wallet_blocks_left"), [`stream=str_small,wallet=polygon:0x${"1".padStart(40, "0")}`])
      yield* recordHistory([])
      assert.deepStrictEqual(yield* values, [])
    }).pipe(Effect.provideService(Metric.MetricRegistry, new Map())))
})
