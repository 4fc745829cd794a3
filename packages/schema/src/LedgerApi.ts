/**
 * The HttpApi of family B (the Aptos API): the seven operations with every path parameter, query
 * parameter (in the wire's spelling: B4 `fromName`, B7 `from_name`), success and error schema.
 * The same API is served for mainnet and testnet at two base URLs.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { HttpApi, HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { ApiKeyAuth } from "./ApiKey.js"
import { AptosAddress, AptosHash } from "./AptosAddress.js"
import { LedgerBadRequestBody, RateLimitedBody } from "./ErrorBody.js"
import { CoinsPage, CollectionsPage, HoldingsPage, TransfersPage } from "./LedgerPage.js"
import { Cursor, Limit, Offset } from "./Paging.js"

const optional = Schema.optionalKey

const paging = {
  limit: Limit,
  offset: optional(Offset),
  cursor: optional(Cursor)
}

const list = <S extends Schema.Codec<any, string>>(item: S) => optional(Schema.ArrayEnsure(item))

const requiredList = <S extends Schema.Codec<any, string>>(item: S) =>
  Schema.ArrayEnsure(item).check(Schema.isMinLength(1))

const collectionFilters = {
  collection_blacklist: list(AptosHash),
  collection_whitelist: list(AptosHash)
}

const nameBound = (maxLength: number) =>
  Schema.String.check(Schema.isMaxLength(maxLength)).annotate({
    description: `a name of at most ${maxLength} characters (inclusive bound, case sensitive)`
  })

/**
 * A bound of B4's collection name range (`fromName`/`toName`): at most 128 characters.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { LedgerApi } from "@chainquery/schema"
 *
 * Schema.decodeUnknownSync(LedgerApi.CollectionNameBound)("Aptos Monkeys")
 * ```
 * @since 0.1.0
 */
export const CollectionNameBound = nameBound(128)

/**
 * A bound of B7's coin name range (`from_name`/`to_name`): at most 32 characters.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { LedgerApi } from "@chainquery/schema"
 *
 * Schema.decodeUnknownSync(LedgerApi.CoinNameBound)("A")
 * ```
 * @since 0.1.0
 */
export const CoinNameBound = nameBound(32)

const errors = [LedgerBadRequestBody, RateLimitedBody]

/**
 * The seven operations of family B, named after the service's operation ids.
 *
 * @example
 * ```ts
 * import { LedgerApi } from "@chainquery/schema"
 *
 * const endpoints = Object.keys(LedgerApi.LedgerGroup.endpoints) // ["getNFTOwnersByCollection", ...]
 * ```
 * @since 0.1.0
 */
export class LedgerGroup extends HttpApiGroup.make("ledger", { topLevel: true })
  .add(
    HttpApiEndpoint.get("getNFTOwnersByCollection", "/nfts/collections/:collection_data_id_hash/owners", {
      params: { collection_data_id_hash: AptosHash },
      query: { ...paging, wallet_blacklist: list(AptosAddress), wallet_whitelist: list(AptosAddress) },
      success: HoldingsPage,
      error: errors
    }),
    HttpApiEndpoint.get("getNFTTransfersByCreators", "/nfts/transfers/creators", {
      query: { ...paging, creator_addresses: requiredList(AptosAddress), ...collectionFilters },
      success: TransfersPage,
      error: errors
    }),
    HttpApiEndpoint.get("getWalletsNFTTransfers", "/wallets/nfts/transfers", {
      query: { ...paging, wallet_addresses: requiredList(AptosAddress), ...collectionFilters },
      success: TransfersPage,
      error: errors
    }),
    HttpApiEndpoint.get("getNFTCollections", "/collections", {
      query: { ...paging, fromName: optional(CollectionNameBound), toName: optional(CollectionNameBound) },
      success: CollectionsPage,
      error: errors
    }),
    HttpApiEndpoint.get("getNFTByOwners", "/wallets/nfts", {
      query: { ...paging, owner_addresses: requiredList(AptosAddress), ...collectionFilters },
      success: HoldingsPage,
      error: errors
    }),
    HttpApiEndpoint.get("getNFTOwnersByTokens", "/nfts/owners", {
      query: { ...paging, token_ids: requiredList(AptosHash) },
      success: HoldingsPage,
      error: errors
    }),
    HttpApiEndpoint.get("getCoinsByNameRange", "/coins/names", {
      query: { ...paging, from_name: optional(CoinNameBound), to_name: optional(CoinNameBound) },
      success: CoinsPage,
      error: errors
    })
  )
  .middleware(ApiKeyAuth)
{}

/**
 * The family B API, served at a network's base URL (`https://mainnet-aptos-api.moralis.io` or
 * `https://testnet-aptos-api.moralis.io` in production; no version segment in the paths).
 *
 * @example
 * ```ts
 * import { HttpApiClient } from "effect/http-api"
 * import { LedgerApi } from "@chainquery/schema"
 *
 * const client = HttpApiClient.make(LedgerApi.LedgerApi, { baseUrl: "http://127.0.0.1:4000/aptos/mainnet" })
 * ```
 * @since 0.1.0
 */
export class LedgerApi extends HttpApi.make("chainquery-ledger")
  .add(LedgerGroup)
  .annotateMerge(OpenApi.annotations({ title: "chainquery family B (Aptos API)" }))
{}
