/**
 * B1 `getNFTOwnersByCollection`: the holdings of the tokens of one collection (who owns which
 * token, and how many), optionally limited to some wallets or excluding some.
 * `GET /nfts/collections/{collection_data_id_hash}/owners`.
 *
 * @since 0.1.0
 */
import { AptosAddress, Input, LedgerApi, type LedgerPage } from "@chainquery/schema"
import { Operation } from "@chainquery/transport"
import { optionalList, paging } from "../internal/prepare.js"
import type { LedgerOperation, OnNetwork, PagingParameters } from "../LedgerOperation.js"

/**
 * The parameters of B1. Addresses are `0x` and 1 to 64 hex digits (padded to 64 before sending).
 *
 * @example
 * ```ts
 * import type { GetNFTOwnersByCollection } from "@chainquery/ledger-client"
 *
 * const params: GetNFTOwnersByCollection.Parameters = {
 *   collectionDataIdHash: "ab".repeat(32),
 *   limit: 50,
 *   walletBlacklist: ["0x1"]
 * }
 * ```
 * @since 0.1.0
 */
export interface Parameters extends PagingParameters {
  /** The collection's `collection_data_id_hash`: 64 hex digits (an optional `0x` is dropped). */
  readonly collectionDataIdHash: string
  /** Owners to leave out. */
  readonly walletBlacklist?: ReadonlyArray<string> | undefined
  /** Owners to restrict the listing to. */
  readonly walletWhitelist?: ReadonlyArray<string> | undefined
}

/**
 * A page of token holdings: `result`, `hasNextPage`, `cursor` (an `Option`) and `rejected` (the
 * records that did not decode).
 *
 * @example
 * ```ts
 * import type { GetNFTOwnersByCollection } from "@chainquery/ledger-client"
 *
 * const owners = (page: GetNFTOwnersByCollection.ReturnType) => page.result.map((holding) => holding.owner_address)
 * ```
 * @since 0.1.0
 */
export type ReturnType = LedgerPage.HoldingsPage

/**
 * How B1 can fail: `InvalidInput` (nothing was sent) or any error of a request that was sent.
 *
 * @example
 * ```ts
 * import type { GetNFTOwnersByCollection } from "@chainquery/ledger-client"
 *
 * const describe = (error: GetNFTOwnersByCollection.ErrorType) => `${error._tag}: ${error.message}`
 * ```
 * @since 0.1.0
 */
export type ErrorType = Operation.ErrorType

/**
 * B1 on a transport. `LedgerClient` wraps it as `getNFTOwnersByCollection(params, options?)`.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { FetchHttpClient } from "effect/http"
 * import { Transport } from "@chainquery/transport"
 * import { GetNFTOwnersByCollection } from "@chainquery/ledger-client"
 *
 * const program = Effect.gen(function*() {
 *   const transport = yield* Transport.make({ baseUrl: "https://mainnet-aptos-api.moralis.io", apiKey: "key" })
 *   const call = GetNFTOwnersByCollection.operation.make(transport)
 *   return yield* call({ network: "mainnet", params: { collectionDataIdHash: "ab".repeat(32), limit: 10 } })
 * }).pipe(Effect.provide(FetchHttpClient.layer))
 * ```
 * @since 0.1.0
 */
export const operation: LedgerOperation<Parameters, ReturnType> = Operation.define(
  LedgerApi.LedgerGroup.endpoints.getNFTOwnersByCollection,
  ({ network, params }: OnNetwork<Parameters>) =>
    Input.checked((check) => {
      const collection_data_id_hash = check.value(AptosAddress.AptosHash, "collectionDataIdHash", params.collectionDataIdHash)
      const page = paging(check, params)
      const wallet_blacklist = optionalList(check, AptosAddress.AptosAddress, "walletBlacklist", params.walletBlacklist)
      const wallet_whitelist = optionalList(check, AptosAddress.AptosAddress, "walletWhitelist", params.walletWhitelist)
      return {
        params: { collection_data_id_hash },
        query: { ...page, wallet_blacklist, wallet_whitelist },
        chain: network
      }
    })
)
