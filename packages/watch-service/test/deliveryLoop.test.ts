/**
 * The delivery loop (`DeliveryWorker.deliverDue`) against a real receiver on 127.0.0.1 and a real
 * PostgreSQL, with only the clock controlled (the test's clock and the database's `now()`, see
 * `support/clockedStores.ts`). What SERVE.md's "Delivery guarantees, plainly" promises:
 *
 * - retries follow `--retry-schedule` exactly: not sent a millisecond before each wait ends, sent
 *   when it does; after the last the batch is `failed` and the next one goes at once;
 * - the same `webhook-id` and body on every retry, signed anew (`v1,` base64 HMAC-SHA256 of
 *   `id.timestamp.body`, keyed by the secret's base64-decoded part) with the time it goes;
 * - a 5xx, 408, 429 or connection error is retried; another 4xx fails the batch at once; a 3xx fails
 *   it and is not followed;
 * - a 410 puts the stream in `error` with the reason and holds the batch; nothing is sent until it
 *   is resumed, and then what was held goes, in order;
 * - in order per stream: a batch is not sent before the one before it was answered 2xx or failed;
 * - under `--min-success-rate` over the last 100 attempts the stream goes to `error` with the rate
 *   (exactly at the rate it does not), and after a resume only the attempts since count;
 * - a kept-alive connection the receiver closed: the batch delivered at its first attempt, one success.
 */
import { assert, describe, it } from "@effect/vitest"
import { DateTime, Duration, Effect, Option } from "effect"
import { SqlClient } from "effect/sql"
import { createHmac } from "node:crypto"
import { alice } from "../../watch/test/fixtures.js"
import { type Delivery, DeliveryStore } from "../src/store/DeliveryStore.js"
import { deliverDue } from "../src/delivery/DeliveryWorker.js"
import { StreamStore } from "../src/store/StreamStore.js"
import { loopLayer, setClock } from "./support/clockedStores.js"
import { type Answer, type Hit, refusedUrl, scriptedReceiver, sequenceOf } from "./support/scriptedReceiver.js"
import { enqueue, evm, makeStream, transfers } from "./support/storeFixtures.js"

/** The tests' start: a time with milliseconds. */
const t0 = DateTime.makeUnsafe("2030-01-02T03:04:05.678Z")
/** Moves both clocks to `seconds` after `t0`. */
const at = (seconds: number) => setClock(DateTime.add(t0, { milliseconds: Math.round(seconds * 1000) }))
/** The `webhook-timestamp` of an attempt made `seconds` after `t0`. */
const timestampAt = (seconds: number) => String(Math.floor((DateTime.toEpochMillis(t0) + Math.round(seconds * 1000)) / 1000))

/** `count` batches of one event each, for every stream holding alice. */
const batches = (count: number) =>
  Effect.forEach(Array.from({ length: count }, (_, index) => index), (index) => enqueue(transfers(1, { from: index })), { discard: true })

/** A stream of alice's to `url` (its secret is `whsec_test`). */
const streamTo = (url: string) => makeStream([evm(alice)], { url })

/** The stream's deliveries, by sequence. */
const deliveriesOf = (streamId: string) => DeliveryStore.use((store) => store.list(streamId, { limit: 1_000 })).pipe(Effect.map((page) => page.items))

/** What a delivery came to: [sequence, status, attempts]. */
const outcomes = (streamId: string) => Effect.map(deliveriesOf(streamId), (items) => items.map((d: Delivery) => [d.sequence, d.status, d.attempts] as const))

const statusOf = (streamId: string) =>
  StreamStore.use((store) => store.get(streamId)).pipe(Effect.map((stream) => {
    const { status, statusReason } = Option.getOrThrow(stream)
    return [status, statusReason] as const
  }))

const sequences = (hits: ReadonlyArray<Hit>) => hits.map(sequenceOf)

/** What resuming a stream does to it (`POST …/resume`): active again, its held deliveries due. */
const resume = (streamId: string) =>
  Effect.gen(function*() {
    yield* StreamStore.use((store) => store.setStatus(streamId, "active", null))
    yield* DeliveryStore.use((store) => store.wake(streamId))
  })

