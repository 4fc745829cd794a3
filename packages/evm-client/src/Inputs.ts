/**
 * The input types shared by the operations: what a caller may pass for an address, a chain, a
 * block, a token id, a date and the paging parameters. They accept everything the schemas of
 * `@chainquery/schema` accept; the values are validated (and normalised: lower-case addresses,
 * hex chain ids, `bigint` blocks) before any request is sent, failing with `InvalidInput`.
 *
 * @since 0.1.0
 */
import type { Chain } from "@chainquery/schema"
import type { DateTime } from "effect"

/**
 * An EVM address: `0x` and 40 hex digits, all lower case or with a valid EIP-55 checksum.
 *
 * @example
 * ```ts
 * import type { Inputs } from "@chainquery/evm-client"
 *
 * const wallet: Inputs.Address = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed"
 * ```
 * @since 0.1.0
 */
export type Address = string

/**
 * A chain: its name (`"eth"`, `"polygon amoy"`, case-insensitive), its hex id (`"0x89"`) or its
 * numeric chain id (`137`). See `Chain.chains` of `@chainquery/schema` for the 25 chains.
 *
 * @example
 * ```ts
 * import type { Inputs } from "@chainquery/evm-client"
 *
 * const chains: ReadonlyArray<Inputs.ChainInput> = ["eth", "0x89", 8453]
 * ```
 * @since 0.1.0
 */
export type ChainInput = Chain.ChainName | Chain.ChainId | (string & {}) | number

/**
 * A chain on which NFT trades are offered: eth, polygon, bsc, avalanche, arbitrum, base or
 * optimism (by name, hex id or numeric id). Any other chain fails with `InvalidInput` on `chain`.
 *
 * @example
 * ```ts
 * import type { Inputs } from "@chainquery/evm-client"
 *
 * const chain: Inputs.TradeChainInput = "base"
 * ```
 * @since 0.1.0
 */
export type TradeChainInput = "eth" | "polygon" | "bsc" | "avalanche" | "arbitrum" | "base" | "optimism" | Chain.TradeChainId | (string & {}) | number

/**
 * A block number: a `bigint`, a safe non-negative integer or a decimal string.
 *
 * @example
 * ```ts
 * import type { Inputs } from "@chainquery/evm-client"
 *
 * const blocks: ReadonlyArray<Inputs.BlockNumberInput> = [17000000n, 17000000, "17000000"]
 * ```
 * @since 0.1.0
 */
export type BlockNumberInput = string | number | bigint

/**
 * A block number (as {@link BlockNumberInput}) or a block hash (`0x` + 64 hex digits).
 *
 * @example
 * ```ts
 * import type { Inputs } from "@chainquery/evm-client"
 *
 * const byHash: Inputs.BlockInput = "0x9b559aef7ea858608c2e554246fe4a24287e7aeeb976848df2b9a2531f4b9171"
 * ```
 * @since 0.1.0
 */
export type BlockInput = string | number | bigint

/**
 * A token id: a `bigint`, a safe non-negative integer, a decimal string or a `0x` hex string, up
 * to 2^256-1.
 *
 * @example
 * ```ts
 * import type { Inputs } from "@chainquery/evm-client"
 *
 * const ids: ReadonlyArray<Inputs.TokenIdInput> = [1n, 1, "1", "0x1"]
 * ```
 * @since 0.1.0
 */
export type TokenIdInput = string | number | bigint

/**
 * A date: an ISO 8601 string (a zone-less one is UTC), a `Date` or a `DateTime`.
 *
 * @example
 * ```ts
 * import type { Inputs } from "@chainquery/evm-client"
 *
 * const dates: ReadonlyArray<Inputs.DateInput> = ["2024-01-01", new Date(0)]
 * ```
 * @since 0.1.0
 */
export type DateInput = string | Date | DateTime.DateTime

/**
 * A date as {@link DateInput}, or unix seconds (the trades operation accepts those too).
 *
 * @example
 * ```ts
 * import type { Inputs } from "@chainquery/evm-client"
 *
 * const since: Inputs.DateInputOrSeconds = 1704067200
 * ```
 * @since 0.1.0
 */
export type DateInputOrSeconds = DateInput | number

/**
 * The lower bound of a block range: a block or a date, never both (the service would silently
 * ignore the date).
 *
 * @example
 * ```ts
 * import type { Inputs } from "@chainquery/evm-client"
 *
 * const fromBlock: Inputs.FromBound = { fromBlock: 17000000 }
 * const fromDate: Inputs.FromBound = { fromDate: "2024-01-01" }
 * // const both: Inputs.FromBound = { fromBlock: 1, fromDate: "2024-01-01" } // does not compile
 * ```
 * @since 0.1.0
 */
export type FromBound<D = DateInput> =
  | { readonly fromBlock?: BlockNumberInput | undefined; readonly fromDate?: undefined }
  | { readonly fromDate?: D | undefined; readonly fromBlock?: undefined }

/**
 * The upper bound of a block range: a block or a date, never both.
 *
 * @example
 * ```ts
 * import type { Inputs } from "@chainquery/evm-client"
 *
 * const toDate: Inputs.ToBound = { toDate: new Date() }
 * ```
 * @since 0.1.0
 */
export type ToBound<D = DateInput> =
  | { readonly toBlock?: BlockNumberInput | undefined; readonly toDate?: undefined }
  | { readonly toDate?: D | undefined; readonly toBlock?: undefined }

/**
 * The sort order of a listing, upper or lower case.
 *
 * @example
 * ```ts
 * import type { Inputs } from "@chainquery/evm-client"
 *
 * const order: Inputs.Order = "DESC"
 * ```
 * @since 0.1.0
 */
export type Order = "ASC" | "DESC" | "asc" | "desc"

/**
 * How token ids are written in the response: `decimal` (the service's default) or `hex`.
 *
 * @example
 * ```ts
 * import type { Inputs } from "@chainquery/evm-client"
 *
 * const format: Inputs.TokenIdFormat = "decimal"
 * ```
 * @since 0.1.0
 */
export type TokenIdFormat = "decimal" | "hex"

/**
 * The paging parameters of a listing: `limit` (1 to 100) and the `cursor` of the previous page.
 *
 * @example
 * ```ts
 * import type { Inputs } from "@chainquery/evm-client"
 *
 * const firstPage: Inputs.Paging = { limit: 100 }
 * ```
 * @since 0.1.0
 */
export interface Paging {
  /** Page size, an integer from 1 to 100. */
  readonly limit?: number | undefined
  /** The `cursor` of the previous page (`Option.getOrUndefined(page.cursor)`). */
  readonly cursor?: string | undefined
}
