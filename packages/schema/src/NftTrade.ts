/**
 * The NFT trade record of family A (A4): a sale of one or more tokens on a marketplace.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import * as Wire from "./Wire.js"

/**
 * One trade: who sold which tokens to whom, where, and for what price.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { NftTrade } from "@chainquery/schema"
 *
 * const decode = Schema.decodeUnknownSync(NftTrade.NftTrade)
 * // decode(record).price is a bigint in the price token's smallest unit
 * ```
 * @since 0.1.0
 */
export const NftTrade = Schema.Struct({
  transaction_hash: Schema.String,
  transaction_index: Wire.IntString,
  token_ids: Schema.Array(Wire.BigIntString),
  seller_address: Schema.String,
  buyer_address: Schema.String,
  token_address: Schema.String,
  marketplace_address: Schema.String,
  price_token_address: Wire.nullable(Schema.String),
  price: Wire.BigIntString,
  block_timestamp: Wire.Timestamp("naive"),
  block_number: Wire.BigIntString,
  block_hash: Schema.String,
  /**
   * Whether the traded collection is verified by the service; a JSON boolean on the wire (not in
   * service.md, which has no flag for trades).
   */
  verified_collection: Wire.nullable(Wire.BooleanValue)
})

/**
 * @example
 * ```ts
 * import type { NftTrade } from "@chainquery/schema"
 *
 * const tokens = (trade: NftTrade.NftTrade) => trade.token_ids.length
 * ```
 * @since 0.1.0
 */
export type NftTrade = typeof NftTrade.Type
