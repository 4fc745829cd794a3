/**
 * The watcher's state (see `StateStore`) in PostgreSQL, for services that run the engine next to
 * their own tables: the same reads and the same one-transaction commit as the SQLite and memory
 * stores, over any `SqlClient` connected to PostgreSQL >= 14 (`@effect/sql-pg`'s `PgClient`).
 *
 * - Several engines share one database: each store has a `namespace`, and sees only its rows.
 *   A namespace belongs to one engine at a time (a service runs each as a cluster singleton).
 * - Its tables (`watch_*`) are created by migrations of its own (`effect/sql`'s Migrator, recorded
 *   in `chainquery_watch_migrations`), run when the layer is built, so they never collide with an
 *   application's migrations.
 * - `onCommit` runs inside the commit's transaction: what a service writes there (an outbox of the
 *   batch's events, say) is committed with the checkpoints, or not at all.
 * - Text sorts by bytes (`COLLATE "C"`), and positions are `bigint`, as in SQLite: every read
 *   comes back in the same order as the other stores', and a block past 2^63 - 1 is refused.
 *
 * @since 0.2.0
 */
import type { Chain } from "@chainquery/schema"
import { Clock, DateTime, Effect, Layer, Option } from "effect"
import { Migrator, SqlClient } from "effect/sql"
import { checkAdvanced } from "./internal/state/advance.js"
import { advanceMarks, type CheckpointRow, checkpointRowsOf, dropEmptyMarks, markWallets, marksMigration, mergeMarks } from "./internal/state/pgMarks.js"
import { noteOutsideWrite, outsideWrites } from "./internal/state/outsideWrites.js"
import { decodeEvents, decodePending, decodeSummaries, encodeEvents, encodePending, encodeSummaries, scopeOf, walletOf } from "./internal/state/stateCodecs.js"
import {
  type BackfillProgress,
  type Batch,
  type BlockEvents,
  type BlockHash,
  type Checkpoint,
  failure,
  refusedCommit,
  type LastBatch,
  StateStore,
  StateStoreError
} from "./StateStore.js"
import type { EvmWallet, WatchedWallet } from "./WatchedWallet.js"

/**
 * Options of a PostgreSQL store: its `namespace` (which engine's state it is), how many recent
 * blocks to keep per chain (default 256), and what to write in each commit's transaction.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import type { PgStateStore } from "@chainquery/watch"
 *
 * const options: PgStateStore.Options = { namespace: "scanner:eth", keepBlocks: 64, beforeWrite: () => Effect.void, onCommit: () => Effect.void }
 * ```
 * @since 0.2.0
 */
export interface Options {
  readonly namespace: string
  readonly keepBlocks?: number | undefined
  /**
   * Runs inside the transaction of every commit, after the batch is written and given its
   * sequence: its writes through the `SqlClient` (the store's) commit with the batch. A failure
   * rolls the whole commit back (a `StateStoreError`).
   */
  readonly onCommit?: ((batch: Batch, committed: LastBatch) => Effect.Effect<void, unknown, SqlClient.SqlClient>) | undefined
  /**
   * Runs first in the transaction of every commit, before anything is written: the place for the
   * locks a service takes around the state (so that its other writers take them in the same
   * order). A failure rolls the commit back (a `StateStoreError`).
   */
  readonly beforeWrite?: ((batch: Batch) => Effect.Effect<void, unknown, SqlClient.SqlClient>) | undefined
}

