/**
 * Heartbeats: a stream that made no batch for the heartbeat period gets one with no events, the
 * range each of its chains is covered to since its batch before, and the wallets added meanwhile,
 * so that its receiver can tell a quiet stream from a broken one. Only active streams get them (a
 * paused one sends nothing); a heartbeat has its sequence like any batch.
 *
 * @since 0.3.0
 */
import type { StateStore } from "@chainquery/watch"
import { DateTime, Duration, Effect, Option } from "effect"
import { SqlClient, type SqlError } from "effect/sql"
import { announce, claim, frontier, frontierOf, type Range } from "../store/Coverage.js"
import { newDeliveryId, writeDeliveries } from "../store/Outbox.js"

/**
 * One stream's heartbeat, if it is still due once its row is locked: whether one was made. It
 * covers up to the lowest checkpoint of the stream's own wallets, read after the lock: a wallet
 * added to the stream meanwhile (below the others, see `Coverage.admit`) is counted, and the cost
 * grows with the stream's wallets, not with every stream's.
 */
const beat = (streamId: string, periodMillis: number) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const [stream] = yield* sql<{ confirmations: number; scopes: ReadonlyArray<string> | null; next_position: string; next_sequence: string }>`
      SELECT confirmations, scopes, next_position::text, next_sequence::text FROM streams
      WHERE id = ${streamId} AND status = 'active' AND coalesce(last_batch_at, created_at) <= now() - ${periodMillis} * interval '1 millisecond'
      FOR UPDATE`
    if (stream === undefined) return false
    const scopes = yield* sql<{ scope: string }>`SELECT scope FROM stream_coverage WHERE stream_id = ${streamId} ORDER BY scope`
    const coverage: Array<Range> = []
    for (const { scope } of scopes) {
      if (stream.scopes !== null && !stream.scopes.includes(scope)) continue
      // A stream that holds no wallet there any more follows the scan.
      const own = yield* frontierOf(streamId, scope, stream.confirmations)
      const upTo = Option.isSome(own) ? own : yield* frontier(scope, stream.confirmations)
      const made = (yield* claim(scope, [{ id: streamId, lowest: undefined }], upTo)).get(streamId)
      if (made?.coverage !== undefined) coverage.push(made.coverage)
    }
    const wallets = (yield* announce([streamId])).get(streamId) ?? []
    const now = yield* DateTime.now
    const at = DateTime.formatIso(now)
    yield* sql`UPDATE streams SET next_sequence = next_sequence + 1, last_batch_at = ${at}::timestamptz WHERE id = ${streamId}`
    const position = BigInt(stream.next_position)
    yield* writeDeliveries([{
      id: newDeliveryId(DateTime.toEpochMillis(now)),
      streamId,
      sequence: BigInt(stream.next_sequence),
      first: position,
      last: position - 1n,
      count: 0,
      replay: false,
      heartbeat: true,
      coverage,
      replaces: [],
      wallets
    }], at)
    return true
  })

/**
 * Makes the heartbeats due: one for each active stream that made no batch for `period` (none when
 * `period` is zero), each in its own transaction. Answers the streams that got one, to wake.
 *
 * @example
 * ```ts
 * import { Heartbeats } from "@chainquery/watch-service"
 *
 * const beaten = Heartbeats.makeDue("5 minutes") // Effect<ReadonlyArray<string>, …, SqlClient>
 * ```
 * @since 0.3.0
 */
export const makeDue = (
  period: Duration.Input
): Effect.Effect<ReadonlyArray<string>, SqlError.SqlError | StateStore.StateStoreError, SqlClient.SqlClient> =>
  Effect.gen(function*() {
    const millis = Duration.toMillis(Duration.fromInputUnsafe(period))
    if (!(millis > 0)) return []
    const sql = yield* SqlClient.SqlClient
    const due = yield* sql<{ id: string }>`SELECT id FROM streams
      WHERE status = 'active' AND coalesce(last_batch_at, created_at) <= now() - ${millis} * interval '1 millisecond' ORDER BY id`
    const made: Array<string> = []
    for (const { id } of due) {
      if (yield* sql.withTransaction(beat(id, millis))) made.push(id)
    }
    return made
  })
