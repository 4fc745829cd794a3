/**
 * The engine's trace: `Watch.batches` makes one `Watch.cycle` span a cycle, against the simulator
 * over real HTTP, with what the cycle found (`wallets.count`, `events.count`, `failed.count`), what
 * the caller annotates with `Effect.annotateSpans` (the service's scope), and the cycle's reads of
 * the data API under it.
 */
import { assert, describe, it } from "@effect/vitest"
import { Simulator } from "@chainquery/simulator"
import { Effect, Stream, Tracer } from "effect"
import { Watch } from "../src/index.js"
import { busiestEvm, harness } from "./support/engineHarness.js"

describe("the engine's spans", () => {
  it.live("one Watch.cycle span a cycle, with its counts and the caller's annotations, over its reads", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const wallets = busiestEvm(sim, "0x1", 3)
      const spans: Array<Tracer.NativeSpan> = []
      const tracer = Tracer.make({
        span(options) {
          const span = new Tracer.NativeSpan(options)
          spans.push(span)
          return span
        }
      })
      const events = yield* Watch.batches({ wallets, watch: ["transfers"], once: true }).pipe(
        Stream.mapEffect((batch) => Effect.as(batch.ack, batch.events.length)),
        Stream.runFold(() => 0, (count, size) => count + size),
        Effect.annotateSpans({ scope: "0x1" }),
        Effect.provideService(Tracer.Tracer, tracer)
      )
      const cycles = spans.filter((span) => span.name === "Watch.cycle")
      assert.strictEqual(cycles.length, 1, "one cycle, one span")
      const cycle = cycles[0]!
      assert.strictEqual(cycle.status._tag, "Ended")
      assert.strictEqual(cycle.attributes.get("wallets.count"), 3)
      assert.strictEqual(cycle.attributes.get("failed.count"), 0)
      assert.strictEqual(typeof cycle.attributes.get("events.count"), "number")
      assert.strictEqual(cycle.attributes.get("scope"), "0x1")
      assert.isAtMost(Number(cycle.attributes.get("events.count")), events)
      const reads = spans.filter((span) => span.parent._tag === "Some" && span.parent.value.spanId === cycle.spanId)
      assert.isAbove(reads.length, 0, "the cycle's reads are its children")
    }).pipe(Effect.provide(harness({ seed: 2612, indexing: false, chains: ["0x1"] }))))
})
