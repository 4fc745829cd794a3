/**
 * Batches sent again as they were, to heal what a receiver lost: by a range of sequences, or by
 * the blocks of a chain (the batches that covered them, and those before them that carry those
 * blocks' events without coverage, the first parts of a batch cut in 500-event pieces). Each
 * batch sent again keeps its id, sequence, coverage and events; it goes `pending` again (its
 * retries afresh, `resends` counted) and its body says `replay: true`. The delivery loop sends the
 * lowest pending sequence first, so batches sent again go before the stream's next ones. A batch
 * still pending is left as it is (it is on its way), and a range reaching beyond the batches sent
 * is refused, naming the field and what is valid, with nothing changed.
 *
 * @since 0.5.0
 */
import { Data, Effect } from "effect"
import { SqlClient, type SqlError } from "effect/sql"
import { nameOf } from "../model/Scopes.js"
import type { Range } from "./Coverage.js"

/**
 * A range that cannot be sent again: `field` is the request's field (`toSequence`,
 * `blocks[0].chain`, …), `message` what is valid. Nothing was changed.
 *
 * @example
 * ```ts
 * import { Resend } from "@chainquery/watch-service"
 *
 * new Resend.ResendRefused({ field: "toSequence", message: "the stream sent batches up to sequence 12: give a toSequence of at most 12" })
 * ```
 * @since 0.5.0
 */
export class ResendRefused extends Data.TaggedError("ResendRefused")<{ readonly field: string; readonly message: string }> {}

/**
 * What was sent again: how many batches, and how many events they carry.
 *
 * @example
 * ```ts
 * import type { Resend } from "@chainquery/watch-service"
 *
 * const said = (resent: Resend.Resent) => `${resent.deliveries} batches (${resent.events} events) on their way again`
 * ```
 * @since 0.5.0
 */
export interface Resent {
  readonly deliveries: number
  readonly events: number
}

/** Makes the stream's settled batches of sequences `from`..`to` pending again, as they were. */
const resendRange = (streamId: string, from: bigint, to: bigint) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const [resent] = yield* sql<{ deliveries: number; events: number }>`WITH again AS (
        UPDATE deliveries SET status = 'pending', attempts = 0, resends = resends + 1, next_attempt_at = now(), delivered_at = NULL
        WHERE stream_id = ${streamId} AND sequence BETWEEN ${String(from)}::bigint AND ${String(to)}::bigint AND status <> 'pending'
        RETURNING event_count)
      SELECT count(*)::int AS deliveries, coalesce(sum(event_count), 0)::int AS events FROM again`
    return resent!
  })

/**
 * The last sequence of the stream that was sent (delivered, failed, or tried or sent again and
 * pending), `null` before any; the stream's row locked.
 */
const lastSent = (streamId: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* sql`SELECT id FROM streams WHERE id = ${streamId} FOR UPDATE`
    const [row] = yield* sql<{ last: string | null }>`SELECT max(sequence)::text AS last FROM deliveries
      WHERE stream_id = ${streamId} AND (status <> 'pending' OR attempts > 0 OR resends > 0)`
    return row?.last === null || row?.last === undefined ? null : BigInt(row.last)
  })

/**
 * Sends again the stream's batches of sequences `from` to `to` (inclusive), as they were; refused
 * when the range reaches beyond the last batch sent. Run it in a transaction (the stream's row is
 * locked).
 *
 * @example
 * ```ts
 * import { Resend } from "@chainquery/watch-service"
 *
 * const healing = Resend.sequences("str_0mwxp89sc8710d9595292", { from: 3n, to: 7n })
 * ```
 * @since 0.5.0
 */
