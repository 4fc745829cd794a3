/**
 * The heap mode of `serve` (`--memory`). `lean` turns on V8's `--optimize-for-size` for the
 * process: the heap grows by less past what is live after each full collection, and compiled code
 * is smaller, so resident memory stays near the live data at the cost of more frequent collections.
 * A service watching a large, slowly changing set of wallets for months spends little CPU per
 * block and much memory per wallet, so `lean` is its default.
 *
 * While the live data grows fast (100,000 wallets added in a few seconds, a backlog of events read
 * at once), `lean` would run a full collection each time the heap grows by a few megabytes: 45 of
 * them in 10 s, a third of the process's CPU, while the same adding took half the time with `fast`.
 * So `lean` follows the collections (`LeanFollower`): after `relaxAt.collections` full ones within
 * `relaxAt.withinMillis`, the heap grows as with `fast` for `relaxAt.forMillis`, then it is lean
 * again, and one compacting collection (`compact`) gives back what it grew by: at 100,000 wallets
 * added in ten requests, 0.75 to 0.86 KB resident per wallet over the next minute, where a lean
 * heap that never relaxed held 0.87 to 1.02 KB, and a relaxed one left to shrink by itself 1.0 to
 * 1.14 KB.
 *
 * Node documents `v8.setFlagsFromString` after start as unsupported: a flag may be ignored. This
 * one is read by the heap each time it decides how far to grow, and it is set before any wallet
 * is loaded; `./run bench` measures the real `serve --memory lean` against `--memory fast`, so a
 * Node that ignored it would show there.
 *
 * @internal
 */
import { Effect, type Scope } from "effect"
import { constants, PerformanceObserver } from "node:perf_hooks"
import v8 from "node:v8"
import { runInNewContext } from "node:vm"

/** `--memory`: `lean` (V8 optimised for size) or `fast` (V8's defaults). */
export type HeapMode = "lean" | "fast"

/** When `lean` lets the heap grow as `fast` does: so many full collections within so long, then for how long. */
export const relaxAt = { collections: 4, withinMillis: 2_000, forMillis: 10_000 } as const

/** What the follower of a lean heap knows: the recent full collections, and until when the heap is relaxed. */
export interface LeanFollower {
  /** When the full collections of the last `relaxAt.withinMillis` ran (`performance.now()`), oldest first. */
  readonly collections: ReadonlyArray<number>
  /** Until when the heap grows as with `fast`; `undefined`: lean. */
  readonly relaxedUntil: number | undefined
}

/** A lean heap with no collection seen. */
export const leanFollower: LeanFollower = { collections: [], relaxedUntil: undefined }

/**
 * The follower at `now`, with the full collections seen since the last look: what it becomes, and
 * the change of mode to make (`undefined`: none).
 */
export const follow = (
  follower: LeanFollower,
  now: number,
  collected: ReadonlyArray<number>
): { readonly follower: LeanFollower; readonly change: HeapMode | undefined } => {
  const collections = [...follower.collections, ...collected].filter((at) => at > now - relaxAt.withinMillis)
  if (follower.relaxedUntil !== undefined) {
    return now >= follower.relaxedUntil
      ? { follower: leanFollower, change: "lean" }
      : { follower: { collections: [], relaxedUntil: follower.relaxedUntil }, change: undefined }
  }
  return collections.length >= relaxAt.collections
    ? { follower: { collections: [], relaxedUntil: now + relaxAt.forMillis }, change: "fast" }
    : { follower: { collections, relaxedUntil: undefined }, change: undefined }
}

const setHeap = (mode: HeapMode) => v8.setFlagsFromString(mode === "lean" ? "--optimize-for-size" : "--no-optimize-for-size")

/**
 * Runs V8's compacting full collection (its "last resort": live objects moved together, the pages
 * emptied given back), through the `gc` that `--expose-gc` gives a context made after it is set.
 * A V8 that gives none leaves the heap as it is. Answers whether it ran.
 */
export const compact = (): boolean => {
  v8.setFlagsFromString("--expose-gc")
  const gc: unknown = runInNewContext("gc")
  if (typeof gc !== "function") return false
  gc({ type: "major", execution: "sync", flavor: "last-resort" })
  return true
}

/**
 * Puts the process's heap in `mode` for as long as the scope is open; `fast` leaves V8 as it
 * started, `lean` is followed (see `follow`: every 250 ms; compacted when lean again) and left
 * lean when the scope closes.
 */
export const useHeapMode = (mode: HeapMode): Effect.Effect<void, never, Scope.Scope> =>
  mode === "fast" ? Effect.void : Effect.gen(function*() {
    setHeap("lean")
    const seen: Array<number> = []
    yield* Effect.acquireRelease(
      Effect.sync(() => {
        const observer = new PerformanceObserver((list) => {
          for (const entry of list.getEntries()) {
            // A "gc" entry says which collection it was (`detail.kind`, typed on Node's own entry).
            const kind = (entry as { readonly detail?: { readonly kind?: number } }).detail?.kind
            if (kind === constants.NODE_PERFORMANCE_GC_MAJOR) seen.push(entry.startTime)
          }
        })
        observer.observe({ entryTypes: ["gc"] })
        return observer
      }),
      (observer) => Effect.sync(() => observer.disconnect())
    )
    // Lean again when the scope closes, after the follower below has stopped (finalisers run last first).
    yield* Effect.addFinalizer(() => Effect.sync(() => setHeap("lean")))
    let follower = leanFollower
    yield* Effect.forkScoped(
      Effect.sync(() => {
        const next = follow(follower, performance.now(), seen.splice(0))
        follower = next.follower
        if (next.change !== undefined) setHeap(next.change)
        if (next.change === "lean") compact()
      }).pipe(Effect.andThen(Effect.sleep("250 millis")), Effect.forever)
    )
  })
