/**
 * The page envelope of family B: `cursor`, `hasNextPage` and `result`. Decodes to those fields,
 * `result` (the records that decoded) and `rejected` (the ones that did not).
 *
 * @since 0.1.0
 */
import { Coin } from "./AptosCoin.js"
import { Collection } from "./AptosCollection.js"
import { TokenHolding, TokenTransfer } from "./AptosToken.js"
import * as Rejected from "./Rejected.js"
import * as Wire from "./Wire.js"

const pageFields = {
  cursor: Wire.Cursor(null),
  hasNextPage: Wire.BooleanValue
}

/**
 * B1, B5 and B6: token holdings.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { LedgerPage } from "@chainquery/schema"
 *
 * const decode = Schema.decodeUnknownSync(LedgerPage.HoldingsPage)
 * ```
 * @since 0.1.0
 */
export const HoldingsPage = Rejected.envelope(pageFields, TokenHolding)

/**
 * @example
 * ```ts
 * import type { LedgerPage } from "@chainquery/schema"
 *
 * const owners = (page: LedgerPage.HoldingsPage) => page.result.map((h) => h.owner_address)
 * ```
 * @since 0.1.0
 */
export type HoldingsPage = typeof HoldingsPage.Type

/**
 * B2 and B3: token transfers.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { LedgerPage } from "@chainquery/schema"
 *
 * const decode = Schema.decodeUnknownSync(LedgerPage.TransfersPage)
 * ```
 * @since 0.1.0
 */
export const TransfersPage = Rejected.envelope(pageFields, TokenTransfer)

/**
 * @example
 * ```ts
 * import type { LedgerPage } from "@chainquery/schema"
 *
 * const more = (page: LedgerPage.TransfersPage) => page.hasNextPage
 * ```
 * @since 0.1.0
 */
export type TransfersPage = typeof TransfersPage.Type

/**
 * B4: collections.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { LedgerPage } from "@chainquery/schema"
 *
 * const decode = Schema.decodeUnknownSync(LedgerPage.CollectionsPage)
 * ```
 * @since 0.1.0
 */
export const CollectionsPage = Rejected.envelope(pageFields, Collection)

/**
 * @example
 * ```ts
 * import type { LedgerPage } from "@chainquery/schema"
 *
 * const names = (page: LedgerPage.CollectionsPage) => page.result.map((c) => c.collection_name)
 * ```
 * @since 0.1.0
 */
export type CollectionsPage = typeof CollectionsPage.Type

/**
 * B7: coins.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { LedgerPage } from "@chainquery/schema"
 *
 * const decode = Schema.decodeUnknownSync(LedgerPage.CoinsPage)
 * ```
 * @since 0.1.0
 */
export const CoinsPage = Rejected.envelope(pageFields, Coin)

/**
 * @example
 * ```ts
 * import type { LedgerPage } from "@chainquery/schema"
 *
 * const symbols = (page: LedgerPage.CoinsPage) => page.result.map((c) => c.symbol)
 * ```
 * @since 0.1.0
 */
export type CoinsPage = typeof CoinsPage.Type
