/**
 * A scan's lock (the advisory lock a scan's commit takes first, `Coverage.lockScans`) held by a
 * test, and the wait of another session for it seen in `pg_stat_activity`: to prove that a writer
 * waits for a scan's commit without racing on time.
 */
import { Deferred, Effect, Schedule } from "effect"
import { SqlClient } from "effect/sql"
import * as Coverage from "../../src/store/Coverage.js"

/** Runs `inside` in a transaction that first takes the scan's lock (of "0x1" at 0 confirmations), as a scan's commit does; its fiber, once the lock is held. */
export const underScanLock = <A, E, R>(inside: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const locked = yield* Deferred.make<void>()
    const fiber = yield* Effect.forkChild(sql.withTransaction(Effect.gen(function*() {
      yield* Coverage.lockScans(["0x1"], 0)
      yield* Deferred.succeed(locked, undefined)
      return yield* inside
    })))
    yield* Deferred.await(locked)
    return fiber
  })

/** Succeeds once a session of the test's database waits for an advisory lock (a scan's); fails after 30 s. */
export const waitingForScanLock = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql<{ waiting: number }>`SELECT count(*)::int AS waiting FROM pg_stat_activity
    WHERE datname = current_database() AND wait_event_type = 'Lock' AND wait_event = 'advisory'`.pipe(
    Effect.flatMap(([row]) => (row?.waiting ?? 0) > 0 ? Effect.void : Effect.fail("not waiting yet")),
    Effect.retry(Schedule.spaced("20 millis")),
    Effect.timeout("30 seconds")
  ))
