/**
 * DeFi position changes: the difference between two snapshots of a wallet's positions (A7
 * summaries, one per protocol). A position is identified across snapshots by its
 * {@link positionKey}; one that appears is `defi.opened`, one that disappears `defi.closed`, and
 * one whose USD value moved by at least a relative threshold `defi.changed`. The event Schemas
 * and {@link defiChanges} are re-exported by `WatchEvent`. Pure.
 *
 * @since 0.1.0
 */
import type { Chain, DefiPositions, EvmAddress } from "@chainquery/schema"
import { type DateTime, Option, Schema } from "effect"
import * as EventId from "./EventId.js"
import { Amount, described, evmFields, kindOf, Timestamp } from "./internal/events/eventFields.js"

const defiFields = {
  ...evmFields,
  protocolId: described(Schema.String, "The protocol's id, as the data service names it."),
  protocolName: described(Schema.String, "The protocol's name."),
  positionLabel: described(Schema.String, "The position's label (`supplied`, `liquidity`, …), as the data service gives it."),
  positionAddress: described(Schema.String, "The position's contract, as the data service gives it."),
  /** What identifies the position across snapshots (see {@link positionKey}). */
  positionKey: described(Schema.String, "What identifies the position across snapshots."),
  /** The position's USD value before; `null` for an opened position. */
  usdBefore: described(Schema.NullOr(Schema.Finite), "The position's USD value before; `null` for an opened position."),
  /** The position's USD value after; `null` for a closed position. */
  usdAfter: described(Schema.NullOr(Schema.Finite), "The position's USD value after; `null` for a closed position."),
  /** The block at which the change was observed, and its time. */
  blockNumber: described(Amount, "The block at which the change was observed, a decimal string."),
  timestamp: described(Timestamp, "That block's time (ISO 8601, UTC).")
}

/**
 * A DeFi position appeared (`usdBefore` is `null`).
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { WatchEvent } from "@chainquery/watch"
 *
 * declare const event: WatchEvent.WatchEvent
 * Schema.is(WatchEvent.DefiOpened)(event) // true when event.kind is "defi.opened"
 * ```
 * @since 0.1.0
 */
export const DefiOpened = Schema.Struct({ kind: kindOf("defi.opened", "`defi.opened`: a DeFi position appeared."), ...defiFields })

/**
 * @example
 * ```ts
 * import type { WatchEvent } from "@chainquery/watch"
 *
 * const worth = (event: WatchEvent.DefiOpened) => event.usdAfter
 * ```
 * @since 0.1.0
 */
export type DefiOpened = typeof DefiOpened.Type

/**
 * A DeFi position disappeared (`usdAfter` is `null`).
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { WatchEvent } from "@chainquery/watch"
 *
 * declare const event: WatchEvent.WatchEvent
 * Schema.is(WatchEvent.DefiClosed)(event) // true when event.kind is "defi.closed"
 * ```
 * @since 0.1.0
 */
export const DefiClosed = Schema.Struct({ kind: kindOf("defi.closed", "`defi.closed`: a DeFi position disappeared."), ...defiFields })

/**
 * @example
 * ```ts
 * import type { WatchEvent } from "@chainquery/watch"
 *
 * const lastWorth = (event: WatchEvent.DefiClosed) => event.usdBefore
 * ```
 * @since 0.1.0
 */
export type DefiClosed = typeof DefiClosed.Type

/**
 * A DeFi position's USD value moved by at least the threshold.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { WatchEvent } from "@chainquery/watch"
 *
 * declare const event: WatchEvent.WatchEvent
 * Schema.is(WatchEvent.DefiChanged)(event) // true when event.kind is "defi.changed"
 * ```
 * @since 0.1.0
 */
export const DefiChanged = Schema.Struct({
  kind: kindOf("defi.changed", "`defi.changed`: a DeFi position's USD value moved beyond the threshold."),
  ...defiFields
})

