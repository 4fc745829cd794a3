/**
 * The collection record of family B (B4).
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import * as Wire from "./Wire.js"

/**
 * An NFT collection on the Aptos ledger. The `*_mutable` flags are strings holding true or
 * false in service.md and JSON booleans in real responses; both decode to `boolean`.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { AptosCollection } from "@chainquery/schema"
 *
 * const decode = Schema.decodeUnknownSync(AptosCollection.Collection)
 * // decode(record).supply is a bigint
 * ```
 * @since 0.1.0
 */
export const Collection = Schema.Struct({
  collection_data_id_hash: Schema.String,
  collection_name: Schema.String,
  creator_address: Schema.String,
  description: Schema.String,
  description_mutable: Wire.BooleanString,
  last_transaction_timestamp: Wire.Timestamp("micros"),
  last_transaction_version: Wire.BigIntString,
  maximum: Wire.BigIntString,
  maximum_mutable: Wire.BooleanString,
  metadata_uri: Schema.String,
  supply: Wire.BigIntString,
  table_handle: Schema.String,
  uri_mutable: Wire.BooleanString
})

/**
 * @example
 * ```ts
 * import type { AptosCollection } from "@chainquery/schema"
 *
 * const full = (c: AptosCollection.Collection) => c.maximum > 0n && c.supply >= c.maximum
 * ```
 * @since 0.1.0
 */
export type Collection = typeof Collection.Type