/** The signature a receiver expects: `v1,` and the base64 HMAC-SHA256 of `id.timestamp.body`, keyed by the secret's decoded part. */
const expectedSignature = (hit: Hit) =>
  `v1,${createHmac("sha256", Buffer.from("test", "base64")).update(`${hit.headers["webhook-id"]}.${hit.headers["webhook-timestamp"]}.${hit.body}`).digest("base64")}`

describe("the delivery loop: retries", () => {
  it.effect("follow --retry-schedule exactly, with the same webhook-id and body, signed when sent; then failed, and the next batch goes", () =>
    Effect.gen(function*() {
      yield* at(0)
      const receiver = yield* scriptedReceiver({ answer: (hit) => sequenceOf(hit) === 1 ? 503 : 200 })
      const stream = yield* streamTo(receiver.url("/hook"))
      yield* batches(2)
      yield* deliverDue(stream)
      assert.deepStrictEqual(sequences(receiver.hits), [1], "the first attempt")
      // Each wait of the schedule (10 s, 1 min, 10 min): nothing a millisecond before it ends, the attempt when it does.
      for (const [before, due, count] of [[9.999, 10, 2], [69.999, 70, 3], [669.999, 670, 4]] as const) {
        yield* at(before)
        yield* deliverDue(stream)
        assert.strictEqual(receiver.hits.length, count - 1, `nothing sent at ${before} s`)
        yield* at(due)
        yield* deliverDue(stream)
        assert.deepStrictEqual(sequences(receiver.hits).slice(0, count), Array.from({ length: count }, () => 1), `attempt ${count} at ${due} s`)
      }
      // The last retry failed: the batch is failed, and the next one went at once (in the same wake).
      assert.deepStrictEqual(sequences(receiver.hits), [1, 1, 1, 1, 2])
      assert.deepStrictEqual(yield* outcomes(stream), [[1, "failed", 4], [2, "delivered", 1]])
      const [first, second] = yield* deliveriesOf(stream)
      const attempts = receiver.hits.slice(0, 4)
      assert.deepStrictEqual(attempts.map((hit) => hit.headers["webhook-id"]), Array.from({ length: 4 }, () => first!.id))
      assert.strictEqual(receiver.hits[4]!.headers["webhook-id"], second!.id)
      assert.deepStrictEqual(attempts.map((hit) => hit.headers["webhook-timestamp"]), [0, 10, 70, 670].map(timestampAt))
      assert.deepStrictEqual(new Set(attempts.map((hit) => hit.body)).size, 1)
      for (const hit of receiver.hits) assert.strictEqual(hit.headers["webhook-signature"], expectedSignature(hit))
      yield* at(100_000)
      yield* deliverDue(stream)
      assert.strictEqual(receiver.hits.length, 5, "a failed batch is not sent again")
    }).pipe(Effect.provide(loopLayer({ retrySchedule: [Duration.seconds(10), Duration.minutes(1), Duration.minutes(10)] }))))

  it.effect("a 5xx, 408, 429 or connection error is retried; another 4xx fails the batch at once, a 3xx too (not followed)", () =>
    Effect.gen(function*() {
      yield* at(0)
      const elsewhere = yield* scriptedReceiver()
      const receiver = yield* scriptedReceiver({
        answer: (hit) => {
          if (sequenceOf(hit) !== 1) return 200
          const status = Number(hit.path.slice("/status/".length))
          return status >= 300 && status < 400 ? { status, location: elsewhere.url("/hook") } : status
        }
      })
      const retried = [500, 503, 408, 429]
      const failed = [400, 401, 404, 413, 422, 301, 302, 307, 308]
      const streams = yield* Effect.forEach([...retried, ...failed], (status) => Effect.map(streamTo(receiver.url(`/status/${status}`)), (id) => [status, id] as const))
      const unreachable = yield* streamTo(refusedUrl("/hook"))
      yield* batches(2)
      for (const [status, stream] of streams) {
        yield* deliverDue(stream)
        const sent = sequences(receiver.hits.filter((hit) => hit.path === `/status/${status}`))
        if (retried.includes(status)) {
          assert.deepStrictEqual(sent, [1], `${status}: the next batch waits`)
          assert.deepStrictEqual(yield* outcomes(stream), [[1, "pending", 1], [2, "pending", 0]], String(status))
          const [delivery] = yield* deliveriesOf(stream)
          assert.strictEqual(DateTime.formatIso(delivery!.nextAttemptAt!), DateTime.formatIso(DateTime.add(t0, { seconds: 10 })), String(status))
          assert.deepStrictEqual([delivery!.lastStatus, delivery!.lastError], [status, `HTTP ${status}: answered ${status}`])
        } else {
          assert.deepStrictEqual(sent, [1, 2], `${status}: failed at once, the next batch went`)
          assert.deepStrictEqual(yield* outcomes(stream), [[1, "failed", 1], [2, "delivered", 1]], String(status))
        }
        assert.deepStrictEqual(yield* statusOf(stream), ["active", null], String(status))
      }
      assert.deepStrictEqual(elsewhere.hits, [], "a redirect is not followed")
      yield* deliverDue(unreachable)
      assert.deepStrictEqual(yield* outcomes(unreachable), [[1, "pending", 1], [2, "pending", 0]], "connection refused")
      assert.strictEqual((yield* deliveriesOf(unreachable))[0]!.lastError, "connection refused")
      // An answer with no body: the last error is the status alone.
      const bare = yield* scriptedReceiver({ answer: () => ({ status: 503 }) })
      const quiet = yield* streamTo(bare.url("/hook"))
      yield* enqueue(transfers(1, { from: 100 }))
      yield* deliverDue(quiet)
      assert.strictEqual((yield* deliveriesOf(quiet))[0]!.lastError, "HTTP 503")
    }).pipe(Effect.provide(loopLayer())))
})

