/**
 * B5 `getNFTByOwners`: the NFTs held by any of the given wallets, optionally restricted to or
 * excluding some collections. `GET /wallets/nfts`.
 *
 * @since 0.1.0
 */
import { AptosAddress, Input, LedgerApi, type LedgerPage } from "@chainquery/schema"
import { Operation } from "@chainquery/transport"
import { collectionFilters, paging } from "../internal/prepare.js"
import type { LedgerOperation, OnNetwork, PagingParameters } from "../LedgerOperation.js"

/**
 * The parameters of B5. `ownerAddresses` must hold at least one address.
 *
 * @example
 * ```ts
 * import type { GetNFTByOwners } from "@chainquery/ledger-client"
 *
 * const params: GetNFTByOwners.Parameters = { ownerAddresses: ["0x1"], limit: 100, collectionWhitelist: ["ab".repeat(32)] }
 * ```
 * @since 0.1.0
 */
export interface Parameters extends PagingParameters {
  /** Owner addresses (at least one): `0x` and 1 to 64 hex digits each. */
  readonly ownerAddresses: ReadonlyArray<string>
  /** Collections (`collection_data_id_hash`) to leave out. */
  readonly collectionBlacklist?: ReadonlyArray<string> | undefined
  /** Collections (`collection_data_id_hash`) to restrict the listing to. */
  readonly collectionWhitelist?: ReadonlyArray<string> | undefined
}

/**
 * A page of token holdings.
 *
 * @example
 * ```ts
 * import type { GetNFTByOwners } from "@chainquery/ledger-client"
 *
 * const total = (page: GetNFTByOwners.ReturnType) => page.result.reduce((sum, h) => sum + h.amount, 0n)
 * ```
 * @since 0.1.0
 */
export type ReturnType = LedgerPage.HoldingsPage

/**
 * How B5 can fail: `InvalidInput` (nothing was sent) or any error of a request that was sent.
 *
 * @example
 * ```ts
 * import type { GetNFTByOwners } from "@chainquery/ledger-client"
 *
 * const unauthorized = (error: GetNFTByOwners.ErrorType) => error._tag === "Unauthorized"
 * ```
 * @since 0.1.0
 */
export type ErrorType = Operation.ErrorType

/**
 * B5 on a transport. `LedgerClient` wraps it as `getNFTByOwners(params, options?)`.
 *
 * @example
 * ```ts
 * import type { Transport } from "@chainquery/transport"
 * import { GetNFTByOwners } from "@chainquery/ledger-client"
 *
 * const call = (transport: Transport.Transport) =>
 *   GetNFTByOwners.operation.make(transport)({ network: "mainnet", params: { ownerAddresses: ["0x1"], limit: 10 } })
 * ```
 * @since 0.1.0
 */
export const operation: LedgerOperation<Parameters, ReturnType> = Operation.define(
  LedgerApi.LedgerGroup.endpoints.getNFTByOwners,
  ({ network, params }: OnNetwork<Parameters>) =>
    Input.checked((check) => {
      const owner_addresses = check.all(AptosAddress.AptosAddress, "ownerAddresses", params.ownerAddresses, { nonEmpty: true })
      const page = paging(check, params)
      const filters = collectionFilters(check, params)
      return {
        query: { ...page, owner_addresses, ...filters },
        chain: network
      }
    })
)
