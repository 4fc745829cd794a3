/**
 * The `stream*` methods of `EvmClient`: a family A listing (A1 to A5) as a Stream of its records,
 * built on `@chainquery/pagination`. Cursor walks by default (a listing reads at the snapshot of
 * its first page, so walking is consistent while blocks arrive), with optional prefetch and resume;
 * for the wallet listings with a block range (A2, A4), `parts: n` reads `n` block sub-ranges at
 * once and concatenates them in order.
 *
 * @since 0.1.0
 */
import { Errors } from "@chainquery/schema"
import { Envelope, PageFailed, Paginate, Parallel } from "@chainquery/pagination"
import type { Transport } from "@chainquery/transport"
import { type Effect, Option, Stream } from "effect"

/**
 * How to stream a listing.
 *
 * @example
 * ```ts
 * import type { EvmStream } from "@chainquery/evm-client"
 *
 * const options: EvmStream.StreamOptions = { prefetch: 2, maxItems: 5000 }
 * ```
 * @since 0.1.0
 */
export interface StreamOptions extends Paginate.Options {
  /** Stop after this many records. */
  readonly maxItems?: number | undefined
  /** Per-page call options (retries, timeout). */
  readonly call?: Transport.CallOptions | undefined
}

/**
 * Stream options of the wallet listings with a block range (A2, A4): `parts` sub-ranges of
 * `[fromBlock, toBlock]` read at once (both bounds must be block numbers).
 *
 * @example
 * ```ts
 * import type { EvmStream } from "@chainquery/evm-client"
 *
 * const options: EvmStream.RangeStreamOptions = { parts: 8 }
 * ```
 * @since 0.1.0
 */
export interface RangeStreamOptions extends StreamOptions {
  readonly parts?: number | undefined
}

type PageOf<A> = { readonly result: ReadonlyArray<A>; readonly cursor: Option.Option<string> }

type Call<P, A, E> = (params: P, options?: Transport.CallOptions) => Effect.Effect<PageOf<A>, E>

const finish = <A, E>(pages: Stream.Stream<Paginate.Page<PageOf<A>, A>, E>, maxItems: number | undefined) => {
  const items = pages.pipe(Stream.flatMap((page) => Stream.fromIterable(page.items)))
  return maxItems === undefined ? items : Stream.take(items, maxItems)
}

const walk = <P extends { readonly cursor?: string | undefined }, A, E>(call: Call<P, A, E>, params: P, options: StreamOptions) =>
  Paginate.pages(
    (cursor: Option.Option<string>) => call(Option.isSome(cursor) ? { ...params, cursor: cursor.value } : params, options.call),
    Envelope.evm<PageOf<A>, A>(),
    { ...options, startCursor: options.startCursor ?? params.cursor }
  )

/**
 * Turns a family A listing into its stream method.
 *
 * @example
 * ```ts
 * import { EvmStream } from "@chainquery/evm-client"
 *
 * // const streamOwners = EvmStream.streamOf(client.getNFTOwners)
 * // streamOwners({ address: "0x…", limit: 100 }, { prefetch: 1 })
 * ```
 * @since 0.1.0
 */
export const streamOf = <P extends { readonly cursor?: string | undefined }, A, E>(call: Call<P, A, E>) =>
(params: P, options: StreamOptions = {}): Stream.Stream<A, PageFailed.PageFailed<E>> =>
  finish(walk(call, params, options), options.maxItems)

const asBigInt = (value: unknown): bigint | undefined => {
  if (typeof value === "bigint") return value
  if (typeof value === "number" && Number.isSafeInteger(value)) return BigInt(value)
  if (typeof value === "string" && /^\d+$/.test(value)) return BigInt(value)
  return undefined
}

/**
 * Turns a wallet listing with a block range (A2, A4) into its stream method, with `parts`.
 *
 * @example
 * ```ts
 * import { EvmStream } from "@chainquery/evm-client"
 *
 * // const streamTransfers = EvmStream.rangeStreamOf(client.getWalletNFTTransfers, "DESC")
 * // streamTransfers({ address: "0x…", fromBlock: 1n, toBlock: 2_000_000n }, { parts: 8 })
 * ```
 * @since 0.1.0
 */
export const rangeStreamOf = <
  P extends { readonly cursor?: string | undefined; readonly fromBlock?: unknown; readonly toBlock?: unknown; readonly order?: unknown },
  A,
  E
>(call: Call<P, A, E>) =>
(params: P, options: RangeStreamOptions = {}): Stream.Stream<A, PageFailed.PageFailed<E | Errors.InvalidInput>> => {
  const parts = options.parts ?? 1
  if (parts <= 1) return streamOf(call)(params, options)
  const from = asBigInt(params.fromBlock)
  const to = asBigInt(params.toBlock)
  if (from === undefined || to === undefined || params.cursor !== undefined) {
    return Stream.fail(new PageFailed.PageFailed({
      cause: new Errors.InvalidInput({
        field: "parts",
        value: String(parts),
        expected: "a split of a block range: fromBlock and toBlock given as block numbers, and no cursor"
      }),
      resumeFrom: Option.none(),
      pagesRead: 0
    }))
  }
  const order = params.order === "ASC" || params.order === "asc" ? "ASC" : "DESC"
  const pages = Parallel.byBlockRange(
    (range) => (cursor: Option.Option<string>) =>
      call({ ...params, fromBlock: range[0], toBlock: range[1], ...(Option.isSome(cursor) ? { cursor: cursor.value } : {}) }, options.call),
    Envelope.evm<PageOf<A>, A>(),
    { fromBlock: from, toBlock: to, parts, order }
  )
  return finish(pages, options.maxItems)
}
