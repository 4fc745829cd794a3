/**
 * The four paged family A operations (A1..A4) as plain functions from decoded path parameters and
 * query to the page's body bytes. The HttpApi handlers and the fast path both answer with these,
 * so both write the same bytes. They throw the simulator's problems (`NotFoundProblem`,
 * `BadRequestProblem`, `InvalidCursor`) as the queries do.
 *
 * @internal
 */
import { type BlockNumberOrHash, EvmPage, NftTrade, NftTransfer } from "@chainquery/schema"
import { pageBody, type PageBody } from "../Respond.js"
import type { EvmQueries } from "./EvmQueries.js"

/** The query of an operation: the query method's argument without the path parameters. */
type QueryOf<K extends keyof EvmQueries, Path extends string> = EvmQueries[K] extends (params: infer P) => unknown ? Omit<P, Path>
  : never

const transfersByBlockPage = pageBody<EvmPage.TransfersByBlockPage, NftTransfer.NftTransfer>(
  EvmPage.TransfersByBlockPage,
  NftTransfer.NftTransfer
)
const transfersPage = pageBody<EvmPage.TransfersPage, NftTransfer.NftTransfer>(EvmPage.TransfersPage, NftTransfer.NftTransfer)
const tradesPage = pageBody<EvmPage.TradesPage, NftTrade.NftTrade>(EvmPage.TradesPage, NftTrade.NftTrade)

/** The body of each paged family A operation (by HttpApi endpoint name) over `queries`. */
export const evmPages = (queries: EvmQueries) => ({
  getNFTTransfersByBlock: (
    params: { readonly block_number_or_hash: BlockNumberOrHash.BlockNumberOrHash },
    query: QueryOf<"transfersByBlock", "block">
  ): PageBody => transfersByBlockPage(queries.transfersByBlock({ block: params.block_number_or_hash, ...query })),
  getWalletNFTTransfers: (params: { readonly address: string }, query: QueryOf<"walletTransfers", "address">): PageBody =>
    transfersPage(queries.walletTransfers({ address: params.address, ...query })),
  getNFTTransfers: (
    params: { readonly address: string; readonly token_id: bigint },
    query: QueryOf<"tokenTransfers", "address" | "token_id">
  ): PageBody => transfersPage(queries.tokenTransfers({ address: params.address, token_id: params.token_id, ...query })),
  getNFTTradesByWallet: (params: { readonly address: string }, query: QueryOf<"walletTrades", "address">): PageBody =>
    tradesPage(queries.walletTrades({ address: params.address, ...query }))
})

/** The page operations {@link evmPages} builds. */
export type EvmPages = ReturnType<typeof evmPages>
