/**
 * What the engine keeps of a chain's recent blocks, and how a block read again is reconciled
 * with it. The record of block `b` is its hash (`""` when unknown) and the events printed from it;
 * it is complete: it holds the events of every wallet that covers `b` (its `since` is before `b`
 * and its checkpoint at or after it), whichever strategy read the block and in whichever cycle.
 *
 * A block read again (the reorg window, a block a wallet ahead read already, a block a wallet
 * noticed as changed, a block below the window when a reorganisation was deeper) is derived anew
 * for every wallet that covers it and compared with its record by event id: what was printed and
 * is gone is retracted, what is new is printed, the rest stays as it was (a trade stays with its
 * transfer). The record is replaced by the new one. So a block replaced by a reorganisation is
 * corrected for all its wallets at once, not for the one that happened to notice it.
 *
 * @internal
 */
import type { Chain, NftTransfer } from "@chainquery/schema"
import { Effect } from "effect"
import { fromNftTransfer, type NftEvent, retract, type Retracted } from "../../NftEvents.js"
import type { BlockEvents, BlockHash, Checkpoint, StateStore } from "../../StateStore.js"
import type { TradeEvent } from "../../TradeEvents.js"
import { type EvmWallet, key } from "../../WatchedWallet.js"

/** An event printed from a block: an NFT transfer's side, or a trade found through it. */
export type Printed = NftEvent | TradeEvent

/** A watched wallet with its committed checkpoint (`position`) and where its reports start (`since`). */
export interface Tracked {
  readonly wallet: EvmWallet
  readonly position: bigint
  readonly since: bigint
  /** A wallet of the state file this engine does not watch (see `restingOf`). */
  readonly resting?: true
}

/**
 * A chain's tracked wallets by lower-case address: one each (a chain's wallets are its addresses),
 * held as the wallet itself rather than a list of one, which a hundred thousand wallets feel.
 */
export type ByAddress = ReadonlyMap<string, Tracked>

/** Whether a block is one of the wallet's: after its `since`, at or before its checkpoint. */
export const covers = (tracked: Tracked, block: bigint): boolean => tracked.since < block && block <= tracked.position

/**
 * The wallets of the state file on `chain` that this engine does not watch: a replaced block they
 * had passed is put right for them too (their retractions and new events are printed), so that
 * its record stays true for every wallet and none of them loses an event when watched again.
 * Their checkpoints do not move while the engine runs: the engine finds them once per chain.
 */
export const restingOf = (
  chain: Chain.ChainId,
  wallets: ReadonlyArray<EvmWallet>,
  checkpoints: ReadonlyMap<string, Checkpoint>
): Array<Tracked> => {
  const watched = new Set(wallets.map(key))
  return [...checkpoints.values()].flatMap((checkpoint) =>
    checkpoint.wallet.family === "evm" && checkpoint.wallet.chain === chain && !watched.has(key(checkpoint.wallet))
      ? [{ wallet: checkpoint.wallet, position: checkpoint.position, since: checkpoint.since ?? 0n, resting: true as const }]
      : []
  )
}

/** What is on record of a chain's recent blocks. */
export interface Recent {
  readonly hashes: ReadonlyMap<bigint, string>
  readonly printed: ReadonlyMap<bigint, ReadonlyArray<Printed>>
}

/** No record: reorganisations are not followed (`reorgWindow` 0). */
export const nothingRecorded: Recent = { hashes: new Map(), printed: new Map() }

/** Reads the record of a chain's recent blocks from the store. */
export const loadRecent = (store: StateStore["Service"], chain: Chain.ChainId) =>
  Effect.map(
    Effect.all([store.blockHashes(chain), store.blockEvents(chain)]),
    ([hashes, events]): Recent => ({
      hashes: new Map(hashes.map((b) => [b.number, b.hash] as const)),
      printed: new Map(events.map((b) => [b.number, b.events] as const))
    })
  )

/** The hash of a block from its transfers (`""` when it has none). */
export const hashOf = (transfers: ReadonlyArray<NftTransfer.NftTransfer>): string => transfers[0]?.block_hash.toLowerCase() ?? ""

