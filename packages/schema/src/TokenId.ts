/**
 * NFT token ids: unsigned 256-bit integers, held as `bigint`. Accepted as a bigint, a safe
 * integer, a decimal string or a `0x` hex string; sent on the wire in the chosen `format`.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { parseWith } from "./internal/parse.js"

const maxTokenId = (1n << 256n) - 1n

const description = "a token id: an integer from 0 to 2^256-1, as decimal digits or 0x-prefixed hex"

/**
 * The wire formats of a token id: `decimal` (the default) or `hex`.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { TokenId } from "@chainquery/schema"
 *
 * Schema.decodeUnknownSync(TokenId.TokenIdFormat)("hex") // "hex"
 * ```
 * @since 0.1.0
 */
export const TokenIdFormat = Schema.Literals(["decimal", "hex"]).annotate({ description: "decimal or hex" })

/**
 * @example
 * ```ts
 * import type { TokenId } from "@chainquery/schema"
 *
 * const format: TokenId.TokenIdFormat = "decimal"
 * ```
 * @since 0.1.0
 */
export type TokenIdFormat = typeof TokenIdFormat.Type

const parse = (input: string | number | bigint): bigint | undefined => {
  let value: bigint
  if (typeof input === "bigint") value = input
  else if (typeof input === "number") {
    if (!Number.isSafeInteger(input)) return undefined
    value = BigInt(input)
  } else if (/^\d{1,78}$/.test(input) || /^0x[0-9a-fA-F]{1,64}$/.test(input)) value = BigInt(input)
  else return undefined
  return value >= 0n && value <= maxTokenId ? value : undefined
}

/**
 * Decodes a token id to a `bigint`; encodes it as a decimal string.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { TokenId } from "@chainquery/schema"
 *
 * Schema.decodeUnknownSync(TokenId.TokenId)("0xff") // 255n
 * ```
 * @since 0.1.0
 */
export const TokenId: Schema.Codec<bigint, string | number | bigint> = Schema.Union([
  Schema.String,
  Schema.Number,
  Schema.BigInt
]).pipe(
  Schema.decodeTo(
    Schema.BigInt.check(Schema.isBetweenBigInt({ minimum: 0n, maximum: maxTokenId })),
    {
      decode: parseWith(description, parse),
      encode: parseWith(description, (id: bigint) => id.toString())
    }
  ),
  Schema.annotate({ description })
)

/**
 * Renders a token id in a wire format.
 *
 * @example
 * ```ts
 * import { TokenId } from "@chainquery/schema"
 *
 * TokenId.toWire(255n, "hex") // "0xff"
 * TokenId.toWire(255n, "decimal") // "255"
 * ```
 * @since 0.1.0
 */
export const toWire = (id: bigint, format: TokenIdFormat = "decimal"): string =>
  format === "hex" ? `0x${id.toString(16)}` : id.toString()
