/**
 * The 25 EVM chains of the service, by name and hexadecimal chain id. Either form is accepted
 * (names case-insensitively, ids in any hex case, or a chain id as a number); the decoded value is
 * always the canonical lower-case hex id, which is what is sent on the wire. Each chain's native
 * currency has a symbol ({@link nativeSymbolOf}) and a stand-in token address
 * ({@link nativeCurrencyAddress}).
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { parseWith } from "./internal/parse.js"

/**
 * Every chain, in the order of service.md: `[name, hex id]`.
 *
 * @example
 * ```ts
 * import { Chain } from "@chainquery/schema"
 *
 * Chain.chains.length // 25
 * ```
 * @since 0.1.0
 */
export const chains = [
  ["eth", "0x1"],
  ["sepolia", "0xaa36a7"],
  ["holesky", "0x4268"],
  ["polygon", "0x89"],
  ["polygon amoy", "0x13882"],
  ["bsc", "0x38"],
  ["bsc testnet", "0x61"],
  ["avalanche", "0xa86a"],
  ["fantom", "0xfa"],
  ["palm", "0x2a15c308d"],
  ["cronos", "0x19"],
  ["arbitrum", "0xa4b1"],
  ["gnosis", "0x64"],
  ["gnosis testnet", "0x27d8"],
  ["chiliz", "0x15b38"],
  ["chiliz testnet", "0x15b32"],
  ["base", "0x2105"],
  ["base sepolia", "0x14a34"],
  ["optimism", "0xa"],
  ["optimism sepolia", "0xaa37dc"],
  ["linea", "0xe708"],
  ["linea sepolia", "0xe705"],
  ["moonbeam", "0x504"],
  ["moonriver", "0x505"],
  ["moonbase", "0x507"]
] as const

/**
 * A chain's canonical hex id, e.g. `"0x1"` for eth.
 *
 * @example
 * ```ts
 * import type { Chain } from "@chainquery/schema"
 *
 * const eth: Chain.ChainId = "0x1"
 * ```
 * @since 0.1.0
 */
export type ChainId = (typeof chains)[number][1]

/**
 * A chain's name as service.md spells it, e.g. `"polygon amoy"`.
 *
 * @example
 * ```ts
 * import type { Chain } from "@chainquery/schema"
 *
 * const name: Chain.ChainName = "base sepolia"
 * ```
 * @since 0.1.0
 */
export type ChainName = (typeof chains)[number][0]

/**
 * The seven chains on which the NFT trades operation (A4) is offered.
 *
 * @example
 * ```ts
 * import { Chain } from "@chainquery/schema"
 *
 * Chain.tradeChainIds.includes("0x89") // true
 * ```
 * @since 0.1.0
 */
export const tradeChainIds = ["0x1", "0x89", "0x38", "0xa86a", "0xa4b1", "0x2105", "0xa"] as const

/**
 * A chain on which trades (A4) are offered.
 *
 * @example
 * ```ts
 * import type { Chain } from "@chainquery/schema"
 *
 * const base: Chain.TradeChainId = "0x2105"
 * ```
 * @since 0.1.0
 */
export type TradeChainId = (typeof tradeChainIds)[number]

const idByKey = new Map<string, ChainId>()
const nameById = new Map<ChainId, ChainName>()
for (const [name, id] of chains) {
  idByKey.set(name, id)
  idByKey.set(name.replace(/ /g, "-"), id)
  idByKey.set(id, id)
  nameById.set(id, name)
}

/** Finds the canonical id for a name, hex id or numeric chain id. */
const lookup = (input: string | number): ChainId | undefined => {
  if (typeof input === "number") {
    return Number.isSafeInteger(input) && input > 0 ? idByKey.get(`0x${input.toString(16)}`) : undefined
  }
  const key = input.trim().toLowerCase()
  if (/^0x[0-9a-f]+$/.test(key)) return idByKey.get(`0x${BigInt(key).toString(16)}`)
  return idByKey.get(key)
}

const chainList = chains.map(([name, id]) => `${name} (${id})`).join(", ")

const ChainIdSchema = Schema.Literals(chains.map(([, id]) => id))

