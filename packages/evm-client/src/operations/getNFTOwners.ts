/**
 * A5, `getNFTOwners`: the owners of the NFTs of a contract. A contract the service has not indexed
 * yet starts being indexed on the first request: the page says `status: SYNCING` and holds what is
 * known so far, `SYNCED` once complete.
 * `GET /api/v2.2/nft/{address}/owners`.
 *
 * @since 0.1.0
 */
import { Chain, EvmAddress, EvmApi, type EvmPage, Input, TokenId } from "@chainquery/schema"
import { Operation, type Transport } from "@chainquery/transport"
import { type Effect, Schema } from "effect"
import type * as Inputs from "../Inputs.js"
import { paging } from "../internal/prepare.js"

/**
 * The parameters of {@link make}: the contract, and optionally the chain, the token id format,
 * paging, and whether to return normalised metadata and media items.
 *
 * @example
 * ```ts
 * import type { GetNFTOwners } from "@chainquery/evm-client"
 *
 * const params: GetNFTOwners.Parameters = {
 *   address: "0xbc4ca0eda7647a8ab7c2061c2e118a18a936f13d",
 *   chain: "eth",
 *   normalizeMetadata: true,
 *   limit: 100
 * }
 * ```
 * @since 0.1.0
 */
export interface Parameters extends Inputs.Paging {
  /** The NFT contract. */
  readonly address: Inputs.Address
  /** The chain; the service's default (eth) when absent. */
  readonly chain?: Inputs.ChainInput | undefined
  /** How token ids are written in the response. */
  readonly format?: Inputs.TokenIdFormat | undefined
  /** Return `normalized_metadata` with each owner. */
  readonly normalizeMetadata?: boolean | undefined
  /** Return `media` (preview images) with each owner. */
  readonly mediaItems?: boolean | undefined
}

/**
 * A page of owners with the contract's indexing `status`; `cursor` is `Option.none()` on the
 * last page.
 *
 * @example
 * ```ts
 * import { Option } from "effect"
 * import type { GetNFTOwners } from "@chainquery/evm-client"
 *
 * const complete = (page: GetNFTOwners.ReturnType) => !Option.contains(page.status, "SYNCING")
 * ```
 * @since 0.1.0
 */
export type ReturnType = EvmPage.OwnersPage

/**
 * What the call can fail with: `InvalidInput` (nothing sent), or what the service or the network
 * answered.
 *
 * @example
 * ```ts
 * import type { GetNFTOwners } from "@chainquery/evm-client"
 *
 * const describe = (error: GetNFTOwners.ErrorType) => `${error._tag}: ${error.message}`
 * ```
 * @since 0.1.0
 */
export type ErrorType = Operation.ErrorType

/** The operation: validates the parameters into the endpoint's wire values. */
const definition = Operation.define(
  EvmApi.EvmGroup.endpoints.getNFTOwners,
  (params: Parameters) =>
    Input.checked((check) => {
      const address = check.value(EvmAddress.EvmAddress, "address", params.address)
      const chain = check.optional(Chain.Chain, "chain", params.chain)
      const format = check.optional(TokenId.TokenIdFormat, "format", params.format)
      const { limit, cursor } = paging(check, params)
      const normalizeMetadata = check.optional(Schema.Boolean, "normalizeMetadata", params.normalizeMetadata)
      const mediaItems = check.optional(Schema.Boolean, "mediaItems", params.mediaItems)
      return {
        params: { address },
        query: { chain, format, limit, cursor, normalizeMetadata, media_items: mediaItems },
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
 *   const page = yield* client.getNFTOwners({ address: "0xbc4ca0eda7647a8ab7c2061c2e118a18a936f13d", chain: "eth" })
 *   return page.result.map((owner) => owner.owner_of)
 * })
 * ```
 * @since 0.1.0
 */
export const make = (
  transport: Transport.Transport
): (params: Parameters, options?: Transport.CallOptions) => Effect.Effect<ReturnType, ErrorType> => definition.make(transport)
