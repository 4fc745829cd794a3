/**
 * A7, `getDefiPositionsSummary`: a wallet's DeFi positions, one summary per protocol.
 * `GET /api/v2.2/wallets/{address}/defi/positions`.
 *
 * @since 0.1.0
 */
import { Chain, type DefiPositions, EvmAddress, EvmApi, Input } from "@chainquery/schema"
import { Operation, type Transport } from "@chainquery/transport"
import type { Effect } from "effect"
import type * as Inputs from "../Inputs.js"

/**
 * The parameters of {@link make}: the wallet and optionally the chain.
 *
 * @example
 * ```ts
 * import type { GetDefiPositionsSummary } from "@chainquery/evm-client"
 *
 * const params: GetDefiPositionsSummary.Parameters = { address: "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed", chain: "eth" }
 * ```
 * @since 0.1.0
 */
export interface Parameters {
  /** The wallet. */
  readonly address: Inputs.Address
  /** The chain; the service's default (eth) when absent. */
  readonly chain?: Inputs.ChainInput | undefined
}

/**
 * One summary per protocol the wallet has positions in (the real service's array; a single
 * summary object, as service.md shows it, is read as a list of one).
 *
 * @example
 * ```ts
 * import type { GetDefiPositionsSummary } from "@chainquery/evm-client"
 *
 * const protocols = (summaries: GetDefiPositionsSummary.ReturnType) => summaries.map((s) => s.protocol_name)
 * ```
 * @since 0.1.0
 */
export type ReturnType = ReadonlyArray<DefiPositions.ProtocolSummary>

/**
 * What the call can fail with: `InvalidInput` (nothing sent), or what the service or the network
 * answered.
 *
 * @example
 * ```ts
 * import type { GetDefiPositionsSummary } from "@chainquery/evm-client"
 *
 * const describe = (error: GetDefiPositionsSummary.ErrorType) => `${error._tag}: ${error.message}`
 * ```
 * @since 0.1.0
 */
export type ErrorType = Operation.ErrorType

/** The operation: validates the parameters into the endpoint's wire values. */
const definition = Operation.define(
  EvmApi.EvmGroup.endpoints.getDefiPositionsSummary,
  (params: Parameters) =>
    Input.checked((check) => {
      const address = check.value(EvmAddress.EvmAddress, "address", params.address)
      const chain = check.optional(Chain.Chain, "chain", params.chain)
      return { params: { address }, query: { chain }, chain }
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
 *   const summaries = yield* client.getDefiPositionsSummary({ address: "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed" })
 *   return summaries.flatMap((summary) => summary.positions)
 * })
 * ```
 * @since 0.1.0
 */
export const make = (
  transport: Transport.Transport
): (params: Parameters, options?: Transport.CallOptions) => Effect.Effect<ReturnType, ErrorType> => definition.make(transport)
