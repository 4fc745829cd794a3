/**
 * B2 `getNFTTransfersByCreators`: the transfers of tokens whose collections were created by any
 * of the given creators, newest first, optionally restricted to or excluding some collections.
 * `GET /nfts/transfers/creators`.
 *
 * @since 0.1.0
 */
import { AptosAddress, Input, LedgerApi, type LedgerPage } from "@chainquery/schema"
import { Operation } from "@chainquery/transport"
import { collectionFilters, paging } from "../internal/prepare.js"
import type { LedgerOperation, OnNetwork, PagingParameters } from "../LedgerOperation.js"

/**
 * The parameters of B2. `creatorAddresses` must hold at least one address; collections are given
 * by their `collection_data_id_hash`.
 *
 * @example
 * ```ts
 * import type { GetNFTTransfersByCreators } from "@chainquery/ledger-client"
 *
 * const params: GetNFTTransfersByCreators.Parameters = {
 *   creatorAddresses: ["0x" + "3f".repeat(32)],
 *   limit: 100
 * }
 * ```
 * @since 0.1.0
 */
export interface Parameters extends PagingParameters {
  /** Creator addresses (at least one): `0x` and 1 to 64 hex digits each. */
  readonly creatorAddresses: ReadonlyArray<string>
  /** Collections (`collection_data_id_hash`) to leave out. */
  readonly collectionBlacklist?: ReadonlyArray<string> | undefined
  /** Collections (`collection_data_id_hash`) to restrict the listing to. */
  readonly collectionWhitelist?: ReadonlyArray<string> | undefined
}

/**
 * A page of token transfers, newest first.
 *
 * @example
 * ```ts
 * import type { GetNFTTransfersByCreators } from "@chainquery/ledger-client"
 *
 * const versions = (page: GetNFTTransfersByCreators.ReturnType) => page.result.map((t) => t.transaction_version)
 * ```
 * @since 0.1.0
 */
export type ReturnType = LedgerPage.TransfersPage

/**
 * How B2 can fail: `InvalidInput` (nothing was sent) or any error of a request that was sent.
 *
 * @example
 * ```ts
 * import type { GetNFTTransfersByCreators } from "@chainquery/ledger-client"
 *
 * const retryable = (error: GetNFTTransfersByCreators.ErrorType) => error._tag === "ServerError"
 * ```
 * @since 0.1.0
 */
export type ErrorType = Operation.ErrorType

/**
 * B2 on a transport. `LedgerClient` wraps it as `getNFTTransfersByCreators(params, options?)`.
 *
 * @example
 * ```ts
 * import type { Transport } from "@chainquery/transport"
 * import { GetNFTTransfersByCreators } from "@chainquery/ledger-client"
 *
 * const call = (transport: Transport.Transport) =>
 *   GetNFTTransfersByCreators.operation.make(transport)({ network: "mainnet", params: { creatorAddresses: ["0x1"], limit: 10 } })
 * ```
 * @since 0.1.0
 */
export const operation: LedgerOperation<Parameters, ReturnType> = Operation.define(
  LedgerApi.LedgerGroup.endpoints.getNFTTransfersByCreators,
  ({ network, params }: OnNetwork<Parameters>) =>
    Input.checked((check) => {
      const creator_addresses = check.all(AptosAddress.AptosAddress, "creatorAddresses", params.creatorAddresses, { nonEmpty: true })
      const page = paging(check, params)
      const filters = collectionFilters(check, params)
      return {
        query: { ...page, creator_addresses, ...filters },
        chain: network
      }
    })
)