describe("the delivery loop: order and holding", () => {
  it.effect("a 410 puts the stream in error and holds the batch; nothing goes until it is resumed, then the held batches go in order", () =>
    Effect.gen(function*() {
      yield* at(0)
      let gone = true
      const receiver = yield* scriptedReceiver({ answer: () => gone ? 410 : 200 })
      const stream = yield* streamTo(receiver.url("/hook"))
      yield* batches(3)
      yield* deliverDue(stream)
      assert.deepStrictEqual(sequences(receiver.hits), [1])
      assert.deepStrictEqual(yield* statusOf(stream), ["error", "the receiver answered 410 Gone: resume the stream once it takes webhooks again"])
      assert.deepStrictEqual(yield* outcomes(stream), [[1, "pending", 0], [2, "pending", 0], [3, "pending", 0]])
      yield* at(86_400)
      yield* deliverDue(stream)
      assert.deepStrictEqual(sequences(receiver.hits), [1], "nothing is sent to a stream in error")
      gone = false
      yield* at(86_401)
      yield* resume(stream)
      yield* deliverDue(stream)
      assert.deepStrictEqual(sequences(receiver.hits), [1, 1, 2, 3])
      assert.deepStrictEqual(yield* outcomes(stream), [[1, "delivered", 1], [2, "delivered", 1], [3, "delivered", 1]])
      assert.deepStrictEqual(yield* statusOf(stream), ["active", null])
    }).pipe(Effect.provide(loopLayer())))

  it.effect("in order: a batch waits until the one before it is answered 2xx, though it is due", () =>
    Effect.gen(function*() {
      yield* at(0)
      const answers = [503, 500, 200]
      const receiver = yield* scriptedReceiver({ answer: () => answers.shift() ?? 200 })
      const stream = yield* streamTo(receiver.url("/hook"))
      yield* batches(3)
      yield* deliverDue(stream)
      yield* deliverDue(stream)
      assert.deepStrictEqual(sequences(receiver.hits), [1], "batch 2 is due, and waits")
      yield* at(10)
      yield* deliverDue(stream)
      assert.deepStrictEqual(sequences(receiver.hits), [1, 1])
      yield* at(70)
      yield* deliverDue(stream)
      assert.deepStrictEqual(sequences(receiver.hits), [1, 1, 1, 2, 3])
      assert.deepStrictEqual(yield* outcomes(stream), [[1, "delivered", 3], [2, "delivered", 1], [3, "delivered", 1]])
    }).pipe(Effect.provide(loopLayer())))
})

