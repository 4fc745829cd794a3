/**
 * Writes to a `PgStateStore` namespace's checkpoints made beside its engine (a service forgetting
 * wallets, or moving one left behind): each moves the namespace's count of them on, in the
 * writer's transaction. A store remembers the count when it first read the checkpoints, and refuses
 * a commit once it moved on (the engine reads the state again): a count of wallets at a block can
 * come out right after one was forgotten and another put there, the count of writes cannot.
 *
 * @internal
 */
import { Effect } from "effect"
import type { SqlClient, SqlError } from "effect/sql"

/** The namespace's count of outside writes (0 before the first). */
export const outsideWrites = (sql: SqlClient.SqlClient, namespace: string): Effect.Effect<bigint, SqlError.SqlError> =>
  Effect.map(
    sql<{ writes: string }>`SELECT writes::text FROM watch_outside_writes WHERE namespace = ${namespace}`,
    (rows) => BigInt(rows[0]?.writes ?? "0")
  )

/** Counts one more outside write of the namespace; run it in the write's transaction. */
export const noteOutsideWrite = (sql: SqlClient.SqlClient, namespace: string): Effect.Effect<void, SqlError.SqlError> =>
  Effect.asVoid(sql`INSERT INTO watch_outside_writes (namespace, writes) VALUES (${namespace}, 1)
    ON CONFLICT (namespace) DO UPDATE SET writes = watch_outside_writes.writes + 1`)
