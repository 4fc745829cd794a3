/**
 * The deliveries of the streams, in PostgreSQL: the next one of a stream to send (strictly in
 * sequence order), the outcome of each attempt (delivered, retried on the schedule, failed), the
 * list the API shows, replays and statistics.
 *
 * @since 0.2.0
 */
import { Context, DateTime, Duration, Effect, Layer, Option } from "effect"
import { SqlClient, type SqlError } from "effect/sql"
import type { CoveredWallet, Range } from "./Coverage.js"
import { cut, newDeliveryId, type WalletRange, writeDeliveries } from "./Outbox.js"
import { epochMillis, millis, utcOf } from "./sqlTime.js"
import * as StreamFilters from "../model/StreamFilters.js"

/**
 * A delivery as stored.
 *
 * @example
 * ```ts
 * import type { DeliveryStore } from "@chainquery/watch-service"
 *
 * const done = (delivery: DeliveryStore.Delivery) => delivery.status !== "pending"
 * ```
 * @since 0.2.0
 */
export interface Delivery {
  readonly id: string
  readonly streamId: string
  readonly sequence: number
  readonly status: "pending" | "delivered" | "failed"
  readonly events: number
  readonly replay: boolean
  /** How many times it was sent again as it was (`Resend`): each time it goes `pending` again. */
  readonly resends: number
  /** Sent because no batch went out for the heartbeat period (no events). */
  readonly heartbeat: boolean
  /** The ranges it accounts for, and those it states again (a reorganisation); see `Coverage`. */
  readonly coverage: ReadonlyArray<Range>
  readonly replaces: ReadonlyArray<Range>
  /** The wallets added to the stream since its batch before, each with its first covered block. */
  readonly wallets: ReadonlyArray<CoveredWallet>
  /** `history`: the past of wallets added with it (`history`: which blocks of which wallet); `live` otherwise. */
  readonly phase: "live" | "history"
  readonly history: ReadonlyArray<WalletRange>
  /** The stream's content filter, stated by the first batch made after it changed (since 0.5.0); `null` in the others. */
  readonly filters: StreamFilters.Filters | null
  readonly attempts: number
  readonly createdAt: DateTime.Utc
  readonly nextAttemptAt: DateTime.Utc | null
  readonly deliveredAt: DateTime.Utc | null
  readonly lastStatus: number | null
  readonly lastError: string | null
}

/**
 * What one attempt came to: `delivered`; `retry` (5xx, a timeout, a connection error: again on the
 * schedule, `failed` once it is spent); `failed` (a 4xx or a redirect: not retried); `held` (the
 * receiver is gone, 410: the delivery waits, as it is, for the stream to be resumed).
 *
 * @example
 * ```ts
 * import type { DeliveryStore } from "@chainquery/watch-service"
 *
 * const outcome: DeliveryStore.Attempt = { result: "retry", status: 503, error: "503 Service Unavailable" }
 * ```
 * @since 0.2.0
 */
export interface Attempt {
  readonly result: "delivered" | "retry" | "failed" | "held"
  readonly status: number | null
  readonly error: string | null
  /** How long the request took, from its signing to its answer (since 0.5.0; none when it was not sent). */
  readonly durationMs?: number | undefined
}

/**
 * An attempt as recorded: when, whether the receiver took the batch, its status or the error, and
 * how long the request took (`null` for attempts recorded before 0.5.0).
 *
 * @example
 * ```ts
 * import type { DeliveryStore } from "@chainquery/watch-service"
 *
 * const slow = (attempt: DeliveryStore.RecordedAttempt) => (attempt.durationMs ?? 0) > 5_000
 * ```
 * @since 0.5.0
 */
export interface RecordedAttempt {
  readonly at: DateTime.Utc
  readonly delivered: boolean
  readonly status: number | null
  readonly error: string | null
  readonly durationMs: number | null
}

