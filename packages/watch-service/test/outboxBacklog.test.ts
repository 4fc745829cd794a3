/**
 * What `/metrics` reads from the deliveries store, over a real PostgreSQL whose clock the test sets
 * (see `support/clockedStores.ts`): the outbox's depth (pending deliveries, all streams) and its
 * oldest pending delivery's age, exactly; and every stream's progress (the last batch its receiver
 * took).
 */
import { assert, describe, it } from "@effect/vitest"
import { DateTime, Effect, Option } from "effect"
import { alice } from "../../watch/test/fixtures.js"
import { DeliveryStore } from "../src/store/DeliveryStore.js"
import { loopLayer, setClock } from "./support/clockedStores.js"
import { enqueue, evm, makeStream, transfers } from "./support/storeFixtures.js"

const t0 = DateTime.makeUnsafe("2030-01-02T03:04:05.678Z")
const at = (seconds: number) => setClock(DateTime.add(t0, { seconds }))
const backlog = DeliveryStore.use((store) => store.backlog)
const progress = DeliveryStore.use((store) => store.progress)
/** The stream's next delivery, answered 2xx. */
const deliverNext = (streamId: string) =>
  Effect.gen(function*() {
    const store = yield* DeliveryStore
    const next = Option.getOrThrow(yield* store.next(streamId))
    yield* store.record(next.delivery, { result: "delivered", status: 200, error: null }, [])
  })

describe("DeliveryStore.backlog and progress", () => {
  it.effect("the pending deliveries of all streams and the oldest one's age in seconds; each stream's last delivered sequence", () =>
    Effect.gen(function*() {
      yield* at(0)
      assert.deepStrictEqual(yield* backlog, { pending: 0, oldestSeconds: null })
      const first = yield* makeStream([evm(alice)])
      const second = yield* makeStream([evm(alice)])
      yield* enqueue(transfers(1))
      yield* at(30)
      yield* enqueue(transfers(1, { from: 1 }))
      yield* at(90)
      assert.deepStrictEqual(yield* backlog, { pending: 4, oldestSeconds: 90 })
      yield* deliverNext(first)
      yield* deliverNext(second)
      assert.deepStrictEqual(yield* backlog, { pending: 2, oldestSeconds: 60 })
      yield* deliverNext(first)
      assert.deepStrictEqual(
        (yield* progress).map((p) => [p.streamId, p.deliveredSequence, p.coverage]),
        [[first, 2, []], [second, 1, []]].toSorted((a, b) => String(a[0]).localeCompare(String(b[0])))
      )
      // A delivery made later than the database's clock is 0 seconds old, not less.
      yield* setClock(DateTime.add(t0, { seconds: 10 }))
      assert.deepStrictEqual(yield* backlog, { pending: 1, oldestSeconds: 0 })
    }).pipe(Effect.provide(loopLayer())))
})
