/**
 * The two page envelopes of the service, as the paginator sees them: the records of a page and
 * the cursor that continues after it (none on the last page). Family A says "no more" with an
 * empty or null cursor (the schema decodes both to `None`); family B with `hasNextPage: false`.
 *
 * @since 0.1.0
 */
import { Option } from "effect"

/**
 * How to read one kind of page.
 *
 * @example
 * ```ts
 * import { Option } from "effect"
 * import type { Envelope } from "@chainquery/pagination"
 *
 * const custom: Envelope.Envelope<{ items: ReadonlyArray<number>; next?: string }, number> = {
 *   items: (page) => page.items,
 *   next: (page) => Option.fromNullishOr(page.next)
 * }
 * ```
 * @since 0.1.0
 */
export interface Envelope<P, A> {
  readonly items: (page: P) => ReadonlyArray<A>
  readonly next: (page: P) => Option.Option<string>
}

/**
 * Family A (A1 to A5): `result`, and `cursor` (`None` when empty or null on the wire).
 *
 * @example
 * ```ts
 * import type { EvmPage, NftTransfer } from "@chainquery/schema"
 * import { Envelope } from "@chainquery/pagination"
 *
 * const envelope = Envelope.evm<EvmPage.TransfersPage, NftTransfer.NftTransfer>()
 * ```
 * @since 0.1.0
 */
export const evm = <P extends { readonly result: ReadonlyArray<A>; readonly cursor: Option.Option<string> }, A>(): Envelope<P, A> => ({
  items: (page) => page.result,
  next: (page) => page.cursor
})

/**
 * Family B (B1 to B7): `result`, and `cursor` only while `hasNextPage` is true.
 *
 * @example
 * ```ts
 * import type { AptosCoin, LedgerPage } from "@chainquery/schema"
 * import { Envelope } from "@chainquery/pagination"
 *
 * const envelope = Envelope.ledger<LedgerPage.CoinsPage, AptosCoin.Coin>()
 * ```
 * @since 0.1.0
 */
export const ledger = <
  P extends { readonly result: ReadonlyArray<A>; readonly cursor: Option.Option<string>; readonly hasNextPage: boolean },
  A
>(): Envelope<P, A> => ({
  items: (page) => page.result,
  next: (page) => (page.hasNextPage ? page.cursor : Option.none())
})
