/**
 * The family A handlers of the HttpApi in `@chainquery/schema`, answering from the simulated
 * world. The paged operations (A1..A4) answer with the bodies of `EvmPages.ts`, which the fast
 * path sends too.
 *
 * @internal
 */
import { type ApiKey, EvmApi } from "@chainquery/schema"
import { Effect, type Layer } from "effect"
import { HttpApiBuilder, type HttpApiGroup } from "effect/http-api"
import { answerEvm } from "../Answer.js"
import { jsonResponse } from "../Respond.js"
import type { EvmPages } from "./EvmPages.js"
import type { EvmQueries } from "./EvmQueries.js"

/** The handler layer of the `evm` group over `queries` (and their `pages`). */
export const evmHandlers = (
  queries: EvmQueries,
  pages: EvmPages
): Layer.Layer<HttpApiGroup.Service<"chainquery-evm", "evm">, never, ApiKey.ApiKeyAuth> =>
  HttpApiBuilder.group(EvmApi.EvmApi, "evm", (handlers) =>
    Effect.succeed(
      handlers
        .handle("getNFTTransfersByBlock", ({ params, query }) =>
          answerEvm(() => jsonResponse(pages.getNFTTransfersByBlock(params, query))))
        .handle("getWalletNFTTransfers", ({ params, query }) => answerEvm(() => jsonResponse(pages.getWalletNFTTransfers(params, query))))
        .handle("getNFTTransfers", ({ params, query }) => answerEvm(() => jsonResponse(pages.getNFTTransfers(params, query))))
        .handle("getNFTTradesByWallet", ({ params, query }) => answerEvm(() => jsonResponse(pages.getNFTTradesByWallet(params, query))))
        .handle("getNFTOwners", ({ params, query }) => answerEvm(() => queries.owners({ address: params.address, ...query })))
        .handle("getBlock", ({ params, query }) => answerEvm(() => queries.block({ block: params.block_number_or_hash, ...query })))
        .handle("getDefiPositionsSummary", ({ params, query }) =>
          answerEvm(() => queries.defiPositions({ address: params.address, ...query })))
    ))
