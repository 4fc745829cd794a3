/**
 * What one chain's or network's part of a cycle produced: its events in chain order and what to
 * commit for it. The engine concatenates the steps into one batch.
 *
 * @internal
 */
import type { Chain } from "@chainquery/schema"
import type { Advance, BlockEvents, BlockHash, Checkpoint, DefiSnapshot } from "../../StateStore.js"
import type { WatchEvent } from "../../WatchEvent.js"

export interface Step {
  readonly events: ReadonlyArray<WatchEvent>
  /** Checkpoints that move together (see `StateStore.Advance`), committed before `checkpoints`. */
  readonly advances: ReadonlyArray<Advance>
  readonly checkpoints: ReadonlyArray<Checkpoint>
  readonly blocks: ReadonlyArray<BlockHash>
  readonly blockEvents: ReadonlyArray<BlockEvents>
  readonly forgetBlocks: ReadonlyArray<{ readonly chain: Chain.ChainId; readonly fromBlock: bigint }>
  readonly defiSnapshots: ReadonlyArray<DefiSnapshot>
}

export const emptyStep: Step = { events: [], advances: [], checkpoints: [], blocks: [], blockEvents: [], forgetBlocks: [], defiSnapshots: [] }

export const minOf = (values: ReadonlyArray<bigint>): bigint => values.reduce((a, b) => (b < a ? b : a))
export const maxOf = (values: ReadonlyArray<bigint>): bigint => values.reduce((a, b) => (b > a ? b : a))
