/**
 * Noticing a reorganisation of recorded blocks. Block scanning (and per-wallet polling with
 * confirmations) checks the newest recorded block each cycle (one request, see `probeRecord`);
 * per-wallet polling without confirmations compares each wallet's listing of its last
 * `reorgWindow` blocks with the record. When a block turns out replaced, the blocks on record
 * below it are read again, newest first, down to the common ancestor (the first whose recorded
 * hash still matches): each is reconciled for every wallet that covers it. An error gives the
 * depth found when it is deeper than the confirmations waited for, or without confirmations
 * deeper than `reorgWindow`. Nothing older than the record (`keepBlocks` of the state store, 256
 * by default) can be noticed.
 *
 * @internal
 */
import type { EvmClient } from "@chainquery/evm-client"
import type { Chain } from "@chainquery/schema"
import { Effect } from "effect"
import { readBlock } from "./evmReads.js"
import { type ByAddress, covers, eventsOf, hashOf, type Recent, reconcile, type Reconciled, type Tracked } from "./recentBlocks.js"

/** At most this many recorded blocks are read again below a replaced one in one cycle. */
const maxWalk = 128

export interface WalkInput {
  readonly client: EvmClient.Service
  readonly chain: Chain.ChainId
  readonly recent: Recent
  readonly byAddress: ByAddress
}

/** One block read again: how it compares with its record. */
export interface ReadAgain {
  readonly result: Reconciled
  /** Its hash is not the recorded one (or it had none on record). */
  readonly replaced: boolean
  /** Both hashes are known (not `""`), so that equal hashes prove the block unchanged. */
  readonly sure: boolean
}

/**
 * Reads a block again and reconciles it for every wallet that covers it, and for `readers` (wallets
 * reading it for the first time this cycle, whose own listings disagreed); `undefined` when not
 * indexed.
 */
export const readAgain = Effect.fnUntraced(function*(input: WalkInput, block: bigint, readers?: ReadonlySet<Tracked>) {
  const listing = yield* readBlock(input.client, input.chain, block)
  if (!listing.exists || !listing.complete) return undefined
  const hash = hashOf(listing.transfers)
  const derived = (t: Tracked) => covers(t, block) || (readers?.has(t) ?? false)
  const now = eventsOf(input.chain, input.byAddress, listing.transfers, derived)
  /** Whether some wallet at this address covers the block (looked up per event, not built for every wallet). */
  const covered = (wallet: string) => {
    const tracked = input.byAddress.get(wallet)
    return tracked !== undefined && derived(tracked)
  }
  const known = input.recent.hashes.get(block)
  return {
    result: reconcile(input.chain, block, hash, now, input.recent.printed.get(block) ?? [], covered),
    replaced: known === undefined || known !== hash,
    sure: known !== undefined && known !== "" && hash !== ""
  } satisfies ReadAgain
})

/** Whether a block read again goes on record: it was replaced, or what was printed from it changed. */
export const keeps = (read: ReadAgain): boolean => read.replaced || read.result.changed

/** The wording of a reorganisation deeper than the window, without confirmations. */
const deeperThanWindow = (window: number) => `the ${window}-block reorganisation window`

/** What a walk down the record found: the blocks read again (newest first) and the common ancestor. */
export interface Walk {
  readonly read: ReadonlyArray<ReadAgain>
  /** The recorded block found unchanged, if the walk reached one. */
  readonly ancestor: bigint | undefined
}

/**
 * Walks down the recorded blocks below `above` (exclusive), skipping `skip`, reading each again,
 * until one whose recorded hash matches (`""` on either side is no proof: the walk goes on).
 * `undefined` when a block is not indexed (read everything again next cycle).
 */
export const walkDown = Effect.fnUntraced(function*(input: WalkInput, above: bigint, skip: ReadonlySet<bigint>) {
  const below = [...input.recent.hashes.keys()].filter((b) => b < above && !skip.has(b)).toSorted((a, b) => (a < b ? 1 : -1)).slice(0, maxWalk)
  const read: Array<ReadAgain> = []
  for (const block of below) {
    const again = yield* readAgain(input, block)
    if (again === undefined) return undefined
    if (!again.replaced && again.sure) return { read, ancestor: block } satisfies Walk
    read.push(again)
  }
  return { read, ancestor: undefined } satisfies Walk
})

/** Whether a walk found blocks replaced below where it started (a deeper reorganisation). */
export const foundDeeper = (walk: Walk): boolean => walk.read.some((r) => (r.replaced && r.sure) || r.result.changed)

