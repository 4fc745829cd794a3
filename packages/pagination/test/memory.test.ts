/**
 * Streaming 200,000 records keeps memory bounded: the pages are produced, consumed and dropped,
 * never all held. Each record carries ~1 KiB, so holding them all would need ~200 MiB; the bound
 * here is generous (64 MiB of heap growth). The measured figure is printed by `./run bench`.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Option, Stream } from "effect"
import { Envelope, Paginate } from "../src/index.js"

const pageSize = 100
const total = 200_000
const payload = "x".repeat(1000)

const fetch = (cursor: Option.Option<string>) =>
  Effect.sync(() => {
    const offset = Number(Option.getOrElse(cursor, () => "0"))
    const result = Array.from({ length: pageSize }, (_, i) => ({ n: offset + i, payload: `${payload}${offset + i}` }))
    return { result, cursor: offset + pageSize < total ? Option.some(String(offset + pageSize)) : Option.none<string>() }
  })

describe("memory", () => {
  it.effect("streams 200,000 items with bounded heap growth", () =>
    Effect.gen(function*() {
      const baseline = process.memoryUsage().heapUsed
      let peak = baseline
      let count = 0
      yield* Paginate.items(fetch, Envelope.evm(), { prefetch: 2 }).pipe(
        Stream.runForEach(() =>
          Effect.sync(() => {
            count++
            if (count % 5000 === 0) peak = Math.max(peak, process.memoryUsage().heapUsed)
          })
        )
      )
      assert.strictEqual(count, total)
      const growth = (peak - baseline) / 1024 / 1024
      assert.isBelow(growth, 64, `heap grew by ${growth.toFixed(1)} MiB`)
    }), 60_000)
})