/**
 * What recording an attempt tells the delivery loop: whether the stream's attempt before it failed
 * (read in the same statement, from the database: it holds across restarts and runners), and when
 * the delivery goes again.
 *
 * @example
 * ```ts
 * import type { DeliveryStore } from "@chainquery/watch-service"
 *
 * const recovered = (recorded: DeliveryStore.Recorded, ok: boolean) => ok && recorded.afterFailure
 * ```
 * @since 0.5.0
 */
export interface Recorded {
  /** The stream's attempt before this one failed (`false` when it had none). */
  readonly afterFailure: boolean
  /** When the delivery is tried again (`null`: it is not, being delivered, failed for good or held). */
  readonly nextAttemptAt: DateTime.Utc | null
}

/**
 * A stream's delivery statistics.
 *
 * @example
 * ```ts
 * import type { DeliveryStore } from "@chainquery/watch-service"
 *
 * const rate = (stats: DeliveryStore.Stats) => stats.successRate ?? 1
 * ```
 * @since 0.2.0
 */
export interface Stats {
  /** The sequence of the last batch the receiver took (`null`: none yet). */
  readonly lastDeliveredSequence: number | null
  /**
   * Per scope, from which block the stream is covered, and the last block of the last batch
   * delivered (`null`: none yet): the receiver has every event up to it unless a batch failed for
   * good (`failed`), whose events then need a replay.
   */
  readonly coverage: Progress["coverage"]
  /** How many events its content filter kept out (since 0.5.0). */
  readonly filteredEvents: number
  readonly attempts: number
  readonly successRate: number | null
  readonly pending: number
  readonly failed: number
  readonly oldestPendingAgeSeconds: number | null
  readonly lastError: string | null
  readonly lastErrorAt: DateTime.Utc | null
}

interface DeliveryRow {
  readonly id: string
  readonly stream_id: string
  readonly sequence: string
  readonly status: Delivery["status"]
  readonly event_count: number
  readonly replay: boolean
  readonly resends: number
  readonly heartbeat: boolean
  readonly coverage: ReadonlyArray<{ readonly scope: string; readonly from: string; readonly to: string }> | null
  readonly replaces: ReadonlyArray<{ readonly scope: string; readonly from: string; readonly to: string }> | null
  readonly wallets: ReadonlyArray<{ readonly scope: string; readonly address: string; readonly coveredFrom: string; readonly historyFrom?: string }> | null
  readonly phase: "live" | "history"
  readonly history: ReadonlyArray<{ readonly scope: string; readonly address: string; readonly from: string; readonly to: string }> | null
  readonly filters: Parameters<typeof StreamFilters.fromJson>[0]
  readonly attempts: number
  readonly created_at: string
  readonly next_attempt_at: string
  readonly delivered_at: string | null
  readonly last_status: number | null
  readonly last_error: string | null
}


const columns = `id, stream_id, sequence::text, status, event_count, replay, resends, heartbeat, coverage, replaces, wallets, phase, history, filters, attempts, ` +
  `${millis("created_at")}, ${millis("next_attempt_at")}, ` +
  `${millis("delivered_at")}, last_status, last_error`

/** A delivery's events' JSON, in order, as the column `bodies` (the delivery's row being `deliveries`). */
const bodiesColumn = `ARRAY(SELECT e.body FROM stream_events e WHERE e.stream_id = deliveries.stream_id ` +
  `AND e.position BETWEEN deliveries.first_position AND deliveries.last_position ORDER BY e.position) AS bodies`


const rangesOf = (rows: DeliveryRow["coverage"]): ReadonlyArray<Range> =>
  (rows ?? []).map((range) => ({ scope: range.scope, from: BigInt(range.from), to: BigInt(range.to) }))

