/**
 * The deliveries store, over a real PostgreSQL (a fresh database per test), with deliveries made
 * by the outbox as the scanner makes them. It proves that:
 *
 * - `next` gives the lowest pending sequence in numeric order (past 9 to 10, 11, 12) with its
 *   events' bodies in position order, and `list` pages in numeric order, by status, with cursors;
 * - `record`: delivered ends a delivery; retry counts the attempt and waits exactly the schedule's
 *   delay, then fails once the schedule is spent; failed fails at once; held keeps it pending;
 *   it answers whether the stream's attempt before failed (no other stream's), and when next;
 * - `successRate` is `None` under 100 attempts, then the rate of the stream's last 100 alone, and
 *   counts only the attempts since the stream was last resumed;
 * - `due` lists the active streams with a pending delivery due, and `wake` makes one due;
 * - `replay` (from an event id, or a time) makes new deliveries of exactly the events from there
 *   on, cut at 500, after the existing sequences; `None` for an unknown event;
 * - `stats` counts attempts, pending and failed deliveries, the oldest pending one's age and the
 *   last error.
 */
import { assert, describe, it } from "@effect/vitest"
import { DateTime, Duration, Effect, Option } from "effect"
import { SqlClient } from "effect/sql"
import { TestClock } from "effect/testing"
import { alice, bob } from "../../watch/test/fixtures.js"
import { WatchEvent } from "@chainquery/watch"
import { type Attempt, type Delivery, DeliveryStore, type Recorded, type ReplayFrom } from "../src/store/DeliveryStore.js"
import { StreamStore } from "../src/store/StreamStore.js"
import { carol, counters, enqueue, evm, makeStream, storedDeliveries, transfers, withStores } from "./support/storeFixtures.js"

const ok: Attempt = { result: "delivered", status: 200, error: null }
const busy: Attempt = { result: "retry", status: 503, error: "HTTP 503: busy" }
const timedOut: Attempt = { result: "retry", status: null, error: "no answer within the delivery timeout" }
const refused: Attempt = { result: "failed", status: 400, error: "HTTP 400: bad request" }
const gone: Attempt = { result: "held", status: 410, error: "HTTP 410" }
const schedule = [Duration.seconds(10), Duration.minutes(5)]

/** The test clock's start for the tests that read times back: a time with milliseconds. */
const t0 = DateTime.makeUnsafe("2030-01-02T03:04:05.678Z")
const iso = (at: DateTime.Utc | null) => at === null ? null : DateTime.formatIso(at)
const later = (seconds: number) => iso(DateTime.add(t0, { seconds }))

/** One scan of one event (log index `index`) per delivery: `count` deliveries of alice's streams. */
const oneEventScans = (count: number, from = 0) =>
  Effect.forEach(Array.from({ length: count }, (_, index) => from + index), (index) => enqueue(transfers(1, { from: index })), { discard: true })

const nextOf = (streamId: string) => DeliveryStore.use((store) => store.next(streamId))
const record = (delivery: Delivery, attempt: Attempt) => DeliveryStore.use((store) => store.record(delivery, attempt, schedule))
const statsOf = (streamId: string) => DeliveryStore.use((store) => store.stats(streamId))
const rateOf = (streamId: string) => DeliveryStore.use((store) => store.successRate(streamId))
const replayOf = (streamId: string, from: ReplayFrom) => DeliveryStore.use((store) => store.replay(streamId, from))
const dueStreams = DeliveryStore.use((store) => store.due).pipe(Effect.map((ids) => ids.toSorted()))

/** The pending delivery `next` gives (it must give one). */
const pendingOf = (streamId: string) => Effect.map(nextOf(streamId), (next) => Option.getOrThrow(next))

/** What a delivery is, to compare: sequence, status, attempts, next attempt, delivered at, last status and error. */
const summary = (d: Delivery) => [d.sequence, d.status, d.attempts, iso(d.nextAttemptAt), iso(d.deliveredAt), d.lastStatus, d.lastError] as const

