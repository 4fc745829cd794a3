/**
 * The events of watched holdings (`--watch holdings`): after a wallet's tokens of a collection
 * moved, its balance of each of those tokens from the collection's owners (A5):
 * `holding.updated`; or, while the service is still indexing the collection (`status:
 * SYNCING`), `holding.syncing`, which says the owners are not known yet rather than reporting
 * them as empty. All of it is re-exported by `WatchEvent`.
 *
 * @since 0.1.0
 */
import type { Chain, EvmAddress } from "@chainquery/schema"
import { Schema } from "effect"
import * as EventId from "./EventId.js"
import { Amount, described, evmFields, kindOf, RecordAddress } from "./internal/events/eventFields.js"

/**
 * A watched wallet's balance of one token after the transfers of this cycle (0: it holds none).
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { WatchEvent } from "@chainquery/watch"
 *
 * declare const event: WatchEvent.WatchEvent
 * Schema.is(WatchEvent.HoldingUpdated)(event) // true when event.kind is "holding.updated"
 * ```
 * @since 0.1.0
 */
export const HoldingUpdated = Schema.Struct({
  kind: kindOf("holding.updated", "`holding.updated`: the watched wallet's balance of a token it moved."),
  ...evmFields,
  collection: described(RecordAddress, "The NFT contract."),
  tokenId: described(Amount, "The token's id, a decimal string."),
  amount: described(Amount, "How many of the token the wallet holds now (0: none), a decimal string."),
  /** The newest block of the transfers that prompted the report. */
  blockNumber: described(Amount, "The newest block of the transfers that prompted the report, a decimal string.")
})

/**
 * @example
 * ```ts
 * import type { WatchEvent } from "@chainquery/watch"
 *
 * const empty = (event: WatchEvent.HoldingUpdated) => event.amount === 0n
 * ```
 * @since 0.1.0
 */
export type HoldingUpdated = typeof HoldingUpdated.Type

/**
 * The owners of a collection a watched wallet's tokens moved in are still being indexed by the
 * service (`SYNCING`): its holdings there are unknown, not empty.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { WatchEvent } from "@chainquery/watch"
 *
 * declare const event: WatchEvent.WatchEvent
 * Schema.is(WatchEvent.HoldingSyncing)(event) // true when event.kind is "holding.syncing"
 * ```
 * @since 0.1.0
 */
export const HoldingSyncing = Schema.Struct({
  kind: kindOf("holding.syncing", "`holding.syncing`: the collection's owners are still being indexed: the wallet's holdings there are unknown, not empty."),
  ...evmFields,
  collection: described(RecordAddress, "The NFT contract."),
  blockNumber: described(Amount, "The newest block of the transfers that prompted the report, a decimal string.")
})

/**
 * @example
 * ```ts
 * import type { WatchEvent } from "@chainquery/watch"
 *
 * const collection = (event: WatchEvent.HoldingSyncing) => event.collection
 * ```
 * @since 0.1.0
 */
export type HoldingSyncing = typeof HoldingSyncing.Type

/**
 * Either holding report.
 *
 * @example
 * ```ts
 * import type { WatchEvent } from "@chainquery/watch"
 *
 * const known = (event: WatchEvent.HoldingEvent) => event.kind === "holding.updated"
 * ```
 * @since 0.1.0
 */
export type HoldingEvent = HoldingUpdated | HoldingSyncing

/**
 * A `holding.updated` event.
 *
 * @example
 * ```ts
 * import type { EvmAddress } from "@chainquery/schema"
 * import { WatchEvent } from "@chainquery/watch"
 *
 * declare const wallet: EvmAddress.EvmAddress
 * declare const collection: string
 * WatchEvent.holdingUpdated("0x1", wallet, collection, 7n, 1n, 19000000n) // { kind: "holding.updated", tokenId: 7n, amount: 1n, … }
 * ```
 * @since 0.1.0
 */
export const holdingUpdated = (
  chain: Chain.ChainId,
  wallet: EvmAddress.EvmAddress,
  collection: string,
  tokenId: bigint,
  amount: bigint,
  blockNumber: bigint
): HoldingUpdated => ({
  kind: "holding.updated",
  id: EventId.holding(chain, wallet, collection, tokenId, blockNumber),
  chain,
  wallet,
  collection: collection.toLowerCase(),
  tokenId,
  amount,
  blockNumber
})

/**
 * A `holding.syncing` event.
 *
 * @example
 * ```ts
 * import type { EvmAddress } from "@chainquery/schema"
 * import { WatchEvent } from "@chainquery/watch"
 *
 * declare const wallet: EvmAddress.EvmAddress
 * declare const collection: string
 * WatchEvent.holdingSyncing("0x1", wallet, collection, 19000000n) // { kind: "holding.syncing", … }
 * ```
 * @since 0.1.0
 */
export const holdingSyncing = (
  chain: Chain.ChainId,
  wallet: EvmAddress.EvmAddress,
  collection: string,
  blockNumber: bigint
): HoldingSyncing => ({
  kind: "holding.syncing",
  id: EventId.holding(chain, wallet, collection, null, blockNumber),
  chain,
  wallet,
  collection: collection.toLowerCase(),
  blockNumber
})
