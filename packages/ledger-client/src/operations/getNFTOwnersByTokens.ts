/**
 * B6 `getNFTOwnersByTokens`: the holdings of one or many tokens, given by their
 * `token_data_id_hash`. `GET /nfts/owners`.
 *
 * @since 0.1.0
 */
import { AptosAddress, Input, LedgerApi, type LedgerPage } from "@chainquery/schema"
import { Operation } from "@chainquery/transport"
import { paging } from "../internal/prepare.js"
import type { LedgerOperation, OnNetwork, PagingParameters } from "../LedgerOperation.js"

/**
 * The parameters of B6. `tokenIds` must hold at least one `token_data_id_hash` (64 hex digits).
 *
 * @example
 * ```ts
 * import type { GetNFTOwnersByTokens } from "@chainquery/ledger-client"
 *
 * const params: GetNFTOwnersByTokens.Parameters = { tokenIds: ["cd".repeat(32)], limit: 10 }
 * ```
 * @since 0.1.0
 */
export interface Parameters extends PagingParameters {
  /** Token ids (at least one): `token_data_id_hash`, 64 hex digits each (an optional `0x` is dropped). */
  readonly tokenIds: ReadonlyArray<string>
}

/**
 * A page of token holdings.
 *
 * @example
 * ```ts
 * import type { GetNFTOwnersByTokens } from "@chainquery/ledger-client"
 *
 * const holders = (page: GetNFTOwnersByTokens.ReturnType) => new Set(page.result.map((h) => h.owner_address))
 * ```
 * @since 0.1.0
 */
export type ReturnType = LedgerPage.HoldingsPage

/**
 * How B6 can fail: `InvalidInput` (nothing was sent) or any error of a request that was sent.
 *
 * @example
 * ```ts
 * import type { GetNFTOwnersByTokens } from "@chainquery/ledger-client"
 *
 * const field = (error: GetNFTOwnersByTokens.ErrorType) => (error._tag === "InvalidInput" ? error.field : undefined)
 * ```
 * @since 0.1.0
 */
export type ErrorType = Operation.ErrorType

/**
 * B6 on a transport. `LedgerClient` wraps it as `getNFTOwnersByTokens(params, options?)`.
 *
 * @example
 * ```ts
 * import type { Transport } from "@chainquery/transport"
 * import { GetNFTOwnersByTokens } from "@chainquery/ledger-client"
 *
 * const call = (transport: Transport.Transport) =>
 *   GetNFTOwnersByTokens.operation.make(transport)({ network: "mainnet", params: { tokenIds: ["cd".repeat(32)], limit: 10 } })
 * ```
 * @since 0.1.0
 */
export const operation: LedgerOperation<Parameters, ReturnType> = Operation.define(
  LedgerApi.LedgerGroup.endpoints.getNFTOwnersByTokens,
  ({ network, params }: OnNetwork<Parameters>) =>
    Input.checked((check) => {
      const token_ids = check.all(AptosAddress.AptosHash, "tokenIds", params.tokenIds, { nonEmpty: true })
      const page = paging(check, params)
      return { query: { ...page, token_ids }, chain: network }
    })
)