/** The stream's delivery of that sequence, as `list` gives it. */
const deliveryAt = (streamId: string, sequence: number) =>
  DeliveryStore.use((store) => store.list(streamId, { limit: 1_000 })).pipe(Effect.map((page) => page.items.find((d) => d.sequence === sequence)!))

/** Every page of the stream's deliveries (of a status): each page's sequences and its next cursor. */
const pages = (streamId: string, limit: number, status?: Delivery["status"]) =>
  Effect.gen(function*() {
    const store = yield* DeliveryStore
    const result: Array<readonly [ReadonlyArray<number>, string | null]> = []
    let after: number | undefined = undefined
    do {
      const page: { readonly items: ReadonlyArray<Delivery>; readonly nextCursor: string | null } = yield* store.list(streamId, { status, after, limit })
      result.push([page.items.map((d) => d.sequence), page.nextCursor])
      after = page.nextCursor === null ? undefined : Number(page.nextCursor)
    } while (after !== undefined && result.length < 10)
    return result
  })

/** Records `attempts` (`true`: delivered, `false`: retried) on the delivery, in that order (each is counted, whatever its status). */
const recordAll = (delivery: Delivery, attempts: ReadonlyArray<boolean>) =>
  Effect.forEach(attempts, (delivered) => record(delivery, delivered ? ok : busy), { discard: true })

/** The numbers `from` to `to`. */
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, index) => from + index)

const times = (count: number, delivered: boolean) => Array.from({ length: count }, () => delivered)

describe("DeliveryStore: next and list", () => {
  it.effect("next: the lowest pending sequence in numeric order past 9, with its bodies in position order", () =>
    withStores(Effect.gen(function*() {
      const stream = yield* makeStream([evm(alice)])
      const batch = transfers(12, { from: 100 })
      yield* enqueue(batch)
      yield* oneEventScans(11)
      const sent: Array<readonly [number, number]> = []
      let next = yield* nextOf(stream)
      while (Option.isSome(next)) {
        const { bodies, delivery } = next.value
        if (delivery.sequence === 1) assert.deepStrictEqual(bodies, batch.map(WatchEvent.toJson))
        if (delivery.sequence === 12) assert.deepStrictEqual(bodies, transfers(1, { from: 10 }).map(WatchEvent.toJson))
        sent.push([delivery.sequence, bodies.length])
        yield* record(delivery, ok)
        next = yield* nextOf(stream)
      }
      assert.deepStrictEqual(sent, [[1, 12], ...Array.from({ length: 11 }, (_, index) => [index + 2, 1] as const)])
    })))

  it.effect("list: 25 deliveries paged with cursors in numeric order, filtered by status", () =>
    withStores(Effect.gen(function*() {
      const stream = yield* makeStream([evm(alice)])
      yield* oneEventScans(25)
      for (let sequence = 1; sequence <= 25; sequence++) {
        const outcome = sequence % 3 === 0 ? refused : sequence % 5 === 0 ? ok : undefined
        if (outcome !== undefined) yield* record(yield* deliveryAt(stream, sequence), outcome)
      }
      assert.deepStrictEqual(yield* pages(stream, 10), [[range(1, 10), "10"], [range(11, 20), "20"], [range(21, 25), null]])
      assert.deepStrictEqual(yield* pages(stream, 3, "failed"), [[[3, 6, 9], "9"], [[12, 15, 18], "18"], [[21, 24], null]])
      assert.deepStrictEqual(yield* pages(stream, 4, "delivered"), [[[5, 10, 20, 25], null]])
      assert.deepStrictEqual(yield* pages(stream, 10, "pending"), [[[1, 2, 4, 7, 8, 11, 13, 14, 16, 17], "17"], [[19, 22, 23], null]])
      assert.deepStrictEqual(yield* pages(yield* makeStream([evm(bob)]), 10), [[[], null]])
    })))
})

