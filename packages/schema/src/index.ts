/**
 * @chainquery/schema: the wire contract of the chainquery service (family A: EVM, family B:
 * Aptos) as Effect Schemas and HttpApi definitions. Pure data, no I/O.
 *
 * @since 0.1.0
 */
export * as AptosAddress from "./AptosAddress.js"
export * as BlockNumberOrHash from "./BlockNumberOrHash.js"
export * as Chain from "./Chain.js"
export * as DateInput from "./DateInput.js"
export * as Errors from "./Errors.js"
export * as EvmAddress from "./EvmAddress.js"
export * as Input from "./Input.js"
export * as Paging from "./Paging.js"
export * as TokenId from "./TokenId.js"