/** Answers, per path, the statuses given in turn (`[200, 60]`: sixty 200s), then 200. */
const inTurn = (script: Readonly<Record<string, ReadonlyArray<readonly [number, number]>>>) => {
  const queues = new Map(Object.entries(script).map(([path, runs]) => [path, runs.flatMap(([status, count]) => Array.from({ length: count }, () => status))]))
  return (hit: Hit) => queues.get(hit.path)?.shift() ?? 200
}

describe("the delivery loop: the success rate", () => {
  it.effect("under --min-success-rate over the last 100 attempts: error with the rate (not at the rate); after a resume only the attempts since count", () =>
    Effect.gen(function*() {
      yield* at(0)
      const receiver = yield* scriptedReceiver({
        answer: inTurn({ "/under": [[200, 60], [400, 40], [200, 1], [400, 1]], "/at": [[200, 70], [400, 30]] })
      })
      const under = yield* streamTo(receiver.url("/under"))
      const atRate = yield* streamTo(receiver.url("/at"))
      yield* batches(101)
      yield* deliverDue(under)
      yield* deliverDue(atRate)
      const sentTo = (path: string) => receiver.hits.filter((hit) => hit.path === path).length
      // 60 of 100: error once the 100th attempt is counted, and the 101st batch is not sent.
      assert.strictEqual(sentTo("/under"), 100)
      assert.deepStrictEqual(yield* statusOf(under), ["error", "60% of the last 100 attempts succeeded (under 70%): resume the stream once the receiver is fixed"])
      assert.deepStrictEqual((yield* DeliveryStore.use((store) => store.stats(under))).successRate, 0.6)
      // 70 of 100 is not under 70%.
      assert.strictEqual(sentTo("/at"), 101)
      assert.deepStrictEqual(yield* statusOf(atRate), ["active", null])
      // Resumed (the receiver repaired): the held batch is delivered, and the attempts before the resume no longer count:
      // a failure after it leaves the stream active (59 of the last 100 all told).
      yield* at(60)
      yield* resume(under)
      yield* deliverDue(under)
      assert.strictEqual(sentTo("/under"), 101)
      yield* batches(1)
      yield* deliverDue(under)
      assert.strictEqual(sentTo("/under"), 102)
      assert.deepStrictEqual(yield* outcomes(under).pipe(Effect.map((all) => all.slice(100))), [[101, "delivered", 1], [102, "failed", 1]])
      assert.deepStrictEqual(yield* statusOf(under), ["active", null], "the attempts before the resume counted")
      assert.deepStrictEqual(yield* DeliveryStore.use((store) => store.successRate(under)), Option.none())
    }).pipe(Effect.provide(loopLayer({ minSuccessRate: 0.7 }))))

  it.effect("--min-success-rate 0: a stream is never put in error for its rate", () =>
    Effect.gen(function*() {
      yield* at(0)
      const receiver = yield* scriptedReceiver({ answer: () => 400 })
      const stream = yield* streamTo(receiver.url("/hook"))
      yield* batches(100)
      yield* deliverDue(stream)
      assert.strictEqual(receiver.hits.length, 100)
      assert.deepStrictEqual(yield* statusOf(stream), ["active", null])
    }).pipe(Effect.provide(loopLayer({ minSuccessRate: 0 }))))
})

