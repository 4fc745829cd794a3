/**
 * The concurrency cap's line of waiters (`internal/slots.ts`), where timing matters most: a slot
 * is never lost or doubled when a waiter is interrupted, even in the moment between being handed
 * a slot and resuming with it. The cap over real HTTP is in `spans-and-slots.test.ts`.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Fiber } from "effect"
import * as Slots from "../src/internal/slots.js"

describe("Slots", () => {
  it.effect("takes a free slot at once, and none past the size; a release frees one", () =>
    Effect.sync(() => {
      const slots = Slots.make(2)
      assert.isTrue(slots.tryTake())
      assert.isTrue(slots.tryTake())
      assert.isFalse(slots.tryTake(), "two at most")
      slots.release()
      assert.isTrue(slots.tryTake())
    }))

  it.effect("waiters are served in order, one slot each, and the slot comes back after each", () =>
    Effect.gen(function*() {
      const slots = Slots.make(1)
      assert.isTrue(slots.tryTake())
      const served: Array<string> = []
      const fibers = yield* Effect.forEach(["a", "b", "c"], (name) => Effect.forkChild(slots.withSlot(Effect.sync(() => served.push(name)))))
      yield* Effect.yieldNow
      assert.deepStrictEqual(served, [], "nobody runs while the slot is held")
      assert.isFalse(slots.tryTake(), "a free slot is not taken past those in line")
      slots.release()
      yield* Effect.forEach(fibers, Fiber.join)
      assert.deepStrictEqual(served, ["a", "b", "c"])
      assert.isTrue(slots.tryTake(), "the slot is free again")
      assert.isFalse(slots.tryTake())
    }))

  it.effect("a waiter interrupted after being handed the slot, before resuming, passes it on", () =>
    Effect.gen(function*() {
      const slots = Slots.make(1)
      assert.isTrue(slots.tryTake())
      const served: Array<string> = []
      const first = yield* Effect.forkChild(slots.withSlot(Effect.sync(() => served.push("first"))))
      const second = yield* Effect.forkChild(slots.withSlot(Effect.sync(() => served.push("second"))))
      yield* Effect.yieldNow
      // Handed to `first`, which resumes on a later microtask; interrupted before it does.
      slots.release()
      yield* Fiber.interrupt(first)
      yield* Fiber.join(second)
      assert.deepStrictEqual(served, ["second"])
      assert.isTrue(slots.tryTake(), "the slot came back")
      assert.isFalse(slots.tryTake(), "and only one")
    }))

  it.effect("a wait bounded by a deadline leaves the line when it fails; the slot goes to the next", () =>
    Effect.gen(function*() {
      const slots = Slots.make(1)
      assert.isTrue(slots.tryTake())
      const timedOut = yield* Effect.forkChild(slots.withSlot(Effect.succeed("never"), (wait) => Effect.andThen(wait, Effect.fail("late" as const))))
      const bounded = yield* Effect.forkChild(
        slots.withSlot(Effect.succeed("ran"), () => Effect.fail("deadline" as const))
      )
      const patient = yield* Effect.forkChild(slots.withSlot(Effect.succeed("patient")))
      yield* Effect.yieldNow
      const boundedExit = yield* Fiber.await(bounded)
      assert.isTrue(Exit.isFailure(boundedExit), "a wait that fails fails the call, which never ran")
      slots.release()
      assert.isTrue(Exit.isFailure(yield* Fiber.await(timedOut)), "served, then the bound failed: the slot is released")
      assert.strictEqual(yield* Fiber.join(patient), "patient")
      assert.isTrue(slots.tryTake())
      assert.isFalse(slots.tryTake())
    }))

  it.effect("an effect that fails or is interrupted while holding a slot gives it back", () =>
    Effect.gen(function*() {
      const slots = Slots.make(1)
      assert.isTrue(Exit.isFailure(yield* Effect.exit(slots.withSlot(Effect.fail("boom")))))
      assert.isTrue(slots.tryTake())
      slots.release()
      const holding = yield* Effect.forkChild(slots.withSlot(Effect.never))
      yield* Effect.yieldNow
      assert.isFalse(slots.tryTake(), "held")
      yield* Fiber.interrupt(holding)
      assert.isTrue(slots.tryTake(), "given back")
    }))
})
