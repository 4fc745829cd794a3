/**
 * One EVM wallet's history, read in slices for whoever keeps its own progress (the watch
 * service's streams, which take wallets with their history while their scans go on live): the
 * wallet's NFT transfers (A2, oldest first, a page at a time) and, on the chains that have them,
 * its trades (A4), over an inclusive range of blocks, as the same events with the same ids as the
 * engine's live cycles and `Backfill` give. Each slice is complete up to its `through` block and
 * its events are in chain order; memory holds a slice or two, whatever the range. To resume, read
 * again from the block after the last `through` kept.
 *
 * @since 0.5.0
 */
import { EvmClient } from "@chainquery/evm-client"
import type { Chain } from "@chainquery/schema"
import { DateTime, Effect, Option, type Scope } from "effect"
import type { From } from "./internal/backfill/backfillPlan.js"
import * as WalletReader from "./internal/backfill/backfillReader.js"
import { defaultWatch, type Watch } from "./Engine.js"
import { EngineError, fromClient } from "./EngineError.js"
import type { EvmWallet } from "./WatchedWallet.js"
import type { WatchEvent } from "./WatchEvent.js"

/**
 * A wallet's events of the blocks after the previous slice (after the range's start, for the
 * first) up to `through`, included, in chain order; `origin` is the first block the range covers
 * (for a range from a date, the first block at or after it that the wallet has a record in, or
 * `through` when it has none).
 *
 * @example
 * ```ts
 * import type { History } from "@chainquery/watch"
 *
 * const said = (slice: History.Slice) => `${slice.events.length} events up to block ${slice.through}`
 * ```
 * @since 0.5.0
 */
export interface Slice {
  readonly through: bigint
  readonly origin: bigint
  readonly events: ReadonlyArray<WatchEvent>
}

/**
 * A wallet's slices, one at a time: `next` gives the next one, `undefined` once the range's end
 * was given.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import type { History } from "@chainquery/watch"
 *
 * declare const reader: History.Reader
 * const first = Effect.map(reader.next, (slice) => slice?.through)
 * ```
 * @since 0.5.0
 */
export interface Reader {
  readonly next: Effect.Effect<Slice | undefined, EngineError>
}

/**
 * What to read: the wallet, where its history starts (`from`: a block, or an instant), the last
 * block (`upTo`, included), what is watched (`watch`, default `Engine.defaultWatch`: transfers and
 * trades are read; DeFi and holdings have no history), and how many records of complete blocks
 * make a slice (`sliceRecords`, default 50).
 *
 * @example
 * ```ts
 * import type { History, WatchedWallet } from "@chainquery/watch"
 *
 * declare const wallet: WatchedWallet.EvmWallet
 * const options: History.Options = { wallet, from: { _tag: "Block", block: 19_000_000n }, upTo: 19_000_200n }
 * ```
 * @since 0.5.0
 */
export interface Options {
  readonly wallet: EvmWallet
  readonly from: From
  readonly upTo: bigint
  readonly watch?: ReadonlyArray<Watch> | undefined
  readonly sliceRecords?: number | undefined
}

/**
 * A reader of the wallet's history over the `EvmClient` in context; its reads are pulled in the
 * scope (closing it stops them). A range whose start is after `upTo` gives nothing.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { History, type WatchedWallet } from "@chainquery/watch"
 *
 * declare const wallet: WatchedWallet.EvmWallet
 * const count = Effect.scoped(Effect.gen(function*() {
 *   const reader = yield* History.reader({ wallet, from: { _tag: "Block", block: 19_000_000n }, upTo: 19_000_200n })
 *   let events = 0
 *   for (let slice = yield* reader.next; slice !== undefined; slice = yield* reader.next) events += slice.events.length
 *   return events
 * }))
 * ```
 * @since 0.5.0
 */
export const reader = (options: Options): Effect.Effect<Reader, never, EvmClient.EvmClient | Scope.Scope> =>
  Effect.gen(function*() {
    const watch = options.watch ?? defaultWatch
    const read = yield* WalletReader.make({
      client: yield* EvmClient.EvmClient,
      chain: options.wallet.chain,
      wallet: options.wallet,
      start: options.from,
      upTo: options.upTo,
      transfers: watch.includes("transfers"),
      trades: watch.includes("trades"),
      sliceRecords: options.sliceRecords ?? 50
    })
    return {
      next: Effect.map(read.next, (slice) =>
        slice === undefined
          ? undefined
          : { through: slice.through, origin: slice.origin, events: slice.placed.toSorted(WalletReader.byPlace).map((placed) => placed.event) })
    }
  })

/**
 * Where an instant falls on a chain: the first block at or after it (`Found`); before the chain's
 * first block (`BeforeHistory`, with that block and its time); or after the block given as the
 * head (`AfterHead`, with the head's time).
 *
 * @example
 * ```ts
 * import type { History } from "@chainquery/watch"
 *
 * const said = (at: History.BlockAt) => at._tag === "Found" ? `block ${at.block}` : at._tag
 * ```
 * @since 0.5.0
 */
export type BlockAt =
  | { readonly _tag: "Found"; readonly block: bigint }
  | { readonly _tag: "BeforeHistory"; readonly first: bigint; readonly firstAt: DateTime.Utc }
  | { readonly _tag: "AfterHead"; readonly headAt: DateTime.Utc }

/**
 * The first block of `chain` whose time is at or after `date`, up to `head`, found by halving
 * with A6 (`getBlock`): about log2(head) requests, plus one. Blocks the service does not know
 * (below the chain's first) count as before it; a `head` it does not know fails (`EngineError`).
 *
 * @example
 * ```ts
 * import { DateTime } from "effect"
 * import { History } from "@chainquery/watch"
 *
 * const at = History.blockAt("0x1", DateTime.makeUnsafe("2026-11-01T00:00:00Z"), 21_000_000n)
 * ```
 * @since 0.5.0
 */
export const blockAt = (chain: Chain.ChainId, date: DateTime.Utc, head: bigint): Effect.Effect<BlockAt, EngineError, EvmClient.EvmClient> =>
  Effect.gen(function*() {
    const client = yield* EvmClient.EvmClient
    const wanted = DateTime.toEpochMillis(date)
    /** The time of block `n` in milliseconds, `undefined` when the service does not know it. */
    const timeOf = (n: bigint) =>
      client.getBlock({ block: n, chain }).pipe(
        Effect.map(Option.match({ onNone: () => undefined, onSome: (block) => DateTime.toEpochMillis(block.timestamp) })),
        Effect.mapError(fromClient("getBlock"))
      )
    const headAt = yield* timeOf(head)
    // A head the service does not know yet (its index lags): nothing can be placed, try again later.
    if (headAt === undefined) {
      return yield* new EngineError({ operation: "getBlock", message: `block ${head} of ${chain} is not known to the service yet`, cause: undefined })
    }
    if (headAt < wanted) return { _tag: "AfterHead", headAt: DateTime.makeUnsafe(headAt) } as const
    // The least block known and at or after the date, in [low, high]: high always is one.
    let low = 0n
    let high = head
    let highAt = headAt
    while (low < high) {
      const middle = (low + high) / 2n
      const at = yield* timeOf(middle)
      if (at !== undefined && at >= wanted) {
        high = middle
        highAt = at
      } else low = middle + 1n
    }
    if (highAt > wanted && (high === 0n || (yield* timeOf(high - 1n)) === undefined)) {
      return { _tag: "BeforeHistory", first: high, firstAt: DateTime.makeUnsafe(highAt) } as const
    }
    return { _tag: "Found", block: high } as const
  })
