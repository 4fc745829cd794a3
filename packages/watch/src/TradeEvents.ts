/**
 * The events of EVM NFT trades: `trade.bought` / `trade.sold` (from the trade records of A4),
 * with the price, the price token and the marketplace, as Schemas, with their pure constructor,
 * seen from one watched wallet. All of it is re-exported by `WatchEvent`.
 *
 * @since 0.1.0
 */
import type { Chain, EvmAddress, NftTrade } from "@chainquery/schema"
import { Option, Schema } from "effect"
import * as EventId from "./EventId.js"
import { Amount, described, evmFields, kindOf, normaliseEvm as normalise, RecordAddress, Timestamp } from "./internal/events/eventFields.js"

const tradeFields = {
  ...evmFields,
  collection: described(RecordAddress, "The NFT contract."),
  tokenIds: described(Schema.Array(Amount), "The ids of the tokens traded, decimal strings."),
  /** The seller of a bought NFT, the buyer of a sold one. */
  counterparty: described(RecordAddress, "The seller of a bought NFT, the buyer of a sold one."),
  /** In the smallest unit of `priceToken`. */
  price: described(Amount, "The price, in the smallest unit of `priceToken`, a decimal string."),
  /**
   * The token paid with, as the service names it: an ERC-20, or for the chain's native coin either
   * `null` or the stand-in address `0xeeee…eeee` (`Chain.nativeCurrencyAddress`).
   */
  priceToken: described(
    Schema.NullOr(RecordAddress),
    "The token paid with: an ERC-20, or for the chain's native coin `null` or the stand-in address 0xeeee…eeee."
  ),
  marketplace: described(RecordAddress, "The marketplace's contract."),
  transactionHash: described(Schema.String, "The transaction's hash."),
  blockNumber: described(Amount, "The block's number, a decimal string."),
  blockHash: described(Schema.String, "The block's hash: a reorganisation that orphans it retracts the event."),
  timestamp: described(Timestamp, "The block's time (ISO 8601, UTC).")
}

/**
 * A watched wallet bought NFTs.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { WatchEvent } from "@chainquery/watch"
 *
 * declare const event: WatchEvent.WatchEvent
 * Schema.is(WatchEvent.TradeBought)(event) // true when event.kind is "trade.bought"
 * ```
 * @since 0.1.0
 */
export const TradeBought = Schema.Struct({ kind: kindOf("trade.bought", "`trade.bought`: the watched wallet bought NFTs."), ...tradeFields })

/**
 * @example
 * ```ts
 * import type { WatchEvent } from "@chainquery/watch"
 *
 * const seller = (event: WatchEvent.TradeBought) => event.counterparty
 * ```
 * @since 0.1.0
 */
export type TradeBought = typeof TradeBought.Type

/**
 * A watched wallet sold NFTs.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { WatchEvent } from "@chainquery/watch"
 *
 * declare const event: WatchEvent.WatchEvent
 * Schema.is(WatchEvent.TradeSold)(event) // true when event.kind is "trade.sold"
 * ```
 * @since 0.1.0
 */
export const TradeSold = Schema.Struct({ kind: kindOf("trade.sold", "`trade.sold`: the watched wallet sold NFTs."), ...tradeFields })

/**
 * @example
 * ```ts
 * import type { WatchEvent } from "@chainquery/watch"
 *
 * const buyer = (event: WatchEvent.TradeSold) => event.counterparty
 * ```
 * @since 0.1.0
 */
export type TradeSold = typeof TradeSold.Type

/**
 * Either side of a trade.
 *
 * @example
 * ```ts
 * import type { WatchEvent } from "@chainquery/watch"
 *
 * const paid = (event: WatchEvent.TradeEvent) => event.kind === "trade.bought" ? event.price : 0n
 * ```
 * @since 0.1.0
 */
export type TradeEvent = TradeBought | TradeSold

/**
 * The events of one NFT trade for a watched wallet: `trade.bought` when it is the buyer,
 * `trade.sold` when it is the seller (both, sold first, if it traded with itself).
 *
 * @example
 * ```ts
 * import type { EvmAddress, NftTrade } from "@chainquery/schema"
 * import { WatchEvent } from "@chainquery/watch"
 *
 * declare const wallet: EvmAddress.EvmAddress // the buyer of `trade`
 * declare const trade: NftTrade.NftTrade // bought for 0.5 ETH
 * const events = WatchEvent.fromTrade("0x1", wallet, trade) // [{ kind: "trade.bought", price: 5n * 10n ** 17n, … }]
 * ```
 * @since 0.1.0
 */
export const fromTrade = (
  chain: Chain.ChainId,
  wallet: EvmAddress.EvmAddress,
  trade: NftTrade.NftTrade
): ReadonlyArray<TradeEvent> => {
  const buyer = normalise(trade.buyer_address)
  const seller = normalise(trade.seller_address)
  const transactionHash = trade.transaction_hash.toLowerCase()
  const collection = normalise(trade.token_address)
  const common = {
    chain,
    wallet,
    collection,
    tokenIds: trade.token_ids,
    price: trade.price,
    priceToken: Option.getOrNull(Option.map(trade.price_token_address, normalise)),
    marketplace: normalise(trade.marketplace_address),
    transactionHash,
    blockNumber: trade.block_number,
    blockHash: trade.block_hash.toLowerCase(),
    timestamp: trade.block_timestamp
  }
  const id = (direction: "bought" | "sold", counterparty: string) =>
    EventId.trade(chain, transactionHash, collection, trade.token_ids, direction, counterparty)
  const events: Array<TradeEvent> = []
  if (seller === wallet) events.push({ kind: "trade.sold", id: id("sold", buyer), ...common, counterparty: buyer })
  if (buyer === wallet) events.push({ kind: "trade.bought", id: id("bought", seller), ...common, counterparty: seller })
  return events
}
