/**
 * What an EVM chain's cycle knows of its wallets before it reads anything: the wallets with a
 * checkpoint (tracked) and those without (fresh), the lowest and highest checkpoint, how many
 * stand at each block, and the wallets by address. The engine makes one per chain and keeps it
 * between cycles (see `Engine`): a cycle that finds no new block does no work per wallet, one that
 * finds a block builds no map of every wallet, and a commit that moves whole checkpoints (an
 * advance) moves them in the index in place (`advanceIndex`), making nothing per wallet.
 *
 * @internal
 */
import type { Checkpoint } from "../../StateStore.js"
import { type EvmWallet, key } from "../../WatchedWallet.js"
import { type ByAddress, byAddressOf, type Tracked, withResting } from "./recentBlocks.js"

/** A chain's wallets and checkpoints as the cycles read them (changed only by `advanceIndex` and `extendIndex`; otherwise a new one is made). */
export interface ChainIndex {
  readonly tracked: ReadonlyArray<Tracked>
  readonly fresh: ReadonlyArray<EvmWallet>
  /** The lowest checkpoint of the tracked wallets (-1 when none is). */
  start: bigint
  /** The highest checkpoint of the tracked wallets (-1 when none is). */
  highest: bigint
  /** How many tracked wallets stand at each block. */
  readonly crowds: Map<bigint, number>
  /** The tracked wallets by address (made on first use). */
  readonly byAddress: () => ByAddress
  /** The tracked and the resting wallets by address, for reconciling a replaced block (made on first use). */
  readonly everyone: () => ByAddress
  /** The maps by address made so far (see `byAddress` and `everyone`), which `extendIndex` extends. */
  readonly made: { byAddress?: Map<string, Tracked>; everyone?: Map<string, Tracked> }
}

/** Counts a tracked wallet at its checkpoint: the crowd there, the lowest and the highest. */
const countAt = (index: { start: bigint; highest: bigint; readonly crowds: Map<bigint, number> }, position: bigint) => {
  index.crowds.set(position, (index.crowds.get(position) ?? 0) + 1)
  if (index.start < 0n || position < index.start) index.start = position
  if (position > index.highest) index.highest = position
}

/** Indexes `wallets` of one chain with their `checkpoints` (by `WatchedWallet.key`) and the chain's `resting` wallets. */
export const chainIndex = (
  wallets: ReadonlyArray<EvmWallet>,
  checkpoints: ReadonlyMap<string, Checkpoint>,
  resting: ReadonlyArray<Tracked>
): ChainIndex => {
  const tracked: Array<Tracked> = []
  const made: ChainIndex["made"] = {}
  const addresses = () => (made.byAddress ??= byAddressOf(tracked))
  const index: ChainIndex = {
    tracked,
    fresh: [],
    start: -1n,
    highest: -1n,
    crowds: new Map(),
    byAddress: addresses,
    everyone: () => (made.everyone ??= withResting(addresses(), tracked, resting)),
    made
  }
  extendIndex(index, wallets, checkpoints)
  return index
}

/**
 * Adds `wallets` (none of them in the index, nor resting) with their `checkpoints` to the index,
 * in place: a chain that gains 10,000 wallets is not indexed again for its 100,000 others.
 */
export const extendIndex = (index: ChainIndex, wallets: ReadonlyArray<EvmWallet>, checkpoints: ReadonlyMap<string, Checkpoint>): void => {
  const tracked = index.tracked as Array<Tracked>
  const fresh = index.fresh as Array<EvmWallet>
  const { byAddress, everyone } = index.made
  for (const wallet of wallets) {
    const checkpoint = checkpoints.get(key(wallet))
    if (checkpoint === undefined) fresh.push(wallet)
    else {
      const t: Tracked = { wallet, position: checkpoint.position, since: checkpoint.since ?? 0n }
      tracked.push(t)
      countAt(index, checkpoint.position)
      byAddress?.set(wallet.address, t)
      if (everyone !== byAddress) everyone?.set(wallet.address, t)
    }
  }
}

/** A tracked wallet as the index holds it: its checkpoint moves in place (see `advanceIndex`). */
interface Movable {
  position: bigint
}

/**
 * Moves the index's wallets standing at `from` to `to`, as a committed advance moved them: their
 * entries in place (the maps by address hold the same entries), the counts by block, the lowest
 * and highest. Answers how many moved.
 */
export const advanceIndex = (index: ChainIndex, from: bigint, to: bigint): number => {
  const moved = index.crowds.get(from) ?? 0
  if (moved === 0 || from === to) return moved
  for (const t of index.tracked as ReadonlyArray<Movable>) if (t.position === from) t.position = to
  index.crowds.delete(from)
  index.crowds.set(to, (index.crowds.get(to) ?? 0) + moved)
  let start = -1n
  let highest = -1n
  for (const at of index.crowds.keys()) {
    if (start < 0n || at < start) start = at
    if (at > highest) highest = at
  }
  index.start = start
  index.highest = highest
  return moved
}

/** How many tracked wallets stand below `block`, counted by checkpoint, not by wallet. */
export const behind = (index: ChainIndex, block: bigint): number => {
  let count = 0
  for (const [at, n] of index.crowds) if (at < block) count += n
  return count
}
