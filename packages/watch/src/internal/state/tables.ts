/**
 * What a state store implementation provides: its reads and its one-transaction commit, as plain
 * synchronous functions that throw on failure (`StateStore` turns that into typed errors). SQLite
 * (`stateTables`) and memory (`memoryTables`) implement it with the same observable behaviour.
 *
 * @internal
 */
import type { Chain } from "@chainquery/schema"
import type { BackfillProgress, Batch, BlockEvents, BlockHash, Checkpoint, DefiSnapshot, LastBatch } from "../../StateStore.js"
import type { EvmWallet, WatchedWallet } from "../../WatchedWallet.js"
import type { WatchEvent } from "../../WatchEvent.js"

/** The operations of a state store over its tables. */
export interface StateTables {
  /** Every checkpoint, ordered by scope (chain id or `aptos:<network>`), then wallet address. */
  readonly checkpoints: () => ReadonlyArray<Checkpoint>
  /** The checkpoint of one wallet, `undefined` before its first commit. */
  readonly checkpoint: (wallet: WatchedWallet) => Checkpoint | undefined
  /** The kept block hashes of a chain, by block number. */
  readonly blockHashes: (chain: Chain.ChainId) => ReadonlyArray<BlockHash>
  /** The kept events per block of a chain, by block number. */
  readonly blockEvents: (chain: Chain.ChainId) => ReadonlyArray<BlockEvents>
  /** The last DeFi snapshot of a wallet, `undefined` before one is committed. */
  readonly defiSnapshot: (wallet: EvmWallet) => DefiSnapshot | undefined
  /** The pending events of the last commit that had some, in their order. */
  readonly pendingEvents: () => ReadonlyArray<WatchEvent>
  /** Every unfinished backfill's progress, ordered by chain, then wallet address. */
  readonly backfills: () => ReadonlyArray<BackfillProgress>
  /** Forgets the pending events. */
  readonly clearPending: () => void
  /** Forgets the pending events if the last committed batch is still `sequence` (in one step). */
  readonly settle: (sequence: number) => void
  /** The last committed batch, `undefined` before the first commit. */
  readonly lastBatch: () => LastBatch | undefined
  /** Writes `batch` committed at `now` (epoch millis), all of it or (when it throws) none. */
  readonly commit: (batch: Batch, now: number) => LastBatch
}
