/**
 * The NFT transfer record of family A (A1, A2, A3), field for field with service.md. Decoding
 * accepts what the real service sends (numbers for indexes, JSON booleans, timestamps with a zone,
 * nulls, missing descriptive fields); encoding gives service.md's wire types.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import * as Wire from "./Wire.js"

/**
 * One transfer of an NFT (ERC721 or ERC1155) between two addresses.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { NftTransfer } from "@chainquery/schema"
 *
 * const decode = Schema.decodeUnknownSync(NftTransfer.NftTransfer)
 * // decode(record).block_number is a bigint, decode(record).block_timestamp a DateTime.Utc
 * ```
 * @since 0.1.0
 */
export const NftTransfer = Schema.Struct({
  token_address: Schema.String,
  token_id: Wire.BigIntString,
  from_address_entity: Wire.nullable(Schema.String),
  from_address_entity_logo: Wire.nullable(Schema.String),
  from_address: Schema.String,
  from_address_label: Wire.nullable(Schema.String),
  to_address_entity: Wire.nullable(Schema.String),
  to_address_entity_logo: Wire.nullable(Schema.String),
  to_address: Schema.String,
  to_address_label: Wire.nullable(Schema.String),
  value: Wire.BigIntString,
  amount: Wire.BigIntString,
  contract_type: Wire.nullable(Schema.String),
  block_number: Wire.BigIntString,
  block_timestamp: Wire.Timestamp("naive"),
  block_hash: Schema.String,
  transaction_hash: Schema.String,
  transaction_type: Wire.nullable(Schema.String),
  transaction_index: Wire.IntString,
  log_index: Wire.IntString,
  operator: Wire.nullable(Schema.String),
  possible_spam: Wire.nullable(Wire.BooleanString),
  verified_collection: Wire.nullable(Wire.BooleanString),
  /**
   * A flag the service sends on each transfer as `1`/`0` (`1` in every capture); neither
   * service.md nor the reference says what it certifies, so read it as the service's own mark.
   */
  verified: Wire.nullable(Wire.BooleanNumber)
})

/**
 * @example
 * ```ts
 * import type { NftTransfer } from "@chainquery/schema"
 *
 * const key = (t: NftTransfer.NftTransfer) => `${t.transaction_hash}:${t.log_index}`
 * ```
 * @since 0.1.0
 */
export type NftTransfer = typeof NftTransfer.Type
