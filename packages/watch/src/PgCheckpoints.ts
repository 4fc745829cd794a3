/**
 * Where the wallets of a `PgStateStore` namespace stand, for a service that runs beside its
 * engine: the lowest checkpoint (every event of every wallet up to it is committed), and the
 * first checkpoint of wallets about to be watched, written before the engine sees them so that the
 * service can tell from which block each is covered. Both run on the context's `SqlClient`, inside
 * the caller's transaction if there is one; the store's tables must exist (`PgStateStore.migrate`).
 *
 * @since 0.3.0
 */
import { Effect, Option } from "effect"
import { SqlClient, type Statement } from "effect/sql"
import { noteOutsideWrite } from "./internal/state/outsideWrites.js"
import { checkpointRowsOf, markWallets } from "./internal/state/pgMarks.js"
import { failure as failed, type StateStoreError } from "./StateStore.js"
import { scopeOf, type WatchedWallet } from "./WatchedWallet.js"


/**
 * The lowest checkpoint of `namespace` in `scope` (an EVM chain id, or `aptos:<network>`): every
 * wallet there has all its events up to that block (Aptos: ledger version) committed. `among`
 * limits it to some wallets (a wallet the engine stopped watching keeps its checkpoint where it
 * was until it is forgotten): a query of their addresses, or a condition on a checkpoint's
 * `wallet` column (since 0.5.0), which can look each one up where a list would be read whole.
 * `None` when no such wallet has a checkpoint.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { SqlClient, type Statement } from "effect/sql"
 * import { PgCheckpoints } from "@chainquery/watch"
 *
 * const coveredTo = Effect.flatMap(SqlClient.SqlClient, (sql) =>
 *   PgCheckpoints.frontier("scan:0x1:0", "0x1", sql`SELECT address FROM my_wallets`)
 * ) // Effect<Option<bigint>, StateStoreError, SqlClient>
 * ```
 * @since 0.3.0
 */
export const frontier = (
  namespace: string,
  scope: string,
  among?: Statement.Fragment | ((wallet: Statement.Fragment) => Statement.Fragment)
): Effect.Effect<Option.Option<bigint>, StateStoreError, SqlClient.SqlClient> =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    // By mark: a few rows however many wallets stand there.
    const [row] = yield* sql<{ lowest: string | null }>`SELECT min(m.position)::text AS lowest FROM watch_marks m
      WHERE m.namespace = ${namespace} AND m.scope = ${scope}
        AND EXISTS (SELECT 1 FROM watch_wallets w WHERE w.namespace = m.namespace AND w.scope = m.scope AND w.mark = m.id)`
    if (row?.lowest === null || row?.lowest === undefined) return Option.none()
    if (among === undefined) return Option.some(BigInt(row.lowest))
    const held = typeof among === "function" ? among(sql.literal("wallet")) : sql`wallet IN (${among})`
    // Most often a wallet of `among` stands at the lowest of all: one look, not a join of them all.
    const [there] = yield* sql<{ found: boolean }>`SELECT EXISTS (SELECT 1 FROM watch_checkpoints
      WHERE namespace = ${namespace} AND scope = ${scope} AND position = ${row.lowest}::bigint AND ${held}) AS found`
    if (there?.found === true) return Option.some(BigInt(row.lowest))
    const [lowest] = yield* sql<{ lowest: string | null }>`SELECT min(position)::text AS lowest FROM watch_checkpoints
      WHERE namespace = ${namespace} AND scope = ${scope} AND ${held}`
    return lowest?.lowest === null || lowest?.lowest === undefined ? Option.none() : Option.some(BigInt(lowest.lowest))
  }).pipe(Effect.mapError(failed("read")))

/** A wallet's key in the store: its scope and address. */
const keyOf = (wallet: WatchedWallet): string => `${scopeOf(wallet)} ${wallet.address}`

