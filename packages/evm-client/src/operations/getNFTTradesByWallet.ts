/**
 * A4, `getNFTTradesByWallet`: the NFT trades (sales on marketplaces) a wallet took part in, as
 * buyer or seller, optionally within a block or date range. Offered on seven chains only.
 * `GET /api/v2.2/wallets/{address}/nfts/trades`.
 *
 * @since 0.1.0
 */
import { Chain, DateInput, EvmAddress, EvmApi, type EvmPage, Input } from "@chainquery/schema"
import { Operation, type Transport } from "@chainquery/transport"
import type { Effect } from "effect"
import type * as Inputs from "../Inputs.js"
import { paging, range } from "../internal/prepare.js"

/**
 * The parameters of {@link make}. `chain` must be one of the chains with trades (eth, polygon,
 * bsc, avalanche, arbitrum, base, optimism); dates may also be unix seconds. `fromBlock`/`fromDate`
 * and `toBlock`/`toDate` are alternatives: one of each pair, never both.
 *
 * @example
 * ```ts
 * import type { GetNFTTradesByWallet } from "@chainquery/evm-client"
 *
 * const params: GetNFTTradesByWallet.Parameters = {
 *   address: "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed",
 *   chain: "base",
 *   fromDate: 1704067200,
 *   limit: 50
 * }
 * ```
 * @since 0.1.0
 */
export type Parameters =
  & {
    /** The wallet, buyer or seller. */
    readonly address: Inputs.Address
    /** A chain with trades; the service's default (eth) when absent. */
    readonly chain?: Inputs.TradeChainInput | undefined
  }
  & Inputs.FromBound<Inputs.DateInputOrSeconds>
  & Inputs.ToBound<Inputs.DateInputOrSeconds>
  & Inputs.Paging

/**
 * A page of trades; `cursor` is `Option.none()` on the last page.
 *
 * @example
 * ```ts
 * import type { GetNFTTradesByWallet } from "@chainquery/evm-client"
 *
 * const spent = (page: GetNFTTradesByWallet.ReturnType, wallet: string) =>
 *   page.result.filter((trade) => trade.buyer_address === wallet).reduce((sum, trade) => sum + trade.price, 0n)
 * ```
 * @since 0.1.0
 */
export type ReturnType = EvmPage.TradesPage

/**
 * What the call can fail with: `InvalidInput` (nothing sent; also for a chain without trades), or
 * what the service or the network answered.
 *
 * @example
 * ```ts
 * import type { GetNFTTradesByWallet } from "@chainquery/evm-client"
 *
 * const describe = (error: GetNFTTradesByWallet.ErrorType) => `${error._tag}: ${error.message}`
 * ```
 * @since 0.1.0
 */
export type ErrorType = Operation.ErrorType

/** The operation: validates the parameters into the endpoint's wire values. */
const definition = Operation.define(
  EvmApi.EvmGroup.endpoints.getNFTTradesByWallet,
  (params: Parameters) =>
    Input.checked((check) => {
      const address = check.value(EvmAddress.EvmAddress, "address", params.address)
      const chain = check.optional(Chain.TradeChain, "chain", params.chain)
      const bounds = range(check, DateInput.DateInputOrSeconds, params)
      const { limit, cursor } = paging(check, params)
      return {
        params: { address },
        query: { chain, ...bounds, limit, cursor },
        chain
      }
    })
)

/**
 * The call on a transport.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { EvmClient } from "@chainquery/evm-client"
 *
 * const program = Effect.gen(function*() {
 *   const client = yield* EvmClient.EvmClient
 *   const page = yield* client.getNFTTradesByWallet({
 *     address: "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed",
 *     chain: "polygon",
 *     fromBlock: 50000000
 *   })
 *   return page.result.map((trade) => trade.price)
 * })
 * ```
 * @since 0.1.0
 */
export const make = (
  transport: Transport.Transport
): (params: Parameters, options?: Transport.CallOptions) => Effect.Effect<ReturnType, ErrorType> => definition.make(transport)
