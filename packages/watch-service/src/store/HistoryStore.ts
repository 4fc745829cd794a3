/**
 * The history of wallets added to a stream with one (`from`): per wallet, from which block and up
 * to which (the block before its live coverage starts, so that history and live events meet with
 * no gap and no repeat), and up to which block it was committed to the stream's outbox. Each
 * slice read (`HistoryScan`) is committed in one transaction with the stream's next events and
 * batches, flagged `phase: "history"`, the last of them stating the wallet's range it accounts for
 * (`history`), and the wallet's progress: a crash at any moment leaves both or neither, and a
 * runner that reads the wallet again goes on from the last block committed. History batches take
 * their sequences as they come, between the live ones: a long history never holds live batches
 * back.
 *
 * @since 0.5.0
 */
import { type WatchedWallet, WatchEvent } from "@chainquery/watch"
import { DateTime, Effect } from "effect"
import { SqlClient, type SqlError } from "effect/sql"
import type { Scope } from "../model/Scopes.js"
import { scopeOfWallet } from "../model/Scopes.js"
import { addressBytes } from "./sqlAddress.js"
import { announce } from "./Coverage.js"
import { cut, newDeliveryId, type NewDelivery, writeDeliveries } from "./Outbox.js"
import * as StreamFilters from "../model/StreamFilters.js"

/**
 * One wallet's history in a stream: from `fromBlock` to `upTo` (both included), committed up to
 * `through` (`fromBlock - 1` before the first slice), with how many events so far; done once
 * `through` is `upTo`.
 *
 * @example
 * ```ts
 * import type { HistoryStore } from "@chainquery/watch-service"
 *
 * const left = (job: HistoryStore.Job) => job.upTo - job.through
 * ```
 * @since 0.5.0
 */
export interface Job {
  readonly streamId: string
  readonly scope: Scope
  readonly address: string
  readonly fromBlock: bigint
  readonly upTo: bigint
  readonly through: bigint
  readonly events: number
  readonly done: boolean
  /** An Aptos history: whether its listing reached `fromBlock` (its events are staged, see {@link stage}). */
  readonly staged: boolean
}

interface JobRow {
  readonly stream_id: string
  readonly scope: string
  readonly address: string
  readonly from_block: string
  readonly up_to: string
  readonly through: string
  readonly events: string
  readonly done: boolean
  readonly staged: boolean
}

const jobOf = (row: JobRow): Job => ({
  streamId: row.stream_id,
  scope: row.scope,
  address: row.address,
  fromBlock: BigInt(row.from_block),
  upTo: BigInt(row.up_to),
  through: BigInt(row.through),
  events: Number(row.events),
  done: row.done,
  staged: row.staged
})

const jobColumns = "stream_id, scope, address, from_block::text, up_to::text, through::text, events::text, done_at IS NOT NULL AS done, staged"

/**
 * Records the history owed for `wallets` of a stream (each from its `from`, up to the block before
 * its `coveredFrom`; none when `from` is not before it), and marks them to be announced again with
 * where their history starts. A wallet that has a history in the stream already keeps it. Run it
 * in the transaction that admits the wallets, the stream's row locked. Answers, per wallet, the
 * history it has (`undefined`: none).
 *
 * @example
 * ```ts
 * import type { WatchedWallet } from "@chainquery/watch"
 * import { HistoryStore } from "@chainquery/watch-service"
 *
 * declare const wallet: WatchedWallet.WatchedWallet
 * const planned = HistoryStore.plan("str_0mwxp89sc8710d9595292", [{ wallet, from: 18_000_000n, coveredFrom: 18_000_200n }])
 * ```
 * @since 0.5.0
 */
