/**
 * A stream's last hour, a minute at a time, from its deliveries and attempts: the batches its
 * receiver took (and their events), the attempts that failed, and how old the coverage its receiver
 * had was at each minute's end (the time since the last batch with coverage it took was made).
 * Read through indexes (deliveries by when they were delivered, covering batches by when they were
 * made, failed attempts by when), so a long-lived stream costs no more than a new one.
 *
 * @since 0.5.0
 */
import { DateTime, Effect } from "effect"
import { SqlClient, type SqlError } from "effect/sql"
import { millis } from "./sqlTime.js"

/**
 * The SQL of a delivery (a row of `deliveries`) with coverage: what the coverage lag counts from.
 * The migrations index covering batches by the same words (a partial index is used only for a
 * query that says what it says).
 *
 * @example
 * ```ts
 * import { Activity } from "@chainquery/watch-service"
 *
 * Activity.coveringBatch // "coalesce(jsonb_array_length(coverage), 0) > 0"
 * ```
 * @since 0.5.0
 */
export const coveringBatch = "coalesce(jsonb_array_length(coverage), 0) > 0"

/**
 * One minute of a stream's activity.
 *
 * @example
 * ```ts
 * import type { Activity } from "@chainquery/watch-service"
 *
 * const quiet = (minute: Activity.Minute) => minute.delivered === 0
 * ```
 * @since 0.5.0
 */
export interface Minute {
  /** The minute's start. */
  readonly at: DateTime.Utc
  readonly delivered: number
  readonly events: number
  readonly failedAttempts: number
  /** Seconds between the minute's end (or now, for the current one) and the making of the last batch with coverage taken by then. */
  readonly coverageLagSeconds: number | null
}

/**
 * How many minutes {@link lastHour} answers.
 *
 * @example
 * ```ts
 * import { Activity } from "@chainquery/watch-service"
 *
 * Activity.minutes // 60
 * ```
 * @since 0.5.0
 */
export const minutes = 60

const minuteMillis = 60_000

/**
 * The stream's last 60 minutes, oldest first, the current one last.
 *
 * @example
 * ```ts
 * import { Activity } from "@chainquery/watch-service"
 *
 * const hour = Activity.lastHour("str_0mwxp89sc8710d9595292") // Effect<ReadonlyArray<Minute>, SqlError, SqlClient>
 * ```
 * @since 0.5.0
 */
export const lastHour = (streamId: string): Effect.Effect<ReadonlyArray<Minute>, SqlError.SqlError, SqlClient.SqlClient> =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const now = DateTime.toEpochMillis(yield* DateTime.now)
    const first = Math.floor(now / minuteMillis) * minuteMillis - (minutes - 1) * minuteMillis
    const start = new Date(first)
    const delivered = yield* sql<{ created_at: string; delivered_at: string; events: number; covers: boolean }>`
      SELECT ${sql.literal(millis("created_at"))}, ${sql.literal(millis("delivered_at"))},
        event_count AS events, ${sql.literal(coveringBatch)} AS covers
      FROM deliveries WHERE stream_id = ${streamId} AND delivered_at IS NOT NULL AND delivered_at >= ${start}
      ORDER BY delivered_at`
    // The newest-made batch with coverage taken before the hour: where its first minutes' lag starts
    // from (a batch sent again keeps when it was made, so the one delivered last may be older).
    const before = yield* sql<{ created_at: string }>`
      SELECT ${sql.literal(millis("created_at"))} FROM deliveries
      WHERE stream_id = ${streamId} AND delivered_at IS NOT NULL AND delivered_at < ${start} AND ${sql.literal(coveringBatch)}
      ORDER BY created_at DESC LIMIT 1`
    const failed = yield* sql<{ at: string }>`
      SELECT ${sql.literal(millis("at"))} FROM delivery_attempts
      WHERE stream_id = ${streamId} AND NOT ok AND at >= ${start}`
    // The failed attempts counted per minute at once (a minute's index from the hour's start).
    const failedPerMinute = Array.from({ length: minutes }, () => 0)
    for (const attempt of failed) {
      const index = Math.floor((Number(attempt.at) - first) / minuteMillis)
      if (index >= 0 && index < minutes) failedPerMinute[index]! += 1
    }
    const answer: Array<Minute> = []
    let newestCovered = before[0] === undefined ? null : Number(before[0].created_at)
    let next = 0
    for (let index = 0; index < minutes; index++) {
      const from = first + index * minuteMillis
      const end = Math.min(from + minuteMillis, now)
      let count = 0
      let events = 0
      while (next < delivered.length && Number(delivered[next]!.delivered_at) < from + minuteMillis) {
        const row = delivered[next]!
        count += 1
        events += row.events
        if (row.covers) newestCovered = Math.max(newestCovered ?? 0, Number(row.created_at))
        next += 1
      }
      answer.push({
        at: DateTime.makeUnsafe(from),
        delivered: count,
        events,
        failedAttempts: failedPerMinute[index]!,
        coverageLagSeconds: newestCovered === null ? null : Math.max(0, (end - newestCovered) / 1000)
      })
    }
    return answer
  })
