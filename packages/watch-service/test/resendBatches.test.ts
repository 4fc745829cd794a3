/**
 * `POST …/replay` by sequences and by blocks over the real API and stores (`Resend`): the batches
 * named go `pending` again as they were (same id, sequence, coverage and events; retries afresh;
 * `resends` counted; the body flagged `replay`), a batch still pending is left alone, the stream's
 * delivery is woken, and a delivered batch sent again does not move what the receiver is covered
 * to back. A range beyond what was sent, an unknown chain, blocks before the coverage, a range out
 * of order, two ways at once: a 400 naming the field, nothing changed.
 */
import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect, Option } from "effect"
import { SqlClient } from "effect/sql"
import * as DeliveryWorker from "../src/delivery/DeliveryWorker.js"
import { DeliveryStore } from "../src/store/DeliveryStore.js"
import { writeDeliveries } from "../src/store/Outbox.js"
import type { Api } from "./serviceHarness.js"
import { aliceStream, withApi } from "./support/apiFixtures.js"

/**
 * Six batches of one event each on eth, covering blocks 100..109, 110..119, … (batch 4 is in two
 * pieces: 4 carries events only, 5 the coverage 130..139); 1-5 delivered but 3 failed, 6 pending.
 * The stream's coverage: from 100, delivered to 139.
 */
const sixBatches = (api: Api, streamId: string) =>
  api.run(Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const at = new Date().toISOString()
    const ranges: ReadonlyArray<readonly [number, number] | undefined> = [[100, 109], [110, 119], [120, 129], undefined, [130, 139], [140, 149]]
    yield* sql`INSERT INTO stream_events (stream_id, position, event_id, body, created_at)
      SELECT ${streamId}, p, 'ev_' || p, '{"id":"ev_' || p || '","kind":"nft.received"}', ${at}::timestamptz FROM generate_series(1, 6) AS p`
    yield* writeDeliveries(
      ranges.map((range, index) => ({
        id: `msg_${index + 1}`,
        streamId,
        sequence: BigInt(index + 1),
        first: BigInt(index + 1),
        last: BigInt(index + 1),
        count: 1,
        replay: false,
        heartbeat: false,
        coverage: range === undefined ? [] : [{ scope: "0x1", from: BigInt(range[0]), to: BigInt(range[1]) }],
        replaces: [],
        wallets: []
      })),
      at
    )
    yield* sql`UPDATE deliveries SET status = CASE WHEN sequence = 3 THEN 'failed' ELSE 'delivered' END, attempts = 2
      WHERE stream_id = ${streamId} AND sequence <= 5`
    yield* sql`UPDATE streams SET next_position = 7, next_sequence = 7, delivered_sequence = 5 WHERE id = ${streamId}`
    yield* sql`INSERT INTO stream_coverage (stream_id, scope, covered_from, batched_to, delivered_to) VALUES (${streamId}, '0x1', 100, 149, 139)
      ON CONFLICT (stream_id, scope) DO UPDATE SET covered_from = 100, batched_to = 149, delivered_to = 139`
  }))

/** The stream's deliveries: [sequence, status, attempts, resends]. */
const states = (api: Api, streamId: string) =>
  api.run(Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ sequence: number; status: string; attempts: number; resends: number }>`SELECT sequence::int, status, attempts, resends
      FROM deliveries WHERE stream_id = ${streamId} ORDER BY sequence`)).then((rows) => rows.map((row) => [row.sequence, row.status, row.attempts, row.resends]))

const replay = (api: Api, streamId: string, body: unknown) => api.call("POST", `/v1/streams/${streamId}/replay`, { body })

