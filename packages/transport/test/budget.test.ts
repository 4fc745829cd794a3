/**
 * The compute-unit budget, with TestClock: spending, waiting for refill, pausing everyone after a
 * 429 and restoring the rate afterwards.
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

  it.effect("after a 429, everyone waits for Retry-After and the rate is halved, then restored", () =>
    Effect.gen(function*() {
      const budget = yield* ComputeBudget.make({ unitsPerSecond: 100 })
      yield* budget.rateLimited(Duration.seconds(2))
      assert.strictEqual(yield* budget.currentRate, 50)
      const waiting = yield* Effect.forkChild(budget.take("getWalletNFTTransfers"))
      yield* TestClock.adjust("1999 millis")
      assert.isUndefined(waiting.pollUnsafe())
      yield* TestClock.adjust("1 seconds")
      yield* Fiber.join(waiting)
      for (let i = 0; i < 10; i++) yield* budget.succeeded
      assert.strictEqual(yield* budget.currentRate, 100)
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

  it.effect("without a budget nothing waits, but a 429 still pauses", () =>
    Effect.gen(function*() {
      const budget = yield* ComputeBudget.make({})
      for (let i = 0; i < 1000; i++) yield* budget.take("getBlock")
      assert.isUndefined(yield* budget.currentRate)
      yield* budget.rateLimited(Duration.seconds(1))
      const waiting = yield* Effect.forkChild(budget.take("getBlock"))
      yield* TestClock.adjust("999 millis")
      assert.isUndefined(waiting.pollUnsafe())
      yield* TestClock.adjust("1 millis")
      yield* Fiber.join(waiting)
    }))
})
