/**
 * A6, `getBlock`: a block's header and transactions (with their NFT logs), optionally with
 * internal transactions. An unknown block is `Option.none()`, not an error.
 * `GET /api/v2.2/block/{block_number_or_hash}`.
 *
 * @since 0.1.0
 */
import { type Block, BlockNumberOrHash, Chain, EvmApi, Input } from "@chainquery/schema"
import { Operation, type Transport } from "@chainquery/transport"
import { Effect, Option, Schema } from "effect"
import type * as Inputs from "../Inputs.js"

/**
 * The parameters of {@link make}: the block, and optionally the chain and whether to include
 * internal transactions.
 *
 * @example
 * ```ts
 * import type { GetBlock } from "@chainquery/evm-client"
 *
 * const params: GetBlock.Parameters = { block: 17000000n, chain: "eth", includeInternalTransactions: true }
 * ```
 * @since 0.1.0
 */
export interface Parameters {
  /** The block: its number or its hash. */
  readonly block: Inputs.BlockInput
  /** The chain; the service's default (eth) when absent. */
  readonly chain?: Inputs.ChainInput | undefined
  /** Fill each transaction's `internal_transactions` (sent as `include=internal_transactions`). */
  readonly includeInternalTransactions?: boolean | undefined
}

/**
 * The block, or `Option.none()` when the service does not know it (a 404).
 *
 * @example
 * ```ts
 * import { Option } from "effect"
 * import type { GetBlock } from "@chainquery/evm-client"
 *
 * const transactions = (block: GetBlock.ReturnType) => Option.match(block, {
 *   onNone: () => 0,
 *   onSome: (found) => found.transactions.length
 * })
 * ```
 * @since 0.1.0
 */
export type ReturnType = Option.Option<Block.Block>

/**
 * What the call can fail with: `InvalidInput` (nothing sent), or what the service or the network
 * answered. A 404 is not among them: it is `Option.none()`.
 *
 * @example
 * ```ts
 * import type { GetBlock } from "@chainquery/evm-client"
 *
 * const describe = (error: GetBlock.ErrorType) => `${error._tag}: ${error.message}`
 * ```
 * @since 0.1.0
 */
export type ErrorType = Operation.ErrorType

/** The operation: validates the parameters into the endpoint's wire values. */
const definition = Operation.define(
  EvmApi.EvmGroup.endpoints.getBlock,
  (params: Parameters) =>
    Input.checked((check) => {
      const block = check.value(BlockNumberOrHash.BlockNumberOrHash, "block", params.block)
      const chain = check.optional(Chain.Chain, "chain", params.chain)
      const internal = check.optional(Schema.Boolean, "includeInternalTransactions", params.includeInternalTransactions)
      return {
        params: { block_number_or_hash: block },
        query: { chain, include: internal === true ? "internal_transactions" : undefined },
        chain
      }
    })
)

/**
 * The call on a transport.
 *
 * @example
 * ```ts
 * import { Effect, Option } from "effect"
 * import { EvmClient } from "@chainquery/evm-client"
 *
 * const program = Effect.gen(function*() {
 *   const client = yield* EvmClient.EvmClient
 *   const block = yield* client.getBlock({ block: 17000000, chain: "eth" })
 *   return Option.map(block, (found) => found.hash)
 * })
 * ```
 * @since 0.1.0
 */
export const make = (
  transport: Transport.Transport
): (params: Parameters, options?: Transport.CallOptions) => Effect.Effect<ReturnType, ErrorType> => {
  const call = definition.withNotFound(transport)
  return (params, options) =>
    call(params, options).pipe(
      Effect.map(Option.some),
      Effect.catchTag("NotFound", () => Effect.succeedNone)
    )
}