/**
 * Decodes a chain name, hex id or numeric id to the canonical hex id; encodes the hex id.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { Chain } from "@chainquery/schema"
 *
 * Schema.decodeUnknownSync(Chain.Chain)("Polygon") // "0x89"
 * Schema.decodeUnknownSync(Chain.Chain)("0x2105")  // "0x2105"
 * ```
 * @since 0.1.0
 */
export const Chain: Schema.Codec<ChainId, string | number> = Schema.Union([Schema.String, Schema.Number]).pipe(
  Schema.decodeTo(ChainIdSchema, {
    decode: parseWith(`one of ${chainList}`, lookup),
    encode: parseWith("a chain id", (id: string) => id)
  }),
  Schema.annotate({ description: `a chain name or hex id: ${chainList}` })
)

const tradeChainList = tradeChainIds.map((id) => `${nameById.get(id)} (${id})`).join(", ")

/**
 * Like {@link Chain}, restricted to the seven chains that offer NFT trades.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { Chain } from "@chainquery/schema"
 *
 * Schema.decodeUnknownSync(Chain.TradeChain)("base") // "0x2105"
 * Schema.decodeUnknownSync(Chain.TradeChain)("fantom") // throws: trades are not offered on fantom
 * ```
 * @since 0.1.0
 */
export const TradeChain: Schema.Codec<TradeChainId, string | number> = Schema.Union([Schema.String, Schema.Number])
  .pipe(
    Schema.decodeTo(Schema.Literals(tradeChainIds), {
      decode: parseWith(`one of the chains with NFT trades: ${tradeChainList}`, (input: string | number) => {
        const id = lookup(input)
        return id !== undefined && (tradeChainIds as ReadonlyArray<string>).includes(id) ? id as TradeChainId : undefined
      }),
      encode: parseWith("a chain id", (id: string) => id)
    }),
    Schema.annotate({ description: `a chain that offers NFT trades: ${tradeChainList}` })
  )

/**
 * The service.md name of a chain id.
 *
 * @example
 * ```ts
 * import { Chain } from "@chainquery/schema"
 *
 * Chain.nameOf("0xa86a") // "avalanche"
 * ```
 * @since 0.1.0
 */
export const nameOf = (id: ChainId): ChainName => nameById.get(id) as ChainName

/**
 * The address that stands for a chain's native currency where a token address is expected (e.g.
 * a trade's `price_token_address` when it was paid in ETH): `0xeeee…eeee`. It is spelled in any
 * letter case on the wire; compare lower-cased.
 *
 * @example
 * ```ts
 * import { Chain } from "@chainquery/schema"
 *
 * const paidInNative = (token: string | null) => token === null || token.toLowerCase() === Chain.nativeCurrencyAddress
 * paidInNative("0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE") // true
 * ```
 * @since 0.1.0
 */
export const nativeCurrencyAddress = "0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee"

/** The native currency's symbol of every chain: a chain left out does not compile. */
const nativeSymbols: { readonly [Id in ChainId]: string } = {
  "0x1": "ETH",
  "0xaa36a7": "ETH",
  "0x4268": "ETH",
  "0x89": "POL",
  "0x13882": "POL",
  "0x38": "BNB",
  "0x61": "BNB",
  "0xa86a": "AVAX",
  "0xfa": "FTM",
  "0x2a15c308d": "PALM",
  "0x19": "CRO",
  "0xa4b1": "ETH",
  "0x64": "XDAI",
  "0x27d8": "XDAI",
  "0x15b38": "CHZ",
  "0x15b32": "CHZ",
  "0x2105": "ETH",
  "0x14a34": "ETH",
  "0xa": "ETH",
  "0xaa37dc": "ETH",
  "0xe708": "ETH",
  "0xe705": "ETH",
  "0x504": "GLMR",
  "0x505": "MOVR",
  "0x507": "DEV"
}

/**
 * The symbol of a chain's native currency (18 decimals on every chain of the service): `ETH` on
 * eth, its testnets and the Ethereum layer 2s, `POL` on polygon, `BNB` on bsc, and so on.
 *
 * @example
 * ```ts
 * import { Chain } from "@chainquery/schema"
 *
 * Chain.nativeSymbolOf("0x1") // "ETH"
 * Chain.nativeSymbolOf("0x89") // "POL"
 * Chain.nativeSymbolOf("0x504") // "GLMR"
 * ```
 * @since 0.1.0
 */
export const nativeSymbolOf = (id: ChainId): string => nativeSymbols[id]