export const plan = (
  streamId: string,
  wallets: ReadonlyArray<{ readonly wallet: WatchedWallet.WatchedWallet; readonly from: bigint; readonly coveredFrom: bigint }>
): Effect.Effect<ReadonlyArray<{ readonly from: bigint; readonly to: bigint } | undefined>, SqlError.SqlError, SqlClient.SqlClient> =>
  Effect.gen(function*() {
    if (wallets.length === 0) return []
    const sql = yield* SqlClient.SqlClient
    const at = DateTime.formatIso(yield* DateTime.now)
    const owed = wallets.filter((entry) => entry.from < entry.coveredFrom).map((entry) => ({
      scope: scopeOfWallet(entry.wallet),
      address: entry.wallet.address,
      from_block: String(entry.from),
      up_to: String(entry.coveredFrom - 1n)
    }))
    if (owed.length > 0) {
      const rows = JSON.stringify(owed)
      const added = yield* sql<{ scope: string; address: string; from_block: string }>`INSERT INTO stream_history
          (stream_id, scope, address, from_block, up_to, through, created_at)
        SELECT ${streamId}, scope, address, from_block::bigint, up_to::bigint, from_block::bigint - 1, ${at}::timestamptz
        FROM jsonb_to_recordset(${rows}::jsonb) AS x(scope text, address text, from_block text, up_to text)
        ON CONFLICT DO NOTHING RETURNING scope, address, from_block::text`
      if (added.length > 0) {
        yield* sql`UPDATE stream_wallets w SET history_from = x.from_block::bigint, announced = false
          FROM jsonb_to_recordset(${JSON.stringify(added)}::jsonb) AS x(scope text, address text, from_block text)
          WHERE w.stream_id = ${streamId} AND w.scope = x.scope AND w.address = ${sql.literal(addressBytes("x.address"))}`
      }
    }
    const held = yield* sql<{ scope: string; address: string; from_block: string; up_to: string }>`SELECT h.scope, h.address,
        h.from_block::text, h.up_to::text FROM stream_history h
      JOIN jsonb_to_recordset(${JSON.stringify(wallets.map((entry) => ({ scope: scopeOfWallet(entry.wallet), address: entry.wallet.address })))}::jsonb)
        AS x(scope text, address text) ON h.scope = x.scope AND h.address = x.address
      WHERE h.stream_id = ${streamId}`
    const byWallet = new Map(held.map((row) => [`${row.scope} ${row.address}`, { from: BigInt(row.from_block), to: BigInt(row.up_to) }]))
    return wallets.map((entry) => byWallet.get(`${scopeOfWallet(entry.wallet)} ${entry.wallet.address}`))
  })

/** A history (`h`) owed: not done yet, of an active stream (`s`) that still wants its scope. */
const owedClause = "h.done_at IS NULL AND s.status = 'active' AND (s.scopes IS NULL OR h.scope = ANY (s.scopes))"

/**
 * The histories of `scope` not done yet of active streams that still want the scope, oldest
 * first, at most `limit`.
 *
 * @example
 * ```ts
 * import { HistoryStore } from "@chainquery/watch-service"
 *
 * const owed = HistoryStore.open("0x1", 100)
 * ```
 * @since 0.5.0
 */
export const open = (scope: Scope, limit: number): Effect.Effect<ReadonlyArray<Job>, SqlError.SqlError, SqlClient.SqlClient> =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<JobRow>`SELECT ${sql.literal(jobColumns)} FROM stream_history h JOIN streams s ON s.id = h.stream_id
      WHERE h.scope = ${scope} AND ${sql.literal(owedClause)}
      ORDER BY h.created_at, h.stream_id, h.address LIMIT ${limit}`.pipe(Effect.map((rows) => rows.map(jobOf))))

/**
 * The scopes where `open` has something: histories not done yet of active streams that still
 * want the scope. What a runner reads once an interval for all of its history readers (see
 * `ScanSignals`), so that a scope owing nothing costs no read of its own.
 *
 * @example
 * ```ts
 * import { HistoryStore } from "@chainquery/watch-service"
 *
 * const owing = HistoryStore.owedScopes // Effect<ReadonlySet<string>, SqlError, SqlClient>
 * ```
 * @since 0.5.0
 */
export const owedScopes: Effect.Effect<ReadonlySet<Scope>, SqlError.SqlError, SqlClient.SqlClient> = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql<{ scope: Scope }>`SELECT DISTINCT h.scope FROM stream_history h JOIN streams s ON s.id = h.stream_id
    WHERE ${sql.literal(owedClause)}`.pipe(
    Effect.map((rows) => new Set(rows.map((row) => row.scope)))
  ))

/**
 * A stream's wallets' histories, in the order they were added (at most `limit`, those not done
 * first).
 *
 * @example
 * ```ts
 * import { HistoryStore } from "@chainquery/watch-service"
 *
 * const progress = HistoryStore.ofStream("str_0mwxp89sc8710d9595292", 100)
 * ```
 * @since 0.5.0
 */
