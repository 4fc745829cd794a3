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

/**
 * `schema` with `description` on both its sides, so that a JSON Schema of its encoding (the
 * service's OpenAPI document) describes the field too.
 */
export const described = <S extends Schema.Top>(schema: S, description: string): S["Rebuild"] =>
  (Schema.annotateEncoded<S>({ description })(schema) as S).annotate({ description })

/** The event's kind, described. */
export const kindOf = <const K extends string>(kind: K, description: string) => Schema.tag(kind).annotate({ description })

/** The fields every EVM event starts with: its id, the chain (hex id) and the watched wallet. */
export const evmFields = {
  id: described(Schema.String, "The event's id: the same however and whenever it was seen; de-duplicate by it."),
  chain: described(Chain.Chain, "The chain's id, in hex (`0x1`: Ethereum)."),
  wallet: described(EvmAddress.EvmAddress, "The watched wallet, lower case.")
}

/** Lower-cases a well-formed EVM address; anything else is kept as the service sent it. */
export const normaliseEvm = (address: string): string =>
  /^0x[0-9a-fA-F]{40}$/.test(address) ? address.toLowerCase() : address
