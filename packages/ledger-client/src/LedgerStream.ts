/**
 * The `stream*` methods of `LedgerClient`: a family B listing as a Stream of its records, built on
 * `@chainquery/pagination`. Cursor walks by default (consistent while the ledger advances), with
 * optional prefetch and resume; `concurrency: n` reads offset windows `n` at a time instead.
 *
 * @since 0.1.0
 */
import { Envelope, type PageFailed, Paginate, Parallel } from "@chainquery/pagination"
import type { Transport } from "@chainquery/transport"
import { type Effect, Option, Stream } from "effect"
import type { PagingParameters } from "./LedgerOperation.js"

/**
 * How to stream a listing.
 *
 * @example
 * ```ts
 * import type { LedgerStream } from "@chainquery/ledger-client"
 *
 * const options: LedgerStream.StreamOptions = { prefetch: 2, maxItems: 1000 }
 * const parallel: LedgerStream.StreamOptions = { concurrency: 8 }
 * ```
 * @since 0.1.0
 */
export interface StreamOptions extends Paginate.Options {
  /** Stop after this many records. */
  readonly maxItems?: number | undefined
  /** Read offset windows this many at a time (`offset = i × limit`), in order, instead of walking cursors. */
  readonly concurrency?: number | undefined
  /** Per-page call options (retries, timeout). */
  readonly call?: Transport.CallOptions | undefined
}

type PageOf<A> = {
  readonly result: ReadonlyArray<A>
  readonly cursor: Option.Option<string>
  readonly hasNextPage: boolean
}

/**
 * Turns an operation into its stream method.
 *
 * @example
 * ```ts
 * import { LedgerStream } from "@chainquery/ledger-client"
 *
 * // const streamCoins = LedgerStream.streamOf(client.getCoinsByNameRange)
 * // streamCoins({ limit: 100, fromName: "A", toName: "C" }, { prefetch: 1 })
 * ```
 * @since 0.1.0
 */
export const streamOf = <P extends PagingParameters, A, E>(
  call: (params: P, options?: Transport.CallOptions) => Effect.Effect<PageOf<A>, E>
) =>
(params: P, options: StreamOptions = {}): Stream.Stream<A, PageFailed.PageFailed<E>> => {
  const envelope = Envelope.ledger<PageOf<A>, A>()
  const concurrency = options.concurrency ?? 1
  const pages = concurrency > 1
    ? Parallel.byOffset(
      (offset) => call({ ...params, offset, cursor: undefined }, options.call),
      envelope,
      { pageSize: params.limit, concurrency, startOffset: params.offset ?? 0, maxPages: options.maxPages }
    )
    : Paginate.pages(
      // The first page may skip `offset` records; the cursors that follow already carry the position.
      (cursor) =>
        call(Option.isSome(cursor) ? { ...params, cursor: cursor.value, offset: undefined } : params, options.call),
      envelope,
      { ...options, startCursor: options.startCursor ?? params.cursor }
    )
  const items = pages.pipe(Stream.flatMap((page) => Stream.fromIterable(page.items)))
  return options.maxItems === undefined ? items : Stream.take(items, options.maxItems)
}
