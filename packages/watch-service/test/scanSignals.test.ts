/**
 * The runner's scan signals (`ScanSignals`), over a real PostgreSQL: the wallets' version and the
 * scopes owing histories are read once an interval for every scanner and history reader of the
 * runner (not once each), a change of the wallets is told as soon as it is read (not an interval
 * later), only the scopes with histories of active streams owe; a version read that fails keeps
 * the last (nothing is known to have changed: a waiter waits, it does not spin), and a history read
 * that fails has every scope looked at until one succeeds.
 */
import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect, Fiber, Layer, Ref } from "effect"
import { SqlClient } from "effect/sql"
import { alice } from "../../watch/test/fixtures.js"
import { ServiceConfig } from "../src/model/ServiceConfig.js"
import { ScanSignals } from "../src/scan/ScanSignals.js"
import * as HistoryStore from "../src/store/HistoryStore.js"
import { StreamStore } from "../src/store/StreamStore.js"
import { config } from "./support/clockedStores.js"
import { carol, evm, makeStream, storeLayer } from "./support/storeFixtures.js"

const interval = Duration.millis(100)

/**
 * The signals over the test's stores, at `interval`, with the wallets' version read through
 * `reads` (counted) and failing while `down` holds.
 */
const signalsOver = (reads: Ref.Ref<number>, down: Ref.Ref<boolean>) =>
  ScanSignals.layer.pipe(
    Layer.provide(Layer.effect(
      StreamStore,
      Effect.map(StreamStore, (streams) => ({
        ...streams,
        walletsVersion: Effect.andThen(
          Ref.update(reads, (n) => n + 1),
          Effect.flatMap(Ref.get(down), (isDown) => isDown ? Effect.die(new Error("the database is down")) : streams.walletsVersion)
        )
      }))
    )),
    Layer.provide(Layer.succeed(ServiceConfig, config({ interval })))
  )

/** Runs `self` with the signals built over the test's own database; `reads` and `down` as in `signalsOver`. */
const withSignals = <A, E>(self: (controls: { readonly reads: Ref.Ref<number>; readonly down: Ref.Ref<boolean> }) => Effect.Effect<A, E, ScanSignals | StreamStore | SqlClient.SqlClient>) =>
  Effect.gen(function*() {
    const reads = yield* Ref.make(0)
    const down = yield* Ref.make(false)
    return yield* self({ reads, down }).pipe(Effect.provide(signalsOver(reads, down)))
  }).pipe(Effect.provide(storeLayer), Effect.orDie)

/** Waits, in real time, until `check` holds (at most 20 s: generous for a loaded machine). */
const eventually = (what: string, check: Effect.Effect<boolean>) =>
  Effect.gen(function*() {
    const deadline = Date.now() + 20_000
    while (!(yield* check)) {
      if (Date.now() > deadline) return yield* Effect.die(new Error(`timed out waiting for ${what}`))
      yield* Effect.sleep(Duration.millis(20))
    }
  })

describe("ScanSignals", () => {
  it.live("27 scanners waiting on the wallets' version cost one read an interval, not one each", () =>
    withSignals(({ reads }) =>
      Effect.gen(function*() {
        const signals = yield* ScanSignals
        const looks = yield* Ref.make(0)
        // As many waiters as a runner has scopes, each looking every interval.
        const waiter = Effect.gen(function*() {
          const seen = yield* signals.walletsVersion
          yield* signals.walletsChange(seen, interval)
          yield* Ref.update(looks, (n) => n + 1)
        }).pipe(Effect.forever)
        yield* Effect.forEach(Array.from({ length: 27 }), () => Effect.forkScoped(waiter), { discard: true })
        const before = yield* Ref.get(reads)
        yield* eventually("the waiters to look 270 times", Effect.map(Ref.get(looks), (n) => n >= 270))
        const read = (yield* Ref.get(reads)) - before
        // 270 looks are about 10 intervals: about 10 reads (each waiter alone would have made 270).
        assert.isAtMost(read, 40, `${read} reads of the wallets' version for 270 looks`)
      }).pipe(Effect.scoped)
    ))

  it.live("a change of the wallets is told as soon as it is read, not when the wait ends", () =>
    withSignals(() =>
      Effect.gen(function*() {
        const signals = yield* ScanSignals
        const id = yield* makeStream([])
        const seen = yield* signals.walletsVersion
        assert.isDefined(seen)
        const waiting = yield* Effect.forkScoped(signals.walletsChange(seen, Duration.minutes(10)))
        yield* Effect.flatMap(StreamStore, (streams) => streams.addWallets(id, [evm(alice)]))
        const told = yield* Effect.timeoutOption(Fiber.join(waiting), Duration.seconds(20))
        assert.isTrue(told._tag === "Some", "the waiter was not told of the change within 20 s")
        const now = yield* signals.walletsVersion
        assert.notStrictEqual(now, seen)
        // Asked with an old version, the answer comes at once.
        assert.strictEqual(yield* signals.walletsChange(seen, Duration.minutes(10)), now)
      }).pipe(Effect.scoped)
    ))

  it.live("only scopes with histories of active streams owe; a paused stream's stop owing at the next read", () =>
    withSignals(() =>
      Effect.gen(function*() {
        const signals = yield* ScanSignals
        const streams = yield* StreamStore
        const sql = yield* SqlClient.SqlClient
        const id = yield* makeStream([evm(alice)])
        yield* makeStream([evm(carol, "0x89")])
        yield* sql.withTransaction(HistoryStore.plan(id, [{ wallet: evm(alice), from: 100n, coveredFrom: 200n }]))
        yield* eventually("eth to owe", signals.historyOwed("0x1"))
        assert.isFalse(yield* signals.historyOwed("0x89"), "polygon has a stream but no history owed")
        yield* streams.setStatus(id, "paused", null)
        yield* eventually("eth to owe nothing once its stream is paused", Effect.map(signals.historyOwed("0x1"), (owes) => !owes))
      }).pipe(Effect.scoped)
    ))

  it.live("a version read that fails keeps the last one (a waiter waits, it does not spin); a history read that fails has every scope looked at", () =>
    withSignals(({ down }) =>
      Effect.gen(function*() {
        const signals = yield* ScanSignals
        const sql = yield* SqlClient.SqlClient
        assert.isFalse(yield* signals.historyOwed("0x1"))
        const seen = yield* signals.walletsVersion
        assert.isDefined(seen)
        yield* Ref.set(down, true)
        // Five waits of an interval each, the reads failing all along: at least five intervals.
        const started = Date.now()
        for (let i = 0; i < 5; i++) {
          assert.strictEqual(yield* signals.walletsChange(seen, interval), seen, "a failed read is no change")
        }
        assert.isAtLeast(Date.now() - started, 5 * Duration.toMillis(interval) - 20, "the waits returned at once")
        yield* Ref.set(down, false)
        // The histories' table gone for a while: every scope is read, as if it owed.
        yield* sql`ALTER TABLE stream_history RENAME TO stream_history_away`
        yield* eventually("every scope to be looked at", signals.historyOwed("0x1"))
        assert.isTrue(yield* signals.historyOwed("0x89"))
        assert.strictEqual(yield* signals.walletsVersion, seen)
        yield* sql`ALTER TABLE stream_history_away RENAME TO stream_history`
        yield* eventually("the scopes owing nothing to be known again", Effect.map(signals.historyOwed("0x1"), (owes) => !owes))
      }).pipe(Effect.scoped)
    ))
})
