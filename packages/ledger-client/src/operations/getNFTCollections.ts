/**
 * B4 `getNFTCollections`: NFT collections in name order, optionally within an inclusive,
 * case-sensitive name range (`fromName`, `toName` on the wire, at most 128 characters each).
 * `GET /collections`.
 *
 * @since 0.1.0
 */
import { Input, LedgerApi, type LedgerPage } from "@chainquery/schema"
import { Operation } from "@chainquery/transport"
import { paging } from "../internal/prepare.js"
import type { LedgerOperation, OnNetwork, PagingParameters } from "../LedgerOperation.js"

const Name = LedgerApi.CollectionNameBound

/**
 * The parameters of B4.
 *
 * @example
 * ```ts
 * import type { GetNFTCollections } from "@chainquery/ledger-client"
 *
 * const fromAToC: GetNFTCollections.Parameters = { fromName: "A", toName: "Czz", limit: 100 }
 * ```
 * @since 0.1.0
 */
export interface Parameters extends PagingParameters {
  /** The name to start from (inclusive, case sensitive), at most 128 characters. */
  readonly fromName?: string | undefined
  /** The name to end at (inclusive, case sensitive), at most 128 characters. */
  readonly toName?: string | undefined
}

/**
 * A page of collections in name order.
 *
 * @example
 * ```ts
 * import type { GetNFTCollections } from "@chainquery/ledger-client"
 *
 * const names = (page: GetNFTCollections.ReturnType) => page.result.map((c) => c.collection_name)
 * ```
 * @since 0.1.0
 */
export type ReturnType = LedgerPage.CollectionsPage

/**
 * How B4 can fail: `InvalidInput` (nothing was sent) or any error of a request that was sent.
 *
 * @example
 * ```ts
 * import type { GetNFTCollections } from "@chainquery/ledger-client"
 *
 * const tag = (error: GetNFTCollections.ErrorType) => error._tag
 * ```
 * @since 0.1.0
 */
export type ErrorType = Operation.ErrorType

/**
 * B4 on a transport. `LedgerClient` wraps it as `getNFTCollections(params, options?)`.
 *
 * @example
 * ```ts
 * import type { Transport } from "@chainquery/transport"
 * import { GetNFTCollections } from "@chainquery/ledger-client"
 *
 * const call = (transport: Transport.Transport) =>
 *   GetNFTCollections.operation.make(transport)({ network: "mainnet", params: { fromName: "Aptos", limit: 20 } })
 * ```
 * @since 0.1.0
 */
export const operation: LedgerOperation<Parameters, ReturnType> = Operation.define(
  LedgerApi.LedgerGroup.endpoints.getNFTCollections,
  ({ network, params }: OnNetwork<Parameters>) =>
    Input.checked((check) => {
      const page = paging(check, params)
      const fromName = check.optional(Name, "fromName", params.fromName)
      const toName = check.optional(Name, "toName", params.toName)
      return { query: { ...page, fromName, toName }, chain: network }
    })
)
