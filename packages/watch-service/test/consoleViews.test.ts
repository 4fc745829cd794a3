/**
 * What the console reads beyond the first API (SERVE.md, the management API): a delivery with each
 * attempt (when, status or error, how long) and its body exactly as the receiver got it; the
 * deliveries newest first; wallets found by part of their address; per chain how far the batches
 * went (`batchedTo`); and the last hour a minute at a time.
 */
import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect } from "effect"
import { alice } from "../../watch/test/fixtures.js"
import { deliverDue } from "../src/delivery/DeliveryWorker.js"
import { ServiceConfig } from "../src/model/ServiceConfig.js"
import type { Api } from "./serviceHarness.js"
import { aliceStreamTo, withReceiver } from "./support/apiFixtures.js"
import { enqueue, transfers } from "./support/storeFixtures.js"


/** The stream's due deliveries sent, and once more (a batch answered 5xx is due again at once). */
const deliver = (api: Api, id: string) =>
  api.run(Effect.gen(function*() {
    const config = yield* ServiceConfig
    const once = deliverDue(id).pipe(Effect.provideService(ServiceConfig, { ...config, retrySchedule: [Duration.zero, Duration.zero] }))
    yield* once
    yield* once
  }))

describe("what the console reads", () => {
  it.live("a delivery: its attempts newest first with status, error and duration, and its body byte for byte as the receiver got it", () =>
    withReceiver(async (api, receiver) => {
      const id = (await aliceStreamTo(api, receiver.url)).id
      await api.run(enqueue(transfers(2)))
      await deliver(api, id)
      assert.strictEqual(receiver.hits.length, 2, "a 503, then a 200")
      const { body: listed } = await api.call("GET", `/v1/streams/${id}/deliveries`)
      const delivery = listed.deliveries[0]
      const detail = await api.call("GET", `/v1/streams/${id}/deliveries/${delivery.id}`)
      assert.strictEqual(detail.status, 200, detail.text)
      assert.deepStrictEqual(detail.body.delivery, delivery)
      assert.strictEqual(detail.body.body, receiver.hits[1]!.body, "the body as sent, byte for byte")
      assert.strictEqual(detail.body.body, receiver.hits[0]!.body, "each attempt sent the same body")
      const attempts = detail.body.attempts as Array<{ at: string; delivered: boolean; status: number | null; error: string | null; durationMs: number | null }>
      assert.deepStrictEqual(attempts.map((attempt) => [attempt.delivered, attempt.status]), [[true, 200], [false, 503]], "newest first")
      assert.match(attempts[1]!.error ?? "", /503/)
      assert.strictEqual(attempts[0]!.error, null)
      for (const attempt of attempts) {
        assert.isTrue(Number.isInteger(attempt.durationMs) && attempt.durationMs! >= 0 && attempt.durationMs! < 60_000, String(attempt.durationMs))
        assert.isFalse(Number.isNaN(Date.parse(attempt.at)))
      }
      assert.isTrue(Date.parse(attempts[0]!.at) >= Date.parse(attempts[1]!.at))

      const other = (await aliceStreamTo(api, receiver.url)).id
      for (const [stream, asked] of [[id, "msg_000000000000000000000"], [other, delivery.id]]) {
        const missing = await api.call("GET", `/v1/streams/${stream}/deliveries/${asked}`)
        assert.strictEqual(missing.status, 404, `${stream} ${asked}`)
        assert.match(missing.body.message, /^no delivery msg_[0-9a-z]{21} of stream str_/)
      }
      const malformed = await api.call("GET", `/v1/streams/${id}/deliveries/nope`)
      assert.strictEqual(malformed.status, 400)
      assert.strictEqual(malformed.body.field, "deliveryId")
    }, [503]))

  it.live("the deliveries newest first, paged by the same cursor, and in sequence order by default", () =>
    withReceiver(async (api, receiver) => {
      const id = (await aliceStreamTo(api, receiver.url)).id
      for (let index = 0; index < 5; index++) await api.run(enqueue(transfers(1, { from: index })))
      const sequences = async (order: string) => {
        const seen: Array<number> = []
        let cursor: string | null = null
        do {
          const page: { body: { deliveries: Array<{ sequence: number }>; nextCursor: string | null } } = await api.call(
            "GET",
            `/v1/streams/${id}/deliveries?limit=2${order}${cursor === null ? "" : `&cursor=${cursor}`}`
          )
          seen.push(...page.body.deliveries.map((delivery) => delivery.sequence))
          cursor = page.body.nextCursor
        } while (cursor !== null)
        return seen
      }
      assert.deepStrictEqual(await sequences("&order=newest"), [5, 4, 3, 2, 1])
      assert.deepStrictEqual(await sequences(""), [1, 2, 3, 4, 5])
      assert.deepStrictEqual(await sequences("&order=oldest"), [1, 2, 3, 4, 5])
      const wrong = await api.call("GET", `/v1/streams/${id}/deliveries?order=latest`)
      assert.strictEqual(wrong.status, 400)
      assert.strictEqual(wrong.body.field, "order")
    }))

  it.live("wallets found by part of their address, in any case; stats say how far the batches went per chain", () =>
    withReceiver(async (api, receiver) => {
      const id = (await aliceStreamTo(api, receiver.url)).id
      const others = ["eth:0x" + "ab".repeat(20), "polygon:0x" + "ab".repeat(20), "eth:0x" + "cd".repeat(20)]
      assert.strictEqual((await api.call("POST", `/v1/streams/${id}/wallets`, { body: { wallets: others } })).status, 200)
      const found = async (search: string) => (await api.call("GET", `/v1/streams/${id}/wallets?search=${encodeURIComponent(search)}`)).body.wallets
      assert.deepStrictEqual(await found("ABAB"), ["eth:0x" + "ab".repeat(20), "polygon:0x" + "ab".repeat(20)])
      assert.deepStrictEqual(await found(alice.slice(10, 20).toUpperCase()), [`eth:${alice}`])
      assert.deepStrictEqual(await found("efefefefef"), [])
      // All of them, by chain (eth's id 0x1 before polygon's 0x89), then by address.
      assert.deepStrictEqual(await found(""), [...[`eth:${alice}`, others[0], others[2]].toSorted(), others[1]])
      const long = await api.call("GET", `/v1/streams/${id}/wallets?search=${"a".repeat(101)}`)
      assert.strictEqual(long.status, 400)
      assert.strictEqual(long.body.field, "search")

      // Batches made to block 1234 of eth, the receiver covered to 1200.
      await api.run(Effect.asVoid(api.sql`UPDATE stream_coverage SET batched_to = 1234, delivered_to = 1200 WHERE stream_id = ${id} AND scope = '0x1'`))
      const { body: stats } = await api.call("GET", `/v1/streams/${id}/stats`)
      const eth = stats.coverage.find((chain: { chain: string }) => chain.chain === "eth")
      assert.deepStrictEqual([eth.coveredTo, eth.batchedTo], ["1200", "1234"])
    }))

  it.live("the last hour a minute at a time: batches delivered and their events, failed attempts, the coverage's lag", () =>
    withReceiver(async (api, receiver) => {
      const id = (await aliceStreamTo(api, receiver.url)).id
      const quiet = await api.call("GET", `/v1/streams/${id}/activity`)
      assert.strictEqual(quiet.status, 200, quiet.text)
      assert.strictEqual(quiet.body.minutes.length, 60)
      assert.isTrue(quiet.body.minutes.every((minute: { delivered: number; coverageLagSeconds: number | null }) =>
        minute.delivered === 0 && minute.coverageLagSeconds === null))
      const starts = quiet.body.minutes.map((minute: { at: string }) => Date.parse(minute.at))
      assert.isTrue(starts.every((start: number, index: number) => start % 60_000 === 0 && (index === 0 || start - starts[index - 1] === 60_000)))
      assert.isTrue(Date.now() - starts.at(-1) < 120_000, "the current minute last")

      await api.run(enqueue(transfers(3)))
      // The batch accounts for blocks 1 to 9 of eth (as a scan's commit says), made 30 s ago.
      await api.run(Effect.asVoid(api.sql`UPDATE deliveries SET coverage = '[{"scope":"0x1","from":"1","to":"9"}]'::jsonb,
        created_at = now() - interval '30 seconds' WHERE stream_id = ${id}`))
      await deliver(api, id)
      const { body } = await api.call("GET", `/v1/streams/${id}/activity`)
      const totals = body.minutes.reduce(
        (sum: { delivered: number; events: number; failed: number }, minute: { delivered: number; events: number; failedAttempts: number }) => ({
          delivered: sum.delivered + minute.delivered,
          events: sum.events + minute.events,
          failed: sum.failed + minute.failedAttempts
        }),
        { delivered: 0, events: 0, failed: 0 }
      )
      assert.deepStrictEqual(totals, { delivered: 1, events: 3, failed: 1 })
      const lag = body.minutes.at(-1).coverageLagSeconds
      assert.isTrue(lag !== null && lag >= 30 && lag < 90, String(lag))
      const missing = await api.call("GET", "/v1/streams/str_000000000000000000000/activity")
      assert.strictEqual(missing.status, 404)

      // Before the hour: a batch made 3 h ago and delivered 2 h ago, and an older one (made 5 h ago)
      // sent again and delivered 61 min ago. The first minute's lag runs from the newest-made: 3 h.
      await api.run(enqueue(transfers(1, { from: 10 })))
      await api.run(enqueue(transfers(1, { from: 11 })))
      await api.run(Effect.asVoid(api.sql`UPDATE deliveries SET coverage = '[{"scope":"0x1","from":"10","to":"12"}]'::jsonb WHERE stream_id = ${id}`))
      await deliver(api, id)
      await api.run(Effect.asVoid(api.sql`UPDATE deliveries SET created_at = CASE sequence WHEN 2 THEN now() - interval '3 hours' ELSE now() - interval '5 hours' END,
        delivered_at = CASE sequence WHEN 2 THEN now() - interval '2 hours' ELSE now() - interval '61 minutes' END WHERE stream_id = ${id}`))
      const { body: earlier } = await api.call("GET", `/v1/streams/${id}/activity`)
      const first = earlier.minutes[0].coverageLagSeconds
      const expected = (Date.parse(earlier.minutes[0].at) + 60_000 - (Date.now() - 3 * 3600_000)) / 1000
      assert.isTrue(Math.abs(first - expected) < 120, `${first} s, expected about ${expected} s`)
    }, [500]))
})