/** The store's migrations, run in order once per database. */
const migrations = Migrator.fromRecord({
  "1_watch_state": Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* sql`CREATE TABLE watch_checkpoints (
      namespace text COLLATE "C" NOT NULL, scope text COLLATE "C" NOT NULL, wallet text COLLATE "C" NOT NULL,
      position bigint NOT NULL, hash text, since bigint NOT NULL,
      PRIMARY KEY (namespace, scope, wallet))`
    yield* sql`CREATE TABLE watch_block_hashes (
      namespace text COLLATE "C" NOT NULL, chain text COLLATE "C" NOT NULL, number bigint NOT NULL, hash text NOT NULL,
      PRIMARY KEY (namespace, chain, number))`
    yield* sql`CREATE TABLE watch_block_events (
      namespace text COLLATE "C" NOT NULL, chain text COLLATE "C" NOT NULL, number bigint NOT NULL, hash text NOT NULL,
      events text NOT NULL, PRIMARY KEY (namespace, chain, number))`
    yield* sql`CREATE TABLE watch_defi_snapshots (
      namespace text COLLATE "C" NOT NULL, chain text COLLATE "C" NOT NULL, wallet text COLLATE "C" NOT NULL,
      block bigint NOT NULL, summaries text NOT NULL, PRIMARY KEY (namespace, chain, wallet))`
    yield* sql`CREATE TABLE watch_backfills (
      namespace text COLLATE "C" NOT NULL, chain text COLLATE "C" NOT NULL, wallet text COLLATE "C" NOT NULL,
      label text NOT NULL, origin bigint, through bigint, from_date bigint, up_to bigint NOT NULL, since bigint,
      PRIMARY KEY (namespace, chain, wallet))`
    yield* sql`CREATE TABLE watch_last_batch (
      namespace text COLLATE "C" PRIMARY KEY, sequence bigint NOT NULL, committed_at bigint NOT NULL,
      event_ids jsonb NOT NULL, pending jsonb NOT NULL DEFAULT '[]')`
  }),
  "2_outside_writes": Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* sql`CREATE TABLE watch_outside_writes (namespace text COLLATE "C" PRIMARY KEY, writes bigint NOT NULL)`
  }),
  // Wallets that stand together share a mark: an advance writes a row per mark, not per wallet.
  "3_checkpoint_marks": Effect.flatMap(SqlClient.SqlClient, marksMigration)
})

/**
 * Creates the store's tables (`watch_*`) if they are not there yet; building a store does it too.
 * Run it first when something reads the tables before any store is built (`PgCheckpoints`).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { PgStateStore } from "@chainquery/watch"
 *
 * const ready = PgStateStore.migrate // Effect<void, StateStoreError, SqlClient>
 * ```
 * @since 0.3.0
 */
export const migrate: Effect.Effect<void, StateStoreError, SqlClient.SqlClient> = Migrator.make({})({
  loader: migrations,
  table: "chainquery_watch_migrations"
}).pipe(Effect.asVoid, Effect.mapError((cause) => failure("open")(cause)))


const bigintOf = (value: unknown): bigint => BigInt(String(value))
const nullableBigint = (value: unknown): bigint | null => value === null || value === undefined ? null : bigintOf(value)
const int64Max = 2n ** 63n - 1n
/** `value` as text, refused (before anything is sent) when it does not fit PostgreSQL's bigint. */
const int64 = (value: bigint): string => {
  if (value > int64Max || value < -int64Max - 1n) throw new RangeError(`${value} does not fit a bigint`)
  return value.toString()
}

const checkpointOf = (row: CheckpointRow): Checkpoint => ({
  wallet: walletOf(row.scope, row.wallet),
  position: bigintOf(row.position),
  hash: row.hash,
  since: bigintOf(row.since)
})

/** A read's failure, as the store's. */
const read = <A, E>(effect: Effect.Effect<A, E>) => Effect.mapError(effect, failure("read"))

/** Rows as one JSON parameter. */
const json = (value: unknown): string => JSON.stringify(value)

/** The number of blocks to keep: a whole number, at least 1, 256 unless given. */
const keepBlocksOf = (wanted: number | undefined): number =>
  wanted !== undefined && Number.isFinite(wanted) ? Math.max(1, Math.floor(wanted)) : 256

/** The last entry per key, in the order of the keys' first appearance. */
const lastPerKey = <A>(entries: ReadonlyArray<A>, key: (entry: A) => string): Array<A> => Array.from(new Map(entries.map((entry) => [key(entry), entry])).values())

