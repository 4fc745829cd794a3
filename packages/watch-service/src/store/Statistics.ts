/**
 * PostgreSQL's statistics of the service's wallet tables, kept fresh after bulk additions, so
 * that the queries joining them (the scans' lowest checkpoint above all) keep their plans.
 *
 * @since 0.3.0
 */
import { Cause, Effect, FiberSet, type Scope } from "effect"
import { SqlClient } from "effect/sql"

/**
 * The fewest wallets stored at once after which {@link refreshStatistics} is worth its cost.
 *
 * @example
 * ```ts
 * import { Statistics } from "@chainquery/watch-service"
 *
 * const worthIt = (added: number) => added >= Statistics.bulkWallets
 * ```
 * @since 0.3.0
 */
export const bulkWallets = 1_000

/**
 * Refreshes PostgreSQL's statistics of the wallets and checkpoints tables after `added` wallets
 * were stored at once, when they are many (1,000 or more) and a quarter or more of what the
 * statistics counted. Planned with the counts of before a bulk addition, the scans' lowest
 * checkpoint is read with a nested loop over both tables: minutes at 100,000 wallets, where a
 * hash join takes milliseconds (autovacuum catches up too, but a minute or so later). A failure
 * is only logged (an interruption is not a failure); a table the service's user does not own is skipped by PostgreSQL with a notice.
 *
 * @example
 * ```ts
 * import { Statistics } from "@chainquery/watch-service"
 *
 * const refreshed = Statistics.refreshStatistics(10_000) // Effect<void, never, SqlClient>
 * ```
 * @since 0.3.0
 */
export const refreshStatistics = (added: number): Effect.Effect<void, never, SqlClient.SqlClient> =>
  added < bulkWallets ? Effect.void : Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const [counted] = yield* sql<{ rows: number }>`SELECT greatest(reltuples, 0)::float8 AS rows FROM pg_class WHERE oid = 'stream_wallets'::regclass`
    if (added * 4 < (counted?.rows ?? 0)) return
    yield* sql`ANALYZE stream_wallets, watch_wallets, watch_marks`
  }).pipe(
    // Stopped with the service (see `ApiHandlers`: a request does not wait for it) is no failure to tell.
    Effect.catchCause((cause) =>
      Cause.hasInterruptsOnly(cause)
        ? Effect.interrupt
        : Effect.logWarning(`cannot refresh the statistics of the wallets' tables: ${Cause.pretty(cause)}`)
    )
  )

/**
 * Refreshes the statistics after bulk additions without holding up their answers: one refresh at
 * a time, in the background for as long as the scope is open; additions while one runs make one
 * more after it (for the largest of them), not one each, so that ten bulk requests in a row do not
 * queue ten `ANALYZE`s, each holding a connection of the pool.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Statistics } from "@chainquery/watch-service"
 *
 * const program = Effect.gen(function*() {
 *   const refresh = yield* Statistics.refresher
 *   yield* refresh(10_000) // returns at once
 * })
 * ```
 * @since 0.5.0
 */
export const refresher: Effect.Effect<(added: number) => Effect.Effect<void>, never, SqlClient.SqlClient | Scope.Scope> = Effect.gen(
  function*() {
    const context = yield* Effect.context<SqlClient.SqlClient>()
    const background = yield* FiberSet.make()
    /** Whether one runs, and the most wallets added at once since it started (0: none). */
    let running = false
    let owed = 0
    const drain = (added: number): Effect.Effect<void> =>
      Effect.gen(function*() {
        for (let next = added; next > 0;) {
          yield* Effect.provideContext(refreshStatistics(next), context)
          next = owed
          owed = 0
        }
        running = false
      })
    return (added) =>
      added < bulkWallets ? Effect.void : Effect.suspend(() => {
        if (running) {
          owed = Math.max(owed, added)
          return Effect.void
        }
        running = true
        return Effect.asVoid(FiberSet.run(background, drain(added)))
      })
  }
)
