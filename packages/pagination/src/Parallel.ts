/**
 * Reading a listing with several requests in flight, where the service allows it, delivering
 * exactly what a sequential read delivers, in the same order:
 * - `byOffset` (family B): page `i` is read with `offset = i × pageSize`, `concurrency` at a time,
 *   in order, stopping at the first short page;
 * - `byBlockRange` (family A listings with a block range, A2 and A4): the range is cut into
 *   `parts` sub-ranges, each walked by cursor at the same time, and their pages concatenated in
 *   the listing's order. Each sub-range buffers at most `bufferPages` pages.
 *
 * @since 0.1.0
 */
import { type Cause, Effect, Exit, Option, Queue, Stream } from "effect"
import type { Envelope } from "./Envelope.js"
import { PageFailed } from "./PageFailed.js"
import { type Fetch, type Page, pages } from "./Paginate.js"

/**
 * Family B pages by offset windows.
 *
 * @example
 * ```ts
 * import { Effect, Option } from "effect"
 * import { Envelope, Parallel } from "@chainquery/pagination"
 *
 * const fetch = (offset: number) =>
 *   Effect.succeed({ result: offset < 250 ? Array.from({ length: 100 }, (_, i) => offset + i) : [], cursor: Option.none<string>(), hasNextPage: false })
 * const stream = Parallel.byOffset(fetch, Envelope.ledger(), { pageSize: 100, concurrency: 8 })
 * ```
 * @since 0.1.0
 */
export const byOffset = <P, A, E, R>(
  fetch: (offset: number) => Effect.Effect<P, E, R>,
  envelope: Envelope<P, A>,
  options: {
    readonly pageSize: number
    readonly concurrency: number
    readonly startOffset?: number | undefined
    readonly maxPages?: number | undefined
  }
): Stream.Stream<Page<P, A>, PageFailed<E>, R> => {
  const start = options.startOffset ?? 0
  const indexes = Stream.iterate(0, (i) => i + 1)
  const limited = options.maxPages === undefined ? indexes : Stream.take(indexes, options.maxPages)
  return Stream.unwrap(Effect.sync(() => {
    let delivered = 0
    return limited.pipe(
    // Each page's outcome is kept as a value, so that a request running ahead (past the end, or
    // failing) cannot overtake the pages before it; outcomes are then read in order, and one
    // past the first short page is never looked at.
    Stream.mapEffect((index) => Effect.exit(fetch(start + index * options.pageSize)), {
      concurrency: Math.max(1, options.concurrency)
    }),
    Stream.takeUntil((exit) => Exit.isSuccess(exit) && envelope.items(exit.value).length < options.pageSize),
    Stream.mapEffect((exit) =>
      Exit.isSuccess(exit)
        ? Effect.succeed<Page<P, A>>({
          response: exit.value,
          items: envelope.items(exit.value),
          cursor: Option.none(),
          next: Option.none(),
          index: delivered++
        })
        : Effect.failCause(exit.cause).pipe(
          Effect.mapError((cause) => new PageFailed({ cause, resumeFrom: Option.none(), pagesRead: delivered }))
        )
      )
    )
  }))
}

/**
 * Cuts `[fromBlock, toBlock]` into `parts` contiguous sub-ranges, in listing order (`DESC`: the
 * newest range first).
 *
 * @example
 * ```ts
 * import { Parallel } from "@chainquery/pagination"
 *
 * Parallel.splitRange(1n, 100n, 4, "ASC") // [[1n, 25n], [26n, 50n], [51n, 75n], [76n, 100n]]
 * ```
 * @since 0.1.0
 */
export const splitRange = (
  fromBlock: bigint,
  toBlock: bigint,
  parts: number,
  order: "ASC" | "DESC"
): ReadonlyArray<readonly [bigint, bigint]> => {
  const total = toBlock - fromBlock + 1n
  if (total <= 0n) return []
  const wanted = Number.isSafeInteger(parts) && parts > 0 ? parts : 1
  const count = BigInt(Math.max(1, Math.min(wanted, Number(total))))
  const ranges: Array<readonly [bigint, bigint]> = []
  for (let i = 0n; i < count; i++) {
    const lo = fromBlock + (total * i) / count
    const hi = fromBlock + (total * (i + 1n)) / count - 1n
    ranges.push([lo, hi])
  }
  return order === "DESC" ? ranges.toReversed() : ranges
}

/**
 * Family A pages of a block range, read as `parts` sub-ranges at once.
 *
 * @example
 * ```ts
 * import { Effect, Option } from "effect"
 * import { Envelope, Parallel } from "@chainquery/pagination"
 *
 * const fetchRange = (range: readonly [bigint, bigint]) => (_cursor: Option.Option<string>) =>
 *   Effect.succeed({ result: [range[0]], cursor: Option.none<string>() })
 * const stream = Parallel.byBlockRange(fetchRange, Envelope.evm(), { fromBlock: 1n, toBlock: 800n, parts: 8, order: "DESC" })
 * ```
 * @since 0.1.0
 */
export const byBlockRange = <P, A, E, R>(
  fetchRange: (range: readonly [bigint, bigint]) => Fetch<P, E, R>,
  envelope: Envelope<P, A>,
  options: {
    readonly fromBlock: bigint
    readonly toBlock: bigint
    readonly parts: number
    readonly order: "ASC" | "DESC"
    readonly bufferPages?: number | undefined
  }
): Stream.Stream<Page<P, A>, PageFailed<E>, R> =>
  Stream.unwrap(Effect.gen(function*() {
    const ranges = splitRange(options.fromBlock, options.toBlock, options.parts, options.order)
    const queues: Array<Queue.Queue<Page<P, A>, PageFailed<E> | Cause.Done>> = []
    for (const range of ranges) {
      const queue = yield* Queue.bounded<Page<P, A>, PageFailed<E> | Cause.Done>(Math.max(1, options.bufferPages ?? 16))
      queues.push(queue)
      yield* Effect.forkScoped(Stream.runIntoQueue(pages(fetchRange(range), envelope), queue))
    }
    let index = 0
    return Stream.fromIterable(queues).pipe(
      Stream.flatMap((queue) => Stream.fromQueue(queue)),
      Stream.map((page): Page<P, A> => ({ ...page, index: index++ })),
      // A sub-range's failure is reported at the combined stream's position; its cursor only
      // continues that sub-range, so it is not offered as a resume point of the whole stream.
      Stream.mapError((error) => new PageFailed({ cause: error.cause, resumeFrom: Option.none(), pagesRead: index }))
    )
  }))
