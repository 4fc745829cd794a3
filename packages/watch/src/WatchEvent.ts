/**
 * The watcher's events, as Effect Schemas with an exact JSON encoding: bigints as decimal
 * strings, timestamps as ISO 8601 strings, chains as hex ids, `null` where a value is absent.
 * Every event has a `kind` and a stable `id` (see `EventId`: derived from the chain, the
 * transaction and log index, or the ledger version and event, never from when it was seen), so
 * a consumer can de-duplicate:
 *
 * - `nft.received`, `nft.sent`: an NFT transfer into or out of a watched EVM wallet;
 * - `trade.bought`, `trade.sold`: an NFT trade on a marketplace, with its price;
 * - `defi.opened`, `defi.closed`, `defi.changed`: a DeFi position appeared, disappeared, or its
 *   USD value moved beyond a threshold;
 * - `aptos.token.in`, `aptos.token.out`: an Aptos token transfer into or out of a wallet;
 * - `holding.updated`, `holding.syncing`: a wallet's balance of a token it moved, or the
 *   collection's owners still being indexed (`--watch holdings`);
 * - `retracted`: an earlier event whose block was orphaned by a reorganisation.
 *
 * This module gathers the whole model: the union {@link WatchEvent}, every member Schema and
 * type, and the pure constructors from the records of `@chainquery/schema`
 * ({@link fromNftTransfer}, {@link fromTrade}, {@link retract}, {@link fromAptosTransfer},
 * {@link defiChanges}), each defined next to its events (`NftEvents`, `TradeEvents`,
 * `AptosEvents`, `DefiChanges`).
 *
 * @since 0.1.0
 */
import { type Effect, Schema } from "effect"
import { AptosTokenIn, AptosTokenOut } from "./AptosEvents.js"
import { DefiChanged, DefiClosed, DefiOpened } from "./DefiChanges.js"
import { HoldingSyncing, HoldingUpdated } from "./HoldingEvents.js"
import { NftReceived, NftSent, Retracted } from "./NftEvents.js"
import { TradeBought, TradeSold } from "./TradeEvents.js"

export { type AptosEvent, AptosTokenIn, AptosTokenOut, fromAptosTransfer } from "./AptosEvents.js"
export { type Context as DefiContext, DefiChanged, DefiClosed, type DefiEvent, defiChanges, DefiOpened } from "./DefiChanges.js"
export {
  type HoldingEvent,
  HoldingSyncing,
  holdingSyncing,
  HoldingUpdated,
  holdingUpdated
} from "./HoldingEvents.js"
export { fromNftTransfer, type NftEvent, NftReceived, NftSent, retract, Retracted } from "./NftEvents.js"
export { fromTrade, TradeBought, type TradeEvent, TradeSold } from "./TradeEvents.js"

/** The members, named so that the union's declared type refers to them. */
const members: readonly [
  typeof NftReceived,
  typeof NftSent,
  typeof TradeBought,
  typeof TradeSold,
  typeof DefiOpened,
  typeof DefiClosed,
  typeof DefiChanged,
  typeof AptosTokenIn,
  typeof AptosTokenOut,
  typeof HoldingUpdated,
  typeof HoldingSyncing,
  typeof Retracted
] = [
  NftReceived,
  NftSent,
  TradeBought,
  TradeSold,
  DefiOpened,
  DefiClosed,
  DefiChanged,
  AptosTokenIn,
  AptosTokenOut,
  HoldingUpdated,
  HoldingSyncing,
  Retracted
]

/**
 * Any event, discriminated by `kind`; `WatchEvent.match`, `WatchEvent.guards`,
 * `WatchEvent.isAnyOf` and `WatchEvent.cases` come with it.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { WatchEvent } from "@chainquery/watch"
 *
 * const toJson = Schema.encodeSync(WatchEvent.WatchEvent)
 * const fromJson = Schema.decodeUnknownSync(WatchEvent.WatchEvent)
 * const isNft = WatchEvent.WatchEvent.isAnyOf(["nft.received", "nft.sent"])
 * ```
 * @since 0.1.0
 */