const deliveryOf = (row: DeliveryRow): Delivery => ({
  id: row.id,
  streamId: row.stream_id,
  sequence: Number(row.sequence),
  status: row.status,
  events: row.event_count,
  replay: row.replay,
  resends: row.resends,
  heartbeat: row.heartbeat,
  coverage: rangesOf(row.coverage),
  replaces: rangesOf(row.replaces),
  wallets: (row.wallets ?? []).map((wallet) => ({
    scope: wallet.scope,
    address: wallet.address,
    coveredFrom: BigInt(wallet.coveredFrom),
    ...(wallet.historyFrom === undefined ? {} : { historyFrom: BigInt(wallet.historyFrom) })
  })),
  phase: row.phase,
  history: (row.history ?? []).map((h) => ({ scope: h.scope, address: h.address, from: BigInt(h.from), to: BigInt(h.to) })),
  filters: StreamFilters.fromJson(row.filters),
  attempts: row.attempts,
  createdAt: utcOf(row.created_at),
  nextAttemptAt: row.status === "pending" ? utcOf(row.next_attempt_at) : null,
  deliveredAt: row.delivered_at === null ? null : utcOf(row.delivered_at),
  lastStatus: row.last_status,
  lastError: row.last_error
})

/**
 * What a stream's receiver has: the sequence of the last batch it took, and per scope the first
 * block covered and the block it is covered to.
 *
 * @example
 * ```ts
 * import type { DeliveryStore } from "@chainquery/watch-service"
 *
 * const behind = (progress: DeliveryStore.Progress, head: bigint) => progress.coverage.some((c) => (c.coveredTo ?? 0n) < head)
 * ```
 * @since 0.3.0
 */
export interface Progress {
  readonly streamId: string
  readonly deliveredSequence: number | null
  readonly coverage: ReadonlyArray<{
    readonly scope: string
    readonly coveredFrom: bigint
    readonly coveredTo: bigint | null
    /** The last block the stream's batches were made to (since 0.5.0; always read from the store). */
    readonly batchedTo?: bigint | undefined
    /** The chain's head as the scans last found it (see `ChainHeads`; since 0.5.0): `null` not known yet, or an Aptos network. */
    readonly head?: bigint | null | undefined
    /** When the scans first found that head (since 0.5.0). */
    readonly headAt?: DateTime.Utc | null | undefined
  }>
  /** How many events its content filter kept out, since it was created (since 0.5.0; 0 when left out). */
  readonly filteredEvents?: number | undefined
}

/**
 * What a delivered batch gives its receiver, per scope: the block it is now covered to (as JSON
 * rows). A batch sent again gives nothing new: the batches after it moved the receiver on.
 */
const coveredToRows = (delivery: Delivery): string => {
  if (delivery.resends > 0) return "[]"
  const coveredTo = new Map<string, bigint>()
  for (const range of delivery.replaces) coveredTo.set(range.scope, range.from - 1n)
  for (const range of delivery.coverage) coveredTo.set(range.scope, range.to)
  return JSON.stringify(Array.from(coveredTo, ([scope, to]) => ({ scope, covered_to: String(to) })))
}

/** How many of a stream's last attempts its success rate counts. */
export const window = 100

/** A stream's attempts beyond the last `window * 10` are deleted when a batch whose sequence is a multiple of this is recorded. */
const trimEvery = 50

/**
 * A replay's start: from an event id (that event included) or from a time (the events stored then and after).
 *
 * @example
 * ```ts
 * import { DateTime } from "effect"
 * import type { DeliveryStore } from "@chainquery/watch-service"
 *
 * const from: DeliveryStore.ReplayFrom = { time: DateTime.makeUnsafe("2026-11-01T00:00:00Z") }
 * ```
 * @since 0.2.0
 */
export type ReplayFrom = { readonly eventId: string } | { readonly time: DateTime.Utc }

/**
 * The deliveries store.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { DeliveryStore } from "@chainquery/watch-service"
 *
 * const stats = (streamId: string) => Effect.gen(function*() {
 *   return yield* (yield* DeliveryStore.DeliveryStore).stats(streamId)
 * })
 * ```
 * @since 0.2.0
 */