export const ofStream = (streamId: string, limit: number): Effect.Effect<ReadonlyArray<Job>, SqlError.SqlError, SqlClient.SqlClient> =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<JobRow>`SELECT ${sql.literal(jobColumns)} FROM stream_history WHERE stream_id = ${streamId}
      ORDER BY done_at IS NOT NULL, created_at, scope, address LIMIT ${limit}`.pipe(Effect.map((rows) => rows.map(jobOf))))

/**
 * Every open history's progress, for `/metrics`: per stream and wallet, how many blocks are left.
 *
 * @example
 * ```ts
 * import { HistoryStore } from "@chainquery/watch-service"
 *
 * const left = HistoryStore.allOpen
 * ```
 * @since 0.5.0
 */
export const allOpen: Effect.Effect<ReadonlyArray<Job>, SqlError.SqlError, SqlClient.SqlClient> = Effect.flatMap(
  SqlClient.SqlClient,
  (sql) =>
    sql<JobRow>`SELECT ${sql.literal(jobColumns)} FROM stream_history WHERE done_at IS NULL ORDER BY created_at, stream_id, address`.pipe(
      Effect.map((rows) => rows.map(jobOf))
    )
)

/**
 * How many of a stream's batches wait to be delivered (pending): a history commits its next slice
 * only once few do (see `HistoryScan`).
 *
 * @example
 * ```ts
 * import { HistoryStore } from "@chainquery/watch-service"
 *
 * const waiting = HistoryStore.pendingOf("str_0mwxp89sc8710d9595292")
 * ```
 * @since 0.5.0
 */
export const pendingOf = (streamId: string): Effect.Effect<number, SqlError.SqlError, SqlClient.SqlClient> =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ pending: number }>`SELECT count(*)::int AS pending FROM deliveries WHERE stream_id = ${streamId} AND status = 'pending'`.pipe(
      Effect.map(([row]) => row!.pending)
    ))

/** The key of a job's rows. */
type JobKey = Pick<Job, "streamId" | "scope" | "address">

/**
 * Stages events of an Aptos history (listed newest first) until the listing reaches its start:
 * `restart` forgets those staged before (a listing begun again from the newest), `rows` are added,
 * and `done` marks the listing over. Each call is one transaction; a history gone stages nothing.
 *
 * @example
 * ```ts
 * import type { WatchEvent } from "@chainquery/watch"
 * import { type HistoryStore, HistoryStore as History } from "@chainquery/watch-service"
 *
 * declare const job: HistoryStore.Job
 * declare const events: ReadonlyArray<WatchEvent.WatchEvent>
 * const staged = History.stage(job, { restart: true, events, done: false })
 * ```
 * @since 0.5.0
 */
export const stage = (
  job: JobKey,
  batch: { readonly restart: boolean; readonly events: ReadonlyArray<WatchEvent.WatchEvent>; readonly done: boolean }
): Effect.Effect<void, SqlError.SqlError, SqlClient.SqlClient> =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql.withTransaction(Effect.gen(function*() {
      if (batch.restart) {
        yield* sql`DELETE FROM stream_history_staged WHERE stream_id = ${job.streamId} AND scope = ${job.scope} AND address = ${job.address}`
      }
      if (batch.events.length > 0) {
        // Each event's place: its version, and its order within it (as listed, oldest first per version).
        const [next] = yield* sql<{ ord: number }>`SELECT coalesce(max(ord), 0)::int + 1 AS ord FROM stream_history_staged
          WHERE stream_id = ${job.streamId} AND scope = ${job.scope} AND address = ${job.address}`
        const rows = batch.events.map((event, index) => ({ version: String(blockOf(event)), ord: next!.ord + index, body: WatchEvent.toJson(event) }))
        yield* sql`INSERT INTO stream_history_staged (stream_id, scope, address, version, ord, body)
          SELECT ${job.streamId}, ${job.scope}, ${job.address}, version::bigint, ord, body
          FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS x(version text, ord integer, body text)
          WHERE EXISTS (SELECT 1 FROM stream_history WHERE stream_id = ${job.streamId} AND scope = ${job.scope} AND address = ${job.address})`
      }
      if (batch.done) {
        yield* sql`UPDATE stream_history SET staged = true WHERE stream_id = ${job.streamId} AND scope = ${job.scope} AND address = ${job.address}`
      }
    })))