/**
 * Gives each of `wallets` that has no checkpoint in `namespace` its first one, at `position`
 * (reporting what comes after it), and answers every wallet's checkpoint, in order: the one it
 * had, or `position`. The engine of the namespace, once it watches them, reads them from there.
 * Run it under a lock the engine's commits take first (`PgStateStore`'s `beforeWrite`).
 *
 * @example
 * ```ts
 * import type { WatchedWallet } from "@chainquery/watch"
 * import { PgCheckpoints } from "@chainquery/watch"
 *
 * declare const added: ReadonlyArray<WatchedWallet.WatchedWallet>
 * const placed = PgCheckpoints.place("scan:0x1:0", added, 21_000_000n) // Effect<ReadonlyArray<bigint>, …>
 * ```
 * @since 0.3.0
 */
export const place = (
  namespace: string,
  wallets: ReadonlyArray<WatchedWallet>,
  position: bigint
): Effect.Effect<ReadonlyArray<bigint>, StateStoreError, SqlClient.SqlClient> =>
  Effect.gen(function*() {
    if (wallets.length === 0) return []
    const sql = yield* SqlClient.SqlClient
    // In key order: two placements of overlapping wallets take their row locks in the same order.
    const rows = sortedRows(wallets)
    const at = position.toString()
    const there = yield* markWallets(sql, namespace, rows.map((row) => ({ ...row, position: at, hash: null, since: at })), "new")
    // Those that had a checkpoint keep it, read back (nothing is read when all were new).
    const had = there.length === 0 ? new Map<string, bigint>() : yield* known(sql, namespace, there)
    return wallets.map((wallet) => had.get(keyOf(wallet)) ?? position)
  }).pipe(Effect.mapError(failed("commit")))

/**
 * Moves the checkpoints of `wallets` that stand behind `position` up to it (what they missed in
 * between is not read): for wallets the engine stopped watching, whose checkpoints were left where
 * it stopped, given to someone again. The engine's next commit, planned before, is refused and it
 * reads the state again (see `PgStateStore.forget`, and run it under the same lock). Answers how
 * many moved.
 *
 * @example
 * ```ts
 * import type { WatchedWallet } from "@chainquery/watch"
 * import { PgCheckpoints } from "@chainquery/watch"
 *
 * declare const leftBehind: ReadonlyArray<WatchedWallet.WatchedWallet>
 * const moved = PgCheckpoints.raise("scan:0x1:0", leftBehind, 21_000_000n) // Effect<number, …>
 * ```
 * @since 0.3.0
 */
export const raise = (
  namespace: string,
  wallets: ReadonlyArray<WatchedWallet>,
  position: bigint
): Effect.Effect<number, StateStoreError, SqlClient.SqlClient> =>
  Effect.gen(function*() {
    if (wallets.length === 0) return 0
    const sql = yield* SqlClient.SqlClient
    const rows = sortedRows(wallets)
    const had = yield* known(sql, namespace, rows)
    const behind = rows.filter((row) => (had.get(`${row.scope} ${row.wallet}`) ?? position) < position)
    if (behind.length === 0) return 0
    yield* noteOutsideWrite(sql, namespace)
    const at = position.toString()
    // Each keeps its `since` (it is there already); one moved past the block meanwhile stays.
    yield* markWallets(sql, namespace, behind.map((row) => ({ ...row, position: at, hash: null, since: at })), "behind")
    return behind.length
  }).pipe(Effect.mapError(failed("commit")))

/** The checkpoints the wallets of `asked` have in `namespace`, by key. */
const known = (sql: SqlClient.SqlClient, namespace: string, asked: ReadonlyArray<{ readonly scope: string; readonly wallet: string }>) =>
  Effect.map(checkpointRowsOf(sql, namespace, asked), (rows) => new Map(rows.map((row) => [`${row.scope} ${row.wallet}`, BigInt(row.position)])))

/** `wallets` as rows of the store, once each, in key order. */
const sortedRows = (wallets: ReadonlyArray<WatchedWallet>) => {
  const byKey = new Map(wallets.map((wallet) => [keyOf(wallet), wallet]))
  return [...byKey.keys()].toSorted().map((key) => {
    const wallet = byKey.get(key)!
    return { scope: scopeOf(wallet), wallet: wallet.address }
  })
}
