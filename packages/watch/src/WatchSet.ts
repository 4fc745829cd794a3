/**
 * The wallets a running `Watch.batches` stream watches, to add and remove while it runs: the
 * stream reads the set before each cycle, so a change takes effect at the next one, without
 * restarting the stream for the other wallets.
 *
 * @since 0.1.0
 */
import { Effect, Ref } from "effect"
import type { From } from "./Backfill.js"
import { dedupe, key, type WatchedWallet } from "./WatchedWallet.js"

/**
 * One wallet of a set, and where a wallet added to a running stream starts: with `from`, its
 * history from that block or date is produced first (once per entry, whichever stream reads the
 * set; up to its checkpoint, for a wallet the state already has one for); without, it starts at
 * the head (a baseline: its events appear from the next block on), or goes on from its
 * checkpoint if the state has one.
 *
 * @example
 * ```ts
 * import type { WatchSet, WatchedWallet } from "@chainquery/watch"
 *
 * declare const wallet: WatchedWallet.WatchedWallet
 * const entry: WatchSet.Entry = { wallet, from: { _tag: "Block", block: 19_000_000n } }
 * ```
 * @since 0.1.0
 */
export interface Entry {
  readonly wallet: WatchedWallet
  readonly from?: From | undefined
}

/**
 * A mutable set of wallets (by `WatchedWallet.key`), shared between a stream and whoever adds or
 * removes wallets while it runs.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { WatchSet, type WatchedWallet } from "@chainquery/watch"
 *
 * declare const alice: WatchedWallet.WatchedWallet
 * const program = Effect.gen(function*() {
 *   const set = yield* WatchSet.make([])
 *   yield* set.add(alice)
 *   yield* set.remove(alice)
 * })
 * ```
 * @since 0.1.0
 */
export interface WatchSet {
  readonly _tag: "WatchSet"
  /** The wallets in the set, in the order they were added: the same list while the set is unchanged. */
  readonly entries: Effect.Effect<ReadonlyArray<Entry>>
  /** Adds a wallet (from the head, or backfilled from `from`); adding one already there changes nothing. */
  readonly add: (wallet: WatchedWallet, options?: { readonly from?: From | undefined }) => Effect.Effect<void>
  /**
   * Removes a wallet: it is no longer read from the next cycle on (a reorganisation of blocks it
   * had passed is still put right for it, so its retractions may come). Its checkpoint is kept.
   */
  readonly remove: (wallet: WatchedWallet) => Effect.Effect<void>
  /**
   * Adds wallets from the head in one step however many there are (since 0.5.0): those already
   * there keep their entry, and a set that gains none is unchanged (the same `entries`).
   */
  readonly addAll: (wallets: Iterable<WatchedWallet>) => Effect.Effect<void>
  /**
   * Makes the set exactly `wallets`, in one step however many there are: those already there keep
   * their entry, the others are added from the head, the rest are removed (as `remove` does).
   */
  readonly replace: (wallets: Iterable<WatchedWallet>) => Effect.Effect<void>
}

/**
 * The entries of a state of the set, as a list made once per state (states are never changed, only
 * replaced): reading an unchanged set again costs nothing and gives the same list, frozen since it
 * is shared.
 */
const lists = new WeakMap<ReadonlyMap<string, Entry>, ReadonlyArray<Entry>>()
const listOf = (entries: ReadonlyMap<string, Entry>): ReadonlyArray<Entry> =>
  lists.get(entries) ?? lists.set(entries, Object.freeze([...entries.values()])).get(entries)!

/** Adds the entries whose wallets the set has not, after the others, in one copy (none: the set is unchanged). */
const grow = (ref: Ref.Ref<ReadonlyMap<string, Entry>>, more: ReadonlyArray<Entry>): Effect.Effect<void> =>
  Ref.update(ref, (entries) => {
    let grown: Map<string, Entry> | undefined
    for (const entry of more) {
      const id = key(entry.wallet)
      if (entries.has(id) || grown?.has(id) === true) continue
      grown ??= new Map(entries)
      grown.set(id, entry)
    }
    return grown ?? entries
  })

/**
 * Makes a set holding `wallets` (repeated ones once).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { WatchSet, type WatchedWallet } from "@chainquery/watch"
 *
 * declare const wallets: ReadonlyArray<WatchedWallet.WatchedWallet>
 * const count = Effect.gen(function*() {
 *   const set = yield* WatchSet.make(wallets)
 *   return (yield* set.entries).length
 * })
 * ```
 * @since 0.1.0
 */
export const make = (wallets: Iterable<WatchedWallet>): Effect.Effect<WatchSet> =>
  Effect.map(
    Ref.make<ReadonlyMap<string, Entry>>(new Map(dedupe(wallets).map((wallet) => [key(wallet), { wallet }] as const))),
    (ref): WatchSet => ({
      _tag: "WatchSet",
      entries: Effect.map(Ref.get(ref), listOf),
      add: (wallet, options) => grow(ref, [options?.from === undefined ? { wallet } : { wallet, from: options.from }]),
      addAll: (more) => grow(ref, Array.from(more, (wallet) => ({ wallet }))),
      remove: (wallet) =>
        Ref.update(ref, (entries) => {
          if (!entries.has(key(wallet))) return entries
          const next = new Map(entries)
          next.delete(key(wallet))
          return next
        }),
      replace: (next) =>
        Ref.update(ref, (entries) => {
          // One pass, one key per wallet: a set may hold a million.
          const replaced = new Map<string, Entry>()
          for (const wallet of next) {
            const id = key(wallet)
            if (replaced.has(id)) continue
            // One kept stays under its own wallet's key: the new copy of the wallet, and of its key, go.
            const kept = entries.get(id)
            if (kept === undefined) replaced.set(id, { wallet })
            else replaced.set(key(kept.wallet), kept)
          }
          return replaced
        })
    })
  )

/**
 * Whether a value is a `WatchSet` (and not a plain list of wallets).
 *
 * @example
 * ```ts
 * import { WatchSet } from "@chainquery/watch"
 *
 * WatchSet.isWatchSet([]) // false
 * ```
 * @since 0.1.0
 */
export const isWatchSet = (value: unknown): value is WatchSet =>
  typeof value === "object" && value !== null && "_tag" in value && value._tag === "WatchSet"
