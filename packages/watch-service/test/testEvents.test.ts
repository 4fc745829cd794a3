/**
 * Test events and `verify: true`, over the real API, stores and delivery loop, against a receiver
 * on 127.0.0.1 whose answer a test sets, and the receiver kit:
 *
 * - `POST …/test` sends a signed batch marked `test`, sequence 0, no events, and answers the
 *   receiver's status and time; the kit takes it as a test and gives the state back unchanged, and
 *   the stream's next batch is the next sequence (no gap): the test took none;
 * - a stream created with `verify: true` against a receiver answering 500 is in `error`, saying
 *   why, and nothing is delivered to it; resumed with `verify: true` once the receiver answers 200,
 *   it is `active` and delivers what was held;
 * - a PATCH with `verify: true` to a URL where nothing listens puts an active stream in `error`;
 *   on a paused stream a test answered 200 leaves it paused; a pause while the test goes wins;
 * - `verify` that is not a boolean, or a test of an unknown stream: 400 naming the field, 404.
 */
import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect } from "effect"
import { Receive, ReceiverState } from "@chainquery/webhook-receiver"
import { alice } from "../../watch/test/fixtures.js"
import { deliverDue } from "../src/delivery/DeliveryWorker.js"
import { ServiceConfig } from "../src/model/ServiceConfig.js"
import { StreamStore } from "../src/store/StreamStore.js"
import { type Api, serviceApi } from "./serviceHarness.js"
import { type Hit, refusedUrl, scriptedReceiver } from "./support/scriptedReceiver.js"
import { enqueue, evm, transfers } from "./support/storeFixtures.js"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"

interface Receiver {
  readonly url: string
  readonly reply: { status: number }
  readonly hits: ReadonlyArray<Hit>
}

/** Runs `body` with a fresh API and a receiver answering `reply.status`. */
const withReceiver = (body: (api: Api, receiver: Receiver) => Promise<void>) =>
  Effect.scoped(Effect.gen(function*() {
    const reply = { status: 200 }
    const scripted = yield* scriptedReceiver({ answer: () => reply.status })
    const api = yield* serviceApi()
    yield* Effect.promise(() => body(api, { url: scripted.url("/hook"), reply, hits: scripted.hits }))
  }))

let logIndex = 0

/** One more event for alice committed, and the stream's delivery run once. */
const commitAndDeliver = async (api: Api, id: string) => {
  await api.run(enqueue(transfers(1, { from: logIndex++ })))
  await api.run(Effect.gen(function*() {
    const config = yield* ServiceConfig
    yield* deliverDue(id).pipe(Effect.provideService(ServiceConfig, { ...config, retrySchedule: [Duration.hours(24)] }))
  }))
}

/** The kit's verdict on a request the receiver got, from `state`. */
const received = (hit: Hit, secret: string, state: ReceiverState.ReceiverState) =>
  Effect.runPromise(Receive.receive({ headers: hit.headers, body: hit.body, secret, state }))

