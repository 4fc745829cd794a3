/**
 * Block scanning of one EVM chain: A1 for every block after the lowest checkpoint, up to the
 * cycle's safe head. It first checks the newest recorded block (see `deepReorg`): the cycle's
 * witness (see `witness`) keeps the record free of blocks of two chains, so that a recorded block
 * found unchanged vouches for the blocks on record below it. A block on record (read already by
 * wallets ahead, or by the check) is reconciled for every wallet whose `since` is before it; a
 * new block is printed for the wallets behind it and recorded for all, so that its record is
 * complete whichever strategy reads it next.
 *
 * @internal
 */
import { Effect, Result } from "effect"
import type { NftEvent, Retracted } from "../../NftEvents.js"
import type { Advance, BlockEvents, BlockHash, Checkpoint } from "../../StateStore.js"
import type { ChainIndex } from "./chainIndex.js"
import type { ChainInput } from "./chainInput.js"
import { emptyStep, type Step } from "./cycleStep.js"
import { keeps, probeRecord, type ReadAgain, type WalkInput } from "./deepReorg.js"
import { readBlock } from "./evmReads.js"
import {
  byChainOrder,
  covers,
  eventsOf,
  hashOf,
  type Recent,
  type Reconciled,
  reconcile,
  type Tracked
} from "./recentBlocks.js"

/** Whose events a block's record holds: a watched wallet's after its `since`, a resting one's up to its checkpoint. */
export const holds = (block: bigint) => (t: Tracked) => (t.resting === true ? covers(t, block) : t.since < block)

/** How many blocks block scanning reads at once when it is catching up. */
const readAhead = 4

/** The fewest wallets at one checkpoint (other than the lowest) that move in one advance. */
const advanceAtLeast = 16

/** The most advances of one cycle: each is a statement over the chain's checkpoints. */
const advancesAtMost = 8

/**
 * How the scan to `scanned` moves the checkpoints behind it. The wallets at the lowest checkpoint
 * (most of them, once the scan is at the head), and those of the next most crowded checkpoints,
 * move in one advance per checkpoint, unless a resting wallet stands there too (it must not move);
 * the others one by one. A wallet that joined below the others (a service placed it there) thus
 * costs one advance more, not a checkpoint per wallet. The store checks that each advance moves as
 * many as stand there (see `StateStore.Advance`).
 */
export const movesOf = (
  chain: ChainInput["chain"],
  index: ChainIndex,
  resting: ReadonlyArray<Tracked>,
  start: bigint,
  scanned: bigint,
  hash: string | null
): { readonly advances: ReadonlyArray<Advance>; readonly checkpoints: ReadonlyArray<Checkpoint> } => {
  if (scanned <= start) return { advances: [], checkpoints: [] }
  const crowds = new Map<bigint, number>()
  for (const [at, count] of index.crowds) if (at < scanned) crowds.set(at, count)
  for (const t of resting) crowds.delete(t.position)
  const together = new Set(
    [...crowds].filter(([at, count]) => at === start || count >= advanceAtLeast)
      .toSorted(([a, m], [b, n]) => a === start ? -1 : b === start ? 1 : n - m)
      .slice(0, advancesAtMost)
      .map(([at]) => at)
  )
  const checkpoints: Array<Checkpoint> = []
  // Wallet by wallet only when some stand where no advance moves them (counted by checkpoint first).
  const alone = [...index.crowds.keys()].some((at) => at < scanned && !together.has(at))
  for (const t of alone ? index.tracked : []) {
    if (t.position < scanned && !together.has(t.position)) checkpoints.push({ wallet: t.wallet, position: scanned, hash, since: t.since })
  }
  const advances = [...together].toSorted((a, b) => a < b ? -1 : 1).map((from) => ({ chain, from, to: scanned, hash, count: crowds.get(from)! }))
  return { advances, checkpoints }
}

/**
 * Scans from `start` (the lowest checkpoint) up to `limit` if given, stopping at the first block
 * that does not exist, is not fully indexed, or cannot be read (after the clients' retries: the
 * blocks before it are kept, so that a flaky service still lets the scan move on).
 */
export const blockScan = Effect.fnUntraced(function*(
  input: ChainInput,
  recent: Recent,
  start: bigint,
  limit: bigint | undefined
) {
  const { chain, client } = input
  const byAddress = input.index.byAddress()
  // Reconciled for the watched wallets and the resting ones (see `restingOf`).
  const everyone = input.index.everyone()
  const recording = input.reorgWindow > 0
  const walk: WalkInput = { client, chain, recent, byAddress: everyone }
  const retractions: Array<Retracted> = []
  const events: Array<NftEvent> = []
  const blocks: Array<BlockHash> = []
  const blockEvents: Array<BlockEvents> = []
  const apply = (r: Reconciled) => {
    retractions.push(...r.retractions)
    events.push(...r.events)
    blocks.push(r.block)
    blockEvents.push(r.blockEvents)
  }
  const applyRead = (r: ReadAgain) => {
    if (keeps(r)) apply(r.result)
  }

  if (recording) {
    const probed = yield* probeRecord(walk, start, input.confirmations, input.reorgWindow)
    if (probed === undefined) return emptyStep
    probed.forEach(applyRead)
  }

  let scanned = start
  let scannedHash: string | null = null
  const cap = start + BigInt(input.maxBlocks)
  const last = limit === undefined || limit > cap ? cap : limit
  // One block at a time while the scan may be at the head (a block past it costs a request);
  // after two blocks that exist, `readAhead` at a time: catching up is not one round trip per block.
  let next = start + 1n
  let width = 1
  scan: while (next <= last) {
    const batch = Array.from({ length: Math.min(width, Number(last - next + 1n)) }, (_, i) => next + BigInt(i))
    const reads = yield* Effect.forEach(batch, (block) => Effect.result(readBlock(client, chain, block)), { concurrency: readAhead })
    for (const [index, block] of batch.entries()) {
      const read = reads[index]!
      if (Result.isFailure(read)) {
        // What was read so far is kept (committed with the cycle); this block is read next cycle.
        if (block === start + 1n) return yield* Effect.fail(read.failure)
        yield* Effect.logWarning(`chain ${chain}: block ${block} not read this cycle (${read.failure.message}); going on from there next cycle`)
        break scan
      }
      const listing = read.success
      if (!listing.exists || !listing.complete) break scan
      const hash = hashOf(listing.transfers)
      const owners = (wallet: string) => {
        const tracked = everyone.get(wallet)
        return tracked !== undefined && holds(block)(tracked)
      }
      const all = eventsOf(chain, everyone, listing.transfers, holds(block))
      if (recent.hashes.has(block)) {
        // Read already by the wallets ahead: reconciled with what they printed from it.
        apply(reconcile(chain, block, hash, all, recent.printed.get(block) ?? [], owners))
      } else {
        events.push(...eventsOf(chain, byAddress, listing.transfers, (t) => t.position < block))
        if (recording) {
          blocks.push({ chain, number: block, hash })
          blockEvents.push({ chain, number: block, hash, events: all })
        }
      }
      scanned = block
      scannedHash = hash === "" ? null : hash
    }
    next += BigInt(batch.length)
    width = next - start > 2n ? readAhead : 1
  }
  const { advances, checkpoints } = movesOf(chain, input.index, input.resting, start, scanned, scannedHash)
  // All retractions first, then the new events in chain order.
  return { ...emptyStep, events: [...retractions, ...events.toSorted(byChainOrder)], advances, checkpoints, blocks, blockEvents } satisfies Step
})
