/**
 * `POST …/replay` and `GET …/stats` over the real API and stores, on a stream with events (SERVE.md,
 * the management API): a replay sends again, as new deliveries after the existing ones, every event
 * from `fromEventId` (that event included) or stored from `fromTime` on, and wakes the stream's
 * delivery; an event the stream did not receive is a 400 naming `fromEventId`. The stats give the
 * success rate of the attempts, the pending and failed counts, the oldest pending age, the last
 * error and when, the last delivered sequence and the coverage per chain, by the chain's name.
 */
import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect, Option } from "effect"
import { SqlClient } from "effect/sql"
import { type Attempt, DeliveryStore } from "../src/store/DeliveryStore.js"
import type { Api } from "./serviceHarness.js"
import { aliceStream, withApi } from "./support/apiFixtures.js"
import { enqueue, transfers } from "./support/storeFixtures.js"

const receiver = "http://127.0.0.1:9/hook"
const polygon = "polygon:0xfb6916095ca1df60bb79ce92ce3ea74c37c5d359"

/** A stream holding alice on eth from block 0 and a polygon wallet added as a user does; its id. */
const streamOf = (api: Api): Promise<string> => aliceStream(api, [polygon])

/** Records `attempt` on the stream's next pending delivery. */
const attemptNext = (api: Api, streamId: string, attempt: Attempt) =>
  api.run(Effect.gen(function*() {
    const deliveries = yield* DeliveryStore
    const next = Option.getOrThrow(yield* deliveries.next(streamId))
    yield* deliveries.record(next.delivery, attempt, [Duration.hours(1)])
  }))

const pause = () => Effect.runPromise(Effect.sleep(Duration.millis(50)))

describe("replay and stats", () => {
  it.live("replay from an event id (included) or from a time: new deliveries of exactly those events, after the others, the stream woken", () =>
    withApi(async (api) => {
      const id = await streamOf(api)
      const [e1, e2, e3] = transfers(3)
      await api.run(enqueue([e1!]))
      await pause()
      const between = new Date().toISOString()
      await pause()
      await api.run(enqueue([e2!]))
      await api.run(enqueue([e3!]))
      const replays: Array<readonly [unknown, number, number]> = [
        [{ fromEventId: e2!.id }, 1, 2],
        [{ fromTime: between }, 1, 2],
        [{ fromEventId: e1!.id }, 1, 3],
        [{ fromEventId: e3!.id }, 1, 1],
        [{ fromTime: "2999-01-01T00:00:00Z" }, 0, 0],
        // The bounds of a time taken: the first moment of 1970, the last of 9999.
        [{ fromTime: "1970-01-01T00:00:00Z" }, 1, 3],
        [{ fromTime: "9999-12-31T23:59:59Z" }, 0, 0]
      ]
      for (const [body, deliveries, events] of replays) {
        const answer = await api.call("POST", `/v1/streams/${id}/replay`, { body })
        assert.strictEqual(answer.status, 202, answer.text)
        assert.deepStrictEqual(answer.body, { deliveries, events }, JSON.stringify(body))
      }
      const all = (await api.call("GET", `/v1/streams/${id}/deliveries`)).body.deliveries as Array<{ sequence: number; replay: boolean; events: number }>
      assert.deepStrictEqual(all.map((d) => [d.sequence, d.replay, d.events]), [
        [1, false, 1], [2, false, 1], [3, false, 1], [4, true, 2], [5, true, 2], [6, true, 3], [7, true, 1], [8, true, 3]
      ])
      assert.deepStrictEqual(await api.run(api.woken), [id, id, id, id, id, id, id], "each replay wakes the stream's delivery")
      for (const fromTime of ["1969-12-31T23:59:59Z", "+010000-01-01T00:00:00Z"]) {
        const refused = await api.call("POST", `/v1/streams/${id}/replay`, { body: { fromTime } })
        assert.strictEqual(refused.status, 400, fromTime)
        assert.match(refused.body.message, /from 1970 to 9999/)
      }
      const { body: other } = await api.call("POST", "/v1/streams", { body: { url: receiver } })
      const foreign = await api.call("POST", `/v1/streams/${other.id}/replay`, { body: { fromEventId: e1!.id } })
      assert.strictEqual(foreign.status, 400, "another stream's event is not this one's")
      assert.strictEqual(foreign.body.field, "fromEventId")
      assert.match(foreign.body.message, /the stream received no event/)
    }))

  it.live("stats: the success rate, pending and failed counts, oldest pending age, last error and when, last delivered sequence, coverage by chain name", () =>
    withApi(async (api) => {
      const id = await streamOf(api)
      await api.run(enqueue(transfers(1)))
      await api.run(enqueue(transfers(1, { from: 1 })))
      await api.run(enqueue(transfers(1, { from: 2 })))
      await attemptNext(api, id, { result: "delivered", status: 200, error: null })
      await attemptNext(api, id, { result: "failed", status: 400, error: null })
      const before = Date.now()
      await attemptNext(api, id, { result: "retry", status: 503, error: "HTTP 503: busy" })
      const stats = (await api.call("GET", `/v1/streams/${id}/stats`)).body
      assert.deepStrictEqual(
        { ...stats, oldestPendingAgeSeconds: undefined, lastErrorAt: undefined, coverage: undefined },
        {
          lastDeliveredSequence: 1,
          coverage: undefined,
          filteredEvents: 0,
          attempts: 3,
          successRate: 1 / 3,
          pending: 1,
          failed: 1,
          oldestPendingAgeSeconds: undefined,
          lastError: "HTTP 503: busy",
          lastErrorAt: undefined,
          history: []
        }
      )
      assert.isAtLeast(stats.oldestPendingAgeSeconds, 0)
      assert.isBelow(stats.oldestPendingAgeSeconds, 120)
      assert.isAtLeast(Date.parse(stats.lastErrorAt), before - 1_000)
      assert.match(stats.lastErrorAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
      assert.deepStrictEqual(stats.coverage.map((c: { chain: string; coveredTo: string | null }) => [c.chain, c.coveredTo]), [["polygon", null]])
      assert.match(stats.coverage[0].coveredFrom, /^[1-9][0-9]*$/)
      // Once a batch stating the coverage was delivered: covered to its block, as a decimal string.
      await api.run(Effect.flatMap(SqlClient.SqlClient, (sql) => sql`UPDATE stream_coverage SET delivered_to = 123456789012 WHERE stream_id = ${id}`))
      const delivered = (await api.call("GET", `/v1/streams/${id}/stats`)).body
      assert.deepStrictEqual(delivered.coverage.map((c: { chain: string; coveredTo: string | null }) => [c.chain, c.coveredTo]), [["polygon", "123456789012"]])
    }))
})
