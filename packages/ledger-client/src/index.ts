/**
 * @chainquery/ledger-client: the seven family B operations (the Aptos API) of the chainquery
 * service as a typed Effect service, on mainnet or testnet.
 *
 * - `LedgerClient`: the service, its `layer`s and `make`.
 * - `Network`: the two networks and their default base URLs.
 * - `LedgerOperation`: the shape of an operation, callable on a transport without the service.
 * - One module per operation (`GetNFTOwnersByCollection`, ...): its `Parameters`, `ReturnType`,
 *   `ErrorType` and the `operation` itself, usable on a transport without the service.
 *
 * @since 0.1.0
 */
export * as LedgerClient from "./LedgerClient.js"
export * as Network from "./Network.js"
export * as LedgerOperation from "./LedgerOperation.js"

export * as GetNFTOwnersByCollection from "./operations/getNFTOwnersByCollection.js"
export * as GetNFTTransfersByCreators from "./operations/getNFTTransfersByCreators.js"
export * as GetWalletsNFTTransfers from "./operations/getWalletsNFTTransfers.js"
export * as GetNFTCollections from "./operations/getNFTCollections.js"
export * as GetNFTByOwners from "./operations/getNFTByOwners.js"
export * as GetNFTOwnersByTokens from "./operations/getNFTOwnersByTokens.js"
export * as GetCoinsByNameRange from "./operations/getCoinsByNameRange.js"
export * as LedgerStream from "./LedgerStream.js"
