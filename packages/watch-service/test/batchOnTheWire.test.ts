/**
 * What a receiver gets, as SERVE.md's "A webhook" describes it, sent by the delivery loop
 * (`DeliveryWorker.deliverDue`) to a real receiver on 127.0.0.1 over a real PostgreSQL (the clock
 * controlled, see `support/clockedStores.ts`):
 *
 * - `events`: at most 500 a batch, each exactly its NDJSON line, in order; `sequence` 1, 2, 3, …
 *   with no gap; `streamId` and `deliveryId` (= `webhook-id`);
 * - `replay: true` (and no coverage) for the batches of a replay, `false` otherwise;
 * - `heartbeat: true` and no events for a batch made because none went out for the period;
 * - `webhook-signature`: `v1,` and the base64 HMAC-SHA256 of `id.timestamp.body`, keyed with the
 *   base64-decoded part of the stream's secret after `whsec_`.
 */
import { assert, describe, it } from "@effect/vitest"
import { DateTime, Effect, Option, Redacted } from "effect"
import { createHmac } from "node:crypto"
import { alice } from "../../watch/test/fixtures.js"
import { WatchEvent } from "@chainquery/watch"
import { DeliveryStore } from "../src/store/DeliveryStore.js"
import { deliverDue } from "../src/delivery/DeliveryWorker.js"
import * as Heartbeats from "../src/delivery/Heartbeats.js"
import { StreamStore } from "../src/store/StreamStore.js"
import { loopLayer, setClock } from "./support/clockedStores.js"
import { type Hit, scriptedReceiver } from "./support/scriptedReceiver.js"
import { enqueue, evm, transfers } from "./support/storeFixtures.js"

interface Body {
  readonly streamId: string
  readonly deliveryId: string
  readonly sequence: number
  readonly replay: boolean
  readonly heartbeat: boolean
  readonly replaces: ReadonlyArray<unknown>
  readonly coverage: ReadonlyArray<unknown>
  readonly wallets: ReadonlyArray<unknown>
  readonly events: ReadonlyArray<unknown>
}

const bodyOf = (hit: Hit) => JSON.parse(hit.body) as Body

/** What a batch is, to compare: [sequence, replay, heartbeat, number of events]. */
const shape = (hit: Hit) => {
  const body = bodyOf(hit)
  return [body.sequence, body.replay, body.heartbeat, body.events.length] as const
}

const t0 = DateTime.makeUnsafe("2030-01-02T03:04:05.678Z")
/** A secret of 24 bytes, as `serve` makes them. */
const encoded = "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"

describe("a webhook batch as the receiver gets it", () => {
  it.effect("at most 500 events, exactly their NDJSON lines in order, sequences with no gap; replay and heartbeat batches flagged; signed with the decoded secret", () =>
    Effect.gen(function*() {
      yield* setClock(t0)
      const receiver = yield* scriptedReceiver()
      const streams = yield* StreamStore
      const stream = (yield* streams.create({ url: receiver.url("/hook"), description: "", events: null, scopes: null, confirmations: 0 }, Redacted.make(`whsec_${encoded}`))).id
      // Covered from block 0, as the API's admission would answer it: the wallet is announced once.
      yield* streams.addWallets(stream, [evm(alice)], [0n])
      const scanned = transfers(1_234)
      const lone = transfers(1, { from: 5_000 })
      yield* enqueue(scanned)
      yield* enqueue(lone)
      yield* deliverDue(stream)
      assert.deepStrictEqual(receiver.hits.map(shape), [[1, false, false, 500], [2, false, false, 500], [3, false, false, 234], [4, false, false, 1]])
      // The wallet added is announced once: on the last batch of the scan cut in three, not on each.
      assert.deepStrictEqual(receiver.hits.map((hit) => bodyOf(hit).wallets.length), [0, 0, 1, 0], "the new wallet listed once, on the scan's last batch")
      const lines = [...scanned, ...lone].map(WatchEvent.toJson)
      const firstBodies = receiver.hits.map((hit) => hit.body.slice(hit.body.indexOf("\"events\":[") + "\"events\":[".length, -2))
      assert.deepStrictEqual(firstBodies, [lines.slice(0, 500), lines.slice(500, 1_000), lines.slice(1_000, 1_234), lines.slice(1_234)].map((part) => part.join(",")))
      for (const hit of receiver.hits) {
        const body = bodyOf(hit)
        assert.strictEqual(body.streamId, stream)
        assert.strictEqual(body.deliveryId, hit.headers["webhook-id"])
        const signed = `${hit.headers["webhook-id"]}.${hit.headers["webhook-timestamp"]}.${hit.body}`
        assert.strictEqual(hit.headers["webhook-signature"], `v1,${createHmac("sha256", Buffer.from(encoded, "base64")).update(signed).digest("base64")}`)
      }
      // A replay from the second event: its batches come next in the sequence, flagged, with no coverage.
      yield* setClock(DateTime.add(t0, { seconds: 30 }))
      assert.deepStrictEqual(yield* DeliveryStore.use((store) => store.replay(stream, { eventId: scanned[1]!.id })), Option.some({ deliveries: 3, events: 1_234 }))
      yield* deliverDue(stream)
      assert.deepStrictEqual(receiver.hits.slice(4).map(shape), [[5, true, false, 500], [6, true, false, 500], [7, true, false, 234]])
      assert.deepStrictEqual(receiver.hits.slice(4).map((hit) => bodyOf(hit).coverage), [[], [], []])
      assert.deepStrictEqual(bodyOf(receiver.hits[4]!).events[0], JSON.parse(lines[1]!))
      // Quiet for the heartbeat period: a batch with no events, flagged, next in the sequence.
      yield* setClock(DateTime.add(t0, { minutes: 6 }))
      assert.deepStrictEqual(yield* Heartbeats.makeDue("5 minutes"), [stream])
      yield* deliverDue(stream)
      assert.deepStrictEqual(receiver.hits.slice(7).map(shape), [[8, false, true, 0]])
    }).pipe(Effect.provide(loopLayer())))
})