export const WatchEvent: Schema.toTaggedUnion<"kind", typeof members> = Schema.Union(members).pipe(Schema.toTaggedUnion("kind"))

/**
 * Any event.
 *
 * @example
 * ```ts
 * import type { WatchEvent } from "@chainquery/watch"
 *
 * const ids = (events: ReadonlyArray<WatchEvent.WatchEvent>) => events.map((event) => event.id)
 * ```
 * @since 0.1.0
 */
export type WatchEvent = typeof WatchEvent.Type

/**
 * An event kind.
 *
 * @example
 * ```ts
 * import type { WatchEvent } from "@chainquery/watch"
 *
 * const kind: WatchEvent.Kind = "defi.changed"
 * ```
 * @since 0.1.0
 */
export type Kind = WatchEvent["kind"]

/**
 * The event of one kind.
 *
 * @example
 * ```ts
 * import type { WatchEvent } from "@chainquery/watch"
 *
 * const price = (event: WatchEvent.Of<"trade.sold">) => event.price
 * ```
 * @since 0.1.0
 */
export type Of<K extends Kind> = Extract<WatchEvent, { readonly kind: K }>

/**
 * Every event kind, in the order of the union.
 *
 * @example
 * ```ts
 * import { WatchEvent } from "@chainquery/watch"
 *
 * WatchEvent.kinds.length // 12
 * ```
 * @since 0.1.0
 */
export const kinds: ReadonlyArray<Kind> = WatchEvent.discriminants

const encodeEvent = Schema.encodeSync(WatchEvent)
const decodeJson = Schema.decodeUnknownEffect(Schema.fromJsonString(WatchEvent))

/** What a history's event ends with as JSON: its `phase`, which the event's schema does not read. */
const historyTail = ',"phase":"history"}'

/**
 * One event as JSON text (no newline): the schema's exact encoding, the one every writer of events
 * uses (the CLI's NDJSON lines, the bodies of the service's webhooks).
 *
 * @example
 * ```ts
 * import { WatchEvent } from "@chainquery/watch"
 *
 * declare const event: WatchEvent.WatchEvent
 * process.stdout.write(WatchEvent.toJson(event) + "\n") // {"kind":"nft.received","id":"evm:0x1:…",…}
 * ```
 * @since 0.5.0
 */
export const toJson = (event: WatchEvent): string => JSON.stringify(encodeEvent(event))

/**
 * {@link toJson} of an event of a batch of `phase`: for `"history"` (an event of a backfill: the
 * past of a wallet), `"phase":"history"` follows its fields, as the CLI writes it; live, the same
 * as {@link toJson}. {@link fromJson} reads the event either way.
 * @example
 * ```ts
 * import { WatchEvent } from "@chainquery/watch"
 * declare const event: WatchEvent.WatchEvent
 * WatchEvent.toJsonOfPhase(event, "history") // {"kind":"nft.received",…,"phase":"history"}
 * ```
 * @since 0.5.0
 */
export const toJsonOfPhase = (event: WatchEvent, phase: "live" | "history" | undefined): string => {
  const text = toJson(event)
  return phase === "history" ? `${text.slice(0, -1)}${historyTail}` : text
}

/**
 * Whether JSON text written by {@link toJsonOfPhase} is a history's event (`"phase":"history"`).
 * @example
 * ```ts
 * import { WatchEvent } from "@chainquery/watch"
 * declare const event: WatchEvent.WatchEvent
 * WatchEvent.isHistoryJson(WatchEvent.toJsonOfPhase(event, "history")) // true
 * ```
 * @since 0.5.0
 */
export const isHistoryJson = (text: string): boolean => text.endsWith(historyTail)

/**
 * Decodes JSON text written by {@link toJson} back to the event, failing with a `SchemaError`
 * that says which field is wrong.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { WatchEvent } from "@chainquery/watch"
 *
 * declare const written: WatchEvent.WatchEvent
 * const event = Effect.runSync(WatchEvent.fromJson(WatchEvent.toJson(written))) // equal to written
 * ```
 * @since 0.5.0
 */
export const fromJson = (text: string): Effect.Effect<WatchEvent, Schema.SchemaError> => decodeJson(text)
