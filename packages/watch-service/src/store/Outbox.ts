/**
 * The transactional outbox: the events of a scan, fanned out to every stream that holds their
 * wallet (and wants their kind and chain, and lets them through its content filter), written as each stream's next events and cut into
 * webhook deliveries of at most 500 events, in the same transaction as the scan's checkpoints
 * (`enqueue` is the scan's `PgStateStore` `onCommit`). A crash at any moment leaves both or
 * neither. A retraction goes to the streams that received the event it retracts (even those that
 * no longer hold its wallet).
 *
 * @since 0.2.0
 */
import { type StateStore, WatchEvent } from "@chainquery/watch"
import { DateTime, Effect } from "effect"
import { SqlClient, type SqlError } from "effect/sql"
import { randomBytes } from "node:crypto"
import { announce, claim, type CoveredWallet, frontier, lockScans, type Range } from "./Coverage.js"
import type { Scope } from "../model/Scopes.js"
import { addressBytes } from "./sqlAddress.js"
import * as StreamFilters from "../model/StreamFilters.js"

/** The most events one webhook request carries. */
export const maxEventsPerDelivery = 500

/**
 * A delivery id, the `webhook-id` of each of its attempts: `msg_`, then the time in base 36, then
 * 12 random hex digits.
 *
 * @example
 * ```ts
 * import { Outbox } from "@chainquery/watch-service"
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
 * A delivery to store: its place in the stream (sequence, positions of its events) and what it
 * accounts for (see `Coverage`).
 *
 * @example
 * ```ts
 * import { Outbox } from "@chainquery/watch-service"
 *
 * const heartbeat: Outbox.NewDelivery = {
 *   id: "msg_0mwxp89sc0123456789abcd", streamId: "str_0mwxp89sc8710d9595292", sequence: 7n, first: 42n, last: 41n, count: 0,
 *   replay: false, heartbeat: true, coverage: [{ scope: "0x1", from: 101n, to: 120n }], replaces: [], wallets: []
 * }
 * ```
 * @since 0.3.0
 */
export interface NewDelivery {
  readonly id: string
  readonly streamId: string
  readonly sequence: bigint
  readonly first: bigint
  readonly last: bigint
  readonly count: number
  readonly replay: boolean
  readonly heartbeat: boolean
  readonly coverage: ReadonlyArray<Range>
  readonly replaces: ReadonlyArray<Range>
  readonly wallets: ReadonlyArray<CoveredWallet>
  /** A batch of wallets' history (default live), and the blocks of each wallet's it accounts for. */
  readonly phase?: "live" | "history" | undefined
  readonly history?: ReadonlyArray<WalletRange> | undefined
}

/**
 * Blocks `from` to `to` of one wallet's history (Aptos: ledger versions), both included.
 *
 * @example
 * ```ts
 * import type { Outbox } from "@chainquery/watch-service"
 *
 * const range: Outbox.WalletRange = { scope: "0x1", address: "0x00000000000000000000000000000000000000aa", from: 18_000_000n, to: 18_000_099n }
 * ```
 * @since 0.5.0
 */
export interface WalletRange {
  readonly scope: Scope
  readonly address: string
  readonly from: bigint
  readonly to: bigint
}

/** A filter removed, as the batch after the change states it: nothing filtered. */
const noFilter = { contracts: null, minValue: null }

/** Ranges as stored (decimal strings). */
const storedRanges = (ranges: ReadonlyArray<Range>) => ranges.map((range) => ({ scope: range.scope, from: String(range.from), to: String(range.to) }))

/**
 * Stores deliveries, pending and due at `at` (ISO 8601), in one statement; the first of a stream
 * whose content filter changed since its last batch states the filter (and the stream is marked
 * as told). Run it in the transaction that gave them their sequences.
 *
 * @example
 * ```ts
 * import { Outbox } from "@chainquery/watch-service"
 *
 * declare const made: ReadonlyArray<Outbox.NewDelivery>
 * const stored = Outbox.writeDeliveries(made, new Date().toISOString())
 * ```
 * @since 0.3.0
 */
