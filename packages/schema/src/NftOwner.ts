/**
 * The NFT owner record of family A (A5): one token of a contract and who holds it.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import * as Wire from "./Wire.js"

/**
 * One held token. `metadata` is the raw JSON text (never parsed while decoding: invalid JSON
 * never fails a page; use `Wire.parseJsonText`). `normalized_metadata` and `media` are present
 * when asked for with `normalizeMetadata` / `media_items`.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { NftOwner } from "@chainquery/schema"
 *
 * const decode = Schema.decodeUnknownSync(NftOwner.NftOwner)
 * // decode(record).owner_of is the holder's address
 * ```
 * @since 0.1.0
 */
export const NftOwner = Schema.Struct({
  token_address: Schema.String,
  token_id: Wire.BigIntString,
  contract_type: Wire.nullable(Schema.String),
  owner_of: Schema.String,
  block_number: Wire.BigIntString,
  block_number_minted: Wire.nullable(Wire.BigIntString),
  token_uri: Wire.nullable(Schema.String),
  metadata: Wire.nullable(Wire.JsonText),
  normalized_metadata: Wire.nullable(Schema.Record(Schema.String, Schema.Json)),
  media: Wire.nullable(Schema.Record(Schema.String, Schema.Json)),
  amount: Wire.BigIntString,
  name: Wire.nullable(Schema.String),
  symbol: Wire.nullable(Schema.String),
  token_hash: Wire.nullable(Schema.String),
  rarity_rank: Wire.nullable(Wire.FloatNumber),
  rarity_label: Wire.nullable(Schema.String),
  rarity_percentage: Wire.nullable(Wire.FloatNumber),
  last_token_uri_sync: Wire.nullable(Wire.Timestamp("millis")),
  last_metadata_sync: Wire.nullable(Wire.Timestamp("millis")),
  possible_spam: Wire.nullable(Wire.BooleanString),
  verified_collection: Wire.nullable(Wire.BooleanString),
  /**
   * Who the token was minted to: the first receiver of the token on the chain, the provenance
   * of the token (not in service.md; `None` where the service does not know it).
   */
  minter_address: Wire.nullable(Schema.String)
})

/**
 * @example
 * ```ts
 * import type { NftOwner } from "@chainquery/schema"
 *
 * const holder = (owner: NftOwner.NftOwner) => owner.owner_of
 * ```
 * @since 0.1.0
 */
export type NftOwner = typeof NftOwner.Type
