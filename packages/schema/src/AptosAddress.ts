/**
 * Aptos account addresses and 32-byte identifiers. Addresses are `0x` and 1 to 64 hex digits;
 * the decoded value is padded to the full 64 digits in lower case (`0x1` becomes `0x000…001`), as
 * the service expects. Hashes (collection and token data ids) are 64 hex digits without `0x`.
 *
 * @since 0.1.0
 */
import { Schema, SchemaGetter } from "effect"

/**
 * A full-length, lower-case Aptos address (`0x` + 64 hex digits).
 *
 * @example
 * ```ts
 * import type { AptosAddress } from "@chainquery/schema"
 *
 * const short = (address: AptosAddress.AptosAddress) => `${address.slice(0, 6)}…${address.slice(-4)}`
 * ```
 * @since 0.1.0
 */
export type AptosAddress = string & { readonly AptosAddress: unique symbol }

const FullAddress = Schema.String.check(Schema.isPattern(/^0x[0-9a-f]{64}$/)).pipe(
  Schema.brand("AptosAddress")
) as unknown as Schema.Codec<AptosAddress, string>

/**
 * Decodes `0x` + 1..64 hex digits to a padded lower-case {@link AptosAddress}.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { AptosAddress } from "@chainquery/schema"
 *
 * Schema.decodeUnknownSync(AptosAddress.AptosAddress)("0x1")
 * // "0x0000000000000000000000000000000000000000000000000000000000000001"
 * ```
 * @since 0.1.0
 */
export const AptosAddress: Schema.Codec<AptosAddress, string> = Schema.String.check(
  Schema.isPattern(/^0x[0-9a-fA-F]{1,64}$/, { expected: "0x followed by 1 to 64 hex digits" })
).pipe(
  Schema.decodeTo(FullAddress, {
    decode: SchemaGetter.transform((input: string) => `0x${input.slice(2).toLowerCase().padStart(64, "0")}`),
    encode: SchemaGetter.passthrough()
  }),
  Schema.annotate({ description: "an Aptos address: 0x followed by 1 to 64 hex digits" })
)

/**
 * A 32-byte identifier of the Aptos indexer (`collection_data_id_hash`, `token_data_id_hash`):
 * 64 lower-case hex digits.
 *
 * @example
 * ```ts
 * import type { AptosAddress } from "@chainquery/schema"
 *
 * const key = (id: AptosAddress.AptosHash): string => id
 * ```
 * @since 0.1.0
 */
export type AptosHash = string & { readonly AptosHash: unique symbol }

const LowerHash = Schema.String.check(Schema.isPattern(/^[0-9a-f]{64}$/)).pipe(
  Schema.brand("AptosHash")
) as unknown as Schema.Codec<AptosHash, string>

/**
 * Decodes 64 hex digits (an optional `0x` is dropped, case is folded) to an {@link AptosHash}.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { AptosAddress } from "@chainquery/schema"
 *
 * Schema.decodeUnknownSync(AptosAddress.AptosHash)("0x" + "AB".repeat(32)) // "abab…ab"
 * ```
 * @since 0.1.0
 */
export const AptosHash: Schema.Codec<AptosHash, string> = Schema.String.check(
  Schema.isPattern(/^(0x)?[0-9a-fA-F]{64}$/, { expected: "64 hex digits" })
).pipe(
  Schema.decodeTo(LowerHash, {
    decode: SchemaGetter.transform((input: string) => input.replace(/^0x/, "").toLowerCase()),
    encode: SchemaGetter.passthrough()
  }),
  Schema.annotate({ description: "a 32-byte id hash: 64 hex digits" })
)