export const writeDeliveries = (
  deliveries: ReadonlyArray<NewDelivery>,
  at: string
): Effect.Effect<void, SqlError.SqlError, SqlClient.SqlClient> =>
  Effect.gen(function*() {
    if (deliveries.length === 0) return
    const sql = yield* SqlClient.SqlClient
    // A content filter set or changed since the stream's last batch is stated by its first new one
    // (not by a replay of events sent before: it applies to what comes).
    const fresh = deliveries.filter((d) => !d.replay)
    const streamIds = [...new Set(fresh.map((d) => d.streamId))]
    const stating = yield* sql<{ id: string; filters: Parameters<typeof StreamFilters.fromJson>[0] }>`UPDATE streams SET filters_announced = true
      WHERE id IN (SELECT jsonb_array_elements_text(${JSON.stringify(streamIds)}::jsonb)) AND NOT filters_announced RETURNING id, filters`
    const firstOf = new Map<string, bigint>()
    for (const d of fresh) {
      const first = firstOf.get(d.streamId)
      if (first === undefined || d.sequence < first) firstOf.set(d.streamId, d.sequence)
    }
    const statedBy = new Map(stating.map((row) => [row.id, row.filters ?? noFilter]))
    const rows = deliveries.map((d) => ({
      id: d.id,
      stream_id: d.streamId,
      sequence: String(d.sequence),
      first: String(d.first),
      last: String(d.last),
      count: d.count,
      replay: d.replay,
      heartbeat: d.heartbeat,
      coverage: d.coverage.length === 0 ? null : storedRanges(d.coverage),
      replaces: d.replaces.length === 0 ? null : storedRanges(d.replaces),
      wallets: d.wallets.length === 0 ? null : d.wallets.map((w) => ({
        scope: w.scope,
        address: w.address,
        coveredFrom: String(w.coveredFrom),
        ...(w.historyFrom === undefined ? {} : { historyFrom: String(w.historyFrom) })
      })),
      phase: d.phase ?? "live",
      history: (d.history ?? []).length === 0 ? null : d.history!.map((h) => ({ scope: h.scope, address: h.address, from: String(h.from), to: String(h.to) })),
      filters: !d.replay && firstOf.get(d.streamId) === d.sequence ? statedBy.get(d.streamId) ?? null : null
    }))
    yield* sql`INSERT INTO deliveries (id, stream_id, sequence, first_position, last_position, event_count, replay, heartbeat,
        coverage, replaces, wallets, phase, history, filters, status, next_attempt_at, created_at)
      SELECT id, stream_id, sequence::bigint, first::bigint, last::bigint, count, replay, heartbeat, coverage, replaces, wallets, phase, history,
        filters, 'pending', ${at}::timestamptz, ${at}::timestamptz
      FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS x(id text, stream_id text, sequence text, first text, last text, count integer,
        replay boolean, heartbeat boolean, coverage jsonb, replaces jsonb, wallets jsonb, phase text, history jsonb, filters jsonb)`
  })

/** The block of an event (Aptos: its ledger version). */
const blockOf = (event: WatchEvent.WatchEvent): bigint => "network" in event ? event.version : event.blockNumber

/**
 * Fans `events` (of one scan: its scope and confirmations) out to the streams, as each stream's
 * next events and deliveries; returns the ids of the streams that got some. Run it inside the
 * scan's commit transaction. A stream's events keep the scan's order, its retractions first; the
 * first of its deliveries states the range it replaces (a reorganisation), the last the range it
 * covers and the wallets added since the stream's last batch (see `Coverage`).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import type { WatchEvent } from "@chainquery/watch"
 * import { Outbox } from "@chainquery/watch-service"
 *
 * declare const events: ReadonlyArray<WatchEvent.WatchEvent>
 * const woken = Outbox.enqueue({ scope: "0x1", confirmations: 0, events })
 * ```
 * @since 0.2.0
 */
export const enqueue = (
  scan: { readonly scope: Scope; readonly confirmations: number; readonly events: ReadonlyArray<WatchEvent.WatchEvent> }
): Effect.Effect<ReadonlyArray<string>, SqlError.SqlError | StateStore.StateStoreError, SqlClient.SqlClient> =>
  scan.events.length === 0 ? Effect.succeed([]) : fanOut(scan)