/**
 * @example
 * ```ts
 * import type { WatchEvent } from "@chainquery/watch"
 *
 * const moved = (event: WatchEvent.DefiChanged) => [event.usdBefore, event.usdAfter]
 * ```
 * @since 0.1.0
 */
export type DefiChanged = typeof DefiChanged.Type

/**
 * Any DeFi event.
 *
 * @example
 * ```ts
 * import type { WatchEvent } from "@chainquery/watch"
 *
 * const delta = (event: WatchEvent.DefiEvent) => (event.usdAfter ?? 0) - (event.usdBefore ?? 0)
 * ```
 * @since 0.1.0
 */
export type DefiEvent = DefiOpened | DefiClosed | DefiChanged

/**
 * Where and when the second snapshot was taken: the chain, the wallet, the block it reflects and
 * that block's time.
 *
 * @example
 * ```ts
 * import type { EvmAddress } from "@chainquery/schema"
 * import { DateTime } from "effect"
 * import type { DefiChanges } from "@chainquery/watch"
 *
 * declare const wallet: EvmAddress.EvmAddress
 * const at: DefiChanges.Context = { chain: "0x1", wallet, blockNumber: 19_000_000n, timestamp: DateTime.nowUnsafe() }
 * ```
 * @since 0.1.0
 */
export interface Context {
  readonly chain: Chain.ChainId
  readonly wallet: EvmAddress.EvmAddress
  readonly blockNumber: bigint
  readonly timestamp: DateTime.Utc
}

/**
 * What identifies a position across snapshots: `<protocol id>/<label>/<address>`, plus the
 * protocol's own `position_key` when it has one (several Uniswap v3 positions share a pool).
 *
 * @example
 * ```ts
 * import type { DefiPositions } from "@chainquery/schema"
 * import { DefiChanges } from "@chainquery/watch"
 *
 * declare const summary: DefiPositions.ProtocolSummary // Aave v3, a supplied position first
 * DefiChanges.positionKey(summary, summary.positions[0]!) // "aave-v3/supplied/0x87870bca…"
 * ```
 * @since 0.1.0
 */
export const positionKey = (summary: DefiPositions.ProtocolSummary, position: DefiPositions.Position): string => {
  const own = Option.flatMap(position.position_details, (details) => details.position_key)
  const parts = [summary.protocol_id, position.label, position.address.toLowerCase()]
  return (Option.isSome(own) ? [...parts, own.value] : parts).join("/")
}

interface Entry {
  readonly summary: DefiPositions.ProtocolSummary
  readonly position: DefiPositions.Position
  readonly usd: number
}

/** Positions by key, in order of appearance; a key seen twice adds up its USD values. */
const index = (summaries: ReadonlyArray<DefiPositions.ProtocolSummary>): Map<string, Entry> => {
  const entries = new Map<string, Entry>()
  for (const summary of summaries) {
    for (const position of summary.positions) {
      const key = positionKey(summary, position)
      const seen = entries.get(key)
      entries.set(key, { summary, position, usd: (seen?.usd ?? 0) + position.balance_usd })
    }
  }
  return entries
}

/** Relative rounding slack, so that 100 -> 105 counts as a 5% move. */
const epsilon = 1e-9

/** True when `after` differs from `before` by at least `threshold` of `before`. */
const movedEnough = (before: number, after: number, threshold: number): boolean => {
  if (after === before) return false
  const magnitude = Math.abs(before)
  if (magnitude === 0) return true
  return Math.abs(after - before) / magnitude >= threshold - epsilon
}