describe("DeliveryStore.record", () => {
  it.effect("delivered: the delivery is delivered at that time and next moves on", () =>
    withStores(Effect.gen(function*() {
      yield* TestClock.setTime(DateTime.toEpochMillis(t0))
      const stream = yield* makeStream([evm(alice)])
      yield* oneEventScans(2)
      const first = yield* pendingOf(stream)
      assert.deepStrictEqual(summary(first.delivery), [1, "pending", 0, iso(t0), null, null, null])
      yield* TestClock.adjust(Duration.seconds(3))
      yield* record(first.delivery, ok)
      assert.deepStrictEqual(summary(yield* deliveryAt(stream, 1)), [1, "delivered", 1, null, later(3), 200, null])
      assert.strictEqual((yield* pendingOf(stream)).delivery.sequence, 2)
      // An outcome recorded late, on the copy read before, leaves the delivered delivery as it is.
      yield* record(first.delivery, busy)
      assert.deepStrictEqual(summary(yield* deliveryAt(stream, 1)), [1, "delivered", 1, null, later(3), 200, null])
    })))

  it.effect("retry: one more attempt, due after the schedule's delay; failed once the schedule is spent, and next moves on", () =>
    withStores(Effect.gen(function*() {
      yield* TestClock.setTime(DateTime.toEpochMillis(t0))
      const stream = yield* makeStream([evm(alice)])
      yield* oneEventScans(2)
      yield* record((yield* pendingOf(stream)).delivery, busy)
      const retried = (yield* pendingOf(stream)).delivery
      assert.deepStrictEqual(summary(retried), [1, "pending", 1, later(10), null, 503, "HTTP 503: busy"])
      yield* TestClock.adjust(Duration.seconds(10))
      yield* record(retried, timedOut)
      const again = (yield* pendingOf(stream)).delivery
      assert.deepStrictEqual(summary(again), [1, "pending", 2, later(310), null, null, "no answer within the delivery timeout"])
      yield* TestClock.adjust(Duration.minutes(5))
      yield* record(again, busy)
      assert.deepStrictEqual(summary(yield* deliveryAt(stream, 1)), [1, "failed", 3, null, null, 503, "HTTP 503: busy"])
      assert.deepStrictEqual(summary((yield* pendingOf(stream)).delivery), [2, "pending", 0, iso(t0), null, null, null])
    })))

  it.effect("failed: failed at once, whatever the schedule (so is a retry with an empty schedule); held: stays pending, due now", () =>
    withStores(Effect.gen(function*() {
      yield* TestClock.setTime(DateTime.toEpochMillis(t0))
      const stream = yield* makeStream([evm(alice)])
      yield* oneEventScans(3)
      yield* record((yield* pendingOf(stream)).delivery, refused)
      assert.deepStrictEqual(summary(yield* deliveryAt(stream, 1)), [1, "failed", 1, null, null, 400, "HTTP 400: bad request"])
      yield* TestClock.adjust(Duration.seconds(7))
      yield* record((yield* pendingOf(stream)).delivery, gone)
      // A 410 holds the batch as it is: none of its retries spent.
      assert.deepStrictEqual(summary((yield* pendingOf(stream)).delivery), [2, "pending", 0, later(7), null, 410, "HTTP 410"])
      // With no retries in the schedule, a retry is failed at once too.
      const third = yield* deliveryAt(stream, 3)
      yield* DeliveryStore.use((store) => store.record(third, busy, []))
      assert.deepStrictEqual(summary(yield* deliveryAt(stream, 3)), [3, "failed", 1, null, null, 503, "HTTP 503: busy"])
    })))
})

/** What `record` answered, to compare: whether the attempt before failed, and when next. */
const answer = (recorded: Recorded) => [recorded.afterFailure, iso(recorded.nextAttemptAt)] as const

