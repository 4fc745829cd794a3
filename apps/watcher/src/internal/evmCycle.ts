/**
 * One EVM chain's part of a cycle: baseline, block scanning (with the reorg window) or per-wallet
 * polling, and the `auto` choice between the two.
 *
 * @internal
 */
import type { EvmClient } from "@chainquery/evm-client"
import type { Chain, NftTransfer } from "@chainquery/schema"
import { Effect, Result } from "effect"
import { fromNftTransfer, type NftEvent, retract } from "../NftEvents.js"
import type { BlockEvents, BlockHash, Checkpoint, StateStore } from "../StateStore.js"
import type { WatchEvent } from "../WatchEvent.js"
import { type EvmWallet, key } from "../WatchedWallet.js"
import { fromClient as failed } from "../EngineError.js"
import { emptyStep, maxOf, minOf, type Step } from "./cycleStep.js"
import { readBlock, safeHead } from "./evmReads.js"
import { perWallet, type Tracked } from "./perWallet.js"

export type Strategy = "block-scan" | "per-wallet" | "auto"

export interface ChainInput {
  readonly client: EvmClient.Service
  readonly store: StateStore["Service"]
  readonly chain: Chain.ChainId
  readonly wallets: ReadonlyArray<EvmWallet>
  readonly checkpoints: ReadonlyMap<string, Checkpoint>
  readonly strategy: Strategy
  readonly confirmations: number
  readonly reorgWindow: number
  readonly maxBlocks: number
}


/** How many blocks block scanning reads at once when it is catching up. */
const readAhead = 4

/** How many wallets' latest transfers are read to find a block that exists, at a baseline. */
const baselineSample = 5

const hashOf = (transfers: ReadonlyArray<NftTransfer.NftTransfer>): string => transfers[0]?.block_hash.toLowerCase() ?? ""

/** The events of a block's transfers for the wallets that had not read that block yet. */
const eventsOf = (
  chain: Chain.ChainId,
  byAddress: ReadonlyMap<string, ReadonlyArray<Tracked>>,
  block: bigint,
  transfers: ReadonlyArray<NftTransfer.NftTransfer>,
  covers: (tracked: Tracked, block: bigint) => boolean
): Array<NftEvent> => {
  const events: Array<NftEvent> = []
  for (const transfer of transfers) {
    const from = transfer.from_address.toLowerCase()
    const to = transfer.to_address.toLowerCase()
    const candidates = from === to ? byAddress.get(from) ?? [] : [...byAddress.get(from) ?? [], ...byAddress.get(to) ?? []]
    for (const tracked of candidates) {
      if (covers(tracked, block)) events.push(...fromNftTransfer(chain, tracked.wallet.address, transfer))
    }
  }
  return events
}

const baselineOf = (wallets: ReadonlyArray<EvmWallet>, position: bigint): Array<Checkpoint> =>
  wallets.map((wallet) => ({ wallet, position, hash: null }))

export const chainCycle = Effect.fnUntraced(function*(input: ChainInput) {
  const { chain, client, confirmations } = input
  const tracked: Array<Tracked> = []
  const fresh: Array<EvmWallet> = []
  for (const wallet of input.wallets) {
    const checkpoint = input.checkpoints.get(key(wallet))
    if (checkpoint === undefined) fresh.push(wallet)
    else tracked.push({ wallet, position: checkpoint.position })
  }

  if (tracked.length === 0) {
    // First start: a block that exists (the newest transfer of a few wallets), then the safe head.
    const latest = yield* Effect.forEach(fresh.slice(0, baselineSample), (wallet) =>
      Effect.map(readWalletLatest(client, chain, wallet.address), (block) => block ?? 0n))
    const safe = yield* safeHead(client, chain, maxOf([0n, ...latest]), confirmations, { fromIndexed: true })
    return { ...emptyStep, checkpoints: baselineOf(fresh, safe) } satisfies Step
  }

  const start = minOf(tracked.map((t) => t.position))
  // Block scanning without confirmations needs no head: it stops at the first unreadable block.
  if (input.strategy === "block-scan" && confirmations <= 0) {
    return yield* withFresh(input, yield* blockScan(input, tracked, start, undefined), start, fresh)
  }
  const head = yield* safeHead(client, chain, start, confirmations)
  // At most `maxBlocks` past the lowest checkpoint per cycle (a long stop is caught up over several
  // cycles, each committed), but never short of a wallet's own checkpoint.
  const cap = maxOf([start + BigInt(input.maxBlocks), ...tracked.map((t) => t.position)])
  const safe = head < cap ? head : cap
  // Per-wallet polling reads every wallet each cycle when it watches reorgs, only those behind otherwise.
  const walletCost = confirmations <= 0 && input.reorgWindow > 0 ? tracked.length : tracked.filter((t) => t.position < safe).length
  const scanCost = Number(safe - start) + (confirmations > 0 ? 0 : input.reorgWindow)
  const strategy = input.strategy === "auto" ? (scanCost <= walletCost ? "block-scan" : "per-wallet") : input.strategy
  const step = strategy === "per-wallet" ? yield* perWallet(input, tracked, safe) : yield* blockScan(input, tracked, start, safe)
  return yield* withFresh(input, step, start, fresh)
})

/**
 * Adds the baseline of wallets first seen this cycle: the block the others reached. When reorgs
 * are watched, the recent blocks recorded as covered with no watched transfer (`""`) are no
 * longer true for the new wallets: they are dropped (the other records of those blocks are
 * written again), so that the new wallets' transfers in them are not taken for replacements.
 */
