/**
 * A2, `getWalletNFTTransfers`: the NFT transfers sent or received by a wallet, optionally
 * filtered by contracts and by a block or date range.
 * `GET /api/v2.2/{address}/nft/transfers`.
 *
 * @since 0.1.0
 */
import {
  Chain,
  DateInput,
  EvmAddress,
  EvmApi,
  type EvmPage,
  Input,
  Paging,
  TokenId
} from "@chainquery/schema"
import { Operation, type Transport } from "@chainquery/transport"
import type { Effect } from "effect"
import type * as Inputs from "../Inputs.js"
import { paging, range } from "../internal/prepare.js"

/**
 * The parameters of {@link make}. `fromBlock`/`fromDate` and `toBlock`/`toDate` are alternatives:
 * the types let you give one of each pair, never both.
 *
 * @example
 * ```ts
 * import type { GetWalletNFTTransfers } from "@chainquery/evm-client"
 *
 * const params: GetWalletNFTTransfers.Parameters = {
 *   address: "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed",
 *   chain: "polygon",
 *   contractAddresses: ["0x2953399124f0cbb46d2cbacd8a89cf0599974963"],
 *   fromDate: "2024-01-01",
 *   toBlock: 60000000,
 *   limit: 100
 * }
 * ```
 * @since 0.1.0
 */
export type Parameters =
  & {
    /** The wallet, sender or recipient of the transfers. */
    readonly address: Inputs.Address
    /** The chain; the service's default (eth) when absent. */
    readonly chain?: Inputs.ChainInput | undefined
    /** Only transfers of these NFT contracts (at least one: an empty list is rejected, not read as "all"). */
    readonly contractAddresses?: ReadonlyArray<Inputs.Address> | undefined
    /** How token ids are written in the response. */
    readonly format?: Inputs.TokenIdFormat | undefined
    /** `ASC` or `DESC`. */
    readonly order?: Inputs.Order | undefined
  }
  & Inputs.FromBound
  & Inputs.ToBound
  & Inputs.Paging

/**
 * A page of the wallet's transfers with `block_exists` and `index_complete`; `cursor` is
 * `Option.none()` on the last page.
 *
 * @example
 * ```ts
 * import type { GetWalletNFTTransfers } from "@chainquery/evm-client"
 *
 * const received = (page: GetWalletNFTTransfers.ReturnType, wallet: string) =>
 *   page.result.filter((transfer) => transfer.to_address === wallet)
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
 * import type { GetWalletNFTTransfers } from "@chainquery/evm-client"
 *
 * const retryable = (error: GetWalletNFTTransfers.ErrorType) => error._tag === "RateLimited"
 * ```
 * @since 0.1.0
 */
export type ErrorType = Operation.ErrorType

/** The operation: validates the parameters into the endpoint's wire values. */
const definition = Operation.define(
  EvmApi.EvmGroup.endpoints.getWalletNFTTransfers,
  (params: Parameters) =>
    Input.checked((check) => {
      const address = check.value(EvmAddress.EvmAddress, "address", params.address)
      const chain = check.optional(Chain.Chain, "chain", params.chain)
      const contractAddresses = params.contractAddresses === undefined
        ? undefined
        : check.all(EvmAddress.EvmAddress, "contractAddresses", params.contractAddresses, { nonEmpty: true })
      const format = check.optional(TokenId.TokenIdFormat, "format", params.format)
      const bounds = range(check, DateInput.DateInput, params)
      const order = check.optional(Paging.Order, "order", params.order)
      const { limit, cursor } = paging(check, params)
      return {
        params: { address },
        query: {
          chain,
          contract_addresses: contractAddresses,
          format,
          ...bounds,
          limit,
          order,
          cursor
        },
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
 *   const page = yield* client.getWalletNFTTransfers({
 *     address: "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed",
 *     chain: "eth",
 *     fromDate: "2024-01-01T00:00:00Z",
 *     limit: 100
 *   })
 *   return page.result
 * })
 * ```
 * @since 0.1.0
 */
export const make = (
  transport: Transport.Transport
): (params: Parameters, options?: Transport.CallOptions) => Effect.Effect<ReturnType, ErrorType> => definition.make(transport)
