/**
 * The HttpApi of family A (EVM API v2.2): the seven operations with every path parameter, query
 * parameter (in the wire's spelling), success and error schema. The simulator serves it and the
 * clients call it, so the two cannot drift.
 *
 * @since 0.1.0
 */
import { Schema, SchemaGetter } from "effect"
import { HttpApi, HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { ApiKeyAuth } from "./ApiKey.js"
import { Block } from "./Block.js"
import { BlockNumber, BlockNumberOrHash } from "./BlockNumberOrHash.js"
import { Chain, TradeChain } from "./Chain.js"
import { DateInput, DateInputOrSeconds } from "./DateInput.js"
import { DefiPositionsSummary } from "./DefiPositions.js"
import { EvmBadRequestBody, NotFoundBody, RateLimitedBody } from "./ErrorBody.js"
import { EvmAddress } from "./EvmAddress.js"
import { OwnersPage, TradesPage, TransfersByBlockPage, TransfersPage } from "./EvmPage.js"
import { Cursor, Limit, Order } from "./Paging.js"
import { TokenId, TokenIdFormat } from "./TokenId.js"

/**
 * The path prefix of family A.
 *
 * @example
 * ```ts
 * import { EvmApi } from "@chainquery/schema"
 *
 * `https://deep-index.moralis.io${EvmApi.pathPrefix}` // the production base
 * ```
 * @since 0.1.0
 */
export const pathPrefix = "/api/v2.2"

const optional = Schema.optionalKey

/**
 * A path or query parameter: a string on the wire, decoded by `schema` (whose own encoded side
 * may also admit numbers or bigints for callers' convenience).
 */
const text = <S extends Schema.Codec<any, any>>(schema: S) => Schema.String.pipe(Schema.decodeTo(schema))

/**
 * A4's `from_date` and `to_date` on the wire: a date string, or unix seconds as digits (the spec
 * accepts seconds for A4 only; A2's stay date strings). Sent as ISO.
 */
const dateOrSecondsText = Schema.String.pipe(
  Schema.decodeTo(DateInputOrSeconds, {
    decode: SchemaGetter.transform((input: string): unknown => /^\d{1,16}$/.test(input) ? Number(input) : input),
    encode: SchemaGetter.transform((date: unknown) => String(date))
  })
)

const paging = {
  limit: optional(Limit),
  cursor: optional(Cursor)
}

const blockRange = {
  from_block: optional(text(BlockNumber)),
  to_block: optional(text(BlockNumber))
}

const errors = [EvmBadRequestBody, RateLimitedBody]

/**
 * The seven operations of family A, named after the service's operation ids.
 *
 * @example
 * ```ts
 * import { EvmApi } from "@chainquery/schema"
 *
 * const endpoints = Object.keys(EvmApi.EvmGroup.endpoints) // ["getNFTTransfersByBlock", ...]
 * ```
 * @since 0.1.0
 */
export class EvmGroup extends HttpApiGroup.make("evm", { topLevel: true })
  .add(
    HttpApiEndpoint.get("getNFTTransfersByBlock", "/block/:block_number_or_hash/nft/transfers", {
      params: { block_number_or_hash: text(BlockNumberOrHash) },
      query: { chain: optional(text(Chain)), ...paging, order: optional(Order) },
      success: TransfersByBlockPage,
      error: errors
    }),
    HttpApiEndpoint.get("getWalletNFTTransfers", "/:address/nft/transfers", {
      params: { address: EvmAddress },
      query: {
        chain: optional(text(Chain)),
        contract_addresses: optional(Schema.ArrayEnsure(EvmAddress)),
        format: optional(TokenIdFormat),
        ...blockRange,
        from_date: optional(text(DateInput)),
        to_date: optional(text(DateInput)),
        ...paging,
        order: optional(Order)
      },
      success: TransfersPage,
      error: errors
    }),
    HttpApiEndpoint.get("getNFTTransfers", "/nft/:address/:token_id/transfers", {
      params: { address: EvmAddress, token_id: text(TokenId) },
      query: { chain: optional(text(Chain)), format: optional(TokenIdFormat), ...paging, order: optional(Order) },
      success: TransfersPage,
      error: errors
    }),
    HttpApiEndpoint.get("getNFTTradesByWallet", "/wallets/:address/nfts/trades", {
      params: { address: EvmAddress },
      query: {
        chain: optional(text(TradeChain)),
        ...blockRange,
        from_date: optional(dateOrSecondsText),
        to_date: optional(dateOrSecondsText),
        ...paging
      },
      success: TradesPage,
      error: errors
    }),
    HttpApiEndpoint.get("getNFTOwners", "/nft/:address/owners", {
      params: { address: EvmAddress },
      query: {
        chain: optional(text(Chain)),
        format: optional(TokenIdFormat),
        ...paging,
        normalizeMetadata: optional(Schema.Boolean),
        media_items: optional(Schema.Boolean)
      },
      success: OwnersPage,
      error: errors
    }),
    HttpApiEndpoint.get("getBlock", "/block/:block_number_or_hash", {
      params: { block_number_or_hash: text(BlockNumberOrHash) },
      query: { chain: optional(text(Chain)), include: optional(Schema.Literal("internal_transactions")) },
      success: Block,
      error: [...errors, NotFoundBody]
    }),
    HttpApiEndpoint.get("getDefiPositionsSummary", "/wallets/:address/defi/positions", {
      params: { address: EvmAddress },
      query: { chain: optional(text(Chain)) },
      success: DefiPositionsSummary,
      error: errors
    })
  )
  .middleware(ApiKeyAuth)
  .prefix(pathPrefix)
{}

/**
 * The family A API, served at the family A base URL (`https://deep-index.moralis.io` in
 * production, paths under `/api/v2.2`).
 *
 * @example
 * ```ts
 * import { HttpApiClient } from "effect/http-api"
 * import { EvmApi } from "@chainquery/schema"
 *
 * const client = HttpApiClient.make(EvmApi.EvmApi, { baseUrl: "http://127.0.0.1:4000" })
 * ```
 * @since 0.1.0
 */
export class EvmApi extends HttpApi.make("chainquery-evm")
  .add(EvmGroup)
  .annotateMerge(OpenApi.annotations({ title: "chainquery family A (EVM API v2.2)" }))
{}
