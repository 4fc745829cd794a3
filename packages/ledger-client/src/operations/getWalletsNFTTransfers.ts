/**
 * B3 `getWalletsNFTTransfers`: the NFT transfers sent or received by any of the given wallets,
 * newest first (a transfer between two of them comes once), optionally restricted to or excluding
 * some collections. `GET /wallets/nfts/transfers`.
 *
 * @since 0.1.0
 */
import { AptosAddress, Input, LedgerApi, type LedgerPage } from "@chainquery/schema"
import { Operation } from "@chainquery/transport"
import { collectionFilters, paging } from "../internal/prepare.js"
import type { LedgerOperation, OnNetwork, PagingParameters } from "../LedgerOperation.js"

/**
 * The parameters of B3. `walletAddresses` must hold at least one address.
 *
 * @example
 * ```ts
 * import type { GetWalletsNFTTransfers } from "@chainquery/ledger-client"
 *
 * const params: GetWalletsNFTTransfers.Parameters = { walletAddresses: ["0x1", "0x2"], limit: 25 }
 * ```
 * @since 0.1.0
 */
export interface Parameters extends PagingParameters {
  /** Wallet addresses (at least one): `0x` and 1 to 64 hex digits each. */
  readonly walletAddresses: ReadonlyArray<string>
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
 * import { Option } from "effect"
 * import type { GetWalletsNFTTransfers } from "@chainquery/ledger-client"
 *
 * const received = (page: GetWalletsNFTTransfers.ReturnType, wallet: string) =>
 *   page.result.filter((t) => Option.contains(t.to_address, wallet))
 * ```
 * @since 0.1.0
 */
export type ReturnType = LedgerPage.TransfersPage

/**
 * How B3 can fail: `InvalidInput` (nothing was sent) or any error of a request that was sent.
 *
 * @example
 * ```ts
 * import type { GetWalletsNFTTransfers } from "@chainquery/ledger-client"
 *
 * const isInput = (error: GetWalletsNFTTransfers.ErrorType) => error._tag === "InvalidInput"
 * ```
 * @since 0.1.0
 */
export type ErrorType = Operation.ErrorType

/**
 * B3 on a transport. `LedgerClient` wraps it as `getWalletsNFTTransfers(params, options?)`.
 *
 * @example
 * ```ts
 * import type { Transport } from "@chainquery/transport"
 * import { GetWalletsNFTTransfers } from "@chainquery/ledger-client"
 *
 * const call = (transport: Transport.Transport) =>
 *   GetWalletsNFTTransfers.operation.make(transport)({ network: "testnet", params: { walletAddresses: ["0x1"], limit: 10 } })
 * ```
 * @since 0.1.0
 */
export const operation: LedgerOperation<Parameters, ReturnType> = Operation.define(
  LedgerApi.LedgerGroup.endpoints.getWalletsNFTTransfers,
  ({ network, params }: OnNetwork<Parameters>) =>
    Input.checked((check) => {
      const wallet_addresses = check.all(AptosAddress.AptosAddress, "walletAddresses", params.walletAddresses, { nonEmpty: true })
      const page = paging(check, params)
      const filters = collectionFilters(check, params)
      return {
        query: { ...page, wallet_addresses, ...filters },
        chain: network
      }
    })
)