/** A batch's rows, as JSON arrays for `jsonb_to_recordset` (one statement per table, however many rows). */
const rowsOf = (batch: Batch) => {
  // Within one batch, as in SQLite's row-by-row upserts: a wallet's first `since`, its last position.
  const firstSince = new Map<string, string>()
  for (const { position, since, wallet } of batch.checkpoints ?? []) {
    const key = `${scopeOf(wallet)} ${wallet.address}`
    if (!firstSince.has(key)) firstSince.set(key, int64(since ?? position))
  }
  const checkpoints = lastPerKey(batch.checkpoints ?? [], ({ wallet }) => `${scopeOf(wallet)} ${wallet.address}`).map((c) => {
    const scope = scopeOf(c.wallet)
    return { scope, wallet: c.wallet.address, position: int64(c.position), hash: c.hash, since: firstSince.get(`${scope} ${c.wallet.address}`)! }
  })
  const advances = (batch.advances ?? []).map((advance) => ({ advance, from: int64(advance.from), to: int64(advance.to) }))
  const blocks = lastPerKey(batch.blocks ?? [], (b) => `${b.chain} ${b.number}`).map((b) => ({ chain: b.chain, number: int64(b.number), hash: b.hash }))
  const blockEvents = lastPerKey(batch.blockEvents ?? [], (b) => `${b.chain} ${b.number}`).map((b) => ({
    chain: b.chain,
    number: int64(b.number),
    hash: b.hash,
    events: b.events.length === 0 ? null : encodeEvents(b.events)
  }))
  const defi = lastPerKey(batch.defiSnapshots ?? [], (d) => `${d.wallet.chain} ${d.wallet.address}`).map((d) => ({
    chain: d.wallet.chain,
    wallet: d.wallet.address,
    block: int64(d.blockNumber),
    summaries: encodeSummaries(d.summaries)
  }))
  const backfills = lastPerKey(batch.backfills ?? [], (b) => `${b.wallet.chain} ${b.wallet.address}`).map((b) => ({
    chain: b.wallet.chain,
    wallet: b.wallet.address,
    label: b.label,
    origin: b.origin === null ? null : int64(b.origin),
    through: b.through === null ? null : int64(b.through),
    from_date: b.fromDate === null ? null : String(DateTime.toEpochMillis(b.fromDate)),
    up_to: int64(b.upTo),
    since: b.since === null ? null : int64(b.since)
  }))
  const forget = (batch.forgetBlocks ?? []).map((f) => ({ chain: f.chain, from_block: int64(f.fromBlock) }))
  const done = (batch.backfillsDone ?? []).map((wallet) => ({ chain: wallet.chain, wallet: wallet.address }))
  const pending = batch.pending?.map((event) => encodePending(event, batch.pendingPhase))
  return { advances, checkpoints, blocks, blockEvents, defi, backfills, forget, done, pending }
}

/**
 * A store of `namespace`'s state in the PostgreSQL database of the context's `SqlClient`, with
 * the store's tables migrated first.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { PgStateStore } from "@chainquery/watch"
 *
 * const program = Effect.gen(function*() {
 *   const store = yield* PgStateStore.make({ namespace: "scanner:eth" })
 *   return yield* store.checkpoints
 * })
 * ```
 * @since 0.2.0
 */
