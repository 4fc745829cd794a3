/**
 * The family B handlers of the HttpApi in `@chainquery/schema`, answering from the simulated
 * Aptos network the request was addressed to (the front door strips `/aptos/<network>` from the
 * path and passes the network in the `x-chainquery-network` header).
 *
 * @internal
 */
import { type ApiKey, LedgerApi } from "@chainquery/schema"
import { Effect, type Layer } from "effect"
import type { HttpServerRequest } from "effect/http"
import { HttpApiBuilder, type HttpApiGroup } from "effect/http-api"
import { answerLedger } from "./Answer.js"
import type { AptosWorld } from "./aptos/AptosWorld.js"
import type { Network } from "./World.js"

/** The header in which the front door passes the network. */
export const networkHeader = "x-chainquery-network"

const pageOf = (query: { readonly limit: number; readonly offset?: number | undefined; readonly cursor?: string | undefined }) => ({
  limit: query.limit,
  ...(query.offset === undefined ? {} : { offset: query.offset }),
  ...(query.cursor === undefined ? {} : { cursor: query.cursor })
})

/** Drops the keys whose value is undefined (the world's options are exact optional properties). */
const defined = <A extends Record<string, unknown>>(record: A): A =>
  Object.fromEntries(Object.entries(record).filter(([, value]) => value !== undefined)) as A

const collectionFilters = (query: {
  readonly collection_blacklist?: ReadonlyArray<string> | undefined
  readonly collection_whitelist?: ReadonlyArray<string> | undefined
}) => defined({ collectionBlacklist: query.collection_blacklist, collectionWhitelist: query.collection_whitelist })

/** The handler layer of the `ledger` group over the two networks. */
export const ledgerHandlers = (
  worlds: Readonly<Record<Network, AptosWorld>>
): Layer.Layer<HttpApiGroup.Service<"chainquery-ledger", "ledger">, never, ApiKey.ApiKeyAuth> => {
  const worldOf = (request: HttpServerRequest.HttpServerRequest): AptosWorld =>
    worlds[request.headers[networkHeader] === "testnet" ? "testnet" : "mainnet"]
  return HttpApiBuilder.group(LedgerApi.LedgerApi, "ledger", (handlers) =>
    Effect.succeed(
      handlers
        .handle("getNFTOwnersByCollection", ({ params, query, request }) =>
          answerLedger(() =>
            worldOf(request).ownersByCollection(
              params.collection_data_id_hash,
              defined({ walletBlacklist: query.wallet_blacklist, walletWhitelist: query.wallet_whitelist }),
              pageOf(query)
            )
          ))
        .handle("getNFTTransfersByCreators", ({ query, request }) =>
          answerLedger(() => worldOf(request).transfersByCreators(query.creator_addresses, collectionFilters(query), pageOf(query))))
        .handle("getWalletsNFTTransfers", ({ query, request }) =>
          answerLedger(() => worldOf(request).transfersByWallets(query.wallet_addresses, collectionFilters(query), pageOf(query))))
        .handle("getNFTCollections", ({ query, request }) =>
          answerLedger(() => worldOf(request).collections(defined({ fromName: query.fromName, toName: query.toName }), pageOf(query))))
        .handle("getNFTByOwners", ({ query, request }) =>
          answerLedger(() => worldOf(request).nftsByOwners(query.owner_addresses, collectionFilters(query), pageOf(query))))
        .handle("getNFTOwnersByTokens", ({ query, request }) =>
          answerLedger(() => worldOf(request).ownersByTokens(query.token_ids, pageOf(query))))
        .handle("getCoinsByNameRange", ({ query, request }) =>
          answerLedger(() =>
            worldOf(request).coinsByNameRange(defined({ fromName: query.from_name, toName: query.to_name }), pageOf(query))
          ))
    ))
}
