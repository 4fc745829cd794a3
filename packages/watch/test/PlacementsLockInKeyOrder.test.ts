/**
 * `PgCheckpoints.place` writes the rows of its wallets in key order, whatever order it is given
 * them in, so that two placements of overlapping wallets at once take their row locks in one
 * order and cannot deadlock (each waits for the other instead). On a real PostgreSQL, with every
 * step gated on what the server shows: a third transaction holds one row until both placements
 * are seen waiting, then lets go.
 */
import { assert, describe, it } from "@effect/vitest"
import { Cause, Deferred, Effect, Exit, Fiber, Schedule } from "effect"
import { SqlClient } from "effect/sql"
import { PgCheckpoints, PgStateStore, type WatchedWallet } from "../src/index.js"
import { freshDatabase } from "./support/postgres.js"

const namespace = "scan:0x1:0"
const at = (byte: string): WatchedWallet.EvmWallet => ({ family: "evm", chain: "0x1", address: `0x${byte.repeat(20)}` as WatchedWallet.EvmWallet["address"] })
// In key order: b, c, d.
const b = at("bb")
const c = at("cc")
const d = at("dd")

/** An error's message with those of its causes (where PostgreSQL's own words are). */
const messages = (error: unknown): string =>
  error instanceof Error ? [error.message, messages(error.cause)].filter((message) => message !== "").join(" <- ") : ""

/** Succeeds once `sessions` sessions of the test's database wait for a lock; fails after 30 s. */
const waitingForLocks = (sessions: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ waiting: number }>`SELECT count(*)::int AS waiting FROM pg_stat_activity
      WHERE datname = current_database() AND wait_event_type = 'Lock'`.pipe(
      Effect.flatMap(([row]) => (row?.waiting ?? 0) >= sessions ? Effect.void : Effect.fail("not waiting yet")),
      Effect.retry(Schedule.spaced("20 millis")),
      Effect.timeout("30 seconds")
    ))

describe("PgCheckpoints.place at once", () => {
  it.live("two placements of overlapping wallets, given in different orders, take their rows in key order: neither deadlocks", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* PgStateStore.make({ namespace }) // the tables
      // A transaction inserts d's row (naming no mark) and holds it until `release`, then rolls back.
      const holding = yield* Deferred.make<void>()
      const release = yield* Deferred.make<void>()
      const holder = yield* Effect.forkChild(Effect.flip(sql.withTransaction(Effect.gen(function*() {
        yield* sql`INSERT INTO watch_wallets (namespace, scope, wallet, mark, since) VALUES (${namespace}, '0x1', ${d.address}, 0, 1)`
        yield* Deferred.succeed(holding, undefined)
        yield* Deferred.await(release)
        return yield* Effect.fail("rolled back")
      }))))
      yield* Deferred.await(holding)
      // The first placement (b, d, c) waits for d; in key order it holds b and c by then.
      const first = yield* Effect.forkChild(Effect.exit(sql.withTransaction(PgCheckpoints.place(namespace, [b, d, c], 5n))))
      yield* waitingForLocks(1)
      // The second (c, b) waits for the first: in key order at b, holding nothing.
      const second = yield* Effect.forkChild(Effect.exit(sql.withTransaction(PgCheckpoints.place(namespace, [c, b], 7n))))
      yield* waitingForLocks(2)
      yield* Deferred.succeed(release, undefined)
      assert.strictEqual(yield* Fiber.join(holder), "rolled back")
      for (const [name, fiber] of [["first", first], ["second", second]] as const) {
        const exit = yield* Fiber.join(fiber)
        assert.isTrue(Exit.isSuccess(exit), `the ${name} placement: ${Exit.isFailure(exit) ? messages(Cause.squash(exit.cause)) : "placed"}`)
      }
      const rows = yield* sql<{ wallet: string; position: string }>`SELECT wallet, position::text FROM watch_checkpoints WHERE namespace = ${namespace} ORDER BY wallet`
      assert.deepStrictEqual(rows.map((row) => [row.wallet, row.position]), [[b.address, "5"], [c.address, "5"], [d.address, "5"]], "the first placement's rows, kept")
    }).pipe(Effect.provide(freshDatabase), Effect.orDie), 60_000)
})
