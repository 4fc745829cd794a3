/**
 * Pause and resume over the real API, stores and delivery loop (`DeliveryWorker.deliverDue`, as
 * the stream's delivery runs it when woken), against a receiver on 127.0.0.1:
 *
 * - paused, nothing is delivered (even a batch due now), and the events found meanwhile are kept;
 *   resumed, they are delivered, in order;
 * - resume "delivers what was held": a batch waiting for its retry (up to 24 h away) is made due
 *   now and the stream's delivery woken, from `paused` as from `error`.
 */
import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect } from "effect"
import { DeliveryStore } from "../src/store/DeliveryStore.js"
import { deliverDue } from "../src/delivery/DeliveryWorker.js"
import { ServiceConfig } from "../src/model/ServiceConfig.js"
import { type Status, StreamStore } from "../src/store/StreamStore.js"
import { type Api, serviceApi } from "./serviceHarness.js"
import { aliceStreamTo, rowsOf } from "./support/apiFixtures.js"
import { scriptedReceiver } from "./support/scriptedReceiver.js"
import { enqueue, transfers } from "./support/storeFixtures.js"

/** A receiver answering `reply.status` (settable) to every request, and the batches it got: stream, sequence, events' ids. */
interface Receiver {
  readonly url: string
  readonly reply: { status: number }
  readonly received: ReadonlyArray<{ readonly streamId: string; readonly sequence: number; readonly events: ReadonlyArray<string> }>
}

/** Runs `body` with a fresh API and a receiver. */
const withReceiver = (body: (api: Api, receiver: Receiver) => Promise<void>) =>
  Effect.scoped(Effect.gen(function*() {
    const reply = { status: 200 }
    const scripted = yield* scriptedReceiver({ answer: () => reply.status })
    const api = yield* serviceApi()
    const receiver: Receiver = {
      url: scripted.url("/hook"),
      reply,
      get received() {
        return scripted.hits.map((hit) => {
          const batch = JSON.parse(hit.body) as { streamId: string; sequence: number; events: Array<{ id: string }> }
          return { streamId: batch.streamId, sequence: batch.sequence, events: batch.events.map((event) => event.id) }
        })
      }
    }
    yield* Effect.promise(() => body(api, receiver))
  }))

/** The stream's delivery, as a wake runs it; a retry waits 24 hours. */
const deliver = (api: Api, streamId: string) =>
  api.run(Effect.gen(function*() {
    const config = yield* ServiceConfig
    yield* deliverDue(streamId).pipe(Effect.provideService(ServiceConfig, { ...config, retrySchedule: [Duration.hours(24)] }))
  }))

/** The streams the delivery loop would find due. */
const dueStreams = (api: Api) => api.run(DeliveryStore.use((store) => store.due))

const hour = 3_600_000

describe("pause and resume", () => {
  it.live("paused, nothing is delivered, even due, and the events found meanwhile are kept; resumed, they are delivered in order", () =>
    withReceiver(async (api, receiver) => {
      const id = (await aliceStreamTo(api, receiver.url)).id
      const paused = await api.call("POST", `/v1/streams/${id}/pause`)
      assert.strictEqual(paused.status, 200, paused.text)
      assert.strictEqual(paused.body.status, "paused")
      const [first] = transfers(1)
      const [second] = transfers(1, { from: 1 })
      assert.deepStrictEqual(await api.run(enqueue([first!])), [id], "a paused stream still gets its events")
      assert.deepStrictEqual(await api.run(enqueue([second!])), [id])
      assert.notInclude(await dueStreams(api), id, "a paused stream's due batches are not looked for")
      await deliver(api, id)
      assert.deepStrictEqual(receiver.received, [], "nothing delivered while paused")
      assert.strictEqual(await api.run(rowsOf("stream_events", id)), 2, "the events are kept")
      const pending = await api.call("GET", `/v1/streams/${id}/deliveries?status=pending`)
      assert.deepStrictEqual(pending.body.deliveries.map((d: { sequence: number; attempts: number }) => [d.sequence, d.attempts]), [[1, 0], [2, 0]])
      assert.deepStrictEqual((await api.call("GET", `/v1/streams/${id}`)).body.status, "paused", "a read leaves it paused")

      const resumed = await api.call("POST", `/v1/streams/${id}/resume`)
      assert.strictEqual(resumed.body.status, "active")
      assert.deepStrictEqual(await api.run(api.woken), [id], "resuming wakes the stream's delivery")
      await deliver(api, id)
      assert.deepStrictEqual(receiver.received, [
        { streamId: id, sequence: 1, events: [first!.id] },
        { streamId: id, sequence: 2, events: [second!.id] }
      ])
      assert.deepStrictEqual((await api.call("GET", `/v1/streams/${id}/deliveries?status=pending`)).body.deliveries, [])
    }))

  for (const held of ["paused", "error"] as const satisfies ReadonlyArray<Status>) {
    it.live(`resume from ${held} makes a batch waiting for its retry due now, wakes the stream, and it is delivered`, () =>
      withReceiver(async (api, receiver) => {
        const id = (await aliceStreamTo(api, receiver.url)).id
        const [event] = transfers(1)
        await api.run(enqueue([event!]))
        receiver.reply.status = 503
        await deliver(api, id)
        assert.strictEqual(receiver.received.length, 1)
        const waiting = (await api.call("GET", `/v1/streams/${id}/deliveries?status=pending`)).body.deliveries
        assert.strictEqual(waiting.length, 1)
        assert.isAbove(Date.parse(waiting[0].nextAttemptAt), Date.now() + 23 * hour, "the retry waits 24 hours")
        receiver.reply.status = 200
        await deliver(api, id)
        assert.strictEqual(receiver.received.length, 1, "not sent before its retry is due")
        // Held: paused by its owner, or put in error by the service (as the delivery loop does).
        if (held === "paused") await api.call("POST", `/v1/streams/${id}/pause`)
        else await api.run(StreamStore.use((streams) => streams.setStatus(id, "error", "under the success rate", "active")))
        assert.strictEqual((await api.call("GET", `/v1/streams/${id}`)).body.status, held)

        const resumed = await api.call("POST", `/v1/streams/${id}/resume`)
        assert.strictEqual(resumed.status, 200, resumed.text)
        assert.deepStrictEqual([resumed.body.status, resumed.body.statusReason], ["active", null])
        const now = (await api.call("GET", `/v1/streams/${id}/deliveries?status=pending`)).body.deliveries
        assert.isAtMost(Date.parse(now[0].nextAttemptAt), Date.now() + 1_000, "the held batch is due now, not in 24 hours")
        assert.include(await dueStreams(api), id, "the delivery loop finds it due")
        assert.deepStrictEqual(await api.run(api.woken), [id], "and the stream's delivery is woken")
        await deliver(api, id)
        assert.deepStrictEqual(receiver.received.map((batch) => batch.sequence), [1, 1], "the held batch is sent again at once")
        assert.deepStrictEqual((await api.call("GET", `/v1/streams/${id}/deliveries?status=delivered`)).body.deliveries.map((d: { attempts: number }) => d.attempts), [2])
      }))
  }
})
