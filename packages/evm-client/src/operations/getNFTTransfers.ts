/**
 * A3, `getNFTTransfers`: the transfers of one NFT, by contract address and token id.
 * `GET /api/v2.2/nft/{address}/{token_id}/transfers`.
 *
 * @since 0.1.0
 */
import { Chain, EvmAddress, EvmApi, type EvmPage, Input, Paging, TokenId } from "@chainquery/schema"
import { Operation, type Transport } from "@chainquery/transport"
import type { Effect } from "effect"
import type * as Inputs from "../Inputs.js"
import { paging } from "../internal/prepare.js"

/**
 * The parameters of {@link make}: the NFT (contract and token id), and optionally the chain, the
 * token id format of the response, the order and paging.
 *
 * @example
 * ```ts
 * import type { GetNFTTransfers } from "@chainquery/evm-client"
 *
 * const params: GetNFTTransfers.Parameters = {
 *   address: "0xbc4ca0eda7647a8ab7c2061c2e118a18a936f13d",
 *   tokenId: 1n,
 *   chain: "eth",
 *   order: "ASC"
 * }
 * ```
 * @since 0.1.0
 */
export interface Parameters extends Inputs.Paging {
  /** The NFT contract. */
  readonly address: Inputs.Address
  /** The token id within the contract. */
  readonly tokenId: Inputs.TokenIdInput
  /** The chain; the service's default (eth) when absent. */
  readonly chain?: Inputs.ChainInput | undefined
  /** How token ids are written in the response. */
  readonly format?: Inputs.TokenIdFormat | undefined
  /** `ASC` or `DESC`. */
  readonly order?: Inputs.Order | undefined
}

/**
 * A page of the token's transfers with `block_exists` and `index_complete`; `cursor` is
 * `Option.none()` on the last page.
 *
 * @example
 * ```ts
 * import type { GetNFTTransfers } from "@chainquery/evm-client"
 *
 * const owners = (page: GetNFTTransfers.ReturnType) => page.result.map((transfer) => transfer.to_address)
 * ```
 * @since 0.1.0
 */
export type ReturnType = EvmPage.TransfersPage

/**
 * What the call can fail with: `InvalidInput` (nothing sent), or what the service or the network
 * answered.
 *
 * @example
 * ```ts
 * import type { GetNFTTransfers } from "@chainquery/evm-client"
 *
 * const describe = (error: GetNFTTransfers.ErrorType) => `${error._tag}: ${error.message}`
 * ```
 * @since 0.1.0
 */
export type ErrorType = Operation.ErrorType

/** The operation: validates the parameters into the endpoint's wire values. */
const definition = Operation.define(
  EvmApi.EvmGroup.endpoints.getNFTTransfers,
  (params: Parameters) =>
    Input.checked((check) => {
      const address = check.value(EvmAddress.EvmAddress, "address", params.address)
      const tokenId = check.value(TokenId.TokenId, "tokenId", params.tokenId)
      const chain = check.optional(Chain.Chain, "chain", params.chain)
      const format = check.optional(TokenId.TokenIdFormat, "format", params.format)
      const order = check.optional(Paging.Order, "order", params.order)
      const { limit, cursor } = paging(check, params)
      return { params: { address, token_id: tokenId }, query: { chain, format, limit, order, cursor }, chain }
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
 *   const page = yield* client.getNFTTransfers({
 *     address: "0xbc4ca0eda7647a8ab7c2061c2e118a18a936f13d",
 *     tokenId: "1",
 *     chain: "eth"
 *   })
 *   return page.result
 * })
 * ```
 * @since 0.1.0
 */
export const make = (
  transport: Transport.Transport
): (params: Parameters, options?: Transport.CallOptions) => Effect.Effect<ReturnType, ErrorType> => definition.make(transport)