/** `enqueue` of a scan with events, traced: its scope, confirmations, events and the streams that got some. */
const fanOut = Effect.fn("Outbox.enqueue")(
  function*(scan: { readonly scope: Scope; readonly confirmations: number; readonly events: ReadonlyArray<WatchEvent.WatchEvent> }) {
    yield* Effect.annotateCurrentSpan({ scope: scan.scope, confirmations: scan.confirmations, "events.count": scan.events.length })
    const sql = yield* SqlClient.SqlClient
    // Wallets being added wait for this commit, or it waits for them (see `Coverage.lockScans`).
    yield* lockScans([scan.scope], scan.confirmations)
    const now = yield* DateTime.now
    const at = DateTime.formatIso(now)
    const rows = scan.events.map((event, ord) => ({
      ord,
      scope: scopeOfEvent(event),
      wallet: event.wallet,
      block: String(blockOf(event)),
      kind: event.kind,
      retracts: event.kind === "retracted" ? event.retracts : null
    }))
    // Which stream gets which event: its wallet held (and covered from the event's block on; DeFi
    // and holdings changes, read per wallet and dated at what it was read up to, whenever they
    // come), its kind and chain wanted; a retraction goes to the streams (of this scan's
    // confirmations) that received the event it retracts, even if they no longer hold the wallet.
    const matches = yield* sql<{ stream_id: string; ord: number }>`
      WITH ev AS (SELECT * FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
        AS x(ord integer, scope text, wallet text, block text, kind text, retracts text))
      SELECT s.id AS stream_id, ev.ord FROM ev
        JOIN stream_wallets w ON w.scope = ev.scope AND w.address = ${sql.literal(addressBytes("ev.wallet"))}
        JOIN streams s ON s.id = w.stream_id
      WHERE ev.kind <> 'retracted' AND s.confirmations = ${scan.confirmations}
        AND (w.covered_from IS NULL OR ev.block::bigint >= w.covered_from OR ev.kind LIKE 'defi.%' OR ev.kind LIKE 'holding.%')
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
    // A stream's retractions come first (stable otherwise).
    for (const [id, ords] of perStream) {
      const retracted = (ord: number) => scan.events[ord]!.kind === "retracted"
      perStream.set(id, [...ords.filter(retracted), ...ords.filter((ord) => !retracted(ord))])
    }
    // The streams' rows are locked in id order, so that two scans sharing streams never deadlock;
    // their content filters are read under the lock (a change waits for this commit, or this
    // commit for it): what a filter keeps out is counted, and a stream left with nothing gets no batch.
    const locked = yield* sql<{ id: string; filters: Parameters<typeof StreamFilters.fromJson>[0] }>`SELECT id, filters FROM streams
      WHERE id IN (SELECT jsonb_array_elements_text(${JSON.stringify([...perStream.keys()])}::jsonb)) ORDER BY id FOR UPDATE`
    const filtered: Array<{ id: string; count: number }> = []
    for (const row of locked) {
      if (row.filters === null) continue
      const passes = StreamFilters.matcher(StreamFilters.fromJson(row.filters))
      const ords = perStream.get(row.id)!
      const kept = ords.filter((ord) => passes(scan.events[ord]!))
      if (kept.length === ords.length) continue
      filtered.push({ id: row.id, count: ords.length - kept.length })
      if (kept.length === 0) perStream.delete(row.id)
      else perStream.set(row.id, kept)
    }
    if (filtered.length > 0) {
      yield* sql`UPDATE streams s SET filtered_events = s.filtered_events + f.count
        FROM jsonb_to_recordset(${JSON.stringify(filtered)}::jsonb) AS f(id text, count integer) WHERE s.id = f.id`
    }
    if (perStream.size === 0) return []
    const counts = Array.from(perStream, ([id, ords]) => ({ id, events: ords.length, deliveries: cut(0n, ords.length).length }))
    const claims = yield* claim(
      scan.scope,
      Array.from(perStream, ([id, ords]) => ({
        id,
        lowest: ords.reduce<bigint | undefined>((low, ord) => {
          const block = blockOf(scan.events[ord]!)
          return low === undefined || block < low ? block : low
        }, undefined)
      })),
      yield* frontier(scan.scope, scan.confirmations)
    )
    const announced = yield* announce([...perStream.keys()])
    const bases = yield* sql<{ id: string; first_position: string; first_sequence: string }>`
      UPDATE streams s SET next_position = s.next_position + c.events, next_sequence = s.next_sequence + c.deliveries, last_batch_at = ${at}::timestamptz
      FROM jsonb_to_recordset(${JSON.stringify(counts)}::jsonb) AS c(id text, events integer, deliveries integer)
      WHERE s.id = c.id
      RETURNING s.id, (s.next_position - c.events)::text AS first_position, (s.next_sequence - c.deliveries)::text AS first_sequence`
    const bodies = scan.events.map((event) => WatchEvent.toJson(event))
    const events: Array<{ stream_id: string; position: string; event_id: string; body: string }> = []
    const deliveries: Array<NewDelivery> = []
    for (const base of bases) {
      const ords = perStream.get(base.id)!
      const firstPosition = BigInt(base.first_position)
      ords.forEach((ord, index) =>
        events.push({ stream_id: base.id, position: String(firstPosition + BigInt(index)), event_id: scan.events[ord]!.id, body: bodies[ord]! })
      )
      const made = claims.get(base.id)
      const ranges = cut(firstPosition, ords.length)
      ranges.forEach((range, index) =>
        deliveries.push({
          id: newDeliveryId(DateTime.toEpochMillis(now)),
          streamId: base.id,
          sequence: BigInt(base.first_sequence) + BigInt(index),
          ...range,
          replay: false,
          heartbeat: false,
          replaces: index === 0 && made?.replaces !== undefined ? [made.replaces] : [],
          coverage: index === ranges.length - 1 && made?.coverage !== undefined ? [made.coverage] : [],
          wallets: index === ranges.length - 1 ? announced.get(base.id) ?? [] : []
        })
      )
    }
    yield* sql`INSERT INTO stream_events (stream_id, position, event_id, body, created_at)
      SELECT stream_id, position::bigint, event_id, body, ${at}::timestamptz
      FROM jsonb_to_recordset(${JSON.stringify(events)}::jsonb) AS x(stream_id text, position text, event_id text, body text)`
    yield* writeDeliveries(deliveries, at)
    yield* Effect.annotateCurrentSpan("streams.count", bases.length)
    return bases.map((base) => base.id)
  }
)
