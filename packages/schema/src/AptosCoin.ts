/**
 * The coin record of family B (B7).
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import * as Wire from "./Wire.js"

/**
 * A coin type registered on the Aptos ledger.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { AptosCoin } from "@chainquery/schema"
 *
 * const decode = Schema.decodeUnknownSync(AptosCoin.Coin)
 * // decode(record).decimals is a number
 * ```
 * @since 0.1.0
 */
export const Coin = Schema.Struct({
  coin_type: Schema.String,
  coin_type_hash: Schema.String,
  creator_address: Schema.String,
  decimals: Wire.IntNumber,
  name: Schema.String,
  supply_aggregator_table_handle: Wire.nullable(Schema.String),
  supply_aggregator_table_key: Wire.nullable(Schema.String),
  symbol: Schema.String,
  transaction_created_timestamp: Wire.Timestamp("micros"),
  transaction_version_created: Wire.BigIntString
})

/**
 * @example
 * ```ts
 * import type { AptosCoin } from "@chainquery/schema"
 *
 * const ticker = (coin: AptosCoin.Coin) => coin.symbol
 * ```
 * @since 0.1.0
 */
export type Coin = typeof Coin.Type
