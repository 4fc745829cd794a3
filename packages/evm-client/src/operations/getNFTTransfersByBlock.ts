/**
 * A1, `getNFTTransfersByBlock`: the NFT transfers in one block, by block number or block hash.
 * `GET /api/v2.2/block/{block_number_or_hash}/nft/transfers`.
 *
 * @since 0.1.0
 */
import { BlockNumberOrHash, Chain, EvmApi, type EvmPage, Input, Paging } from "@chainquery/schema"
import { Operation, type Transport } from "@chainquery/transport"
import type { Effect } from "effect"
import type * as Inputs from "../Inputs.js"
import { paging } from "../internal/prepare.js"

/**
 * The parameters of {@link make}: the block, and optionally the chain and paging.
 *
 * @example
 * ```ts
 * import type { GetNFTTransfersByBlock } from "@chainquery/evm-client"
 *
 * const params: GetNFTTransfersByBlock.Parameters = { block: 17000000, chain: "eth", limit: 50, order: "ASC" }
 * ```
 * @since 0.1.0
 */
export interface Parameters extends Inputs.Paging {
  /** The block: its number or its hash. */
  readonly block: Inputs.BlockInput
  /** The chain; the service's default (eth) when absent. */
  readonly chain?: Inputs.ChainInput | undefined
  /** `ASC` or `DESC`. */
  readonly order?: Inputs.Order | undefined
}

/**
 * A page of the block's transfers, with the block's `total`, `block_exists` and `index_complete`;
 * `cursor` is `Option.none()` on the last page.
 *
 * @example
 * ```ts
 * import type { GetNFTTransfersByBlock } from "@chainquery/evm-client"
 *
 * const count = (page: GetNFTTransfersByBlock.ReturnType) => page.result.length
 * ```
 * @since 0.1.0
 */
export type ReturnType = EvmPage.TransfersByBlockPage

/**
 * What the call can fail with: `InvalidInput` (nothing sent), or what the service or the network
 * answered.
 *
 * @example
 * ```ts
 * import type { GetNFTTransfersByBlock } from "@chainquery/evm-client"
 *
 * const describe = (error: GetNFTTransfersByBlock.ErrorType) => `${error._tag}: ${error.message}`
 * ```
 * @since 0.1.0
 */
export type ErrorType = Operation.ErrorType

/** The operation: validates the parameters into the endpoint's wire values. */
const definition = Operation.define(
  EvmApi.EvmGroup.endpoints.getNFTTransfersByBlock,
  (params: Parameters) =>
    Input.checked((check) => {
      const block = check.value(BlockNumberOrHash.BlockNumberOrHash, "block", params.block)
      const chain = check.optional(Chain.Chain, "chain", params.chain)
      const order = check.optional(Paging.Order, "order", params.order)
      const { limit, cursor } = paging(check, params)
      return { params: { block_number_or_hash: block }, query: { chain, limit, order, cursor }, chain }
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
 *   const page = yield* client.getNFTTransfersByBlock({ block: 17000000, chain: "eth", limit: 100 })
 *   return page.result.map((transfer) => transfer.token_id)
 * })
 * ```
 * @since 0.1.0
 */
export const make = (
  transport: Transport.Transport
): (params: Parameters, options?: Transport.CallOptions) => Effect.Effect<ReturnType, ErrorType> => definition.make(transport)
