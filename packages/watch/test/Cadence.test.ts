/**
 * `Watch.batches`' interval counts from a cycle's start (`internal/cycle/cadence.ts`): the wait
 * after a cycle is what is left of the interval, a tenth of it after a cycle longer than it, and a
 * whole interval after a failed one.
 */
import { assert, describe, it } from "@effect/vitest"
import { Duration } from "effect"
import { pauseAfter } from "../src/internal/cycle/cadence.js"

describe("the cycles' cadence", () => {
  it("waits what is left of the interval, a tenth of it after a long cycle, a whole interval after a failure", () => {
    const interval = Duration.seconds(10)
    assert.strictEqual(Duration.toMillis(pauseAfter(interval, 4_000, true)), 6_000)
    assert.strictEqual(Duration.toMillis(pauseAfter(interval, 0, true)), 10_000)
    assert.strictEqual(Duration.toMillis(pauseAfter(interval, 9_500, true)), 1_000)
    assert.strictEqual(Duration.toMillis(pauseAfter(interval, 12_000, true)), 1_000)
    assert.strictEqual(Duration.toMillis(pauseAfter(interval, -5_000, true)), 10_000, "never more than the interval")
    assert.strictEqual(Duration.toMillis(pauseAfter(interval, 4_000, false)), 10_000)
  })
})