describe("DeliveryStore.record: what it answers", () => {
  it.effect("whether the stream's attempt before failed (none: no), and when the delivery goes again", () =>
    withStores(Effect.gen(function*() {
      yield* TestClock.setTime(DateTime.toEpochMillis(t0))
      const stream = yield* makeStream([evm(alice)])
      const other = yield* makeStream([evm(alice)], { url: "https://hooks.example.com/other" })
      yield* oneEventScans(3)
      // The first attempt of a stream follows none.
      assert.deepStrictEqual(answer(yield* record((yield* pendingOf(stream)).delivery, busy)), [false, later(10)])
      // Another stream's attempts are not this one's.
      assert.deepStrictEqual(answer(yield* record((yield* pendingOf(other)).delivery, ok)), [false, null])
      assert.deepStrictEqual(answer(yield* record((yield* pendingOf(stream)).delivery, timedOut)), [true, later(300)])
      assert.deepStrictEqual(answer(yield* record((yield* pendingOf(stream)).delivery, ok)), [true, null])
      assert.deepStrictEqual(answer(yield* record((yield* pendingOf(stream)).delivery, refused)), [false, null])
      assert.deepStrictEqual(answer(yield* record((yield* pendingOf(stream)).delivery, ok)), [true, null])
    })))
})

describe("DeliveryStore.successRate", () => {
  it.effect("None under 100 attempts; 0.69 after 100 with 69 ok; only the stream's last 100 count", () =>
    withStores(Effect.gen(function*() {
      const stream = yield* makeStream([evm(alice)])
      const other = yield* makeStream([evm(bob)])
      yield* enqueue([...transfers(1), ...transfers(1, { from: 1, wallet: bob })])
      const delivery = (yield* pendingOf(stream)).delivery
      yield* recordAll(delivery, [...times(31, false), ...times(68, true)])
      assert.deepStrictEqual(yield* rateOf(stream), Option.none())
      yield* recordAll(delivery, [true])
      assert.deepStrictEqual(yield* rateOf(stream), Option.some(0.69))
      // Ten more successes push the ten oldest failures out: 79 of the last 100.
      yield* recordAll(delivery, times(10, true))
      assert.deepStrictEqual(yield* rateOf(stream), Option.some(0.79))
      // Another stream's attempts are its own.
      yield* recordAll((yield* pendingOf(other)).delivery, times(100, false))
      assert.deepStrictEqual(yield* rateOf(other), Option.some(0))
      assert.deepStrictEqual(yield* rateOf(stream), Option.some(0.79))
    })))
})

describe("DeliveryStore.successRate after a resume", () => {
  it.effect("only the attempts since the stream was resumed count: None until 100 of them, then their rate alone", () =>
    withStores(Effect.gen(function*() {
      yield* TestClock.setTime(DateTime.toEpochMillis(t0))
      const stream = yield* makeStream([evm(alice)])
      yield* enqueue(transfers(1))
      const delivery = (yield* pendingOf(stream)).delivery
      yield* recordAll(delivery, times(100, false))
      assert.deepStrictEqual(yield* rateOf(stream), Option.some(0))
      yield* TestClock.adjust(Duration.seconds(1))
      yield* StreamStore.use((streams) => streams.setStatus(stream, "active", null))
      yield* recordAll(delivery, times(99, true))
      assert.deepStrictEqual(yield* rateOf(stream), Option.none(), "the attempts before the resume counted")
      yield* recordAll(delivery, [false])
      assert.deepStrictEqual(yield* rateOf(stream), Option.some(0.99))
    })))
})

describe("DeliveryStore: old attempts", () => {
  it.effect("recording the 50th batch keeps the stream's last 1,000 attempts, so the success rate still has its last 100", () =>
    withStores(Effect.gen(function*() {
      const stream = yield* makeStream([evm(alice)])
      yield* oneEventScans(50)
      const first = (yield* pendingOf(stream)).delivery
      yield* recordAll(first, times(1_010, false))
      const kept = Effect.flatMap(SqlClient.SqlClient, (sql) =>
        sql<{ count: number }>`SELECT count(*)::int AS count FROM delivery_attempts WHERE stream_id = ${stream}`).pipe(Effect.map(([row]) => row!.count))
      assert.strictEqual(yield* kept, 1_010, "no trim before the 50th batch")
      yield* record(yield* deliveryAt(stream, 50), ok)
      assert.strictEqual(yield* kept, 1_000)
      assert.deepStrictEqual(yield* rateOf(stream), Option.some(0.01))
    })))
})