export class DeliveryStore extends Context.Service<DeliveryStore, {
  /**
   * The stream's first pending delivery (the one to send next), whether it is due (by the
   * database's clock, which set it), and its events' JSON.
   */
  readonly next: (
    streamId: string
  ) => Effect.Effect<Option.Option<{ readonly delivery: Delivery; readonly due: boolean; readonly bodies: ReadonlyArray<string> }>, SqlError.SqlError>
  /**
   * Records an attempt; `schedule` is the delays between attempts (its length, the retries).
   * Answers whether the stream's attempt before it failed, and when the delivery goes again.
   */
  readonly record: (delivery: Delivery, attempt: Attempt, schedule: ReadonlyArray<Duration.Duration>) => Effect.Effect<Recorded, SqlError.SqlError>
  /** The success rate of the stream's last 100 attempts since it was last resumed, once it made 100 (`None` before). */
  readonly successRate: (streamId: string) => Effect.Effect<Option.Option<number>, SqlError.SqlError>
  /** The active streams with a delivery due. */
  readonly due: Effect.Effect<ReadonlyArray<string>, SqlError.SqlError>
  /** Makes the stream's pending deliveries due now (when it is resumed). */
  readonly wake: (streamId: string) => Effect.Effect<void, SqlError.SqlError>
  readonly list: (
    streamId: string,
    page: {
      readonly status?: Delivery["status"] | undefined
      /** The sequence the page starts after (before, the newest first). */
      readonly after?: number | undefined
      readonly limit: number
      /** `oldest` (unless given): in sequence order; `newest`: the newest first (since 0.5.0). */
      readonly order?: "oldest" | "newest" | undefined
    }
  ) => Effect.Effect<{ readonly items: ReadonlyArray<Delivery>; readonly nextCursor: string | null }, SqlError.SqlError>
  /** A delivery of the stream by its id, with its events' JSON and its attempts, newest first (since 0.5.0). */
  readonly find: (
    streamId: string,
    deliveryId: string
  ) => Effect.Effect<
    Option.Option<{ readonly delivery: Delivery; readonly bodies: ReadonlyArray<string>; readonly attempts: ReadonlyArray<RecordedAttempt> }>,
    SqlError.SqlError
  >
  /** New deliveries of the stream's events from `from` on; `None` when there is no such event. */
  readonly replay: (streamId: string, from: ReplayFrom) => Effect.Effect<Option.Option<{ readonly deliveries: number; readonly events: number }>, SqlError.SqlError>
  readonly stats: (streamId: string) => Effect.Effect<Stats, SqlError.SqlError>
  /** Every stream's receiver progress, by stream id. */
  readonly progress: Effect.Effect<ReadonlyArray<Progress>, SqlError.SqlError>
  /** Every stream's pending deliveries: how many, and the oldest one's age in seconds (`null`: none). */
  readonly backlog: Effect.Effect<{ readonly pending: number; readonly oldestSeconds: number | null }, SqlError.SqlError>
}>()("@chainquery/watcher/DeliveryStore") {
  /** The store on the context's `SqlClient` (the service's migrations must have run). */
  static readonly layer: Layer.Layer<DeliveryStore, never, SqlClient.SqlClient> = Layer.effect(
    DeliveryStore,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      /** The receivers' progress: of one stream, or of all. */
      const progressOf = <Id extends string | undefined>(streamId: Id) =>
        sql<{
          id: string
          delivered_sequence: string | null
          filtered_events: string
          coverage: ReadonlyArray<{ scope: string; from: string; to: string | null; batched: string; head: string | null; head_at: string | null }>
        }>`
          SELECT s.id, s.delivered_sequence::text, s.filtered_events::text, coalesce((SELECT jsonb_agg(jsonb_build_object('scope', c.scope, 'from', c.covered_from::text,
              'to', c.delivered_to::text, 'batched', c.batched_to::text, 'head', h.head::text,
              'head_at', ${sql.literal(epochMillis("h.seen_at"))}) ORDER BY c.scope)
            FROM stream_coverage c LEFT JOIN chain_heads h ON h.scope = c.scope WHERE c.stream_id = s.id), '[]'::jsonb) AS coverage
          FROM streams s WHERE ${streamId === undefined ? sql.literal("true") : sql`s.id = ${streamId}`} ORDER BY s.id`.pipe(
          Effect.map((rows) => {
            const all = rows.map((row): Progress => ({
              streamId: row.id,
              deliveredSequence: row.delivered_sequence === null ? null : Number(row.delivered_sequence),
              filteredEvents: Number(row.filtered_events),
              coverage: row.coverage.map((c) => ({
                scope: c.scope,
                coveredFrom: BigInt(c.from),
                coveredTo: c.to === null ? null : BigInt(c.to),
                batchedTo: BigInt(c.batched),
                head: c.head === null ? null : BigInt(c.head),
                headAt: c.head_at === null ? null : utcOf(c.head_at)
              }))
            }))
            return (streamId === undefined ? all : all[0]) as Id extends string ? Progress | undefined : ReadonlyArray<Progress>
          })
        )
      return DeliveryStore.of({
        next: (streamId) =>
          Effect.gen(function*() {
            // The delivery and its events' JSON in one statement (one round trip per batch sent).
            const rows = yield* sql<DeliveryRow & { due: boolean; bodies: ReadonlyArray<string> }>`
              SELECT ${sql.literal(columns)}, next_attempt_at <= now() AS due, ${sql.literal(bodiesColumn)}
              FROM deliveries
              WHERE stream_id = ${streamId} AND status = 'pending' ORDER BY deliveries.sequence LIMIT 1`
            const row = rows[0]
            if (row === undefined) return Option.none()
            return Option.some({ delivery: deliveryOf(row), due: row.due, bodies: row.bodies })
          }),

        find: (streamId, deliveryId) =>
          Effect.gen(function*() {
            const rows = yield* sql<DeliveryRow & { bodies: ReadonlyArray<string> }>`
              SELECT ${sql.literal(columns)}, ${sql.literal(bodiesColumn)}
              FROM deliveries WHERE stream_id = ${streamId} AND id = ${deliveryId}`
            const row = rows[0]
            if (row === undefined) return Option.none()
            const attempts = yield* sql<{ at: string; ok: boolean; status: number | null; error: string | null; duration_ms: number | null }>`
              SELECT ${sql.literal(millis("at"))}, ok, status, error, duration_ms FROM delivery_attempts
              WHERE stream_id = ${streamId} AND delivery_id = ${deliveryId} ORDER BY id DESC`
            return Option.some({
              delivery: deliveryOf(row),
              bodies: row.bodies,
              attempts: attempts.map((attempt) => ({
                at: utcOf(attempt.at),
                delivered: attempt.ok,
                status: attempt.status,
                error: attempt.error,
                durationMs: attempt.duration_ms
              }))
            })
          }),

        record: (delivery, attempt, schedule) =>
          Effect.gen(function*() {
            const now = yield* DateTime.now
            const at = DateTime.formatIso(now)
            // A 410 holds the batch as it is: it spends none of its retries.
            const attempts = attempt.result === "held" ? delivery.attempts : delivery.attempts + 1
            const retryIn = schedule[attempts - 1]
            const status = attempt.result === "delivered"
              ? "delivered"
              : attempt.result === "failed" || (attempt.result === "retry" && retryIn === undefined)
              ? "failed"
              : "pending"
            const next = attempt.result === "retry" && retryIn !== undefined ? DateTime.add(now, { milliseconds: Duration.toMillis(retryIn) }) : now
            const delivered = status === "delivered"
            // One statement (atomic, one round trip): the delivery's new state; once delivered, what
            // the receiver now has (the sequence, and per scope the block it is covered to); the
            // attempt, which a stream deleted meanwhile does not keep; and whether the stream's attempt
            // before it failed (the statement's snapshot does not see the attempt it adds). The
            // stream's row is locked before its coverage (`covered` waits for `taken`), the order of
            // every writer of the stream (a scan's commit, a history's): never the other way round,
            // which deadlocked against a commit holding the row and wanting the coverage.
            const [before] = yield* sql<{ after_failure: boolean }>`WITH
              previous AS (SELECT ok FROM delivery_attempts WHERE stream_id = ${delivery.streamId} ORDER BY id DESC LIMIT 1),
              moved AS (UPDATE deliveries SET status = ${status}, attempts = ${attempts}, last_attempt_at = ${at}::timestamptz,
                  next_attempt_at = ${DateTime.formatIso(next)}::timestamptz, last_status = ${attempt.status}, last_error = ${attempt.error},
                  delivered_at = ${delivered ? at : null}::timestamptz
                WHERE id = ${delivery.id} AND status = 'pending' RETURNING id),
              taken AS (UPDATE streams SET delivered_sequence = greatest(coalesce(delivered_sequence, 0), ${delivery.sequence})
                WHERE id = ${delivery.streamId} AND ${delivered}::boolean RETURNING id),
              covered AS (UPDATE stream_coverage c SET delivered_to = x.covered_to::bigint
                FROM jsonb_to_recordset(${delivered ? coveredToRows(delivery) : "[]"}::jsonb) AS x(scope text, covered_to text)
                WHERE c.stream_id = ${delivery.streamId} AND c.scope = x.scope AND EXISTS (SELECT 1 FROM taken) RETURNING c.scope),
              added AS (INSERT INTO delivery_attempts (stream_id, delivery_id, at, ok, status, error, duration_ms)
                SELECT ${delivery.streamId}, ${delivery.id}, ${at}::timestamptz, ${delivered}, ${attempt.status}, ${attempt.error},
                  ${attempt.durationMs === undefined ? null : Math.round(attempt.durationMs)}::integer
                WHERE EXISTS (SELECT 1 FROM streams WHERE id = ${delivery.streamId}) RETURNING id)
            SELECT coalesce((SELECT NOT ok FROM previous), false) AS after_failure`
            // Only the last attempts count; older ones go, looked for every `trimEvery` batches (the
            // look walks the stream's newest attempts).
            if (delivery.sequence % trimEvery === 0) {
              yield* sql`DELETE FROM delivery_attempts WHERE stream_id = ${delivery.streamId} AND id <= (
                SELECT id FROM delivery_attempts WHERE stream_id = ${delivery.streamId} ORDER BY id DESC OFFSET ${window * 10} LIMIT 1)`
            }
            return { afterFailure: before?.after_failure ?? false, nextAttemptAt: status === "pending" && attempt.result === "retry" ? next : null }
          }),

        successRate: (streamId) =>
          sql<{ total: number; ok: number }>`SELECT count(*)::int AS total, count(*) FILTER (WHERE ok)::int AS ok FROM (
              SELECT ok FROM delivery_attempts WHERE stream_id = ${streamId}
                AND at >= coalesce((SELECT resumed_at FROM streams WHERE id = ${streamId}), '-infinity'::timestamptz)
              ORDER BY id DESC LIMIT ${window}) AS recent`.pipe(
            Effect.map((rows) => {
              const { ok, total } = rows[0]!
              return total < window ? Option.none() : Option.some(ok / total)
            })
          ),

        due: sql<{ stream_id: string }>`SELECT d.stream_id FROM deliveries d JOIN streams s ON s.id = d.stream_id
            WHERE d.status = 'pending' AND d.next_attempt_at <= now() AND s.status = 'active'
              AND d.sequence = (SELECT min(p.sequence) FROM deliveries p WHERE p.stream_id = d.stream_id AND p.status = 'pending')`.pipe(
          Effect.map((rows) => rows.map((row) => row.stream_id))
        ),

        wake: (streamId) =>
          Effect.asVoid(sql`UPDATE deliveries SET next_attempt_at = now() WHERE stream_id = ${streamId} AND status = 'pending'`),

        list: (streamId, { after, limit, order, status }) =>
          sql<DeliveryRow>`SELECT ${sql.literal(columns)} FROM deliveries WHERE stream_id = ${streamId}
            AND ${status === undefined ? sql.literal("true") : sql`status = ${status}`}
            AND ${after === undefined ? sql.literal("true") : order === "newest" ? sql`sequence < ${after}` : sql`sequence > ${after}`}
            ORDER BY deliveries.sequence ${sql.literal(order === "newest" ? "DESC" : "ASC")} LIMIT ${limit + 1}`.pipe(
            Effect.map((rows) => ({
              items: rows.slice(0, limit).map(deliveryOf),
              nextCursor: rows.length > limit ? rows[limit - 1]!.sequence : null
            }))
          ),

        replay: (streamId, from) =>
          sql.withTransaction(Effect.gen(function*() {
            const start = yield* ("eventId" in from
              ? sql<{ position: string | null }>`SELECT min(position)::text AS position FROM stream_events
                  WHERE stream_id = ${streamId} AND event_id = ${from.eventId}`
              : sql<{ position: string | null }>`SELECT min(position)::text AS position FROM stream_events
                  WHERE stream_id = ${streamId} AND created_at >= ${DateTime.formatIso(from.time)}::timestamptz`)
            const first = start[0]?.position ?? null
            if (first === null) return "eventId" in from ? Option.none() : Option.some({ deliveries: 0, events: 0 })
            const [counters] = yield* sql<{ next_position: string }>`SELECT next_position::text FROM streams WHERE id = ${streamId} FOR UPDATE`
            const count = Number(BigInt(counters!.next_position) - BigInt(first))
            const ranges = cut(BigInt(first), count)
            const now = yield* DateTime.now
            const at = DateTime.formatIso(now)
            const [base] = yield* sql<{ first_sequence: string }>`UPDATE streams SET next_sequence = next_sequence + ${ranges.length},
                last_batch_at = ${at}::timestamptz
              WHERE id = ${streamId} RETURNING (next_sequence - ${ranges.length})::text AS first_sequence`
            yield* writeDeliveries(
              ranges.map((range, index) => ({
                id: newDeliveryId(DateTime.toEpochMillis(now)),
                streamId,
                sequence: BigInt(base!.first_sequence) + BigInt(index),
                ...range,
                replay: true,
                heartbeat: false,
                coverage: [],
                replaces: [],
                wallets: []
              })),
              at
            ).pipe(Effect.provideService(SqlClient.SqlClient, sql))
            return Option.some({ deliveries: ranges.length, events: count })
          })),

        backlog: sql<{ pending: number; oldest: string | null }>`SELECT count(*)::int AS pending,
            (extract(epoch FROM now() - min(created_at)))::text AS oldest FROM deliveries WHERE status = 'pending'`.pipe(
          Effect.map(([row]) => ({ pending: row!.pending, oldestSeconds: row!.oldest === null ? null : Math.max(0, Number(row!.oldest)) }))
        ),

        progress: progressOf(undefined),

        stats: (streamId) =>
          Effect.gen(function*() {
            const [recent] = yield* sql<{ total: number; ok: number }>`SELECT count(*)::int AS total, count(*) FILTER (WHERE ok)::int AS ok FROM (
                SELECT ok FROM delivery_attempts WHERE stream_id = ${streamId} ORDER BY id DESC LIMIT ${window}) AS recent`
            const [counts] = yield* sql<{ pending: number; failed: number; oldest: string | null }>`SELECT
                count(*) FILTER (WHERE status = 'pending')::int AS pending, count(*) FILTER (WHERE status = 'failed')::int AS failed,
                (extract(epoch FROM now() - min(created_at) FILTER (WHERE status = 'pending')))::text AS oldest
              FROM deliveries WHERE stream_id = ${streamId}`
            const [lastError] = yield* sql<{ error: string | null; at: string }>`SELECT coalesce(error, 'HTTP ' || status) AS error, ${sql.literal(millis("at"))}
              FROM delivery_attempts WHERE stream_id = ${streamId} AND NOT ok ORDER BY id DESC LIMIT 1`
            const progress = yield* progressOf(streamId)
            return {
              lastDeliveredSequence: progress?.deliveredSequence ?? null,
              coverage: progress?.coverage ?? [],
              filteredEvents: progress?.filteredEvents ?? 0,
              attempts: recent!.total,
              successRate: recent!.total === 0 ? null : recent!.ok / recent!.total,
              pending: counts!.pending,
              failed: counts!.failed,
              oldestPendingAgeSeconds: counts!.oldest === null ? null : Math.max(0, Number(counts!.oldest)),
              lastError: lastError?.error ?? null,
              lastErrorAt: lastError === undefined ? null : utcOf(lastError.at)
            }
          })
      })
    })
  )
}