export const make = Effect.fnUntraced(function*(options: Options) {
  const sql = yield* SqlClient.SqlClient
  yield* migrate
  const ns = options.namespace
  const keepBlocks = keepBlocksOf(options.keepBlocks)
  const onCommit = options.onCommit
  const beforeWrite = options.beforeWrite
  // The outside writes counted when the checkpoints were first read since the last refusal (see
  // `internal/state/outsideWrites.ts`): the earliest view of the state anyone holds.
  let writesSeen: bigint | undefined
  // The marks found large and left apart when they met (see `mergeMarks`): not counted again at
  // each block they reach together.
  const marksApart = new Set<string>()

  const lastBatchRow = sql<{ sequence: string; committed_at: string; event_ids: ReadonlyArray<string> }>`
    SELECT sequence::text, committed_at::text, event_ids FROM watch_last_batch WHERE namespace = ${ns}`

  const write = (batch: Batch, now: number) =>
    Effect.gen(function*() {
      const rows = yield* Effect.try({ try: () => rowsOf(batch), catch: failure("commit") })
      if (beforeWrite !== undefined) yield* Effect.provideService(beforeWrite(batch), SqlClient.SqlClient, sql)
      const writes = yield* outsideWrites(sql, ns)
      if (writesSeen !== undefined && writes !== writesSeen) {
        writesSeen = undefined
        return yield* Effect.fail(refusedCommit("the checkpoints were changed beside the engine (wallets forgotten or moved); the state is read again"))
      }
      for (const { advance, from, to } of rows.advances) {
        const moved = yield* advanceMarks(sql, ns, advance.chain, from, to, advance.hash)
        yield* Effect.try({ try: () => checkAdvanced(advance, moved), catch: failure("commit") })
      }
      // Marks brought to one block (a wallet placed alone, now reached by the others) become one:
      // once per block reached (a cycle's advances all go to the block it scanned to).
      const reached = new Map(rows.advances.map(({ advance, to }) => [`${advance.chain} ${to}`, { chain: advance.chain, to }] as const))
      for (const { chain, to } of reached.values()) yield* mergeMarks(sql, ns, chain, to, marksApart)
      yield* markWallets(sql, ns, rows.checkpoints)
      for (const { chain, from_block } of rows.forget) {
        yield* sql`DELETE FROM watch_block_hashes WHERE namespace = ${ns} AND chain = ${chain} AND number >= ${from_block}::bigint`
        yield* sql`DELETE FROM watch_block_events WHERE namespace = ${ns} AND chain = ${chain} AND number >= ${from_block}::bigint`
      }
      if (rows.blocks.length > 0) {
        yield* sql`INSERT INTO watch_block_hashes (namespace, chain, number, hash)
          SELECT ${ns}, chain, number::bigint, hash FROM jsonb_to_recordset(${json(rows.blocks)}::jsonb) AS x(chain text, number text, hash text)
          ON CONFLICT (namespace, chain, number) DO UPDATE SET hash = excluded.hash`
        yield* prune("watch_block_hashes", new Set(rows.blocks.map((b) => b.chain)))
      }
      if (rows.blockEvents.length > 0) {
        const dropped = rows.blockEvents.filter((b) => b.events === null)
        const kept = rows.blockEvents.filter((b) => b.events !== null)
        if (dropped.length > 0) {
          yield* sql`DELETE FROM watch_block_events e USING jsonb_to_recordset(${json(dropped)}::jsonb) AS x(chain text, number text)
            WHERE e.namespace = ${ns} AND e.chain = x.chain AND e.number = x.number::bigint`
        }
        if (kept.length > 0) {
          yield* sql`INSERT INTO watch_block_events (namespace, chain, number, hash, events)
            SELECT ${ns}, chain, number::bigint, hash, events FROM jsonb_to_recordset(${json(kept)}::jsonb) AS x(chain text, number text, hash text, events text)
            ON CONFLICT (namespace, chain, number) DO UPDATE SET hash = excluded.hash, events = excluded.events`
        }
        yield* prune("watch_block_events", new Set(rows.blockEvents.map((b) => b.chain)))
      }
      if (rows.defi.length > 0) {
        yield* sql`INSERT INTO watch_defi_snapshots (namespace, chain, wallet, block, summaries)
          SELECT ${ns}, chain, wallet, block::bigint, summaries FROM jsonb_to_recordset(${json(rows.defi)}::jsonb) AS x(chain text, wallet text, block text, summaries text)
          ON CONFLICT (namespace, chain, wallet) DO UPDATE SET block = excluded.block, summaries = excluded.summaries`
      }
      if (rows.backfills.length > 0) {
        yield* sql`INSERT INTO watch_backfills (namespace, chain, wallet, label, origin, through, from_date, up_to, since)
          SELECT ${ns}, chain, wallet, label, origin::bigint, through::bigint, from_date::bigint, up_to::bigint, since::bigint
          FROM jsonb_to_recordset(${json(rows.backfills)}::jsonb)
            AS x(chain text, wallet text, label text, origin text, through text, from_date text, up_to text, since text)
          ON CONFLICT (namespace, chain, wallet) DO UPDATE SET label = excluded.label, origin = excluded.origin, through = excluded.through,
            from_date = excluded.from_date, up_to = excluded.up_to, since = excluded.since`
      }
      if (rows.done.length > 0) {
        yield* sql`DELETE FROM watch_backfills b USING jsonb_to_recordset(${json(rows.done)}::jsonb) AS x(chain text, wallet text)
          WHERE b.namespace = ${ns} AND b.chain = x.chain AND b.wallet = x.wallet`
      }
      const ids = json(batch.eventIds)
      const pending = rows.pending === undefined ? null : json(rows.pending)
      const [row] = yield* sql<{ sequence: string }>`
        INSERT INTO watch_last_batch (namespace, sequence, committed_at, event_ids, pending)
        VALUES (${ns}, 1, ${String(now)}::bigint, ${ids}::jsonb, COALESCE(${pending}::jsonb, '[]'::jsonb))
        ON CONFLICT (namespace) DO UPDATE SET sequence = watch_last_batch.sequence + 1, committed_at = excluded.committed_at,
          event_ids = excluded.event_ids, pending = COALESCE(${pending}::jsonb, watch_last_batch.pending)
        RETURNING sequence::text`
      const committed: LastBatch = { sequence: Number(row!.sequence), committedAt: DateTime.makeUnsafe(now), eventIds: [...batch.eventIds] }
      if (onCommit !== undefined) yield* Effect.provideService(onCommit(batch, committed), SqlClient.SqlClient, sql)
      return committed
    })

  /** Deletes the rows of each chain more than `keepBlocks` below its highest block. */
  const prune = (table: "watch_block_hashes" | "watch_block_events", chains: ReadonlySet<string>) =>
    Effect.forEach(chains, (chain) =>
      sql`DELETE FROM ${sql(table)} WHERE namespace = ${ns} AND chain = ${chain}
        AND number <= (SELECT MAX(number) FROM ${sql(table)} WHERE namespace = ${ns} AND chain = ${chain}) - ${keepBlocks}`, { discard: true })

  return StateStore.of({
    checkpoints: read(Effect.gen(function*() {
      // Counted before the checkpoints are read: a write in between makes the next commit refused, not missed.
      const writes = yield* outsideWrites(sql, ns)
      writesSeen ??= writes
      return yield* sql<CheckpointRow>`
        SELECT scope, wallet, position::text, hash, since::text FROM watch_checkpoints WHERE namespace = ${ns} ORDER BY scope, wallet`
    })).pipe(Effect.map((rows) => rows.map(checkpointOf))),

    checkpoint: (wallet) =>
      read(
        sql<CheckpointRow>`
          SELECT scope, wallet, position::text, hash, since::text FROM watch_checkpoints
          WHERE namespace = ${ns} AND scope = ${scopeOf(wallet)} AND wallet = ${wallet.address}`
      ).pipe(Effect.map((rows) => Option.map(Option.fromUndefinedOr(rows[0]), (row) => ({ ...checkpointOf(row), wallet })))),

    checkpointsOf: (wallets) =>
      read(checkpointRowsOf(sql, ns, wallets.map((wallet) => ({ scope: scopeOf(wallet), wallet: wallet.address })))).pipe(
        Effect.map((rows) => rows.map(checkpointOf))
      ),

    blockHashes: (chain: Chain.ChainId) =>
      read(sql<{ number: string; hash: string }>`
        SELECT h.number::text AS number, h.hash FROM watch_block_hashes h WHERE h.namespace = ${ns} AND h.chain = ${chain} ORDER BY h.number`).pipe(
          Effect.map((rows) => rows.map((row): BlockHash => ({ chain, number: bigintOf(row.number), hash: row.hash })))
        ),

    blockEvents: (chain: Chain.ChainId) =>
      read(sql<{ number: string; hash: string; events: string }>`
        SELECT e.number::text AS number, e.hash, e.events FROM watch_block_events e WHERE e.namespace = ${ns} AND e.chain = ${chain} ORDER BY e.number`).pipe(
          Effect.flatMap((rows) =>
            Effect.try({
              try: () => rows.map((row): BlockEvents => ({ chain, number: bigintOf(row.number), hash: row.hash, events: decodeEvents(row.events) })),
              catch: failure("read")
            })
          )
        ),

    defiSnapshot: (wallet: EvmWallet) =>
      read(sql<{ block: string; summaries: string }>`
        SELECT block::text, summaries FROM watch_defi_snapshots WHERE namespace = ${ns} AND chain = ${wallet.chain} AND wallet = ${wallet.address}`).pipe(
          Effect.flatMap((rows) =>
            Effect.try({
              try: () => Option.map(Option.fromUndefinedOr(rows[0]), (row) => ({ wallet, blockNumber: bigintOf(row.block), summaries: decodeSummaries(row.summaries) })),
              catch: failure("read")
            })
          )
        ),

    pendingEvents: read(sql<{ pending: ReadonlyArray<string> }>`SELECT pending FROM watch_last_batch WHERE namespace = ${ns}`).pipe(
      Effect.flatMap((rows) => Effect.try({ try: () => (rows[0]?.pending ?? []).map((text) => decodePending(text)), catch: failure("read") }))
    ),

    backfills: read(
      sql<{ chain: string; wallet: string; label: string; origin: string | null; through: string | null; from_date: string | null; up_to: string; since: string | null }>`
        SELECT chain, wallet, label, origin::text, through::text, from_date::text, up_to::text, since::text
        FROM watch_backfills WHERE namespace = ${ns} ORDER BY chain, wallet`
    ).pipe(Effect.map((rows) =>
      rows.map((row): BackfillProgress => ({
        wallet: walletOf(row.chain, row.wallet) as EvmWallet,
        label: row.label,
        origin: nullableBigint(row.origin),
        through: nullableBigint(row.through),
        fromDate: row.from_date === null ? null : DateTime.makeUnsafe(Number(row.from_date)),
        upTo: bigintOf(row.up_to),
        since: nullableBigint(row.since)
      }))
    )),

    clearPending: sql`UPDATE watch_last_batch SET pending = '[]'::jsonb WHERE namespace = ${ns}`.pipe(Effect.asVoid, Effect.mapError(failure("commit"))),

    settle: (sequence) =>
      sql`UPDATE watch_last_batch SET pending = '[]'::jsonb WHERE namespace = ${ns} AND sequence = ${String(sequence)}::bigint`.pipe(
        Effect.asVoid,
        Effect.mapError(failure("commit"))
      ),

    lastBatch: read(lastBatchRow).pipe(Effect.map((rows) =>
      Option.map(Option.fromUndefinedOr(rows[0]), (row): LastBatch => ({
        sequence: Number(row.sequence),
        committedAt: DateTime.makeUnsafe(Number(row.committed_at)),
        eventIds: [...row.event_ids]
      }))
    )),

    commit: (batch) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => sql.withTransaction(write(batch, now))).pipe(
        Effect.mapError((error) => error instanceof StateStoreError ? error : failure("commit")(error))
      )
  })
})