/**
 * The next slice of a staged history, oldest first: the events of the versions after `through`,
 * at least `limit` of them (all of the last version taken), and the last version they reach
 * (`undefined`: none left).
 *
 * @example
 * ```ts
 * import { type HistoryStore, HistoryStore as History } from "@chainquery/watch-service"
 *
 * declare const job: HistoryStore.Job
 * const slice = History.stagedSlice(job, 50)
 * ```
 * @since 0.5.0
 */
export const stagedSlice = (
  job: Pick<Job, "streamId" | "scope" | "address" | "through">,
  limit: number
): Effect.Effect<{ readonly through: bigint | undefined; readonly events: ReadonlyArray<WatchEvent.WatchEvent> }, SqlError.SqlError, SqlClient.SqlClient> =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<{ version: string; body: string }>`WITH first AS (
        SELECT version, ord FROM stream_history_staged
        WHERE stream_id = ${job.streamId} AND scope = ${job.scope} AND address = ${job.address} AND version > ${String(job.through)}::bigint
        ORDER BY version, ord LIMIT ${limit})
      SELECT version::text, body FROM stream_history_staged
      WHERE stream_id = ${job.streamId} AND scope = ${job.scope} AND address = ${job.address} AND version > ${String(job.through)}::bigint
        AND version <= (SELECT max(version) FROM first)
      ORDER BY version, ord`
    const events: Array<WatchEvent.WatchEvent> = []
    for (const row of rows) events.push(yield* Effect.orDie(WatchEvent.fromJson(row.body)))
    return { through: rows.length === 0 ? undefined : BigInt(rows.at(-1)!.version), events }
  })

/**
 * What committing a slice came to: `committed` (with the batches made), or `stale` (the wallet's
 * history is gone, or another runner committed past `through` meanwhile: this reader stops).
 *
 * @example
 * ```ts
 * import type { HistoryStore } from "@chainquery/watch-service"
 *
 * const goOn = (outcome: HistoryStore.Committed) => outcome._tag === "Committed"
 * ```
 * @since 0.5.0
 */
export type Committed = { readonly _tag: "Committed"; readonly deliveries: number; readonly done: boolean } | { readonly _tag: "Stale" }

/** The block (Aptos: ledger version) of an event. */
const blockOf = (event: WatchEvent.WatchEvent): bigint => ("network" in event ? event.version : "blockNumber" in event ? event.blockNumber : 0n)

/**
 * Commits a slice of a wallet's history read from the block after `job.through` up to
 * `slice.through`: the events the stream wants (its kinds and chains, and its content filter), as its next events and
 * batches (`phase: "history"`, at most 500 events each, at least one), the last stating the
 * wallet's range and the wallets not announced yet; and the wallet's progress. In one transaction,
 * the stream's row locked first; nothing when the history is gone or moved past `job.through`, and
 * a history whose stream no longer wants its chain (a PATCH of `chains`) is forgotten, unsent. A
 * transaction that meets another in a deadlock is made again (up to three times more).
 *
 * @example
 * ```ts
 * import type { WatchEvent } from "@chainquery/watch"
 * import { type HistoryStore, HistoryStore as History } from "@chainquery/watch-service"
 *
 * declare const job: HistoryStore.Job
 * declare const events: ReadonlyArray<WatchEvent.WatchEvent>
 * const committed = History.commit(job, { through: job.through + 100n, events })
 * ```
 * @since 0.5.0
 */
export const commit = (
  job: Pick<Job, "streamId" | "scope" | "address" | "through">,
  slice: { readonly through: bigint; readonly events: ReadonlyArray<WatchEvent.WatchEvent> }
): Effect.Effect<Committed, SqlError.SqlError, SqlClient.SqlClient> =>
  commitOnce(job, slice).pipe(Effect.retry({ while: (error) => error.isRetryable, times: 3 }))

