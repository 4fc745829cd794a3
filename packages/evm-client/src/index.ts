/**
 * @chainquery/evm-client: the seven family A (EVM API v2.2) operations of the chainquery service
 * as a typed Effect service, `EvmClient.EvmClient`, with layers to provide it. Each operation's
 * `Parameters`, `ReturnType` and `ErrorType` are exported under its own namespace
 * (`GetBlock.Parameters`...), the shared input types under `Inputs`.
 *
 * @since 0.1.0
 */
export * as EvmClient from "./EvmClient.js"
export type * as Inputs from "./Inputs.js"
export type * as GetNFTTransfersByBlock from "./operations/getNFTTransfersByBlock.js"
export type * as GetWalletNFTTransfers from "./operations/getWalletNFTTransfers.js"
export type * as GetNFTTransfers from "./operations/getNFTTransfers.js"
export type * as GetNFTTradesByWallet from "./operations/getNFTTradesByWallet.js"
export type * as GetNFTOwners from "./operations/getNFTOwners.js"
export type * as GetBlock from "./operations/getBlock.js"
export type * as GetDefiPositionsSummary from "./operations/getDefiPositionsSummary.js"
export * as EvmStream from "./EvmStream.js"