describe("test events", () => {
  it.live("POST …/test: a signed test batch outside the stream's order; the kit takes it as a test, its state unchanged", () =>
    withReceiver(async (api, receiver) => {
      const created = await api.call("POST", "/v1/streams", { body: { url: receiver.url, events: ["nft.received"] } })
      const id: string = created.body.id
      const secret: string = created.body.secret
      await api.run(StreamStore.use((streams) => streams.addWallets(id, [evm(alice)])))
      await commitAndDeliver(api, id)
      const first = await received(receiver.hits[0]!, secret, ReceiverState.initial)
      assert.strictEqual(first.state.sequence, 1)

      const tested = await api.call("POST", `/v1/streams/${id}/test`)
      assert.strictEqual(tested.status, 200, tested.text)
      assert.deepInclude(tested.body, { delivered: true, status: 200, error: null })
      assert.match(tested.body.deliveryId, /^msg_[0-9a-z]{21}$/)
      assert.isAtLeast(tested.body.durationMs, 0)
      assert.isFalse(Number.isNaN(Date.parse(tested.body.sentAt)))
      const hit = receiver.hits[1]!
      assert.strictEqual(hit.headers["webhook-id"], tested.body.deliveryId)
      assert.deepInclude(JSON.parse(hit.body), { streamId: id, sequence: 0, test: true, events: [], coverage: [] })
      const test = await received(hit, secret, first.state)
      assert.isTrue(test.test)
      assert.strictEqual(test.state, first.state, "a test event never changes the kit's state")

      // The next batch is sequence 2: the test took no sequence.
      await commitAndDeliver(api, id)
      const second = await received(receiver.hits[2]!, secret, test.state)
      assert.strictEqual(second.state.sequence, 2)
      assert.isUndefined(second.test)

      receiver.reply.status = 500
      const failing = await api.call("POST", `/v1/streams/${id}/test`)
      assert.strictEqual(failing.status, 200, failing.text)
      assert.deepInclude(failing.body, { delivered: false, status: 500 })
      assert.match(failing.body.error, /^HTTP 500/)
      assert.strictEqual((await api.call("GET", `/v1/streams/${id}`)).body.status, "active", "a test alone changes no status")
      assert.strictEqual((await api.call("POST", "/v1/streams/str_000000000000000000000/test")).status, 404)
    }))

  it.live("verify: created against a 500, in error saying why and delivering nothing; resumed with verify once it answers 200, active", () =>
    withReceiver(async (api, receiver) => {
      receiver.reply.status = 500
      const created = await api.call("POST", "/v1/streams", { body: { url: receiver.url, events: ["nft.received"], verify: true } })
      assert.strictEqual(created.status, 201, created.text)
      assert.strictEqual(created.body.status, "error")
      assert.include(created.body.statusReason, "test event")
      assert.include(created.body.statusReason, "HTTP 500")
      assert.deepInclude(created.body.test, { delivered: false, status: 500 })
      assert.match(created.body.secret, /^whsec_/)
      const id: string = created.body.id
      const got = await api.call("GET", `/v1/streams/${id}`)
      assert.strictEqual(got.body.status, "error")
      assert.strictEqual(got.body.statusReason, created.body.statusReason)

      await api.run(StreamStore.use((streams) => streams.addWallets(id, [evm(alice)])))
      await commitAndDeliver(api, id)
      assert.strictEqual(receiver.hits.length, 1, "only the test event reached the receiver")

      const stillFailing = await api.call("POST", `/v1/streams/${id}/resume`, { body: { verify: true } })
      assert.strictEqual(stillFailing.status, 200, stillFailing.text)
      assert.strictEqual(stillFailing.body.status, "error")
      receiver.reply.status = 200
      const resumed = await api.call("POST", `/v1/streams/${id}/resume`, { body: { verify: true } })
      assert.strictEqual(resumed.status, 200, resumed.text)
      assert.deepInclude(resumed.body, { status: "active", statusReason: null })
      assert.deepInclude(resumed.body.test, { delivered: true, status: 200 })
      assert.include(await Effect.runPromise(api.woken), id)
      await commitAndDeliver(api, id)
      const batches = receiver.hits.map((hit) => JSON.parse(hit.body) as { sequence: number; test: boolean })
      assert.deepStrictEqual(batches.filter((batch) => !batch.test).map((batch) => batch.sequence), [1, 2], "what was held, then the next")

      const ok = await api.call("POST", "/v1/streams", { body: { url: receiver.url, verify: true } })
      assert.strictEqual(ok.body.status, "active", ok.text)
      assert.isTrue(ok.body.test.delivered)
    }))

  it.live("a pause while the test event goes wins: the stream stays paused though the receiver answers 200", () =>
    Effect.scoped(Effect.gen(function*() {
      const api = yield* serviceApi()
      let streamId = ""
      // A receiver that, as the test event arrives, has the stream paused, then answers 200.
      const server = createServer((request, response) => {
        request.resume()
        request.on("end", () => {
          void api.call("POST", `/v1/streams/${streamId}/pause`).then(() => response.writeHead(200).end())
        })
      })
      yield* Effect.acquireRelease(
        Effect.promise(() => new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))),
        () => Effect.promise(() => new Promise<void>((resolve) => server.close(() => resolve())))
      )
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`
      yield* Effect.promise(async () => {
        const created = await api.call("POST", "/v1/streams", { body: { url: refusedUrl("/hook") } })
        streamId = created.body.id
        const moved = await api.call("PATCH", `/v1/streams/${streamId}`, { body: { url, verify: true } })
        assert.strictEqual(moved.status, 200, moved.text)
        assert.isTrue(moved.body.test.delivered)
        assert.deepInclude(moved.body, { status: "paused", statusReason: null }, "the pause won")
      })
    })))

  it.live("PATCH with verify: to a URL where nothing listens, in error; a paused stream whose test passes stays paused", () =>
    withReceiver(async (api, receiver) => {
      const created = await api.call("POST", "/v1/streams", { body: { url: receiver.url } })
      const id: string = created.body.id
      const moved = await api.call("PATCH", `/v1/streams/${id}`, { body: { url: refusedUrl("/hook"), verify: true } })
      assert.strictEqual(moved.status, 200, moved.text)
      assert.strictEqual(moved.body.status, "error")
      assert.strictEqual(moved.body.url, refusedUrl("/hook"), "the change is kept")
      assert.isNull(moved.body.test.status)
      assert.include(moved.body.statusReason, moved.body.test.error)

      await api.call("POST", `/v1/streams/${id}/pause`)
      const back = await api.call("PATCH", `/v1/streams/${id}`, { body: { url: receiver.url, verify: true } })
      assert.deepInclude(back.body, { status: "paused", statusReason: null })
      assert.isTrue(back.body.test.delivered)

      const wrong = await api.call("PATCH", `/v1/streams/${id}`, { body: { verify: "yes" } })
      assert.strictEqual(wrong.status, 400)
      assert.strictEqual(wrong.body.field, "verify")
      const wrongResume = await api.call("POST", `/v1/streams/${id}/resume`, { body: { verify: 1 } })
      assert.strictEqual(wrongResume.status, 400)
      assert.strictEqual(wrongResume.body.field, "verify")
      assert.strictEqual((await api.call("GET", `/v1/streams/${id}`)).body.status, "paused", "nothing changed")
    }))
})