/** {@link commit}, one transaction (a deadlock or a serialization failure is tried again by the caller). */
const commitOnce = (
  job: Pick<Job, "streamId" | "scope" | "address" | "through">,
  slice: { readonly through: bigint; readonly events: ReadonlyArray<WatchEvent.WatchEvent> }
): Effect.Effect<Committed, SqlError.SqlError, SqlClient.SqlClient> =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql.withTransaction(Effect.gen(function*() {
      const [stream] = yield* sql<{
        event_kinds: ReadonlyArray<string> | null
        scopes: ReadonlyArray<string> | null
        filters: Parameters<typeof StreamFilters.fromJson>[0]
      }>`SELECT event_kinds, scopes, filters FROM streams WHERE id = ${job.streamId} FOR UPDATE`
      if (stream === undefined) return { _tag: "Stale" } as const
      const [row] = yield* sql<{ through: string; up_to: string }>`SELECT through::text, up_to::text FROM stream_history
        WHERE stream_id = ${job.streamId} AND scope = ${job.scope} AND address = ${job.address} FOR UPDATE`
      if (row === undefined || BigInt(row.through) !== job.through) return { _tag: "Stale" } as const
      const upTo = BigInt(row.up_to)
      const through = slice.through < upTo ? slice.through : upTo
      // A stream that no longer wants the scope (its chains changed) is owed none of it: the
      // history ends there, unsent, rather than claiming blocks whose events it did not send.
      if (stream.scopes !== null && !stream.scopes.includes(job.scope)) {
        yield* sql`DELETE FROM stream_history WHERE stream_id = ${job.streamId} AND scope = ${job.scope} AND address = ${job.address}`
        yield* sql`DELETE FROM stream_history_staged WHERE stream_id = ${job.streamId} AND scope = ${job.scope} AND address = ${job.address}`
        return { _tag: "Stale" } as const
      }
      const wanted = slice.events.filter((event) =>
        (stream.event_kinds === null || stream.event_kinds.includes(event.kind)) && blockOf(event) <= through
      )
      // The stream's content filter, as for its live events: what it keeps out is covered, not sent.
      const events = wanted.filter(StreamFilters.matcher(StreamFilters.fromJson(stream.filters)))
      if (events.length < wanted.length) {
        yield* sql`UPDATE streams SET filtered_events = filtered_events + ${wanted.length - events.length} WHERE id = ${job.streamId}`
      }
      const pieces = events.length === 0 ? [{ first: 0n, last: -1n, count: 0 }] : cut(0n, events.length)
      const now = yield* DateTime.now
      const at = DateTime.formatIso(now)
      // Not `last_batch_at`: a history batch moves no live coverage, so the stream's heartbeats go on.
      const [base] = yield* sql<{ first_position: string; first_sequence: string }>`UPDATE streams
        SET next_position = next_position + ${events.length}, next_sequence = next_sequence + ${pieces.length}
        WHERE id = ${job.streamId}
        RETURNING (next_position - ${events.length})::text AS first_position, (next_sequence - ${pieces.length})::text AS first_sequence`
      const firstPosition = BigInt(base!.first_position)
      if (events.length > 0) {
        const rows = events.map((event, index) => ({ position: String(firstPosition + BigInt(index)), event_id: event.id, body: WatchEvent.toJson(event) }))
        yield* sql`INSERT INTO stream_events (stream_id, position, event_id, body, created_at)
          SELECT ${job.streamId}, position::bigint, event_id, body, ${at}::timestamptz
          FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS x(position text, event_id text, body text)`
      }
      const announced = (yield* announce([job.streamId])).get(job.streamId) ?? []
      const deliveries = pieces.map((piece, index): NewDelivery => {
        const last = index === pieces.length - 1
        return {
          id: newDeliveryId(DateTime.toEpochMillis(now)),
          streamId: job.streamId,
          sequence: BigInt(base!.first_sequence) + BigInt(index),
          first: firstPosition + piece.first,
          last: firstPosition + piece.last,
          count: piece.count,
          replay: false,
          heartbeat: false,
          phase: "history",
          coverage: [],
          replaces: [],
          wallets: last ? announced : [],
          history: last ? [{ scope: job.scope, address: job.address, from: job.through + 1n, to: through }] : []
        }
      })
      yield* writeDeliveries(deliveries, at)
      const done = through >= upTo
      yield* sql`UPDATE stream_history SET through = ${String(through)}::bigint, events = events + ${events.length},
          done_at = ${done ? at : null}::timestamptz
        WHERE stream_id = ${job.streamId} AND scope = ${job.scope} AND address = ${job.address}`
      // What was staged of it is sent now (only an Aptos history is staged).
      if (job.scope.startsWith("aptos:")) {
        yield* sql`DELETE FROM stream_history_staged WHERE stream_id = ${job.streamId} AND scope = ${job.scope} AND address = ${job.address}
          AND version <= ${String(through)}::bigint`
      }
      return { _tag: "Committed", deliveries: deliveries.length, done } as const
    })))
