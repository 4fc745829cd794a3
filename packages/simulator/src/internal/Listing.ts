/**
 * Reading a window of an append-only index list (positions into a chain-ordered row list) at a
 * snapshot: binary searches bound it by block, then a walk from the saved position collects one
 * page. Cost is O(log n + page), whatever the size of the world.
 *
 * @internal
 */

/** First position in `ids` whose block is >= `block`. */
export const lowerBound = (ids: ReadonlyArray<number>, blockOf: (id: number) => number, block: number): number => {
  let lo = 0, hi = ids.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (blockOf(ids[mid]!) < block) lo = mid + 1
    else hi = mid
  }
  return lo
}

/** First position in `ids` whose block is > `block`. */
export const upperBound = (ids: ReadonlyArray<number>, blockOf: (id: number) => number, block: number): number =>
  lowerBound(ids, blockOf, block + 1)

/** What a page walk needs. */
export interface WindowRequest<A> {
  readonly ids: ReadonlyArray<number>
  readonly blockOf: (id: number) => number
  /** Inclusive block bounds (the upper one already capped at the snapshot). */
  readonly fromBlock: number
  readonly toBlock: number
  readonly order: "ASC" | "DESC"
  /** Entries of the window already consumed by earlier pages. */
  readonly position: number
  readonly limit: number
  readonly keep?: ((id: number) => boolean) | undefined
  readonly map: (id: number) => A
}

/** One page of a window, the position after it and whether entries remain. */
export interface WindowPage<A> {
  readonly items: ReadonlyArray<A>
  readonly position: number
  readonly more: boolean
}

/** Reads one page of the window. */
export const readWindow = <A>(request: WindowRequest<A>): WindowPage<A> => {
  const lo = lowerBound(request.ids, request.blockOf, request.fromBlock)
  const hi = upperBound(request.ids, request.blockOf, request.toBlock)
  const size = Math.max(0, hi - lo)
  const items: Array<A> = []
  let position = request.position
  while (position < size && items.length < request.limit) {
    const id = request.ids[request.order === "DESC" ? hi - 1 - position : lo + position]!
    position++
    if (request.keep === undefined || request.keep(id)) items.push(request.map(id))
  }
  return { items, position, more: position < size }
}
