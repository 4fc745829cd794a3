/**
 * One EVM chain's part of a backfill, in block order and in batches: the wallets' slices
 * (`backfillReader`) are merged by block, and whenever enough events are complete (every wallet
 * read past their block) they are handed over as a batch, with how far each wallet got. The
 * caller commits the batch (write-ahead) and writes its events, so that a run killed at any
 * moment resumes after the last batch instead of starting over, and a batch repeated at most.
 *
 * Memory: the wallets furthest behind are read first, `concurrency` at a time, and a wallet ahead
 * of the others only while it holds less than a slice; a batch is handed over once it has
 * `batchEvents` events. Nothing grows with the range.
 *
 * @internal
 */
import type { EvmClient } from "@chainquery/evm-client"
import type { Chain } from "@chainquery/schema"
import { Clock, Effect } from "effect"
import type { EngineError } from "../../EngineError.js"
import type { BackfillProgress, BlockEvents, BlockHash, Checkpoint } from "../../StateStore.js"
import type { EvmWallet } from "../../WatchedWallet.js"
import type { WatchEvent } from "../../WatchEvent.js"
import { progressOf, type WalletPlan } from "./backfillPlan.js"
import * as Reader from "./backfillReader.js"
import type { Progress } from "./progressBar.js"
import type { Printed, Recent } from "../cycle/recentBlocks.js"

/** What one batch of a chain's backfill writes and commits (as `StateStore.Batch` names it). */
export interface ChainBatch {
  readonly events: ReadonlyArray<WatchEvent>
  /** How far each wallet got (every batch but the last). */
  readonly backfills: ReadonlyArray<BackfillProgress>
  /** The last batch: the wallets whose backfill is over, and the new wallets' checkpoints. */
  readonly backfillsDone: ReadonlyArray<EvmWallet>
  readonly checkpoints: ReadonlyArray<Checkpoint>
  /** The recent blocks the new wallets' events join (see {@link recordsOf}). */
  readonly blocks: ReadonlyArray<BlockHash>
  readonly blockEvents: ReadonlyArray<BlockEvents>
}

/** What {@link backfillChain} reads, and where its batches go. */
export interface ChainInput<E, R> {
  readonly client: EvmClient.Service
  readonly chain: Chain.ChainId
  readonly plans: ReadonlyArray<WalletPlan>
  readonly transfers: boolean
  readonly trades: boolean
  /** Wallets read at once. */
  readonly concurrency: number
  readonly progress: Progress
  /** What is on record of the chain's recent blocks, and how many blocks from the head are recorded. */
  readonly recent: Recent
  readonly reorgWindow: number
  /** A batch is handed over once it has this many events. */
  readonly batchEvents: number
  /** ... or this long after the last one, when the wallets got further (progress kept without events). */
  readonly batchMillis: number
  /** Commits and writes a batch; the next is read only after it. */
  readonly emit: (batch: ChainBatch) => Effect.Effect<void, E, R>
}

/** A wallet's place in the merge. */
interface Cursor {
  readonly plan: WalletPlan
  readonly reader: Reader.Reader
  /** Its events read but not handed over yet (after the chain's frontier). */
  held: Array<Reader.Placed>
  /** The block up to which its events were read; `undefined` before a date's first slice. */
  frontier: bigint | undefined
  origin: bigint | undefined
  done: boolean
  /** The share of its range the progress bar was told about. */
  shown: number
}

const isPrinted = (event: WatchEvent): event is Printed =>
  event.kind === "nft.received" || event.kind === "nft.sent" || event.kind === "trade.bought" || event.kind === "trade.sold"

/**
 * How many records of complete blocks make a wallet's slice: a quarter of a batch, 50 at most
 * (half a page: `./run bench backfill` peaks about 1.3x higher over 5,000 blocks than over 500
 * with 50, about 1.6x with 100, and reads fewer events a second with 25).
 */
const sliceRecordsOf = (batchEvents: number): number => Math.min(50, Math.max(1, Math.floor(batchEvents / 4)))

/** The share of a wallet's range that is read, from 0 to 1. */
const shareOf = (plan: WalletPlan, origin: bigint | undefined, frontier: bigint | undefined, done: boolean): number => {
  if (done) return 1
  if (origin === undefined || frontier === undefined || plan.upTo < origin) return 0
  const share = Number(frontier - origin + 1n) / Number(plan.upTo - origin + 1n)
  return Math.min(1, Math.max(0, share))
}

