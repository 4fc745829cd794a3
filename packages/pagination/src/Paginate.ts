/**
 * Cursor pagination as a Stream. `pages` walks a listing page by page (optionally prefetching
 * up to `prefetch` pages ahead of the consumer, never more), `items` flattens it to records.
 * Each page carries the cursor that continues after it, a stream can start from a saved cursor,
 * and a failure carries the cursor to resume from. Interrupting the stream interrupts the request
 * in flight.
 *
 * @since 0.1.0
 */
import { type Cause, Effect, Exit, Option, Queue, Semaphore, Stream } from "effect"
import type { Envelope } from "./Envelope.js"
import { PageFailed } from "./PageFailed.js"

/**
 * One page of a listing, as the stream delivers it.
 *
 * @example
 * ```ts
 * import { Option } from "effect"
 * import type { Paginate } from "@chainquery/pagination"
 *
 * const save = (page: Paginate.Page<unknown, unknown>) => Option.getOrUndefined(page.next) // resume point
 * ```
 * @since 0.1.0
 */
export interface Page<P, A> {
  /** The decoded response, whole (e.g. for A5's `status`). */
  readonly response: P
  /** The records of the page. */
  readonly items: ReadonlyArray<A>
  /** The cursor the page was read with (`None` for the first page of a listing). */
  readonly cursor: Option.Option<string>
  /** The cursor that continues after this page; `None` on the last page. */
  readonly next: Option.Option<string>
  /** 0-based position of the page in this stream. */
  readonly index: number
}

/**
 * How to walk.
 *
 * @example
 * ```ts
 * import type { Paginate } from "@chainquery/pagination"
 *
 * const options: Paginate.Options = { prefetch: 2, maxPages: 10, startCursor: "eyJ…" }
 * ```
 * @since 0.1.0
 */
export interface Options {
  /** Resume from this cursor (one a previous page or a `PageFailed` gave). */
  readonly startCursor?: string | undefined
  /** Stop after this many pages. */
  readonly maxPages?: number | undefined
  /** Fetch up to this many pages ahead of the consumer (0, the default: one at a time). */
  readonly prefetch?: number | undefined
}

/**
 * Reads the page at `cursor` (`None`: the first page).
 *
 * @example
 * ```ts
 * import { Effect, Option } from "effect"
 * import type { Paginate } from "@chainquery/pagination"
 *
 * const fetch: Paginate.Fetch<{ readonly result: ReadonlyArray<number> }, never, never> = (cursor) =>
 *   Effect.succeed({ result: Option.isNone(cursor) ? [1, 2] : [] })
 * ```
 * @since 0.1.0
 */
export type Fetch<P, E, R> = (cursor: Option.Option<string>) => Effect.Effect<P, E, R>

interface WalkState {
  readonly cursor: Option.Option<string>
  readonly index: number
}

const step = <P, A, E, R>(fetch: Fetch<P, E, R>, envelope: Envelope<P, A>, maxPages: number) =>
(state: WalkState): Effect.Effect<readonly [Page<P, A>, Option.Option<WalkState>], PageFailed<E>, R> =>
  fetch(state.cursor).pipe(
    Effect.mapError((cause) => new PageFailed({ cause, resumeFrom: state.cursor, pagesRead: state.index })),
    Effect.map((response) => {
      const next = envelope.next(response)
      const page: Page<P, A> = { response, items: envelope.items(response), cursor: state.cursor, next, index: state.index }
      const more = Option.isSome(next) && state.index + 1 < maxPages
      return [page, more ? Option.some({ cursor: next, index: state.index + 1 }) : Option.none()] as const
    })
  )

/**
 * The pages of a listing, in order.
 *
 * @example
 * ```ts
 * import { Effect, Option, Stream } from "effect"
 * import { Envelope, Paginate } from "@chainquery/pagination"
 *
 * const fetch = (cursor: Option.Option<string>) =>
 *   Effect.succeed({ result: [1, 2, 3], cursor: Option.isNone(cursor) ? Option.some("p2") : Option.none<string>() })
 * const pages = Paginate.pages(fetch, Envelope.evm(), { prefetch: 1 })
 * // Stream.runCollect(pages): two pages
 * ```
 * @since 0.1.0
 */
export const pages = <P, A, E, R>(
  fetch: Fetch<P, E, R>,
  envelope: Envelope<P, A>,
  options: Options = {}
): Stream.Stream<Page<P, A>, PageFailed<E>, R> => {
  const maxPages = options.maxPages ?? Number.POSITIVE_INFINITY
  if (maxPages <= 0) return Stream.empty
  const start: WalkState = { cursor: Option.fromNullishOr(options.startCursor), index: 0 }
  const next = step(fetch, envelope, maxPages)
  const prefetch = Math.max(0, Math.floor(options.prefetch ?? 0))
  if (prefetch === 0) {
    return Stream.paginate(start, (state) => Effect.map(next(state), ([page, more]) => [[page], more] as const))
  }
  return Stream.unwrap(Effect.gen(function*() {
    // At most `prefetch` pages are fetched or waiting ahead of the one the consumer holds: a
    // permit is taken before each request and given back when the consumer takes a page.
    const permits = yield* Semaphore.make(prefetch)
    const queue = yield* Queue.bounded<Page<P, A>, PageFailed<E> | Cause.Done>(prefetch)
    const produce = (state: WalkState): Effect.Effect<void, PageFailed<E>, R> =>
      Effect.flatMap(permits.take(1), () =>
        Effect.flatMap(next(state), ([page, more]) =>
          Effect.flatMap(Queue.offer(queue, page), () =>
            Option.isSome(more) ? produce(more.value) : Queue.end(queue))))
    // The queue ends however the producer ends: done, failed, died or interrupted.
    yield* Effect.forkScoped(produce(start).pipe(
      Effect.onExit((exit) => Exit.isSuccess(exit) ? Effect.void : Queue.failCause(queue, exit.cause))
    ))
    return Stream.fromQueue(queue).pipe(Stream.tap(() => permits.release(1)))
  }))
}

/**
 * The records of a listing, in order, across pages.
 *
 * @example
 * ```ts
 * import { Effect, Option, Stream } from "effect"
 * import { Envelope, Paginate } from "@chainquery/pagination"
 *
 * const fetch = (_: Option.Option<string>) => Effect.succeed({ result: [1, 2, 3], cursor: Option.none<string>() })
 * const firstTwo = Paginate.items(fetch, Envelope.evm(), { maxItems: 2 }) // 1, 2
 * ```
 * @since 0.1.0
 */
export const items = <P, A, E, R>(
  fetch: Fetch<P, E, R>,
  envelope: Envelope<P, A>,
  options: Options & { readonly maxItems?: number | undefined } = {}
): Stream.Stream<A, PageFailed<E>, R> => {
  const all = pages(fetch, envelope, options).pipe(Stream.flatMap((page) => Stream.fromIterable(page.items)))
  return options.maxItems === undefined ? all : Stream.take(all, options.maxItems)
}
