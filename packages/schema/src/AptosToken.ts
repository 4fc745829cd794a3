/**
 * The token records of family B (the Aptos ledger): holdings (B1, B5, B6) and transfers (B2,
 * B3). Timestamps are written with six fractional digits on the wire; amounts and versions are
 * numeric strings decoded to `bigint`.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import * as Wire from "./Wire.js"

/**
 * A token held by an owner (B1 owners by collection, B5 NFTs by wallets, B6 owners by tokens).
 * `token_properties` is kept as JSON text (an object sent in its place is serialised).
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { AptosToken } from "@chainquery/schema"
 *
 * const decode = Schema.decodeUnknownSync(AptosToken.TokenHolding)
 * // decode(record).amount is a bigint
 * ```
 * @since 0.1.0
 */
export const TokenHolding = Schema.Struct({
  amount: Wire.BigIntString,
  collection_data_id_hash: Schema.String,
  collection_name: Schema.String,
  creator_address: Schema.String,
  last_transaction_timestamp: Wire.Timestamp("micros"),
  last_transaction_version: Wire.BigIntString,
  name: Schema.String,
  owner_address: Schema.String,
  property_version: Wire.BigIntString,
  table_type: Schema.String,
  token_data_id_hash: Schema.String,
  token_properties: Wire.JsonText
})

/**
 * @example
 * ```ts
 * import type { AptosToken } from "@chainquery/schema"
 *
 * const owner = (holding: AptosToken.TokenHolding) => holding.owner_address
 * ```
 * @since 0.1.0
 */
export type TokenHolding = typeof TokenHolding.Type

/**
 * A transfer of a token (B2 by creators, B3 by wallets). `coin_amount`/`coin_type` are set when
 * coins moved with the token (a sale), `None` otherwise.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { AptosToken } from "@chainquery/schema"
 *
 * const decode = Schema.decodeUnknownSync(AptosToken.TokenTransfer)
 * // decode(record).transaction_version is a bigint
 * ```
 * @since 0.1.0
 */
export const TokenTransfer = Schema.Struct({
  coin_amount: Wire.nullable(Wire.BigIntString),
  coin_type: Wire.nullable(Schema.String),
  collection_data_id_hash: Schema.String,
  collection_name: Schema.String,
  creator_address: Schema.String,
  event_account_address: Schema.String,
  event_creation_number: Wire.BigIntString,
  event_sequence_number: Wire.BigIntString,
  from_address: Wire.nullable(Schema.String),
  name: Schema.String,
  property_version: Wire.BigIntString,
  to_address: Wire.nullable(Schema.String),
  token_amount: Wire.BigIntString,
  token_data_id_hash: Schema.String,
  transaction_timestamp: Wire.Timestamp("micros"),
  transaction_version: Wire.BigIntString,
  transfer_type: Schema.String
})

/**
 * @example
 * ```ts
 * import type { AptosToken } from "@chainquery/schema"
 *
 * const id = (t: AptosToken.TokenTransfer) => `${t.transaction_version}:${t.event_sequence_number}`
 * ```
 * @since 0.1.0
 */
export type TokenTransfer = typeof TokenTransfer.Type
