/**
 * Per-wallet polling of one EVM chain: one A2 range per wallet, up to the safe head. Without
 * confirmations the range starts `reorgWindow` blocks before the wallet's checkpoint, so the same
 * request also shows the recent blocks again: a recorded block in which the wallet's transfers are
 * not what was printed for it (other ids, or another block hash) was replaced. Such a block is then
 * read again with A1 and reconciled for **every** wallet that covers it (see `recentBlocks`), not
 * only for the wallet that noticed: wallets whose listings were read before the reorganisation, or
 * that notice it in a later cycle, find the block already corrected. With confirmations the newest
 * recorded block is checked instead (see `deepReorg`). The recent blocks read are recorded (hash,
 * or `""` when the watched wallets had no transfer in them) with their events.
 *
 * @internal
 */
import type { NftTransfer } from "@chainquery/schema"
import { Effect } from "effect"
import { fromNftTransfer, type NftEvent, type Retracted } from "../../NftEvents.js"
import type { BlockEvents, BlockHash, Checkpoint } from "../../StateStore.js"
import type { ChainInput } from "./chainInput.js"
import { emptyStep, type Step } from "./cycleStep.js"
import { below, keeps, probeRecord, type ReadAgain, readAgain, type WalkInput } from "./deepReorg.js"
import { readWallet } from "./evmReads.js"
import { byChainOrder, hashOf, type Printed, type Recent, type Tracked } from "./recentBlocks.js"

const byBlock = (transfers: ReadonlyArray<NftTransfer.NftTransfer>): Map<bigint, Array<NftTransfer.NftTransfer>> => {
  const blocks = new Map<bigint, Array<NftTransfer.NftTransfer>>()
  for (const transfer of transfers) {
    const list = blocks.get(transfer.block_number)
    if (list === undefined) blocks.set(transfer.block_number, [transfer])
    else list.push(transfer)
  }
  return blocks
}

/** Whether a wallet's transfers in a block differ from what was printed for it from that block. */
const differs = (now: ReadonlyArray<NftEvent>, before: ReadonlyArray<Printed>, hash: string): boolean => {
  const printed = before.filter((event) => event.kind === "nft.received" || event.kind === "nft.sent")
  if (printed.length !== now.length) return true
  const ids = new Set(printed.map((event) => event.id))
  return now.some((event) => !ids.has(event.id)) || (now.length > 0 && printed.some((event) => event.blockHash !== hash))
}

