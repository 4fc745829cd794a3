/**
 * After `POST …/resume`, the success rate counts the attempts after the resume only (SERVE.md,
 * "Error state"): a repaired receiver's stream is not put back in `error` for the failures that
 * put it there. Over the real API and stores: a pause does not start the count afresh, a resume
 * does, from `paused` as from `error`.
 */
import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect, Option } from "effect"
import { alice } from "../../watch/test/fixtures.js"
import { type Attempt, type Delivery, DeliveryStore } from "../src/store/DeliveryStore.js"
import { StreamStore } from "../src/store/StreamStore.js"
import type { Api } from "./serviceHarness.js"
import { withApi } from "./support/apiFixtures.js"
import { enqueue, evm, transfers } from "./support/storeFixtures.js"

const receiver = "http://127.0.0.1:9/hook"
const busy: Attempt = { result: "retry", status: 503, error: "HTTP 503" }
const ok: Attempt = { result: "delivered", status: 200, error: null }
/** A schedule long enough for every attempt of these tests to be a retry. */
const schedule = Array.from({ length: 300 }, () => Duration.millis(1))

/** The stream's first pending delivery. */
const pendingOf = (api: Api, streamId: string) =>
  api.run(Effect.map(DeliveryStore.use((store) => store.next(streamId)), (next) => Option.getOrThrow(next).delivery))

/** Records `count` attempts (`attempt`) of the delivery (each is counted, whatever its status). */
const attempts = (api: Api, delivery: Delivery, count: number, attempt: Attempt) =>
  api.run(Effect.gen(function*() {
    const deliveries = yield* DeliveryStore
    for (let i = 0; i < count; i++) yield* deliveries.record(delivery, attempt, schedule)
  }))

const rateOf = (api: Api, streamId: string) => api.run(DeliveryStore.use((store) => store.successRate(streamId)))

const tick = () => Effect.runPromise(Effect.sleep(Duration.millis(10)))

describe("the success rate after a resume", () => {
  it.live("a pause keeps the count; a resume starts it afresh, from paused as from error", () =>
    withApi(async (api) => {
      const { body: stream } = await api.call("POST", "/v1/streams", { body: { url: receiver, events: ["nft.received"] } })
      await api.run(StreamStore.use((streams) => streams.addWallets(stream.id, [evm(alice)], [0n])))
      await api.run(enqueue(transfers(1)))
      const delivery = await pendingOf(api, stream.id)
      await attempts(api, delivery, 100, busy)
      assert.deepStrictEqual(await rateOf(api, stream.id), Option.some(0), "100 failed attempts")
      await tick()
      await api.call("POST", `/v1/streams/${stream.id}/pause`)
      assert.deepStrictEqual(await rateOf(api, stream.id), Option.some(0), "a pause does not start the count afresh")
      await tick()
      await api.call("POST", `/v1/streams/${stream.id}/resume`)
      await tick()
      await attempts(api, delivery, 99, busy)
      assert.deepStrictEqual(await rateOf(api, stream.id), Option.none(), "99 attempts since the resume: no rate yet")
      await tick()
      await api.run(StreamStore.use((streams) => streams.setStatus(stream.id, "error", "under the success rate", "active")))
      await tick()
      assert.strictEqual((await api.call("POST", `/v1/streams/${stream.id}/resume`)).body.status, "active")
      await tick()
      await attempts(api, delivery, 1, ok)
      assert.deepStrictEqual(await rateOf(api, stream.id), Option.none(), "resumed from error: the count starts afresh again")
      await attempts(api, delivery, 99, ok)
      assert.deepStrictEqual(await rateOf(api, stream.id), Option.some(1), "the 100 attempts since the last resume, all delivered")
    }))
})