/** The common ancestor a walk found, or (none matched) the block below the lowest it read. */
const ancestorOf = (walk: Walk, top: bigint): bigint =>
  walk.ancestor ?? walk.read.reduce((a, r) => (r.result.block.number < a ? r.result.block.number : a), top) - 1n

/** Logs a reorganisation deeper than what the cycle reads again, with its depth. */
export const reportDeep = (chain: Chain.ChainId, top: bigint, walk: Walk, readAgainEachCycle: string) => {
  const lowest = walk.read.reduce((a, r) => (r.result.block.number < a ? r.result.block.number : a), top)
  const ancestor = ancestorOf(walk, top)
  const found = walk.ancestor === undefined
    ? `no recorded block below ${lowest} matched (the record keeps the last 256 blocks): older blocks may have changed unseen`
    : `read again back to block ${ancestor}, the common ancestor`
  return Effect.logError(
    `chain ${chain}: a reorganisation ${top - ancestor} blocks deep (blocks ${ancestor + 1n}..${top} replaced), deeper than ${readAgainEachCycle}; ${found}`
  )
}

/**
 * Below the lowest block a cycle found replaced (`lowest`): walks down the record to the common
 * ancestor, logging an error when blocks below were replaced too. Returns the blocks read again,
 * or `undefined` when one is not indexed yet.
 */
export const below = Effect.fnUntraced(function*(input: WalkInput, lowest: bigint, skip: ReadonlySet<bigint>, top: bigint, window: number) {
  const walk = yield* walkDown(input, lowest, skip)
  if (walk === undefined) return undefined
  // Only deeper than the window is an error; a shallower one was just noticed by a wallet whose
  // window holds a part of it.
  if (foundDeeper(walk) && top - ancestorOf(walk, lowest) > BigInt(window)) {
    yield* reportDeep(input.chain, top, walk, deeperThanWindow(window))
  }
  return walk.read
})

/**
 * The check of the record: the newest recorded block at or before `start` with a known hash is
 * read again (one request), with the recorded blocks of the last `window` whose hash is unknown
 * (each read once: it is recorded with the hash it gives). When it was replaced, some before it
 * may have been too: they are read again, down to the common ancestor, and an error gives the
 * depth when deeper than the confirmations (or, without any, than `window`). A block found
 * unchanged vouches for those below it because the record never mixes two chains (see
 * `witness`). Returns the blocks read again, or `undefined`.
 */
export const probeRecord = Effect.fnUntraced(function*(input: WalkInput, start: bigint, confirmations: number, window: number) {
  const recorded = [...input.recent.hashes].filter(([b, hash]) => b <= start && hash !== "").map(([b]) => b)
  const probe = recorded.length === 0 ? -1n : recorded.reduce((a, b) => (b > a ? b : a))
  // The recorded blocks after it, and those of the last `window` whose hash is unknown (no watched
  // wallet had a transfer there, or per-wallet polling could not vouch for a listing): a
  // reorganisation may have replaced only them. Read once, such a block is recorded with the hash
  // its listing gives (when it has any NFT transfer), so this costs requests after new blocks only.
  const above = [...input.recent.hashes].filter(([b, hash]) => (b > probe || hash === "") && b <= start && b > start - BigInt(window)).map(([b]) => b)
  const reads = yield* Effect.forEach(above, (block) => readAgain(input, block), { concurrency: 4 })
  if (reads.some((r) => r === undefined)) return undefined
  const after = reads as ReadonlyArray<ReadAgain>
  if (probe < 0n) return after
  const first = yield* readAgain(input, probe)
  if (first === undefined) return undefined
  if (!first.replaced) return [...after, first]
  // The blocks read above are not read (nor reconciled) twice.
  const walk = yield* walkDown(input, probe, new Set(above))
  if (walk === undefined) return undefined
  const top = above.reduce((a, b) => (b > a ? b : a), probe)
  const found: Walk = { read: [first, ...walk.read], ancestor: walk.ancestor }
  // With confirmations, any replaced block on record was deeper than they are. Without, only one
  // deeper than the window is an error: a shallower one is what the window is there for.
  if (confirmations > 0) yield* reportDeep(input.chain, top, found, `the ${confirmations} confirmations waited for`)
  else if (top - ancestorOf(found, probe) > BigInt(window)) yield* reportDeep(input.chain, top, found, deeperThanWindow(window))
  return [...after, first, ...walk.read]
})