export const sequences = (
  streamId: string,
  range: { readonly from: bigint; readonly to: bigint }
): Effect.Effect<Resent, ResendRefused | SqlError.SqlError, SqlClient.SqlClient> =>
  Effect.gen(function*() {
    const last = yield* lastSent(streamId)
    if (last === null) return yield* new ResendRefused({ field: "fromSequence", message: "the stream has sent no batch yet: there is nothing to send again" })
    if (range.from > last) {
      return yield* new ResendRefused({ field: "fromSequence", message: `the stream sent batches up to sequence ${last}: give a fromSequence of at most ${last}` })
    }
    if (range.to > last) {
      return yield* new ResendRefused({ field: "toSequence", message: `the stream sent batches up to sequence ${last}: give a toSequence of at most ${last}` })
    }
    return yield* resendRange(streamId, range.from, range.to)
  })

/**
 * Sends again, as they were, the stream's batches that carry the blocks `ranges` name (per scope,
 * inclusive): for each, from the batch after the last one covering blocks before the range, to the
 * first one covering its last block. Each range must be of a scope the stream covers, within the
 * blocks its receiver was sent (from the first block covered to the last block of the last batch
 * delivered); `name` gives a range's field for the refusal (`blocks[0]`, then `.chain`, `.from`, `.to`). Run it in a transaction.
 *
 * @example
 * ```ts
 * import { Resend } from "@chainquery/watch-service"
 *
 * const healing = Resend.blocks("str_0mwxp89sc8710d9595292", [{ scope: "0x1", from: 18_000_125n, to: 18_000_126n }], (index) => `blocks[${index}]`)
 * ```
 * @since 0.5.0
 */
export const blocks = (
  streamId: string,
  ranges: ReadonlyArray<Range>,
  name: (index: number) => string
): Effect.Effect<Resent, ResendRefused | SqlError.SqlError, SqlClient.SqlClient> =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* lastSent(streamId)
    const covered = yield* sql<{ scope: string; covered_from: string; delivered_to: string | null }>`SELECT scope, covered_from::text,
        delivered_to::text FROM stream_coverage WHERE stream_id = ${streamId} ORDER BY scope`
    const spans: Array<{ readonly first: bigint; readonly last: bigint }> = []
    for (const [index, range] of ranges.entries()) {
      const scope = covered.find((row) => row.scope === range.scope)
      const chain = nameOf(range.scope)
      if (scope === undefined) {
        const known = covered.map((row) => nameOf(row.scope)).join(", ")
        return yield* new ResendRefused({
          field: `${name(index)}.chain`,
          message: covered.length === 0 ? "the stream covers no chain yet" : `the stream covers no block of ${chain}: it covers ${known}`
        })
      }
      if (range.from < BigInt(scope.covered_from)) {
        return yield* new ResendRefused({
          field: `${name(index)}.from`,
          message: `the stream is covered on ${chain} from block ${scope.covered_from}: start the range there or later`
        })
      }
      if (scope.delivered_to === null || range.to > BigInt(scope.delivered_to)) {
        return yield* new ResendRefused({
          field: `${name(index)}.to`,
          message: scope.delivered_to === null
            ? `no batch of ${chain} was delivered yet: there is nothing to send again`
            : `the stream's receiver was sent blocks of ${chain} up to ${scope.delivered_to}: end the range there or earlier`
        })
      }
      const [span] = yield* sql<{ first: string; last: string | null }>`WITH covering AS (
          SELECT d.sequence, c."to"::bigint AS to_block FROM deliveries d
            CROSS JOIN LATERAL jsonb_to_recordset(coalesce(d.coverage, '[]'::jsonb)) AS c(scope text, "to" text)
          WHERE d.stream_id = ${streamId} AND c.scope = ${range.scope})
        SELECT (coalesce((SELECT max(sequence) FROM covering WHERE to_block < ${String(range.from)}::bigint), 0) + 1)::text AS first,
          (SELECT min(sequence) FROM covering WHERE to_block >= ${String(range.to)}::bigint)::text AS last`
      spans.push({ first: BigInt(span!.first), last: BigInt(span!.last ?? span!.first) })
    }
    let total: Resent = { deliveries: 0, events: 0 }
    for (const span of spans) {
      const resent = yield* resendRange(streamId, span.first, span.last)
      total = { deliveries: total.deliveries + resent.deliveries, events: total.events + resent.events }
    }
    return total
  })
