/**
 * The family A handlers of the HttpApi in `@chainquery/schema`, answering from the simulated
 * world.
 *
 * @internal
 */
import { type ApiKey, EvmApi, EvmPage, NftTrade, NftTransfer } from "@chainquery/schema"
import { Effect, type Layer } from "effect"
import { HttpApiBuilder, type HttpApiGroup } from "effect/http-api"
import { answerEvm } from "../Answer.js"
import { pageResponder } from "../Respond.js"
import type { EvmQueries } from "./EvmQueries.js"

const transfersByBlockPage = pageResponder<EvmPage.TransfersByBlockPage, NftTransfer.NftTransfer>(
  EvmPage.TransfersByBlockPage,
  NftTransfer.NftTransfer
)
const transfersPage = pageResponder<EvmPage.TransfersPage, NftTransfer.NftTransfer>(EvmPage.TransfersPage, NftTransfer.NftTransfer)
const tradesPage = pageResponder<EvmPage.TradesPage, NftTrade.NftTrade>(EvmPage.TradesPage, NftTrade.NftTrade)

/** The handler layer of the `evm` group over `queries`. */
export const evmHandlers = (queries: EvmQueries): Layer.Layer<HttpApiGroup.Service<"chainquery-evm", "evm">, never, ApiKey.ApiKeyAuth> =>
  HttpApiBuilder.group(EvmApi.EvmApi, "evm", (handlers) =>
    Effect.succeed(
      handlers
        .handle("getNFTTransfersByBlock", ({ params, query }) =>
          answerEvm(() => transfersByBlockPage(queries.transfersByBlock({ block: params.block_number_or_hash, ...query }))))
        .handle("getWalletNFTTransfers", ({ params, query }) =>
          answerEvm(() => transfersPage(queries.walletTransfers({ address: params.address, ...query }))))
        .handle("getNFTTransfers", ({ params, query }) =>
          answerEvm(() => transfersPage(queries.tokenTransfers({ address: params.address, token_id: params.token_id, ...query }))))
        .handle("getNFTTradesByWallet", ({ params, query }) =>
          answerEvm(() => tradesPage(queries.walletTrades({ address: params.address, ...query }))))
        .handle("getNFTOwners", ({ params, query }) => answerEvm(() => queries.owners({ address: params.address, ...query })))
        .handle("getBlock", ({ params, query }) => answerEvm(() => queries.block({ block: params.block_number_or_hash, ...query })))
        .handle("getDefiPositionsSummary", ({ params, query }) =>
          answerEvm(() => queries.defiPositions({ address: params.address, ...query })))
    ))