/** The share of a wallet's range an interrupted run had read (0 for a wallet not resumed). */
const shareBefore = (plan: WalletPlan): number => (plan.resumed ? shareOf(plan, plan.origin, plan.through, false) : 0)

/**
 * The share of the wallets' ranges read already (an interrupted backfill's progress), in wallets:
 * where the progress bar starts.
 */
export const doneBefore = (plans: ReadonlyArray<WalletPlan>): number => plans.reduce((sum, plan) => sum + shareBefore(plan), 0)

/**
 * The new wallets' events in the recent blocks (within `reorgWindow` of their checkpoint) and in
 * every block already on record, added to those blocks' records (a record holds the events of
 * every wallet that covers its block), so that the engine retracts them if a reorganisation
 * replaces their block and never takes them for new. With the last batch, every recent block
 * the new wallets now cover is put on record, with `""` when none of them had a transfer there:
 * a reorganisation that brings them one is then noticed.
 */
const recordsOf = (
  input: ChainInput<unknown, unknown>,
  recorded: { readonly hashes: Map<bigint, string>; readonly printed: Map<bigint, ReadonlyArray<Printed>> },
  events: ReadonlyArray<WatchEvent>,
  last: boolean
) => {
  const window = BigInt(input.reorgWindow)
  const fresh = new Map(input.plans.flatMap((plan) => (plan.since === null ? [] : [[plan.wallet.address as string, plan] as const])))
  const added = new Map<bigint, Array<Printed>>()
  if (last) {
    for (const plan of fresh.values()) {
      for (let block = plan.upTo - window + 1n; block <= plan.upTo; block++) {
        if (block > plan.since! && block > 0n && !recorded.hashes.has(block) && !added.has(block)) added.set(block, [])
      }
    }
  }
  for (const event of events) {
    if (!isPrinted(event)) continue
    const plan = fresh.get(event.wallet)
    if (plan === undefined) continue
    if (event.blockNumber <= plan.upTo - window && !recorded.hashes.has(event.blockNumber)) continue
    added.set(event.blockNumber, [...added.get(event.blockNumber) ?? [], event])
  }
  const blocks: Array<BlockHash> = []
  const blockEvents: Array<BlockEvents> = []
  for (const [number, mine] of added) {
    const known = recorded.printed.get(number) ?? []
    const ids = new Set(known.map((event) => event.id))
    const hash = recorded.hashes.get(number) || (mine[0]?.blockHash ?? "")
    const all = [...known, ...mine.filter((event) => !ids.has(event.id))]
    blocks.push({ chain: input.chain, number, hash })
    blockEvents.push({ chain: input.chain, number, hash, events: all })
    recorded.hashes.set(number, hash)
    recorded.printed.set(number, all)
  }
  return { blocks, blockEvents }
}

/**
 * Backfills one chain: reads the wallets' slices lowest block first, hands over a batch of the
 * events every wallet is past (chain order; ties in the order of the wallets) whenever it has
 * `batchEvents` events or `batchMillis` went by, and a last batch with the new wallets'
 * checkpoints. Returns how many events it handed over.
 */