/**
 * The changes between two snapshots of one wallet's positions on one chain: opened and changed
 * positions in the order of `after`, then closed ones in the order of `before`. `threshold` is
 * relative (0.05 = 5%); a position worth 0 before counts as changed as soon as its value moves;
 * a negative or NaN threshold counts as 0 (every move).
 *
 * @example
 * ```ts
 * import type { DefiPositions } from "@chainquery/schema"
 * import { type DefiChanges, WatchEvent } from "@chainquery/watch"
 *
 * declare const at: DefiChanges.Context
 * declare const previousSummaries: ReadonlyArray<DefiPositions.ProtocolSummary>
 * declare const currentSummaries: ReadonlyArray<DefiPositions.ProtocolSummary>
 * const events = WatchEvent.defiChanges(at, previousSummaries, currentSummaries, 0.05)
 * // [{ kind: "defi.opened", usdBefore: null, usdAfter: 1520.5, … }, { kind: "defi.changed", … }]
 * ```
 * @since 0.1.0
 */
export const defiChanges = (
  context: Context,
  before: ReadonlyArray<DefiPositions.ProtocolSummary>,
  after: ReadonlyArray<DefiPositions.ProtocolSummary>,
  threshold: number
): ReadonlyArray<DefiEvent> => {
  const limit = Number.isNaN(threshold) || threshold < 0 ? 0 : threshold
  const previous = index(before)
  const current = index(after)
  const event = (key: string, entry: Entry, kind: "opened" | "closed" | "changed", usdBefore: number | null, usdAfter: number | null) => ({
    id: EventId.defi(context.chain, context.wallet, key, context.blockNumber, kind, usdBefore, usdAfter),
    chain: context.chain,
    wallet: context.wallet,
    protocolId: entry.summary.protocol_id,
    protocolName: entry.summary.protocol_name,
    positionLabel: entry.position.label,
    positionAddress: entry.position.address.toLowerCase(),
    positionKey: key,
    usdBefore,
    usdAfter,
    blockNumber: context.blockNumber,
    timestamp: context.timestamp
  })
  const events: Array<DefiEvent> = []
  for (const [key, entry] of current) {
    const old = previous.get(key)
    if (old === undefined) events.push({ kind: "defi.opened", ...event(key, entry, "opened", null, entry.usd) })
    else if (movedEnough(old.usd, entry.usd, limit)) {
      events.push({ kind: "defi.changed", ...event(key, entry, "changed", old.usd, entry.usd) })
    }
  }
  for (const [key, entry] of previous) {
    if (!current.has(key)) events.push({ kind: "defi.closed", ...event(key, entry, "closed", entry.usd, null) })
  }
  return events
}

/**
 * What to keep as the wallet's snapshot after a read: `after`, except that a position whose
 * move was not reported (below the threshold) keeps the USD value last reported, so that a slow
 * drift adds up until it crosses the threshold instead of never being reported.
 *
 * @example
 * ```ts
 * import type { DefiPositions } from "@chainquery/schema"
 * import { DefiChanges } from "@chainquery/watch"
 *
 * declare const at: DefiChanges.Context
 * declare const before: ReadonlyArray<DefiPositions.ProtocolSummary>
 * declare const after: ReadonlyArray<DefiPositions.ProtocolSummary>
 * const events = DefiChanges.defiChanges(at, before, after, 0.05)
 * const keep = DefiChanges.baselineAfter(before, after, events)
 * ```
 * @since 0.1.0
 */
export const baselineAfter = (
  before: ReadonlyArray<DefiPositions.ProtocolSummary>,
  after: ReadonlyArray<DefiPositions.ProtocolSummary>,
  events: ReadonlyArray<DefiEvent>
): ReadonlyArray<DefiPositions.ProtocolSummary> => {
  const reported = new Set(events.map((event) => event.positionKey))
  const previous = index(before)
  const placed = new Set<string>()
  return after.map((summary) => ({
    ...summary,
    positions: summary.positions.map((position) => {
      const key = positionKey(summary, position)
      const old = previous.get(key)
      if (reported.has(key) || old === undefined) return position
      // A key's positions add up: the first carries the reported total, the others nothing.
      const usd = placed.has(key) ? 0 : old.usd
      placed.add(key)
      return { ...position, balance_usd: usd }
    })
  }))
}
