/**
 * @chainquery/schema: the wire contract of the chainquery service (family A: EVM, family B:
 * Aptos) as Effect Schemas and HttpApi definitions. Pure data, no I/O.
 *
 * @since 0.1.0
 */
export * as AptosAddress from "./AptosAddress.js"
export * as AptosCoin from "./AptosCoin.js"
export * as AptosCollection from "./AptosCollection.js"
export * as AptosToken from "./AptosToken.js"
export * as Block from "./Block.js"
export * as BlockNumberOrHash from "./BlockNumberOrHash.js"
export * as Chain from "./Chain.js"
export * as ComputeUnits from "./ComputeUnits.js"
export * as DateInput from "./DateInput.js"
export * as Decode from "./Decode.js"
export * as DefiPositions from "./DefiPositions.js"
export * as Errors from "./Errors.js"
export * as EvmAddress from "./EvmAddress.js"
export * as EvmPage from "./EvmPage.js"
export * as Input from "./Input.js"
export * as IssuePath from "./IssuePath.js"
export * as LedgerPage from "./LedgerPage.js"
export * as NftOwner from "./NftOwner.js"
export * as NftTrade from "./NftTrade.js"
export * as NftTransfer from "./NftTransfer.js"
export * as Paging from "./Paging.js"
export * as Rejected from "./Rejected.js"
export * as TokenId from "./TokenId.js"
export * as Wire from "./Wire.js"
export * as ApiKey from "./ApiKey.js"
export * as ErrorBody from "./ErrorBody.js"
export * as EvmApi from "./EvmApi.js"
export * as LedgerApi from "./LedgerApi.js"