describe("sending batches again, as they were", () => {
  it.live("by sequences: the settled ones go pending again (retries afresh, counted), the pending one is left; the body is the same, flagged replay", () =>
    withApi(async (api) => {
      const id = await aliceStream(api)
      await sixBatches(api, id)
      const answer = await replay(api, id, { fromSequence: 2, toSequence: 5 })
      assert.strictEqual(answer.status, 202, answer.text)
      assert.deepStrictEqual(answer.body, { deliveries: 4, events: 4 })
      assert.deepStrictEqual(await states(api, id), [
        [1, "delivered", 2, 0], [2, "pending", 0, 1], [3, "pending", 0, 1], [4, "pending", 0, 1], [5, "pending", 0, 1], [6, "pending", 0, 0]
      ])
      assert.deepStrictEqual(await api.run(api.woken), [id])
      // Asked again while they are on their way: they are left as they are.
      const twice = await replay(api, id, { fromSequence: 2, toSequence: 5 })
      assert.deepStrictEqual([twice.status, twice.body], [202, { deliveries: 0, events: 0 }])
      assert.deepStrictEqual((await states(api, id)).map(([, , , resends]) => resends), [0, 1, 1, 1, 1, 0])
      // The next to send is sequence 2, as it was: its id, its coverage, its event; flagged replay.
      const next = await api.run(DeliveryStore.use((deliveries) => deliveries.next(id)))
      const { bodies, delivery, due } = Option.getOrThrow(next)
      assert.isTrue(due)
      const sent = JSON.parse(DeliveryWorker.body({ ...delivery, streamId: id, deliveryId: delivery.id, events: bodies }))
      assert.deepStrictEqual(
        [sent.deliveryId, sent.sequence, sent.replay, sent.coverage, sent.events],
        ["msg_2", 2, true, [{ chain: "0x1", fromBlock: "110", toBlock: "119" }], [{ id: "ev_2", kind: "nft.received" }]]
      )
      // Delivered again, it leaves the receiver's covered-to where the later batches put it.
      await api.run(Effect.gen(function*() {
        const deliveries = yield* DeliveryStore
        yield* deliveries.record(delivery, { result: "delivered", status: 200, error: null }, [Duration.seconds(1)])
      }))
      const stats = await api.call("GET", `/v1/streams/${id}/stats`)
      assert.deepStrictEqual([stats.body.lastDeliveredSequence, stats.body.coverage], [5, [{ chain: "eth", coveredFrom: "100", coveredTo: "139", batchedTo: "149", head: null, headAt: null }]])
      const listed = await api.call("GET", `/v1/streams/${id}/deliveries`)
      assert.deepStrictEqual(
        listed.body.deliveries.filter((d: { sequence: number }) => d.sequence === 2).map((d: { status: string; resends: number; replay: boolean }) => [d.status, d.resends, d.replay]),
        [["delivered", 1, false]]
      )
      // One sequence alone (toSequence defaults to it).
      const one = await replay(api, id, { fromSequence: 1 })
      assert.deepStrictEqual([one.status, one.body], [202, { deliveries: 1, events: 1 }])
    }))

  it.live("by blocks: the batches that carried them, from the one after the last covering blocks before, to the first covering the last block", () =>
    withApi(async (api) => {
      const id = await aliceStream(api)
      await sixBatches(api, id)
      // 131..135 were covered by batch 5, whose events begin in batch 4 (cut in two).
      const answer = await replay(api, id, { blocks: [{ chain: "eth", from: "131", to: "135" }] })
      assert.strictEqual(answer.status, 202, answer.text)
      assert.deepStrictEqual(answer.body, { deliveries: 2, events: 2 })
      assert.deepStrictEqual((await states(api, id)).map(([sequence, status]) => [sequence, status]), [
        [1, "delivered"], [2, "delivered"], [3, "failed"], [4, "pending"], [5, "pending"], [6, "pending"]
      ])
      // 105..125: batches 1 to 3.
      const wider = await replay(api, id, { blocks: [{ chain: "eth", from: "105", to: "125" }] })
      assert.deepStrictEqual(wider.body, { deliveries: 3, events: 3 })
    }))

  it.live("a range beyond what was sent, an unknown chain, blocks outside the coverage, ranges out of order, two ways at once: 400 naming the field, nothing changed", () =>
    withApi(async (api) => {
      const id = await aliceStream(api)
      const before = await replay(api, id, { fromSequence: 1 })
      assert.deepStrictEqual([before.status, before.body.field], [400, "fromSequence"])
      assert.match(before.body.message, /sent no batch yet/)
      await sixBatches(api, id)
      const unchanged = await states(api, id)
      const refused: ReadonlyArray<readonly [unknown, string, RegExp]> = [
        [{ fromSequence: 4, toSequence: 6 }, "toSequence", /up to sequence 5: give a toSequence of at most 5/],
        [{ fromSequence: 9 }, "fromSequence", /at most 5/],
        [{ fromSequence: 4, toSequence: 2 }, "toSequence", /before fromSequence 4/],
        [{ toSequence: 2 }, "toSequence", /goes with fromSequence/],
        [{ fromSequence: 0 }, "fromSequence", /greater than or equal to 1/],
        [{ fromSequence: 1, fromEventId: "ev_1" }, "fromSequence", /exactly one of/],
        [{}, "fromEventId", /exactly one of/],
        [{ blocks: [] }, "blocks", /at least one range/],
        [{ blocks: [{ chain: "nochain", from: "100", to: "101" }] }, "blocks[0].chain", /unknown chain "nochain"/],
        [{ blocks: [{ chain: "polygon", from: "100", to: "101" }] }, "blocks[0].chain", /covers no block of polygon: it covers eth/],
        [{ blocks: [{ chain: "eth", from: "100", to: "101" }, { chain: "eth", from: "102", to: "103" }] }, "blocks[1].chain", /named twice/],
        [{ blocks: [{ chain: "eth", from: "99", to: "101" }] }, "blocks[0].from", /covered on eth from block 100/],
        [{ blocks: [{ chain: "eth", from: "130", to: "140" }] }, "blocks[0].to", /blocks of eth up to 139: end the range there or earlier/],
        [{ blocks: [{ chain: "eth", from: "120", to: "110" }] }, "blocks[0].to", /before from 120/],
        [{ blocks: [{ chain: "eth", from: "-1", to: "110" }] }, "blocks[0].from", /decimal digits/]
      ]
      for (const [body, field, message] of refused) {
        const answer = await replay(api, id, body)
        assert.strictEqual(answer.status, 400, JSON.stringify(body))
        assert.strictEqual(answer.body.field, field, JSON.stringify(answer.body))
        assert.match(answer.body.message, message, JSON.stringify(body))
      }
      assert.deepStrictEqual(await states(api, id), unchanged)
      assert.deepStrictEqual(await api.run(api.woken), [])
    }))
})
