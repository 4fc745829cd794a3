/**
 * The page envelopes of family A's listings (A1 to A5). Each decodes to the envelope's fields,
 * `result` (the records that decoded) and `rejected` (the ones that did not, reported with where
 * and why). `cursor` is an `Option`: `None` when there is no further page (the wire's `""` or
 * `null`).
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { NftOwner } from "./NftOwner.js"
import { NftTrade } from "./NftTrade.js"
import { NftTransfer } from "./NftTransfer.js"
import * as Rejected from "./Rejected.js"
import * as Wire from "./Wire.js"

const pageFields = {
  page: Wire.IntNumber,
  page_size: Wire.IntNumber,
  cursor: Wire.Cursor("")
}

const totalField = {
  /**
   * How many records the whole listing has, when the service counted them (a JSON number);
   * `None` when it did not (`null`, or absent in older captures). service.md gives it only for A1.
   */
  total: Wire.nullable(Wire.IntNumber)
}

const indexingFields = {
  block_exists: Wire.nullable(Wire.BooleanValue),
  index_complete: Wire.nullable(Wire.BooleanValue)
}

/**
 * A1, NFT transfers by block: with the block's `total` and the indexing flags.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { EvmPage } from "@chainquery/schema"
 *
 * const decode = Schema.decodeUnknownSync(EvmPage.TransfersByBlockPage)
 * ```
 * @since 0.1.0
 */
export const TransfersByBlockPage = Rejected.envelope(
  { total: Wire.nullable(Wire.IntString), ...pageFields, ...indexingFields },
  NftTransfer
)

/**
 * @example
 * ```ts
 * import type { EvmPage } from "@chainquery/schema"
 *
 * const transfers = (page: EvmPage.TransfersByBlockPage) => page.result
 * ```
 * @since 0.1.0
 */
export type TransfersByBlockPage = typeof TransfersByBlockPage.Type

/**
 * A2 (by wallet) and A3 (by token id): NFT transfers with the indexing flags.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { EvmPage } from "@chainquery/schema"
 *
 * const decode = Schema.decodeUnknownSync(EvmPage.TransfersPage)
 * ```
 * @since 0.1.0
 */
export const TransfersPage = Rejected.envelope({ ...totalField, ...pageFields, ...indexingFields }, NftTransfer)

/**
 * @example
 * ```ts
 * import { Option } from "effect"
 * import type { EvmPage } from "@chainquery/schema"
 *
 * const done = (page: EvmPage.TransfersPage) => Option.isNone(page.cursor)
 * ```
 * @since 0.1.0
 */
export type TransfersPage = typeof TransfersPage.Type

/**
 * A4, NFT trades by wallet.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { EvmPage } from "@chainquery/schema"
 *
 * const decode = Schema.decodeUnknownSync(EvmPage.TradesPage)
 * ```
 * @since 0.1.0
 */
export const TradesPage = Rejected.envelope({ ...totalField, ...pageFields }, NftTrade)

/**
 * @example
 * ```ts
 * import type { EvmPage } from "@chainquery/schema"
 *
 * const trades = (page: EvmPage.TradesPage) => page.result.length
 * ```
 * @since 0.1.0
 */
export type TradesPage = typeof TradesPage.Type

/**
 * The indexing status of a contract in A5: `SYNCING` while the service is still indexing the
 * collection (the owners are what is known so far), `SYNCED` once it has everything.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { EvmPage } from "@chainquery/schema"
 *
 * Schema.decodeUnknownSync(EvmPage.SyncStatus)("SYNCING")
 * ```
 * @since 0.1.0
 */
export const SyncStatus = Schema.Literals(["SYNCING", "SYNCED"])

/**
 * A5, NFT owners by contract, with the contract's indexing `status` (absent in older captures).
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { EvmPage } from "@chainquery/schema"
 *
 * const decode = Schema.decodeUnknownSync(EvmPage.OwnersPage)
 * ```
 * @since 0.1.0
 */
export const OwnersPage = Rejected.envelope({ status: Wire.nullable(SyncStatus), ...totalField, ...pageFields }, NftOwner)

/**
 * @example
 * ```ts
 * import { Option } from "effect"
 * import type { EvmPage } from "@chainquery/schema"
 *
 * const syncing = (page: EvmPage.OwnersPage) => Option.contains(page.status, "SYNCING")
 * ```
 * @since 0.1.0
 */
export type OwnersPage = typeof OwnersPage.Type
