/**
 * Per-wallet polling of one EVM chain: one A2 range per wallet, up to the safe head. Without
 * confirmations the range starts `reorgWindow` blocks before the wallet's checkpoint, so the same
 * request also re-reads the recent blocks: a recent block in which the wallet's transfers now
 * carry another hash (or vanished, or appeared in a block already read) was replaced, and its
 * events are retracted and replaced as in block scanning. The blocks read are recorded (hash, or
 * `""` when the watched wallets had no transfer in them) so that a later cycle knows which blocks
 * were covered.
 *
 * @internal
 */
import type { EvmClient } from "@chainquery/evm-client"
import type { Chain, NftTransfer } from "@chainquery/schema"
import { Effect } from "effect"
import { fromNftTransfer, type NftEvent, retract } from "../NftEvents.js"
import type { BlockEvents, BlockHash, Checkpoint, StateStore } from "../StateStore.js"
import type { WatchEvent } from "../WatchEvent.js"
import type { EvmWallet } from "../WatchedWallet.js"
import { emptyStep, type Step } from "./cycleStep.js"
import { readWallet } from "./evmReads.js"

export interface PerWalletInput {
  readonly client: EvmClient.Service
  readonly store: StateStore["Service"]
  readonly chain: Chain.ChainId
  readonly confirmations: number
  readonly reorgWindow: number
}

export interface Tracked {
  readonly wallet: EvmWallet
  readonly position: bigint
}

const hashOf = (transfers: ReadonlyArray<NftTransfer.NftTransfer>): string => transfers[0]?.block_hash.toLowerCase() ?? ""

/** Chain order: block, then log index (stable for the items of one batch log). */
export const byChainOrder = (a: NftEvent, b: NftEvent): number =>
  a.blockNumber === b.blockNumber ? a.logIndex - b.logIndex : a.blockNumber < b.blockNumber ? -1 : 1

const byBlock = (transfers: ReadonlyArray<NftTransfer.NftTransfer>): Map<bigint, Array<NftTransfer.NftTransfer>> => {
  const blocks = new Map<bigint, Array<NftTransfer.NftTransfer>>()
  for (const transfer of transfers) {
    const list = blocks.get(transfer.block_number)
    if (list === undefined) blocks.set(transfer.block_number, [transfer])
    else list.push(transfer)
  }
  return blocks
}

/** Polls every tracked wallet up to `safe`; see the module comment. */
export const perWallet = Effect.fnUntraced(function*(input: PerWalletInput, tracked: ReadonlyArray<Tracked>, safe: bigint) {
  const { chain } = input
  const window = input.confirmations <= 0 ? BigInt(input.reorgWindow) : 0n
  const watch = window > 0n
  // What was recorded before this cycle (compared against), and what this cycle records.
  const recorded: ReadonlyMap<bigint, string> = new Map(watch ? (yield* input.store.blockHashes(chain)).map((b) => [b.number, b.hash] as const) : [])
  const records = new Map(recorded)
  const stored = new Map(watch ? (yield* input.store.blockEvents(chain)).map((b) => [b.number, b.events] as const) : [])
  const due = tracked
    .map((t) => ({ t, from: watch ? (t.position - window + 1n > 1n ? t.position - window + 1n : 1n) : t.position + 1n }))
    .filter(({ from, t }) => t.position < safe || (watch && from <= safe))
  const reads = yield* Effect.forEach(
    due,
    ({ from, t }) => Effect.map(readWallet(input.client, chain, t.wallet.address, from, safe), (listing) => ({ t, listing })),
    { concurrency: 4 }
  )
  const retractions: Array<WatchEvent> = []
  const events: Array<NftEvent> = []
  const checkpoints: Array<Checkpoint> = []
  const touchedRecords = new Set<bigint>()
  const touchedEvents = new Set<bigint>()
  for (const { listing, t } of reads) {
    if (!listing.exists || !listing.complete) continue
    const address = t.wallet.address
    const blocks = byBlock(listing.transfers)
    if (watch) {
      // The recent blocks this wallet had read already: compare with what was emitted from them.
      // Only blocks read this cycle: a wallet past `safe` (the head went back) compares none beyond it.
      const compareTo = t.position < safe ? t.position : safe
      for (let block = t.position - window + 1n; block <= compareTo; block++) {
        if (!recorded.has(block)) continue
        const now = blocks.get(block) ?? []
        const hash = hashOf(now)
        const before = (stored.get(block) ?? []).filter((event) => event.wallet === address)
        const changed = before.length > 0
          ? now.length === 0 || before[0]!.blockHash !== hash
          : now.length > 0 && recorded.get(block) !== hash
        if (!changed) continue
        const replacement = now.flatMap((transfer) => fromNftTransfer(chain, address, transfer))
        retractions.push(...before.map(retract))
        events.push(...replacement)
        stored.set(block, [...(stored.get(block) ?? []).filter((event) => event.wallet !== address), ...replacement])
        touchedEvents.add(block)
        if (hash !== "") {
          records.set(block, hash)
          touchedRecords.add(block)
        }
      }
    }
    for (const [block, transfers] of blocks) {
      if (block <= t.position) continue
      const fresh = transfers.flatMap((transfer) => fromNftTransfer(chain, address, transfer))
      events.push(...fresh)
      if (watch && block > safe - window) {
        stored.set(block, [...(stored.get(block) ?? []), ...fresh])
        touchedEvents.add(block)
        records.set(block, hashOf(transfers))
        touchedRecords.add(block)
      }
    }
    if (t.position < safe) checkpoints.push({ wallet: t.wallet, position: safe, hash: null })
  }
  if (watch && reads.length > 0) {
    // The recent blocks that every wallet read for the first time, in which none had a transfer:
    // covered, hash unknown. (Blocks before a wallet's checkpoint were never read by it.)
    const newest = reads.reduce((a, { t }) => (t.position > a ? t.position : a), 0n)
    for (let block = (safe - window + 1n > newest + 1n ? safe - window + 1n : newest + 1n); block <= safe; block++) {
      if (block > 0n && !records.has(block)) {
        records.set(block, "")
        touchedRecords.add(block)
      }
    }
  }
  const blocks: Array<BlockHash> = [...touchedRecords].toSorted((a, b) => (a < b ? -1 : 1)).map((number) => ({
    chain,
    number,
    hash: records.get(number) ?? ""
  }))
  const blockEvents: Array<BlockEvents> = [...touchedEvents].toSorted((a, b) => (a < b ? -1 : 1)).map((number) => {
    const list = stored.get(number) ?? []
    return { chain, number, hash: list[0]?.blockHash ?? records.get(number) ?? "", events: list }
  })
  const step: Step = { ...emptyStep, events: [...retractions, ...events.toSorted(byChainOrder)], checkpoints, blocks, blockEvents }
  return step
})
