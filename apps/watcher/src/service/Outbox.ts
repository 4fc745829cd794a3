/**
 * The transactional outbox: the events of a scan, fanned out to every stream that holds their
 * wallet (and wants their kind and chain), written as each stream's next events and cut into
 * webhook deliveries of at most 500 events, in the same transaction as the scan's checkpoints
 * (`enqueue` is the scan's `PgStateStore` `onCommit`). A crash at any moment leaves both or
 * neither. A retraction goes to the streams that received the event it retracts (even those that
 * no longer hold its wallet).
 *
 * @since 0.2.0
 */
import type { WatchEvent } from "@chainquery/watch"
import { DateTime, Effect } from "effect"
import { SqlClient, type SqlError } from "effect/sql"
import { randomBytes } from "node:crypto"
import * as Output from "../Output.js"
import type { Scope } from "./Scopes.js"

/** The most events one webhook request carries. */
export const maxEventsPerDelivery = 500

/**
 * A delivery id, the `webhook-id` of each of its attempts: `msg_`, then the time in base 36, then
 * 12 random hex digits.
 *
 * @example
 * ```ts
 * import { Outbox } from "@chainquery/watcher"
 *
 * Outbox.newDeliveryId(Date.now()).startsWith("msg_") // true
 * ```
 * @since 0.2.0
 */
export const newDeliveryId = (now: number): string => `msg_${now.toString(36).padStart(9, "0")}${randomBytes(6).toString("hex")}`

/** The scope of an event: its chain id, or `aptos:<network>`. */
const scopeOfEvent = (event: WatchEvent.WatchEvent): Scope => "network" in event ? `aptos:${event.network}` : event.chain

/** Deliveries of `count` events from `firstPosition` on, at most 500 each. */
export const cut = (firstPosition: bigint, count: number): Array<{ readonly first: bigint; readonly last: bigint; readonly count: number }> =>
  Array.from({ length: Math.ceil(count / maxEventsPerDelivery) }, (_, index) => {
    const size = Math.min(maxEventsPerDelivery, count - index * maxEventsPerDelivery)
    const first = firstPosition + BigInt(index * maxEventsPerDelivery)
    return { first, last: first + BigInt(size - 1), count: size }
  })

/**
 * Fans `events` (of one scan: its scope and confirmations) out to the streams, as each stream's
 * next events and deliveries; returns the ids of the streams that got some. Run it inside the
 * scan's commit transaction.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import type { WatchEvent } from "@chainquery/watch"
 * import { Outbox } from "@chainquery/watcher"
 *
 * declare const events: ReadonlyArray<WatchEvent.WatchEvent>
 * const woken = Outbox.enqueue({ confirmations: 0, events })
 * ```
 * @since 0.2.0
 */
export const enqueue = (
  scan: { readonly confirmations: number; readonly events: ReadonlyArray<WatchEvent.WatchEvent> }
): Effect.Effect<ReadonlyArray<string>, SqlError.SqlError, SqlClient.SqlClient> =>
  Effect.gen(function*() {
    if (scan.events.length === 0) return []
    const sql = yield* SqlClient.SqlClient
    const now = yield* DateTime.now
    const at = DateTime.formatIso(now)
    const rows = scan.events.map((event, ord) => ({
      ord,
      scope: scopeOfEvent(event),
      wallet: event.wallet,
      kind: event.kind,
      retracts: event.kind === "retracted" ? event.retracts : null
    }))
    // Which stream gets which event: its wallet held, its kind and chain wanted; a retraction goes
    // to the streams (of this scan's confirmations) that received the event it retracts, even if
    // they no longer hold the wallet.
    const matches = yield* sql<{ stream_id: string; ord: number }>`
      WITH ev AS (SELECT * FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
        AS x(ord integer, scope text, wallet text, kind text, retracts text))
      SELECT s.id AS stream_id, ev.ord FROM ev
        JOIN stream_wallets w ON w.scope = ev.scope AND w.address = ev.wallet
        JOIN streams s ON s.id = w.stream_id
      WHERE ev.kind <> 'retracted' AND s.confirmations = ${scan.confirmations}
        AND (s.scopes IS NULL OR ev.scope = ANY (s.scopes))
        AND (s.event_kinds IS NULL OR ev.kind = ANY (s.event_kinds))
      UNION
      SELECT s.id AS stream_id, ev.ord FROM ev
        JOIN stream_events e ON e.event_id = ev.retracts
        JOIN streams s ON s.id = e.stream_id
      WHERE ev.kind = 'retracted' AND s.confirmations = ${scan.confirmations}
      ORDER BY 1, 2`
    if (matches.length === 0) return []
    const perStream = new Map<string, Array<number>>()
    for (const { ord, stream_id } of matches) {
      const list = perStream.get(stream_id)
      if (list === undefined) perStream.set(stream_id, [ord])
      else list.push(ord)
    }
    const counts = Array.from(perStream, ([id, ords]) => ({ id, events: ords.length, deliveries: cut(0n, ords.length).length }))
    // The streams' rows are locked in id order, so that two scans sharing streams never deadlock.
    yield* sql`SELECT id FROM streams WHERE id IN (SELECT jsonb_array_elements_text(${JSON.stringify([...perStream.keys()])}::jsonb))
      ORDER BY id FOR UPDATE`
    const bases = yield* sql<{ id: string; first_position: string; first_sequence: string }>`
      UPDATE streams s SET next_position = s.next_position + c.events, next_sequence = s.next_sequence + c.deliveries
      FROM jsonb_to_recordset(${JSON.stringify(counts)}::jsonb) AS c(id text, events integer, deliveries integer)
      WHERE s.id = c.id
      RETURNING s.id, (s.next_position - c.events)::text AS first_position, (s.next_sequence - c.deliveries)::text AS first_sequence`
    const bodies = scan.events.map((event) => Output.json(event))
    const events: Array<{ stream_id: string; position: string; event_id: string; body: string }> = []
    const deliveries: Array<{ id: string; stream_id: string; sequence: string; first: string; last: string; count: number }> = []
    for (const base of bases) {
      const ords = perStream.get(base.id)!
      const firstPosition = BigInt(base.first_position)
      ords.forEach((ord, index) =>
        events.push({ stream_id: base.id, position: String(firstPosition + BigInt(index)), event_id: scan.events[ord]!.id, body: bodies[ord]! })
      )
      cut(firstPosition, ords.length).forEach((range, index) =>
        deliveries.push({
          id: newDeliveryId(DateTime.toEpochMillis(now)),
          stream_id: base.id,
          sequence: String(BigInt(base.first_sequence) + BigInt(index)),
          first: String(range.first),
          last: String(range.last),
          count: range.count
        })
      )
    }
    yield* sql`INSERT INTO stream_events (stream_id, position, event_id, body, created_at)
      SELECT stream_id, position::bigint, event_id, body, ${at}::timestamptz
      FROM jsonb_to_recordset(${JSON.stringify(events)}::jsonb) AS x(stream_id text, position text, event_id text, body text)`
    yield* sql`INSERT INTO deliveries (id, stream_id, sequence, first_position, last_position, event_count, status, next_attempt_at, created_at)
      SELECT id, stream_id, sequence::bigint, first::bigint, last::bigint, count, 'pending', ${at}::timestamptz, ${at}::timestamptz
      FROM jsonb_to_recordset(${JSON.stringify(deliveries)}::jsonb) AS x(id text, stream_id text, sequence text, first text, last text, count integer)`
    return bases.map((base) => base.id)
  })
