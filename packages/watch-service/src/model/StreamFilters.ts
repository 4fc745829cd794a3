/**
 * A stream's content filter: which of the events its wallets, kinds and chains give it the stream
 * receives. `contracts`: only the events of these contracts (EVM: an NFT's, a trade's or a
 * holding's `collection`, a DeFi position's `positionAddress`; Aptos: a token's `collectionId`);
 * `minValue`: per chain, only the trades whose `price` is at least this (in the smallest unit of
 * the price's token). A retraction is never filtered here: it goes to the streams that received
 * the event it takes back. The filter is applied as events enter the outbox (`Outbox.enqueue`,
 * `HistoryStore.commit`); what it keeps out is covered, not missing.
 *
 * @since 0.5.0
 */
import type { WatchEvent } from "@chainquery/watch"
import type { Scope } from "./Scopes.js"

/**
 * A content filter: `null` fields let everything through.
 *
 * @example
 * ```ts
 * import type { StreamFilters } from "@chainquery/watch-service"
 *
 * const bigTrades: StreamFilters.Filters = { contracts: null, minValue: { "0x1": 10n ** 18n } }
 * ```
 * @since 0.5.0
 */
export interface Filters {
  /** Lower-case EVM addresses (`0x` and 40 hex digits) and Aptos collection ids (64 hex digits); `null`: any. */
  readonly contracts: ReadonlyArray<string> | null
  /** Per EVM chain id, the least price of a trade; `null`: any. */
  readonly minValue: Readonly<Record<Scope, bigint>> | null
}

/**
 * The most contracts one filter may name.
 *
 * @example
 * ```ts
 * import { StreamFilters } from "@chainquery/watch-service"
 *
 * StreamFilters.maxContracts // 1000
 * ```
 * @since 0.5.0
 */
export const maxContracts = 1_000

/**
 * The contract an event is about, as a filter names it; `undefined` for a retraction.
 *
 * @example
 * ```ts
 * import type { WatchEvent } from "@chainquery/watch"
 * import { StreamFilters } from "@chainquery/watch-service"
 *
 * declare const event: WatchEvent.WatchEvent
 * const contract = StreamFilters.contractOf(event) // "0x…" or a collection id
 * ```
 * @since 0.5.0
 */
export const contractOf = (event: WatchEvent.WatchEvent): string | undefined => {
  switch (event.kind) {
    case "nft.received":
    case "nft.sent":
    case "trade.bought":
    case "trade.sold":
    case "holding.updated":
    case "holding.syncing":
      return event.collection.toLowerCase()
    case "defi.opened":
    case "defi.closed":
    case "defi.changed":
      return event.positionAddress.toLowerCase()
    case "aptos.token.in":
    case "aptos.token.out":
      return event.collectionId.toLowerCase()
    case "retracted":
      return undefined
  }
}

/**
 * A filter that lets everything through is no filter: `null`.
 *
 * @example
 * ```ts
 * import { StreamFilters } from "@chainquery/watch-service"
 *
 * StreamFilters.normalise({ contracts: null, minValue: null }) // null
 * ```
 * @since 0.5.0
 */
export const normalise = (filters: Filters | null): Filters | null =>
  filters === null || (filters.contracts === null && filters.minValue === null) ? null : filters

/**
 * A matcher for `filters`: whether an event passes (a retraction always does).
 *
 * @example
 * ```ts
 * import type { WatchEvent } from "@chainquery/watch"
 * import { StreamFilters } from "@chainquery/watch-service"
 *
 * declare const events: ReadonlyArray<WatchEvent.WatchEvent>
 * const passes = StreamFilters.matcher({ contracts: ["0x00000000000000000000000000000000000000aa"], minValue: null })
 * const kept = events.filter(passes)
 * ```
 * @since 0.5.0
 */
export const matcher = (filters: Filters | null): (event: WatchEvent.WatchEvent) => boolean => {
  if (filters === null) return () => true
  const contracts = filters.contracts === null ? null : new Set(filters.contracts)
  const minValue = filters.minValue
  return (event) => {
    if (event.kind === "retracted") return true
    if (contracts !== null && !contracts.has(contractOf(event)!)) return false
    if (minValue !== null && (event.kind === "trade.bought" || event.kind === "trade.sold")) {
      const least = minValue[event.chain]
      if (least !== undefined && event.price < least) return false
    }
    return true
  }
}

/** The JSON a filter is stored as (in `streams.filters` and in the batch that states it). */
interface Stored {
  readonly contracts: ReadonlyArray<string> | null
  readonly minValue: Readonly<Record<string, string>> | null
}

/**
 * The filter as stored, and as a batch states it: the same fields, values as decimal strings.
 *
 * @example
 * ```ts
 * import { StreamFilters } from "@chainquery/watch-service"
 *
 * StreamFilters.toJson({ contracts: null, minValue: { "0x1": 5n } }) // { contracts: null, minValue: { "0x1": "5" } }
 * ```
 * @since 0.5.0
 */
export const toJson = (filters: Filters): Stored => ({
  contracts: filters.contracts,
  minValue: filters.minValue === null ? null : Object.fromEntries(Object.entries(filters.minValue).map(([scope, value]) => [scope, String(value)]))
})

/**
 * A stored filter read back (`null` stays `null`).
 *
 * @example
 * ```ts
 * import { StreamFilters } from "@chainquery/watch-service"
 *
 * StreamFilters.fromJson({ contracts: ["0x00000000000000000000000000000000000000aa"], minValue: null })
 * ```
 * @since 0.5.0
 */
export const fromJson = (stored: Stored | null): Filters | null =>
  stored === null ? null : {
    contracts: stored.contracts,
    minValue: stored.minValue === null ? null : Object.fromEntries(Object.entries(stored.minValue).map(([scope, value]) => [scope, BigInt(value)]))
  }
