/**
 * Field schemas shared by the event schemas: their JSON encoding is exact (bigints as decimal
 * strings, timestamps as ISO 8601 strings, chains as hex ids).
 *
 * @internal
 */
import { Chain, EvmAddress } from "@chainquery/schema"
import { Schema } from "effect"

/** An address copied from a service record: lower-cased when well-formed, else as sent. */
export const RecordAddress = Schema.String

/** An integer quantity (token id, amount, block number, version): a bigint, a decimal string in JSON. */
export const Amount = Schema.BigIntFromString

/** A point in time: a `DateTime.Utc`, an ISO 8601 string in JSON. */
export const Timestamp = Schema.DateTimeUtcFromString

/** The fields every EVM event starts with: its id, the chain (hex id) and the watched wallet. */
export const evmFields = {
  id: Schema.String,
  chain: Chain.Chain,
  wallet: EvmAddress.EvmAddress
}

/** Lower-cases a well-formed EVM address; anything else is kept as the service sent it. */
export const normaliseEvm = (address: string): string =>
  /^0x[0-9a-fA-F]{40}$/.test(address) ? address.toLowerCase() : address
