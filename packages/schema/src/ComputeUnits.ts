/**
 * The compute units each operation costs, as the service meters them per request. The spec gives
 * no figures, so these are estimates (listings 5, a block 10, DeFi positions 20); the clients'
 * budget and the simulator's rate limit both start from this one table, and both let callers
 * override it.
 *
 * @since 0.1.0
 */

/**
 * The 14 operation ids of the service (family A, then family B).
 *
 * @example
 * ```ts
 * import { ComputeUnits } from "@chainquery/schema"
 *
 * ComputeUnits.operationIds.length // 14
 * ```
 * @since 0.1.0
 */
export const operationIds = [
  "getNFTTransfersByBlock",
  "getWalletNFTTransfers",
  "getNFTTransfers",
  "getNFTTradesByWallet",
  "getNFTOwners",
  "getBlock",
  "getDefiPositionsSummary",
  "getNFTOwnersByCollection",
  "getNFTTransfersByCreators",
  "getWalletsNFTTransfers",
  "getNFTCollections",
  "getNFTByOwners",
  "getNFTOwnersByTokens",
  "getCoinsByNameRange"
] as const

/**
 * An operation id.
 *
 * @example
 * ```ts
 * import type { ComputeUnits } from "@chainquery/schema"
 *
 * const id: ComputeUnits.OperationId = "getBlock"
 * ```
 * @since 0.1.0
 */
export type OperationId = (typeof operationIds)[number]

/**
 * Compute units per operation (estimates).
 *
 * @example
 * ```ts
 * import { ComputeUnits } from "@chainquery/schema"
 *
 * ComputeUnits.defaultWeights.getDefiPositionsSummary // 20
 * ```
 * @since 0.1.0
 */
export const defaultWeights: Readonly<Record<OperationId, number>> = {
  getNFTTransfersByBlock: 5,
  getWalletNFTTransfers: 5,
  getNFTTransfers: 5,
  getNFTTradesByWallet: 5,
  getNFTOwners: 5,
  getBlock: 10,
  getDefiPositionsSummary: 20,
  getNFTOwnersByCollection: 5,
  getNFTTransfersByCreators: 5,
  getWalletsNFTTransfers: 5,
  getNFTCollections: 5,
  getNFTByOwners: 5,
  getNFTOwnersByTokens: 5,
  getCoinsByNameRange: 5
}
