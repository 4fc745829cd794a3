/**
 * Page walks over the ledger's indexes. A listing is a {@link Source}: a stream of ids in listing
 * order, built from binary searches into append-only index lists and merged across the
 * requested keys, so a page costs O(keys · log n + page), however large the world has grown.
 *
 * @internal
 */
import { lowerBound, type AptosLedger, type HoldingIndex } from "./AptosLedger.js"

/**
 * A stream of ids in listing order.
 *
 * To drain one, read `peek()` and call `skip()` until `peek()` returns `undefined`.
 */
export interface Source {
  /** The current id, or `undefined` once the stream is exhausted. */
  peek(): number | undefined
  /** Moves past the current id. */
  skip(): void
}

const self = (n: number) => n

/**
 * Ids of an ascending list, from the first one >= `from`, up to (excluding) the first one at
 * which `stop` holds.
 *
 * `ascending([1, 4, 9, 12], 4, (id) => id >= 12)` yields 4 then 9.
 */
export const ascending = (
  ids: ReadonlyArray<number>,
  from: number,
  stop: (id: number) => boolean = () => false
): Source => {
  let i = lowerBound(ids, self, from)
  return {
    peek: () => (i < ids.length && !stop(ids[i]!) ? ids[i] : undefined),
    skip: () => void i++
  }
}

/**
 * Ids of an ascending list read backwards, from the last one < `before`.
 *
 * `descending([1, 4, 9, 12], 12)` yields 9, 4, then 1.
 */
export const descending = (ids: ReadonlyArray<number>, before: number): Source => {
  let i = lowerBound(ids, self, before) - 1
  return {
    peek: () => (i >= 0 ? ids[i] : undefined),
    skip: () => void i--
  }
}

/**
 * The holdings of one index key at a snapshot of `bound` rows, ascending from id `from`: the
 * open ones opened before the snapshot, merged with the ones closed after it (few, for a recent
 * snapshot) that were open at it.
 *
 * With `bound = ledger.rows.length` and `from = 0` it streams every holding of the key open now,
 * e.g. all current holdings of an owner under `holdingKey.owner(owner)`.
 */
export const holdingsAt = (ledger: AptosLedger, index: HoldingIndex, bound: number, from: number): Source => {
  const holdings = ledger.holdings
  const closedAfter: Array<number> = []
  for (let i = lowerBound(index.closed, (id) => holdings[id]!.closeRow, bound); i < index.closed.length; i++) {
    const id = index.closed[i]!
    if (id >= from && holdings[id]!.openRow < bound) closedAfter.push(id)
  }
  closedAfter.sort((a, b) => a - b)
  return merge([ascending(index.open, from, (id) => holdings[id]!.openRow >= bound), ascending(closedAfter, from)], "asc")
}

/**
 * Merges sources into one stream in `order`; an id present in several sources comes out once.
 *
 * Merging `descending(a, bound)` and `descending(b, bound)` in `"desc"` order gives the ids of both
 * lists, newest first, each once.
 */
export const merge = (sources: ReadonlyArray<Source>, order: "asc" | "desc"): Source => {
  const before = order === "asc" ? (a: number, b: number) => a < b : (a: number, b: number) => a > b
  const heap = sources.filter((s) => s.peek() !== undefined)
  const head = (i: number) => heap[i]!.peek()!
  const down = (start: number) => {
    let i = start
    for (;;) {
      const l = 2 * i + 1, r = l + 1
      let best = i
      if (l < heap.length && before(head(l), head(best))) best = l
      if (r < heap.length && before(head(r), head(best))) best = r
      if (best === i) return
      ;[heap[i], heap[best]] = [heap[best]!, heap[i]!]
      i = best
    }
  }
  for (let i = (heap.length >>> 1) - 1; i >= 0; i--) down(i)
  const peek = () => (heap.length > 0 ? head(0) : undefined)
  return {
    peek,
    skip: () => {
      const id = peek()
      while (heap.length > 0 && head(0) === id) {
        heap[0]!.skip()
        if (heap[0]!.peek() === undefined) {
          const last = heap.pop()!
          if (heap.length > 0) heap[0] = last
        }
        down(0)
      }
    }
  }
}

/**
 * What one page of a listing needs.
 *
 * `keep` decides which ids count (for skipping and taking alike) and `map` turns each id taken into
 * its record.
 */
export interface Walk<A> {
  readonly offset: number
  readonly limit: number
  readonly keep: (id: number) => boolean
  readonly map: (id: number) => A
}

/**
 * One page: the records, and the id of the next kept record (`undefined` when none remains),
 * which is where the next page starts.
 */
export interface Collected<A> {
  readonly items: ReadonlyArray<A>
  readonly next: number | undefined
}

/**
 * Skips `offset` kept ids, takes `limit` kept ids, then looks ahead for one more kept id.
 *
 * `collect(ascending([1, 2, 3, 4], 0), { offset: 1, limit: 2, keep: () => true, map: (id) => id })`
 * is `{ items: [2, 3], next: 4 }`.
 */
export const collect = <A>(source: Source, walk: Walk<A>): Collected<A> => {
  const seek = (): number | undefined => {
    let id = source.peek()
    while (id !== undefined && !walk.keep(id)) {
      source.skip()
      id = source.peek()
    }
    return id
  }
  for (let skipped = 0; skipped < walk.offset && seek() !== undefined; skipped++) source.skip()
  const items: Array<A> = []
  for (let id = seek(); id !== undefined && items.length < walk.limit; id = seek()) {
    items.push(walk.map(id))
    source.skip()
  }
  return { items, next: seek() }
}