/** The events of a block's transfers for the wallets `wanted` picks, in the block's order. */
export const eventsOf = (
  chain: Chain.ChainId,
  byAddress: ByAddress,
  transfers: ReadonlyArray<NftTransfer.NftTransfer>,
  wanted: (tracked: Tracked) => boolean
): Array<NftEvent> => {
  const events: Array<NftEvent> = []
  const take = (tracked: Tracked | undefined, transfer: NftTransfer.NftTransfer) => {
    if (tracked !== undefined && wanted(tracked)) events.push(...fromNftTransfer(chain, tracked.wallet.address, transfer))
  }
  for (const transfer of transfers) {
    const from = transfer.from_address.toLowerCase()
    const to = transfer.to_address.toLowerCase()
    take(byAddress.get(from), transfer)
    if (to !== from) take(byAddress.get(to), transfer)
  }
  return events
}

/** The tracked wallets of one chain by lower-case address (see {@link ByAddress}). */
export const byAddressOf = (tracked: ReadonlyArray<Tracked>): Map<string, Tracked> => {
  const byAddress = new Map<string, Tracked>()
  for (const t of tracked) byAddress.set(t.wallet.address, t)
  return byAddress
}

/**
 * The watched wallets and the resting ones by address, for reconciling a replaced block: the
 * watched wallets' own map when none rests (the usual case, no second map of every wallet).
 */
export const withResting = (
  byAddress: Map<string, Tracked>,
  tracked: ReadonlyArray<Tracked>,
  resting: ReadonlyArray<Tracked>
): Map<string, Tracked> => (resting.length === 0 ? byAddress : byAddressOf([...tracked, ...resting]))

/** A block reconciled with its record: what to print, and the block's new record. */
export interface Reconciled {
  readonly retractions: ReadonlyArray<Retracted>
  readonly events: ReadonlyArray<NftEvent>
  readonly block: BlockHash
  readonly blockEvents: BlockEvents
  /** Whether anything printed from the block changed (retracted or added). */
  readonly changed: boolean
}

const isNft = (event: Printed): event is NftEvent => event.kind === "nft.received" || event.kind === "nft.sent"

/**
 * Compares the events of a block `now` (for the wallets `derived` says were derived) with those
 * printed from it: the printed events of those wallets that are gone are retracted (a trade with
 * its transfer's transaction), the new ones are printed; the events of other wallets stay.
 */
export const reconcile = (
  chain: Chain.ChainId,
  number: bigint,
  hash: string,
  now: ReadonlyArray<NftEvent>,
  printed: ReadonlyArray<Printed>,
  derived: (wallet: string) => boolean
): Reconciled => {
  const nowById = new Map(now.map((event) => [event.id, event] as const))
  const standing = new Set(now.map((event) => `${event.wallet}:${event.transactionHash}`))
  const stays = (event: Printed): boolean =>
    !derived(event.wallet) || (isNft(event) ? nowById.has(event.id) : standing.has(`${event.wallet}:${event.transactionHash}`))
  // What stays is recorded as it is now (the same ids, maybe from a block with a new hash), so
  // that a later retraction names the block it really came from.
  const current = (event: Printed): Printed =>
    !derived(event.wallet) ? event : isNft(event) ? nowById.get(event.id) ?? event : hash === "" ? event : { ...event, blockHash: hash }
  const kept = printed.filter(stays).map(current)
  const keptIds = new Set(kept.map((event) => event.id))
  const retractions = printed.filter((event) => !stays(event)).map(retract)
  const deduped = [...new Map(now.filter((event) => !keptIds.has(event.id)).map((event) => [event.id, event] as const)).values()]
  return {
    retractions,
    events: deduped,
    block: { chain, number, hash },
    blockEvents: { chain, number, hash, events: [...kept, ...deduped] },
    changed: retractions.length > 0 || deduped.length > 0
  }
}

/** Chain order: block, then log index (stable for the items of one batch log). */
export const byChainOrder = (a: NftEvent, b: NftEvent): number =>
  a.blockNumber === b.blockNumber ? a.logIndex - b.logIndex : a.blockNumber < b.blockNumber ? -1 : 1