const withFresh = Effect.fnUntraced(function*(input: ChainInput, step: Step, start: bigint, fresh: ReadonlyArray<EvmWallet>) {
  const reached = maxOf([start, ...step.checkpoints.map((c) => c.position)])
  const joined: Step = { ...step, checkpoints: [...step.checkpoints, ...baselineOf(fresh, reached)] }
  if (fresh.length === 0 || input.confirmations > 0 || input.reorgWindow <= 0) return joined
  const { chain, store } = input
  const from = reached - BigInt(input.reorgWindow) + 1n
  const written = new Set(step.blocks.map((b) => b.number))
  const writtenEvents = new Set(step.blockEvents.map((b) => b.number))
  const keep = (yield* store.blockHashes(chain)).filter((b) => b.number >= from && b.hash !== "" && !written.has(b.number))
  const keepEvents = (yield* store.blockEvents(chain)).filter((b) => b.number >= from && !writtenEvents.has(b.number))
  return {
    ...joined,
    forgetBlocks: [...step.forgetBlocks, { chain, fromBlock: from }],
    blocks: [...keep, ...step.blocks.filter((b) => b.number < from || b.hash !== "")],
    blockEvents: [...keepEvents, ...step.blockEvents]
  } satisfies Step
})

/** The block of a wallet's newest transfer, if it has any. */
const readWalletLatest = (client: EvmClient.Service, chain: Chain.ChainId, address: string) =>
  client.getWalletNFTTransfers({ address, chain, limit: 1, order: "DESC" }).pipe(
    Effect.map((page) => page.result[0]?.block_number),
    Effect.mapError(failed("getWalletNFTTransfers"))
  )

/**
 * Block scanning: re-reads the reorg window (without confirmations), then A1 for every block
 * after the lowest checkpoint, up to `limit` if given, stopping at the first block that does not
 * exist, is not fully indexed, or cannot be read (after the clients' retries: the blocks before
 * it are kept, so that a flaky service still lets the scan move on).
 */
const blockScan = Effect.fnUntraced(function*(
  input: ChainInput,
  tracked: ReadonlyArray<Tracked>,
  start: bigint,
  limit: bigint | undefined
) {
  const { chain, client } = input
  const byAddress = new Map<string, Array<Tracked>>()
  for (const t of tracked) byAddress.set(t.wallet.address, [...byAddress.get(t.wallet.address) ?? [], t])
  const watchReorgs = input.confirmations <= 0 && input.reorgWindow > 0
  const events: Array<WatchEvent> = []
  const blocks: Array<BlockHash> = []
  const blockEvents: Array<BlockEvents> = []

  // What was recorded of the recent blocks: their hashes and the events printed from them.
  const recorded = watchReorgs ? yield* input.store.blockHashes(chain) : []
  const emitted = new Map(watchReorgs ? (yield* input.store.blockEvents(chain)).map((b) => [b.number, b.events] as const) : [])

  if (watchReorgs) {
    // All retractions first, then the replacement events in chain order.
    const retractions: Array<WatchEvent> = []
    const replacements: Array<WatchEvent> = []
    const recent = recorded.filter((b) => b.number > start - BigInt(input.reorgWindow) && b.number <= start)
    const listings = yield* Effect.forEach(recent, (known) => readBlock(client, chain, known.number), { concurrency: readAhead })
    for (const [index, known] of recent.entries()) {
      const listing = listings[index]!
      // A replaced block not indexed yet: read it all again next cycle, commit nothing new.
      if (!listing.exists || !listing.complete) return emptyStep
      const hash = hashOf(listing.transfers)
      if (hash === known.hash) continue
      const now = eventsOf(chain, byAddress, known.number, listing.transfers, (t, block) => t.position >= block)
      retractions.push(...(emitted.get(known.number) ?? []).map(retract))
      replacements.push(...now)
      blocks.push({ chain, number: known.number, hash })
      blockEvents.push({ chain, number: known.number, hash, events: now })
    }
    events.push(...retractions, ...replacements)
  }

  // The blocks after `start` that wallets with a later checkpoint read already (recorded).
  const ahead = new Map(recorded.filter((b) => b.number > start).map((b) => [b.number, b.hash] as const))
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
      const known = ahead.get(block)
      if (known !== undefined && known !== hash) {
        // Replaced since the wallets ahead read it: what was printed from it is retracted, then
        // every wallet's events of the new block.
        const stale = emitted.get(block) ?? []
        const now = eventsOf(chain, byAddress, block, listing.transfers, () => true)
        events.push(...stale.map(retract), ...now)
        blocks.push({ chain, number: block, hash })
        if (now.length > 0 || stale.length > 0) blockEvents.push({ chain, number: block, hash, events: now })
      } else {
        const now = eventsOf(chain, byAddress, block, listing.transfers, (t, b) => t.position < b)
        events.push(...now)
        if (watchReorgs) {
          // The wallets ahead printed from this block already: their events stay on record.
          const before = emitted.get(block) ?? []
          const printed = new Set(before.map((event) => event.id))
          const all = [...before, ...now.filter((event) => !printed.has(event.id))]
          blocks.push({ chain, number: block, hash })
          if (all.length > 0) blockEvents.push({ chain, number: block, hash, events: all })
        }
      }
      scanned = block
      scannedHash = hash === "" ? null : hash
    }
    next += BigInt(batch.length)
    width = next - start > 2n ? readAhead : 1
  }
  const checkpoints = tracked
    .filter((t) => t.position < scanned)
    .map((t): Checkpoint => ({ wallet: t.wallet, position: scanned, hash: scannedHash }))
  return { ...emptyStep, events, checkpoints, blocks, blockEvents } satisfies Step
})
