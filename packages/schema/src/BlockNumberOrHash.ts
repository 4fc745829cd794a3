/**
 * A block, named by its number or its hash. Numbers may be given as a bigint, a safe integer or a
 * decimal string; hashes as `0x` + 64 hex digits (any case). Decoded numbers are `bigint`, hashes
 * lower-case strings; both are sent on the wire as strings.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { parseWith } from "./internal/parse.js"

/**
 * A lower-case block hash: `0x` + 64 hex digits.
 *
 * @example
 * ```ts
 * import type { BlockNumberOrHash } from "@chainquery/schema"
 *
 * const isHash = (block: BlockNumberOrHash.BlockNumberOrHash): block is BlockNumberOrHash.BlockHash =>
 *   typeof block === "string"
 * ```
 * @since 0.1.0
 */
export type BlockHash = string & { readonly BlockHash: unique symbol }

/**
 * A block number (`bigint`) or a block hash.
 *
 * @example
 * ```ts
 * import type { BlockNumberOrHash } from "@chainquery/schema"
 *
 * const block: BlockNumberOrHash.BlockNumberOrHash = 15846571n
 * ```
 * @since 0.1.0
 */
export type BlockNumberOrHash = bigint | BlockHash

const description = "a block number (a non-negative integer) or a block hash (0x followed by 64 hex digits)"

const parse = (input: string | number | bigint): BlockNumberOrHash | undefined => {
  if (typeof input === "bigint") return input >= 0n ? input : undefined
  if (typeof input === "number") return Number.isSafeInteger(input) && input >= 0 ? BigInt(input) : undefined
  if (/^\d{1,78}$/.test(input)) return BigInt(input)
  if (/^0x[0-9a-fA-F]{64}$/.test(input)) return input.toLowerCase() as BlockHash
  return undefined
}

const Decoded = Schema.Union([
  Schema.BigInt.check(Schema.isGreaterThanOrEqualToBigInt(0n)),
  Schema.String.check(Schema.isPattern(/^0x[0-9a-f]{64}$/))
]) as unknown as Schema.Codec<BlockNumberOrHash, BlockNumberOrHash>

/**
 * Decodes a block number or hash; encodes it as the wire's path segment.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { BlockNumberOrHash } from "@chainquery/schema"
 *
 * Schema.decodeUnknownSync(BlockNumberOrHash.BlockNumberOrHash)("15846571") // 15846571n
 * Schema.encodeSync(BlockNumberOrHash.BlockNumberOrHash)(15846571n) // "15846571"
 * ```
 * @since 0.1.0
 */
export const BlockNumberOrHash: Schema.Codec<BlockNumberOrHash, string | number | bigint> = Schema.Union([
  Schema.String,
  Schema.Number,
  Schema.BigInt
]).pipe(
  Schema.decodeTo(Decoded, {
    decode: parseWith(description, parse),
    encode: parseWith(description, (block: BlockNumberOrHash) => block.toString())
  }),
  Schema.annotate({ description })
)

/**
 * A block number alone: a bigint, a safe non-negative integer or a decimal string.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { BlockNumberOrHash } from "@chainquery/schema"
 *
 * Schema.decodeUnknownSync(BlockNumberOrHash.BlockNumber)(17000000) // 17000000n
 * ```
 * @since 0.1.0
 */
export const BlockNumber: Schema.Codec<bigint, string | number | bigint> = Schema.Union([
  Schema.String,
  Schema.Number,
  Schema.BigInt
]).pipe(
  Schema.decodeTo(Schema.BigInt.check(Schema.isGreaterThanOrEqualToBigInt(0n)), {
    decode: parseWith("a block number (a non-negative integer)", (input: string | number | bigint) => {
      const block = parse(input)
      return typeof block === "bigint" ? block : undefined
    }),
    encode: parseWith("a block number", (block: bigint) => block.toString())
  }),
  Schema.annotate({ description: "a block number (a non-negative integer)" })
)