describe("DeliveryStore: due and wake", () => {
  it.live("due: the active streams with a pending delivery due now; wake makes a stream's pending deliveries due", () =>
    withStores(Effect.gen(function*() {
      const streams = yield* StreamStore
      const [active, paused, failing, waiting, stillWaiting, delivered] = yield* Effect.forEach(Array.from({ length: 6 }), () => makeStream([evm(alice)]))
      const empty = yield* makeStream([evm(carol)])
      yield* oneEventScans(1)
      yield* streams.setStatus(paused!, "paused", null)
      yield* streams.setStatus(failing!, "error", "the receiver answered 410 Gone")
      for (const stream of [waiting!, stillWaiting!]) {
        const toRetry = (yield* pendingOf(stream)).delivery
        yield* DeliveryStore.use((store) => store.record(toRetry, busy, [Duration.hours(1)]))
      }
      yield* record((yield* pendingOf(delivered!)).delivery, ok)
      assert.deepStrictEqual(yield* dueStreams, [active!])
      yield* DeliveryStore.use((store) => Effect.forEach([waiting!, delivered!, empty, failing!], store.wake, { discard: true }))
      // stillWaiting's retry is an hour away still.
      assert.deepStrictEqual(yield* dueStreams, [active!, waiting!].toSorted())
      yield* streams.setStatus(paused!, "active", null)
      assert.deepStrictEqual(yield* dueStreams, [active!, paused!, waiting!].toSorted())
    })))
})

describe("DeliveryStore.replay", () => {
  it.effect("from an event id: replay deliveries of exactly its position to the last, cut at 500, after the existing sequences", () =>
    withStores(Effect.gen(function*() {
      const stream = yield* makeStream([evm(alice)])
      const first = transfers(3)
      const second = transfers(700, { from: 3 })
      const ofBob = transfers(1, { from: 1_000, wallet: bob })
      yield* makeStream([evm(bob)])
      yield* enqueue([...first, ...ofBob])
      yield* enqueue(second)
      assert.deepStrictEqual(yield* replayOf(stream, { eventId: first[1]!.id }), Option.some({ deliveries: 2, events: 702 }))
      const originals = [[1, 1, 3, 3, false], [2, 4, 503, 500, false], [3, 504, 703, 200, false]] as const
      const replays = [[4, 2, 501, 500, true], [5, 502, 703, 202, true]] as const
      assert.deepStrictEqual(yield* storedDeliveries(stream), [...originals, ...replays])
      assert.deepStrictEqual(yield* counters(stream), [704, 6])
      // An unknown event, or another stream's, replays nothing.
      assert.deepStrictEqual(yield* replayOf(stream, { eventId: "evm:0x1:unknown" }), Option.none())
      assert.deepStrictEqual(yield* replayOf(stream, { eventId: ofBob[0]!.id }), Option.none())
      assert.deepStrictEqual(yield* counters(stream), [704, 6])
      // Once the originals are sent, the replay's first delivery carries the events from there on.
      for (let sent = 0; sent < 3; sent++) yield* record((yield* pendingOf(stream)).delivery, ok)
      const replayed = yield* pendingOf(stream)
      assert.deepStrictEqual([replayed.delivery.sequence, replayed.delivery.replay, replayed.delivery.events], [4, true, 500])
      assert.deepStrictEqual(replayed.bodies, [...first, ...second].slice(1, 501).map(WatchEvent.toJson))
      // From the last event: one delivery of that one event.
      assert.deepStrictEqual(yield* replayOf(stream, { eventId: second[699]!.id }), Option.some({ deliveries: 1, events: 1 }))
      assert.deepStrictEqual((yield* storedDeliveries(stream)).slice(5), [[6, 703, 703, 1, true]])
    })))

  it.effect("from a time: the events stored then and after; none after it: no delivery", () =>
    withStores(Effect.gen(function*() {
      yield* TestClock.setTime(DateTime.toEpochMillis(t0))
      const stream = yield* makeStream([evm(alice)])
      yield* enqueue(transfers(2))
      yield* TestClock.adjust(Duration.minutes(1))
      yield* enqueue(transfers(3, { from: 2 }))
      const minute = DateTime.add(t0, { minutes: 1 })
      assert.deepStrictEqual(yield* replayOf(stream, { time: minute }), Option.some({ deliveries: 1, events: 3 }))
      assert.deepStrictEqual(yield* replayOf(stream, { time: DateTime.subtract(t0, { hours: 1 }) }), Option.some({ deliveries: 1, events: 5 }))
      assert.deepStrictEqual(yield* replayOf(stream, { time: DateTime.add(minute, { milliseconds: 1 }) }), Option.some({ deliveries: 0, events: 0 }))
      assert.deepStrictEqual(yield* storedDeliveries(stream), [[1, 1, 2, 2, false], [2, 3, 5, 3, false], [3, 3, 5, 3, true], [4, 1, 5, 5, true]])
      assert.deepStrictEqual(yield* counters(stream), [6, 5])
    })))
})

