/**
 * EVM addresses: `0x` and 40 hex digits. Mixed case must carry a valid EIP-55 checksum (a typo
 * in a checksummed address is caught); the decoded value is lower case, as the service expects.
 *
 * @since 0.1.0
 */
import { Schema, SchemaTransformation } from "effect"
import { isValidChecksum } from "./internal/eip55.js"

const description = "0x followed by 40 hex digits (mixed case must be a valid EIP-55 checksum)"

/**
 * A lower-case EVM address, validated.
 *
 * @example
 * ```ts
 * import type { EvmAddress } from "@chainquery/schema"
 *
 * const show = (address: EvmAddress.EvmAddress): string => address.slice(0, 8)
 * ```
 * @since 0.1.0
 */
export type EvmAddress = string & { readonly EvmAddress: unique symbol }

const LowerCaseAddress = Schema.String.check(Schema.isPattern(/^0x[0-9a-f]{40}$/)).pipe(
  Schema.brand("EvmAddress")
) as unknown as Schema.Codec<EvmAddress, string>

/**
 * Decodes any accepted spelling to a lower-case {@link EvmAddress}; encodes it unchanged.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { EvmAddress } from "@chainquery/schema"
 *
 * Schema.decodeUnknownSync(EvmAddress.EvmAddress)("0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed")
 * // "0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed"
 * ```
 * @since 0.1.0
 */
export const EvmAddress: Schema.Codec<EvmAddress, string> = Schema.String.annotate({ description }).check(
  Schema.isPattern(/^0x[0-9a-fA-F]{40}$/, { expected: "0x followed by 40 hex digits" }),
  Schema.makeFilter((address: string) => isValidChecksum(address), {
    expected: "a valid EIP-55 checksum (or an all lower-case address)"
  })
).pipe(
  Schema.decodeTo(LowerCaseAddress, SchemaTransformation.toLowerCase()),
  Schema.annotate({ description })
)

/**
 * True when `value` is already a lower-case EVM address.
 *
 * @example
 * ```ts
 * import { EvmAddress } from "@chainquery/schema"
 *
 * EvmAddress.is("0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed") // true
 * ```
 * @since 0.1.0
 */
export const is: (value: unknown) => value is EvmAddress = Schema.is(LowerCaseAddress)