/** Polls every tracked wallet up to `safe`; see the module comment. */
export const perWallet = Effect.fnUntraced(function*(input: ChainInput, tracked: ReadonlyArray<Tracked>, recent: Recent, safe: bigint) {
  const { chain, client } = input
  const window = BigInt(input.reorgWindow)
  const recording = window > 0n
  const rereading = recording && input.confirmations <= 0
  // Replaced blocks are reconciled for the watched wallets and the resting ones (see `restingOf`).
  const walk: WalkInput = { client, chain, recent, byAddress: input.index.everyone() }
  const due = tracked
    .map((t) => ({ t, from: rereading ? (t.position - window + 1n > 1n ? t.position - window + 1n : 1n) : t.position + 1n }))
    .filter(({ from, t }) => t.position < safe || (rereading && from <= safe))
  const reads = yield* Effect.forEach(
    due,
    ({ from, t }) => Effect.map(readWallet(client, chain, t.wallet.address, from, safe), (listing) => ({ t, listing })),
    { concurrency: 4 }
  )
  const complete = reads.filter(({ listing }) => listing.exists && listing.complete).map(({ listing, t }) => ({ t, blocks: byBlock(listing.transfers) }))

  // 1. The recorded blocks some wallet now sees otherwise than on record.
  const noticed = new Set<bigint>()
  if (rereading) {
    for (const { blocks, t } of complete) {
      // Only blocks read this cycle: a wallet past `safe` (the head went back) compares none beyond it.
      const top = t.position < safe ? t.position : safe
      for (let block = t.position - window + 1n; block <= top; block++) {
        if (block <= t.since || !recent.hashes.has(block)) continue
        const transfers = blocks.get(block) ?? []
        const now = transfers.flatMap((transfer) => fromNftTransfer(chain, t.wallet.address, transfer))
        const before = (recent.printed.get(block) ?? []).filter((event) => event.wallet === t.wallet.address)
        if (differs(now, before, hashOf(transfers))) noticed.add(block)
      }
    }
  }

  // 1b. The new blocks whose listings disagree (two wallets' listings, or one and the record, give
  //     two hashes): the reads straddled a reorganisation. Their events are taken from A1 instead.
  const hashesSeen = new Map<bigint, Set<string>>()
  for (const { blocks, t } of complete) {
    for (const [block, transfers] of blocks) {
      if (block > t.position) hashesSeen.set(block, (hashesSeen.get(block) ?? new Set()).add(hashOf(transfers)))
    }
  }
  const mixed = new Set<bigint>()
  for (const [block, seen] of hashesSeen) {
    const known = recent.hashes.get(block)
    if (seen.size > 1 || (known !== undefined && known !== "" && !seen.has(known))) mixed.add(block)
  }

  // 2. Each of them read again with A1 and reconciled for every wallet that covers it (and, for a
  //    new block, every wallet reading it now); below the lowest noticed, the record is walked down
  //    to the common ancestor. With confirmations, a probe.
  const again: Array<ReadAgain> = []
  const readAgainBlocks = new Set([...noticed, ...mixed])
  for (const block of [...readAgainBlocks].toSorted((a, b) => (a < b ? -1 : 1))) {
    const readers = new Set(complete.filter(({ t }) => t.position < block).map(({ t }) => t))
    const read = yield* readAgain(walk, block, readers)
    if (read === undefined) return emptyStep
    // A new block is recorded whatever it shows: its readers' events come from this read.
    again.push(mixed.has(block) ? { ...read, replaced: true } : read)
  }
  if (noticed.size > 0) {
    const blocks = [...noticed].toSorted((a, b) => (a < b ? -1 : 1))
    const deeper = yield* below(walk, blocks[0]!, readAgainBlocks, blocks.at(-1)!, input.reorgWindow)
    if (deeper === undefined) return emptyStep
    again.push(...deeper)
  } else if (recording && !rereading && mixed.size === 0) {
    // Up to the newest checkpoint: the blocks the wallets ahead read are not listed again.
    const newest = tracked.reduce((a, t) => (t.position > a ? t.position : a), 0n)
    const probed = yield* probeRecord(walk, newest < safe ? newest : safe, input.confirmations, input.reorgWindow)
    if (probed === undefined) return emptyStep
    again.push(...probed)
  }
  const retractions: Array<Retracted> = []
  const events: Array<NftEvent> = []
  const hashes = new Map(recent.hashes)
  const printed = new Map(recent.printed)
  const touched = new Set<bigint>()
  for (const read of again) {
    if (!keeps(read)) continue
    const { result } = read
    retractions.push(...result.retractions)
    events.push(...result.events)
    hashes.set(result.block.number, result.block.hash)
    printed.set(result.block.number, result.blockEvents.events)
    touched.add(result.block.number)
  }

  // 3. The blocks after each wallet's checkpoint: its new events, recorded when recent.
  const checkpoints: Array<Checkpoint> = []
  for (const { blocks, t } of complete) {
    for (const [block, transfers] of blocks) {
      // A block read again with A1 above gave this wallet's events already.
      if (block <= t.position || readAgainBlocks.has(block)) continue
      const fresh = transfers.flatMap((transfer) => fromNftTransfer(chain, t.wallet.address, transfer))
      events.push(...fresh)
      // Recorded when recent, and always added to a block already on record (kept complete).
      if (recording && (block > safe - window || hashes.has(block))) {
        const known = printed.get(block) ?? []
        const ids = new Set(known.map((event) => event.id))
        printed.set(block, [...known, ...fresh.filter((event) => !ids.has(event.id))])
        // With confirmations (no window listed again), the block's hash stays unknown until the
        // next cycle's check reads it whole (A1) once, and records every wallet's events from it.
        if (!rereading) hashes.set(block, hashes.get(block) ?? "")
        else if ((hashes.get(block) ?? "") === "") hashes.set(block, hashOf(transfers))
        touched.add(block)
      }
    }
    if (t.position < safe) checkpoints.push({ wallet: t.wallet, position: safe, hash: null, since: t.since })
  }
  if (recording && complete.length > 0) {
    // The recent blocks read for the first time by some wallet, without a record yet: none of the
    // wallets that read them had a transfer there (hash unknown, `""`). A wallet ahead that read
    // such a block before did so within its window, so it is on record already.
    const lowest = complete.reduce((a, { t }) => (t.position < a ? t.position : a), safe)
    for (let block = (safe - window + 1n > lowest + 1n ? safe - window + 1n : lowest + 1n); block <= safe; block++) {
      if (block > 0n && !hashes.has(block)) {
        hashes.set(block, "")
        touched.add(block)
      }
    }
  }
  const order = [...touched].toSorted((a, b) => (a < b ? -1 : 1))
  const blocks: Array<BlockHash> = order.map((number) => ({ chain, number, hash: hashes.get(number) ?? "" }))
  const blockEvents: Array<BlockEvents> = order.map((number) => ({ chain, number, hash: hashes.get(number) ?? "", events: printed.get(number) ?? [] }))
  return { ...emptyStep, events: [...retractions, ...events.toSorted(byChainOrder)], checkpoints, blocks, blockEvents } satisfies Step
})
