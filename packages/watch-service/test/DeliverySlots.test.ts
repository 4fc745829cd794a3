/**
 * DeliverySlots: a runner's webhook attempts in flight are at most its `--delivery-concurrency`
 * (the attempts wait for a slot), and without slots (a library user's own loop) they run at once.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as DeliverySlots from "../src/delivery/DeliverySlots.js"

/** Six attempts started at once, each in a slot (if any) for 50 ms; the most that were in flight together. */
const mostAtOnce = Effect.gen(function*() {
  let inFlight = 0
  let most = 0
  const attempt = Effect.gen(function*() {
    inFlight += 1
    most = Math.max(most, inFlight)
    yield* Effect.sleep("50 millis")
    inFlight -= 1
  })
  yield* Effect.all(Array.from({ length: 6 }, () => DeliverySlots.inSlot(attempt)), { concurrency: "unbounded", discard: true })
  return most
})

describe("DeliverySlots", () => {
  it.live("with 2 slots, at most 2 attempts at once (1 with 1); without slots, all at once", () =>
    Effect.gen(function*() {
      assert.strictEqual(yield* mostAtOnce.pipe(Effect.provide(DeliverySlots.layer(2))), 2)
      assert.strictEqual(yield* mostAtOnce.pipe(Effect.provide(DeliverySlots.layer(1))), 1)
      assert.strictEqual(yield* mostAtOnce, 6)
      assert.strictEqual(yield* DeliverySlots.DeliverySlots.use((slots) => Effect.succeed(slots.size)).pipe(Effect.provide(DeliverySlots.layer(3))), 3)
    }))
})