describe("the delivery loop: a kept-alive connection the receiver closed", () => {
  it.effect("the batch is delivered at its first attempt, counted as one success", () =>
    Effect.gen(function*() {
      yield* at(0)
      const receiver = yield* scriptedReceiver({ closeReused: true })
      const stream = yield* streamTo(receiver.url("/hook"))
      yield* batches(2)
      yield* deliverDue(stream)
      assert.strictEqual(receiver.closed.length, 1, "the second batch went on the kept-alive connection, which the receiver closed")
      assert.deepStrictEqual(sequences(receiver.hits), [1, 2])
      assert.deepStrictEqual(yield* outcomes(stream), [[1, "delivered", 1], [2, "delivered", 1]])
      const stats = yield* DeliveryStore.use((store) => store.stats(stream))
      assert.deepStrictEqual([stats.attempts, stats.successRate, stats.lastError], [2, 1, null])
    }).pipe(Effect.provide(loopLayer())))
})

describe("the delivery loop: a batch the webhook contract refuses", () => {
  it.effect("is failed with the reason and kept, never sent, and the next batch goes (no defect, no loop)", () =>
    Effect.gen(function*() {
      yield* at(0)
      const receiver = yield* scriptedReceiver()
      const stream = yield* streamTo(receiver.url("/hook"))
      yield* batches(2)
      // A range that ends before it starts: a bug of the service's would make such a batch.
      const sql = yield* SqlClient.SqlClient
      yield* sql`UPDATE deliveries SET coverage = '[{"scope":"0x1","from":"9","to":"3"}]'::jsonb WHERE stream_id = ${stream} AND sequence = 1`
      yield* deliverDue(stream)
      assert.deepStrictEqual(sequences(receiver.hits), [2])
      assert.deepStrictEqual(yield* outcomes(stream), [[1, "failed", 1], [2, "delivered", 1]])
      const [refused] = yield* deliveriesOf(stream)
      assert.match(refused!.lastError!, /^the batch breaks the webhook contract: .*fromBlock 9 is after toBlock 3/s)
    }).pipe(Effect.provide(loopLayer())))
})

describe("the delivery loop: no answer, and a URL refused", () => {
  it.effect("no answer within --delivery-timeout is retried on the schedule", () =>
    Effect.gen(function*() {
      yield* at(0)
      const answers: Array<Answer> = ["silent"]
      const receiver = yield* scriptedReceiver({ answer: () => answers.shift() ?? 200 })
      const silent = yield* streamTo(receiver.url("/silent"))
      yield* batches(2)
      yield* deliverDue(silent)
      assert.deepStrictEqual(yield* outcomes(silent), [[1, "pending", 1], [2, "pending", 0]])
      const [waiting] = yield* deliveriesOf(silent)
      assert.deepStrictEqual([waiting!.lastStatus, waiting!.lastError], [null, "no answer within the delivery timeout"])
      assert.strictEqual(DateTime.formatIso(waiting!.nextAttemptAt!), DateTime.formatIso(DateTime.add(t0, { seconds: 10 })))
      yield* at(10)
      yield* deliverDue(silent)
      assert.deepStrictEqual(sequences(receiver.hits), [1, 1, 2])
      assert.deepStrictEqual(yield* outcomes(silent), [[1, "delivered", 2], [2, "delivered", 1]])
    }).pipe(Effect.provide(loopLayer({ deliveryTimeout: Duration.millis(500) }))))

  it.effect("without --allow-private-webhooks, a stream whose URL is private is retried with the reason, and nothing is sent", () =>
    Effect.gen(function*() {
      yield* at(0)
      const receiver = yield* scriptedReceiver()
      const stream = yield* streamTo(receiver.url("/hook"))
      yield* batches(1)
      yield* deliverDue(stream)
      assert.deepStrictEqual(receiver.hits, [])
      assert.deepStrictEqual(yield* outcomes(stream), [[1, "pending", 1]])
      const [refused] = yield* deliveriesOf(stream)
      assert.match(refused!.lastError!, /^the URL is refused: the host 127\.0\.0\.1 is a private address/)
    }).pipe(Effect.provide(loopLayer({ allowPrivateWebhooks: false }))))
})