export const backfillChain = <E, R>(input: ChainInput<E, R>): Effect.Effect<number, EngineError | E, R> =>
  Effect.scoped(Effect.gen(function*() {
    const sliceRecords = sliceRecordsOf(input.batchEvents)
    const cursors: Array<Cursor> = yield* Effect.forEach(input.plans, (plan) =>
      Effect.map(
        Reader.make({
          client: input.client,
          chain: input.chain,
          wallet: plan.wallet,
          start: plan.start,
          upTo: plan.upTo,
          transfers: input.transfers,
          trades: input.trades,
          sliceRecords
        }),
        (reader): Cursor => {
          const done = plan.upTo <= 0n || (plan.through !== undefined && plan.through >= plan.upTo)
          // The bar started from what the resumed wallets had done; one with nothing to read is done now.
          const shown = shareOf(plan, plan.origin, done ? plan.upTo : plan.through, done)
          input.progress.advance(shown - shareBefore(plan))
          return { plan, reader, held: [], frontier: done ? plan.upTo : plan.through, origin: plan.origin, done, shown }
        }
      ))
    const recorded = { hashes: new Map(input.recent.hashes), printed: new Map(input.recent.printed) }
    const concurrency = Math.max(1, Math.floor(input.concurrency))
    let handed = 0
    let flushedAt = yield* Clock.currentTimeMillis
    let flushedThrough: bigint | undefined = undefined

    const advance = (cursor: Cursor) =>
      Effect.map(cursor.reader.next, (slice) => {
        if (slice === undefined) {
          cursor.done = true
          cursor.frontier = cursor.plan.upTo
        } else {
          for (const placed of slice.placed) cursor.held.push(placed)
          cursor.frontier = slice.through
          cursor.origin ??= slice.origin
          cursor.done = slice.through >= cursor.plan.upTo
          input.progress.found(slice.placed.length)
        }
        const share = shareOf(cursor.plan, cursor.origin, cursor.frontier, cursor.done)
        input.progress.advance(share - cursor.shown)
        cursor.shown = share
      })

    /** Hands over the events up to `frontier`; without one, all of them, as the last batch. */
    const flush = Effect.fnUntraced(function*(frontier: bigint | undefined) {
      const last = frontier === undefined
      const taken: Array<Reader.Placed> = []
      for (const cursor of cursors) {
        if (frontier === undefined) {
          taken.push(...cursor.held)
          cursor.held = []
          continue
        }
        const kept: Array<Reader.Placed> = []
        for (const placed of cursor.held) (placed.block <= frontier ? taken : kept).push(placed)
        cursor.held = kept
      }
      const events = taken.toSorted(Reader.byPlace).map((placed) => placed.event)
      const records = input.reorgWindow > 0 ? recordsOf(input, recorded, events, last) : { blocks: [], blockEvents: [] }
      yield* input.emit({
        events,
        backfills: frontier === undefined ? [] : cursors.map((cursor): BackfillProgress => {
          // Up to the chain's frontier, within the wallet's own range.
          const upTo = frontier < cursor.plan.upTo ? frontier : cursor.plan.upTo
          const start = cursor.plan.through
          return progressOf(cursor.plan, start !== undefined && start > upTo ? start : upTo, cursor.origin)
        }),
        backfillsDone: last ? cursors.map((cursor) => cursor.plan.wallet) : [],
        checkpoints: last
          ? cursors.flatMap((cursor): Array<Checkpoint> =>
            cursor.plan.since === null ? [] : [{ wallet: cursor.plan.wallet, position: cursor.plan.upTo, hash: null, since: cursor.plan.since }]
          )
          : [],
        ...records
      })
      handed += events.length
      flushedThrough = frontier
      flushedAt = yield* Clock.currentTimeMillis
    })

    while (true) {
      const open = cursors.filter((cursor) => !cursor.done)
      if (open.length === 0) break
      // The wallets furthest behind first (those not started before all): the chain's frontier
      // moves. A wallet ahead is read only while it holds less than a slice, so that it waits
      // instead of piling up events (however few the wallets, however uneven their pace).
      const lowest = open.toSorted((a, b) =>
        a.frontier === b.frontier ? 0 : a.frontier === undefined ? -1 : b.frontier === undefined ? 1 : a.frontier < b.frontier ? -1 : 1
      )
      const behind = lowest.filter((cursor, index) => index === 0 || cursor.frontier === undefined || cursor.held.length < sliceRecords)
        .slice(0, concurrency)
      yield* Effect.forEach(behind, advance, { concurrency, discard: true })
      const still = cursors.filter((cursor) => !cursor.done)
      if (still.length === 0) break
      if (still.some((cursor) => cursor.frontier === undefined)) continue
      const frontier = still.reduce((low, cursor) => (cursor.frontier! < low ? cursor.frontier! : low), still[0]!.frontier!)
      const ready = cursors.reduce((sum, cursor) => sum + cursor.held.filter((placed) => placed.block <= frontier).length, 0)
      const now = yield* Clock.currentTimeMillis
      const moved = flushedThrough === undefined || frontier > flushedThrough
      if (ready >= input.batchEvents || (moved && now - flushedAt >= input.batchMillis)) yield* flush(frontier)
    }
    yield* flush(undefined)
    return handed
  }))
