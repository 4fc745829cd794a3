/**
 * The shape of the seven operation modules' `operation`: validated, built from the HttpApi
 * definition of `@chainquery/schema`, and callable on any transport of `@chainquery/transport`
 * without the `LedgerClient` service.
 *
 * @since 0.1.0
 */
import type { Operation, Transport } from "@chainquery/transport"
import type { Effect } from "effect"
import type { Network } from "./Network.js"

/**
 * What an operation is called with: the caller's parameters and the network they are meant for
 * (it names the call's span; the transport's base URL decides where the request goes).
 * `LedgerClient` fills in `network` itself.
 *
 * @example
 * ```ts
 * import type { GetCoinsByNameRange, LedgerOperation } from "@chainquery/ledger-client"
 *
 * const call: LedgerOperation.OnNetwork<GetCoinsByNameRange.Parameters> = { network: "mainnet", params: { limit: 10 } }
 * ```
 * @since 0.1.0
 */
export interface OnNetwork<P> {
  readonly network: Network
  readonly params: P
}

/**
 * The paging parameters every family B operation takes.
 *
 * @example
 * ```ts
 * import type { LedgerOperation } from "@chainquery/ledger-client"
 *
 * const nextPage = (cursor: string): LedgerOperation.PagingParameters => ({ limit: 100, cursor })
 * ```
 * @since 0.1.0
 */
export interface PagingParameters {
  /** Page size: an integer from 1 to 100. Required by the service on every family B operation. */
  readonly limit: number
  /** Number of results to skip: a non-negative integer. */
  readonly offset?: number | undefined
  /** The `cursor` of the previous page of the same listing (`page.cursor`). */
  readonly cursor?: string | undefined
}

/**
 * A family B operation: `make(transport)` gives the call, which validates `params` (failing with
 * `InvalidInput` before sending anything), sends the request and decodes the page.
 *
 * @example
 * ```ts
 * import type { Transport } from "@chainquery/transport"
 * import { GetNFTByOwners, type LedgerOperation } from "@chainquery/ledger-client"
 *
 * const operation: LedgerOperation.LedgerOperation<GetNFTByOwners.Parameters, GetNFTByOwners.ReturnType> = GetNFTByOwners.operation
 * const call = (transport: Transport.Transport) => operation.make(transport)({ network: "mainnet", params: { ownerAddresses: ["0x1"], limit: 5 } })
 * ```
 * @since 0.1.0
 */
export interface LedgerOperation<P, A> {
  readonly make: (
    transport: Transport.Transport
  ) => (call: OnNetwork<P>, options?: Transport.CallOptions) => Effect.Effect<A, Operation.ErrorType>
}