describe("DeliveryStore.stats", () => {
  it.effect("attempts, success rate, pending, failed, the oldest pending delivery's age and the last error", () =>
    withStores(Effect.gen(function*() {
      const created = DateTime.makeUnsafe(Date.now() - 3_600_000)
      yield* TestClock.setTime(DateTime.toEpochMillis(created))
      const stream = yield* makeStream([evm(alice)])
      const quiet = yield* makeStream([evm(bob)])
      const nothing = { lastDeliveredSequence: null, coverage: [], filteredEvents: 0, attempts: 0, successRate: null, pending: 0, failed: 0, oldestPendingAgeSeconds: null, lastError: null, lastErrorAt: null }
      assert.deepStrictEqual(yield* statsOf(stream), nothing)
      yield* oneEventScans(3)
      yield* record((yield* pendingOf(stream)).delivery, ok)
      yield* TestClock.adjust(Duration.seconds(1))
      yield* record((yield* pendingOf(stream)).delivery, refused)
      yield* TestClock.adjust(Duration.seconds(1))
      yield* record((yield* pendingOf(stream)).delivery, { result: "retry", status: 503, error: null })
      const { lastErrorAt, oldestPendingAgeSeconds, ...stats } = yield* statsOf(stream)
      assert.deepStrictEqual(stats, { lastDeliveredSequence: 1, coverage: [], filteredEvents: 0, attempts: 3, successRate: 1 / 3, pending: 1, failed: 1, lastError: "HTTP 503" })
      assert.strictEqual(iso(lastErrorAt), iso(DateTime.add(created, { seconds: 2 })))
      // Created an hour ago by the test clock, measured by PostgreSQL's now().
      assert.isAtLeast(oldestPendingAgeSeconds!, 3_600)
      assert.isBelow(oldestPendingAgeSeconds!, 3_600 + 120)
      yield* TestClock.adjust(Duration.seconds(1))
      yield* record((yield* pendingOf(stream)).delivery, timedOut)
      yield* record((yield* pendingOf(stream)).delivery, ok)
      assert.deepStrictEqual(yield* statsOf(stream), {
        ...nothing,
        lastDeliveredSequence: 3,
        attempts: 5,
        successRate: 2 / 5,
        failed: 1,
        lastError: "no answer within the delivery timeout",
        lastErrorAt: DateTime.add(created, { seconds: 3 })
      })
      assert.deepStrictEqual(yield* statsOf(quiet), nothing)
      // A delivery created later than PostgreSQL's now() is 0 seconds old, not less.
      yield* TestClock.adjust(Duration.hours(2))
      yield* enqueue(transfers(1, { from: 50, wallet: bob }))
      assert.deepStrictEqual(yield* statsOf(quiet), { ...nothing, pending: 1, oldestPendingAgeSeconds: 0 })
    })))
})
