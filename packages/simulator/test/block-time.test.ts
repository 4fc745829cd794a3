/**
 * `blockTime` (`--block-time`): the world makes a block every `blockTime`, the first one
 * `blockTime` after the start, on the simulator's clock (here the test's).
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { TestClock } from "effect/testing"
import { Simulator } from "../src/index.js"

describe("blockTime", () => {
  it.effect("a block every 2 seconds: none before the first 2, 5 in 10 seconds, 30 in a minute", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const chain = sim.world.evm.chain("0x1")
      const start = chain.head
      yield* TestClock.adjust("1999 millis")
      assert.strictEqual(chain.head - start, 0)
      yield* TestClock.adjust("1 millis")
      assert.strictEqual(chain.head - start, 1)
      yield* TestClock.adjust("8 seconds")
      assert.strictEqual(chain.head - start, 5)
      yield* TestClock.adjust("50 seconds")
      assert.strictEqual(chain.head - start, 30)
    }).pipe(Effect.provide(Simulator.layer({ seed: "block-time", history: 5, wallets: 10, blockTime: "2 seconds", chains: ["0x1"] }))))
})