/**
 * Forgets where `namespace`'s engine read `wallets` up to (their checkpoints and DeFi snapshots),
 * for wallets it no longer watches: added again later, they start afresh from the head instead of
 * going on from where they stopped. The engine's next commit, planned before, is refused and it
 * reads the state again, so that a cycle that was still reading them cannot move a checkpoint put
 * where theirs were. Run it under a lock the engine's commits take first (`beforeWrite`), so that
 * it never lands in the middle of one; a backfill's refused commit is no refusal of the engine's.
 *
 * @example
 * ```ts
 * import type { WatchedWallet } from "@chainquery/watch"
 * import { PgStateStore } from "@chainquery/watch"
 *
 * declare const removed: ReadonlyArray<WatchedWallet.WatchedWallet>
 * const forgotten = PgStateStore.forget("scanner:eth", removed)
 * ```
 * @since 0.2.0
 */
export const forget = (
  namespace: string,
  wallets: ReadonlyArray<WatchedWallet>
): Effect.Effect<void, StateStoreError, SqlClient.SqlClient> =>
  Effect.gen(function*() {
    if (wallets.length === 0) return
    const sql = yield* SqlClient.SqlClient
    const rows = json(wallets.map((wallet) => ({ scope: scopeOf(wallet), wallet: wallet.address })))
    yield* sql.withTransaction(Effect.gen(function*() {
      const deleted = yield* sql<{ scope: string }>`DELETE FROM watch_wallets c USING jsonb_to_recordset(${rows}::jsonb) AS x(scope text, wallet text)
        WHERE c.namespace = ${namespace} AND c.scope = x.scope AND c.wallet = x.wallet RETURNING c.scope`
      if (deleted.length > 0) {
        yield* noteOutsideWrite(sql, namespace)
        yield* dropEmptyMarks(sql, namespace, [...new Set(deleted.map((row) => row.scope))])
      }
      yield* sql`DELETE FROM watch_defi_snapshots d USING jsonb_to_recordset(${rows}::jsonb) AS x(scope text, wallet text)
        WHERE d.namespace = ${namespace} AND d.chain = x.scope AND d.wallet = x.wallet`
    }))
  }).pipe(Effect.mapError(failure("commit")))

/**
 * The state store of `options.namespace` in PostgreSQL, through the context's `SqlClient`; its
 * tables are migrated when the layer is built.
 *
 * @example
 * ```ts
 * import { PgClient } from "@effect/sql-pg"
 * import { Layer, Redacted } from "effect"
 * import { PgStateStore } from "@chainquery/watch"
 *
 * const state = PgStateStore.layer({ namespace: "scanner:eth" }).pipe(
 *   Layer.provide(PgClient.layer({ url: Redacted.make("postgres://localhost/watch") }))
 * )
 * ```
 * @since 0.2.0
 */
export const layer = (options: Options): Layer.Layer<StateStore, StateStoreError, SqlClient.SqlClient> => Layer.effect(StateStore, make(options))
