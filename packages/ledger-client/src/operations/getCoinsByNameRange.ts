/**
 * B7 `getCoinsByNameRange`: coins in name order (A-Z), optionally within an inclusive,
 * case-sensitive name range (`from_name`, `to_name` on the wire, at most 32 characters each).
 * `from_name` alone lists from that name on, `to_name` alone up to it. `GET /coins/names`.
 *
 * @since 0.1.0
 */
import { Input, LedgerApi, type LedgerPage } from "@chainquery/schema"
import { Operation } from "@chainquery/transport"
import { paging } from "../internal/prepare.js"
import type { LedgerOperation, OnNetwork, PagingParameters } from "../LedgerOperation.js"

const Name = LedgerApi.CoinNameBound

/**
 * The parameters of B7.
 *
 * @example
 * ```ts
 * import type { GetCoinsByNameRange } from "@chainquery/ledger-client"
 *
 * const bToD: GetCoinsByNameRange.Parameters = { fromName: "B", toName: "D", limit: 100 }
 * ```
 * @since 0.1.0
 */
export interface Parameters extends PagingParameters {
  /** The name to start from (inclusive, case sensitive), at most 32 characters. */
  readonly fromName?: string | undefined
  /** The name to end at (inclusive, case sensitive), at most 32 characters. */
  readonly toName?: string | undefined
}

/**
 * A page of coins in name order.
 *
 * @example
 * ```ts
 * import type { GetCoinsByNameRange } from "@chainquery/ledger-client"
 *
 * const symbols = (page: GetCoinsByNameRange.ReturnType) => page.result.map((coin) => coin.symbol)
 * ```
 * @since 0.1.0
 */
export type ReturnType = LedgerPage.CoinsPage

/**
 * How B7 can fail: `InvalidInput` (nothing was sent) or any error of a request that was sent.
 *
 * @example
 * ```ts
 * import type { GetCoinsByNameRange } from "@chainquery/ledger-client"
 *
 * const message = (error: GetCoinsByNameRange.ErrorType) => error.message
 * ```
 * @since 0.1.0
 */
export type ErrorType = Operation.ErrorType

/**
 * B7 on a transport. `LedgerClient` wraps it as `getCoinsByNameRange(params, options?)`.
 *
 * @example
 * ```ts
 * import type { Transport } from "@chainquery/transport"
 * import { GetCoinsByNameRange } from "@chainquery/ledger-client"
 *
 * const call = (transport: Transport.Transport) =>
 *   GetCoinsByNameRange.operation.make(transport)({ network: "mainnet", params: { fromName: "B", toName: "D", limit: 100 } })
 * ```
 * @since 0.1.0
 */
export const operation: LedgerOperation<Parameters, ReturnType> = Operation.define(
  LedgerApi.LedgerGroup.endpoints.getCoinsByNameRange,
  ({ network, params }: OnNetwork<Parameters>) =>
    Input.checked((check) => {
      const page = paging(check, params)
      const from_name = check.optional(Name, "fromName", params.fromName)
      const to_name = check.optional(Name, "toName", params.toName)
      return { query: { ...page, from_name, to_name }, chain: network }
    })
)
