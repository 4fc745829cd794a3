/**
 * The compute-unit budget, with TestClock: spending, waiting for refill, pausing everyone after a
 * 429, halving the rate, and restoring it a twentieth at a time afterwards.
 */
import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect, Fiber } from "effect"
import { TestClock } from "effect/testing"
import { ComputeBudget } from "../src/index.js"

describe("ComputeBudget", () => {
  it.effect("spends weights and makes the next request wait for the refill", () =>
    Effect.gen(function*() {
      const budget = yield* ComputeBudget.make({ unitsPerSecond: 20, weights: { getBlock: 10 } })
      yield* budget.take("getBlock")
      yield* budget.take("getBlock")
      const third = yield* Effect.forkChild(budget.take("getBlock"))
      yield* TestClock.adjust("499 millis")
      assert.isUndefined(third.pollUnsafe())
      yield* TestClock.adjust("1 millis")
      yield* Fiber.join(third)
    }))

  it.effect("after a 429, everyone waits for Retry-After and the rate is halved", () =>
    Effect.gen(function*() {
      const budget = yield* ComputeBudget.make({ unitsPerSecond: 100 })
      yield* budget.rateLimited(Duration.seconds(2))
      assert.strictEqual(yield* budget.currentRate, 50)
      const waiting = yield* Effect.forkChild(budget.take("getWalletNFTTransfers"))
      yield* TestClock.adjust("1999 millis")
      assert.isUndefined(waiting.pollUnsafe())
      yield* TestClock.adjust("1 seconds")
      yield* Fiber.join(waiting)
    }))

  it.effect("each success restores a twentieth of the configured rate, never past it", () =>
    Effect.gen(function*() {
      const budget = yield* ComputeBudget.make({ unitsPerSecond: 100 })
      yield* budget.rateLimited(Duration.seconds(1))
      const rates: Array<number | undefined> = [yield* budget.currentRate]
      for (let i = 0; i < 12; i++) {
        yield* budget.succeeded
        rates.push(yield* budget.currentRate)
      }
      // 50 after the 429, then +5 (100 / 20) per success: full after 10, and it stays there.
      assert.deepStrictEqual(rates, [50, 55, 60, 65, 70, 75, 80, 85, 90, 95, 100, 100, 100])
    }))

  it.effect("429s in a row halve the rate each time, down to a sixteenth of it; recovery is counted from there", () =>
    Effect.gen(function*() {
      const budget = yield* ComputeBudget.make({ unitsPerSecond: 160 })
      const rates: Array<number | undefined> = []
      for (let i = 0; i < 6; i++) {
        yield* budget.rateLimited(Duration.zero)
        rates.push(yield* budget.currentRate)
      }
      assert.deepStrictEqual(rates, [80, 40, 20, 10, 10, 10])
      yield* budget.succeeded
      assert.strictEqual(yield* budget.currentRate, 18)
    }))

  it.effect("the restored rate is the one requests get: after one success, units come at 55 per second, not 100", () =>
    Effect.gen(function*() {
      const budget = yield* ComputeBudget.make({ unitsPerSecond: 100, weights: { getBlock: 11 } })
      yield* budget.rateLimited(Duration.zero)
      yield* budget.succeeded
      // The bucket is empty after the 429: 11 units at 55 per second take 200 ms (at 100: 110 ms).
      const waiting = yield* Effect.forkChild(budget.take("getBlock"))
      yield* TestClock.adjust("199 millis")
      assert.isUndefined(waiting.pollUnsafe())
      yield* TestClock.adjust("1 millis")
      yield* Fiber.join(waiting)
    }))

  it.effect("nothing accrues during a 429 pause: requests resume at the lowered rate", () =>
    Effect.gen(function*() {
      const budget = yield* ComputeBudget.make({ unitsPerSecond: 100 })
      yield* budget.rateLimited(Duration.seconds(10))
      const waiting = yield* Effect.forkChild(budget.take("getWalletNFTTransfers"))
      yield* TestClock.adjust("10 seconds")
      assert.isUndefined(waiting.pollUnsafe())
      yield* TestClock.adjust("100 millis") // 5 units at the halved rate of 50 per second
      yield* Fiber.join(waiting)
    }))

  it.effect("without a budget nothing waits, but a 429 still pauses, and the budget stays unlimited after", () =>
    Effect.gen(function*() {
      const budget = yield* ComputeBudget.make({})
      for (let i = 0; i < 1000; i++) yield* budget.take("getBlock")
      assert.isUndefined(yield* budget.currentRate)
      yield* budget.rateLimited(Duration.seconds(1))
      assert.isUndefined(yield* budget.currentRate, "a 429 does not make up a rate")
      const waiting = yield* Effect.forkChild(budget.take("getBlock"))
      yield* TestClock.adjust("999 millis")
      assert.isUndefined(waiting.pollUnsafe())
      yield* TestClock.adjust("1 millis")
      yield* Fiber.join(waiting)
      yield* budget.succeeded
      assert.isUndefined(yield* budget.currentRate)
      // After the pause, nothing waits again.
      const after = yield* Effect.forkChild(Effect.forEach(Array.from({ length: 100 }), () => budget.take("getBlock")))
      yield* TestClock.adjust(Duration.zero)
      assert.isDefined(after.pollUnsafe())
    }))

  for (const unitsPerSecond of [0, -5]) {
    it.effect(`unitsPerSecond ${unitsPerSecond} is no budget: nothing waits`, () =>
      Effect.gen(function*() {
        const budget = yield* ComputeBudget.make({ unitsPerSecond })
        assert.isUndefined(yield* budget.currentRate)
        const taken = yield* Effect.forkChild(Effect.forEach(Array.from({ length: 100 }), () => budget.take("getBlock")))
        yield* TestClock.adjust(Duration.zero)
        assert.isDefined(taken.pollUnsafe())
      }))
  }

  it.effect("a bucket partly refilled: the wait is for what is missing only", () =>
    Effect.gen(function*() {
      const budget = yield* ComputeBudget.make({ unitsPerSecond: 10, weights: { heavy: 8 } })
      yield* budget.take("heavy") // 10 - 8: 2 units left
      // 6 units missing at 10 per second: 600 ms (not 1000, as 8 + 2 would be).
      const second = yield* Effect.forkChild(budget.take("heavy"))
      yield* TestClock.adjust("599 millis")
      assert.isUndefined(second.pollUnsafe())
      yield* TestClock.adjust("1 millis")
      yield* Fiber.join(second)
    }))
})
