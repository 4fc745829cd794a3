/**
 * The watcher's crash-safe state: per watched wallet and chain (or Aptos network) the
 * checkpoint (the last block or ledger version read completely, and that block's hash), the
 * recent block hashes of each chain (to notice a reorganisation; the last `keepBlocks` are
 * kept), the NFT events emitted from each recent block (to retract them when that block is
 * orphaned; as many blocks are kept), the last DeFi snapshot per wallet and chain, and the ids
 * of the events of the last committed batch (after a restart, only those may be printed again),
 * and how far an unfinished backfill got (see {@link BackfillProgress}). {@link StateStore.commit}
 * writes all of a batch in ONE transaction: all of it is stored, or none.
 *
 * Why `node:sqlite`: it is SQLite built into Node (>= 22.5), so there is no native module to
 * compile or download, nothing to install and nothing that breaks on a Node upgrade; SQLite is the
 * most widely deployed and tested embedded database, and one file is easy to back up or inspect
 * with the `sqlite3` shell. With the WAL journal and `synchronous = FULL`, `COMMIT` returns only
 * after the transaction is fsynced to the write-ahead log, so a committed batch survives `kill -9`
 * (and a power cut) at any later moment, and a batch interrupted before its commit leaves no
 * trace. Node prints an ExperimentalWarning when the module is loaded: that one warning (and only
 * it) is suppressed.
 *
 * {@link layerMemory} keeps the same state in memory instead, with no SQLite, for tests and runs
 * that need no durability: it behaves exactly as a SQLite store, and is gone when released.
 *
 * @since 0.1.0
 */
import type { Chain, DefiPositions } from "@chainquery/schema"
import { Clock, Context, type DateTime, Effect, Layer, Option, Schema } from "effect"
import { memoryTables } from "./internal/state/memoryTables.js"
import { openDatabase } from "./internal/state/sqlite.js"
import { stateTables } from "./internal/state/stateTables.js"
import type { StateTables } from "./internal/state/tables.js"
import type { NftEvent } from "./NftEvents.js"
import type { TradeEvent } from "./TradeEvents.js"
import type { EvmWallet, WatchedWallet } from "./WatchedWallet.js"
import type { WatchEvent } from "./WatchEvent.js"

/**
 * The state store failed: it could not be opened, read or written. Nothing was committed.
 * `refused`: a commit the store turned down on purpose, because the state was changed beside the
 * engine since it read it (wallets forgotten); no failure, the engine reads the state again.
 *
 * @example
 * ```ts
 * import { StateStore } from "@chainquery/watch"
 *
 * new StateStore.StateStoreError({ operation: "commit", message: "disk I/O error", cause: undefined })
 * ```
 * @since 0.1.0
 */
export class StateStoreError extends Schema.TaggedError<StateStoreError>()("StateStoreError", {
  operation: Schema.Literals(["open", "read", "commit"]),
  message: Schema.String,
  cause: Schema.Defect(),
  refused: Schema.optional(Schema.Boolean)
}) {}

/**
 * A commit refused because the state was changed beside the engine since it read it: expected
 * (the engine reads the state again and makes its cycle again), not a failure of the store.
 *
 * @example
 * ```ts
 * import { StateStore } from "@chainquery/watch"
 *
 * StateStore.refusedCommit("wallets were forgotten").refused // true
 * ```
 * @since 0.5.0
 */
export const refusedCommit = (reason: string): StateStoreError =>
  new StateStoreError({ operation: "commit", message: reason, cause: undefined, refused: true })

/**
 * Where a wallet was read up to: the last block (EVM) or ledger version (Aptos) read completely,
 * and that block's hash (`null` for Aptos).
 *
 * @example
 * ```ts
 * import type { StateStore } from "@chainquery/watch"
 *
 * const start = (checkpoint: StateStore.Checkpoint) => checkpoint.position + 1n
 * ```
 * @since 0.1.0
 */
export interface Checkpoint {
  readonly wallet: WatchedWallet
  readonly position: bigint
  readonly hash: string | null
  /**
   * The block (Aptos: ledger version) after which the wallet's changes are reported: its baseline,
   * or the block before a backfill's FROM. Written with the wallet's first checkpoint and kept
   * after (left out, it is `position`); read back as `0n` from a state file of an older watcher.
   * A reorganisation of a block at or before it is none of the wallet's concern.
   */
  readonly since?: bigint | undefined
}

/**
 * The hash of one block of a chain. The engine records every recent block it read, with `""` as
 * the hash when no transfer it read carried one (an empty block, or none of a watched wallet).
 *
 * @example
 * ```ts
 * import type { StateStore } from "@chainquery/watch"
 *
 * const block: StateStore.BlockHash = { chain: "0x1", number: 19_000_000n, hash: "0xabc…" }
 * ```
 * @since 0.1.0
 */
export interface BlockHash {
  readonly chain: Chain.ChainId
  readonly number: bigint
  readonly hash: string
}

/**
 * The NFT and trade events emitted from one block of a chain, with the block's hash when they were read:
 * what to retract when that block is orphaned.
 *
 * @example
 * ```ts
 * import type { StateStore } from "@chainquery/watch"
 *
 * const ids = (block: StateStore.BlockEvents) => block.events.map((event) => event.id)
 * ```
 * @since 0.1.0
 */
export interface BlockEvents {
  readonly chain: Chain.ChainId
  readonly number: bigint
  readonly hash: string
  readonly events: ReadonlyArray<NftEvent | TradeEvent>
}

/**
 * The DeFi positions of a wallet on a chain as last seen, at a block.
 *
 * @example
 * ```ts
 * import type { StateStore } from "@chainquery/watch"
 *
 * const protocols = (snapshot: StateStore.DefiSnapshot) => snapshot.summaries.map((s) => s.protocol_id)
 * ```
 * @since 0.1.0
 */
export interface DefiSnapshot {
  readonly wallet: EvmWallet
  readonly blockNumber: bigint
  readonly summaries: ReadonlyArray<DefiPositions.ProtocolSummary>
}

/**
 * How far a backfill got for one EVM wallet (`--backfill FROM`, see `Backfill`): its events up to
 * block `through` are written, those of `(through, upTo]` are not yet (`through` is `null` while
 * nothing of a backfill from a date was read: it starts at `fromDate`). A backfill commits it for
 * every wallet before it reads anything, again with each batch it writes, and forgets it with
 * its last one, so a run that finds it (after `kill -9`) resumes the backfill instead of starting
 * it over or leaving it. `since` is `null` for a wallet that had a checkpoint (its history is
 * printed again, nothing is committed for it); for a new wallet it is the `since` of the
 * checkpoint (at `upTo`) committed when the backfill ends.
 *
 * @example
 * ```ts
 * import type { StateStore } from "@chainquery/watch"
 *
 * const left = (progress: StateStore.BackfillProgress) => progress.upTo - (progress.through ?? 0n)
 * ```
 * @since 0.1.0
 */
export interface BackfillProgress {
  readonly wallet: EvmWallet
  /** The backfill's FROM as written in messages (`block 19000000`, or the ISO instant). */
  readonly label: string
  /** The first block of the wallet's backfill (for a date, the first block it read; `null` before). */
  readonly origin: bigint | null
  readonly through: bigint | null
  /** Where a backfill from a date starts, while `through` is `null`. */
  readonly fromDate: DateTime.Utc | null
  readonly upTo: bigint
  readonly since: bigint | null
}

/**
 * Every EVM checkpoint of `chain` standing at block `from` moves to `to`, with `hash`; their
 * `since` stays. What block scanning commits when the wallets it moved all stood at one block:
 * one change however many wallets, not one checkpoint each. Checkpoints at another block, and
 * wallets with no checkpoint yet, are not touched. `count` is how many checkpoints the engine
 * knows to stand there: if the store holds another number, the state was changed under the
 * engine (by another writer), and the whole commit fails with nothing written.
 *
 * @example
 * ```ts
 * import type { StateStore } from "@chainquery/watch"
 *
 * const advance: StateStore.Advance = { chain: "0x1", from: 19_000_009n, to: 19_000_010n, hash: "0xabc…", count: 25_000 }
 * ```
 * @since 0.2.0
 */
export interface Advance {
  readonly chain: Chain.ChainId
  readonly from: bigint
  readonly to: bigint
  readonly hash: string | null
  readonly count: number
}

/**
 * What one cycle commits. `forgetBlocks` drops a chain's hashes and block events from a block on
 * (orphaned by a reorganisation) before `blocks` and `blockEvents` are written (a `blockEvents`
 * entry replaces that block's; one with no events removes it); `eventIds` replaces the last
 * batch's ids.
 *
 * @example
 * ```ts
 * import type { StateStore, WatchEvent, WatchedWallet } from "@chainquery/watch"
 *
 * declare const wallet: WatchedWallet.WatchedWallet
 * declare const events: ReadonlyArray<WatchEvent.WatchEvent>
 * const batch: StateStore.Batch = {
 *   checkpoints: [{ wallet, position: 19_000_010n, hash: "0xabc…" }],
 *   blocks: [{ chain: "0x1", number: 19_000_010n, hash: "0xabc…" }],
 *   eventIds: events.map((event) => event.id)
 * }
 * ```
 * @since 0.1.0
 */
export interface Batch {
  /** Applied before `checkpoints` (a wallet in both ends where its checkpoint says). */
  readonly advances?: ReadonlyArray<Advance> | undefined
  readonly checkpoints?: ReadonlyArray<Checkpoint> | undefined
  readonly forgetBlocks?: ReadonlyArray<{ readonly chain: Chain.ChainId; readonly fromBlock: bigint }> | undefined
  readonly blocks?: ReadonlyArray<BlockHash> | undefined
  readonly blockEvents?: ReadonlyArray<BlockEvents> | undefined
  readonly defiSnapshots?: ReadonlyArray<DefiSnapshot> | undefined
  readonly eventIds: ReadonlyArray<string>
  /**
   * The batch's events, when it is committed before they are written (write-ahead): kept until
   * `clearPending`, and written again by the next run if the process died in between. A commit
   * with `pending` replaces those of the previous one; one without leaves them.
   */
  readonly pending?: ReadonlyArray<WatchEvent> | undefined
  /** Whether the pending events are a history's (a backfill's batch): written again, they say so (since 0.5.0). */
  readonly pendingPhase?: "live" | "history" | undefined
  /** A backfill's progress, written over what the same wallets had. */
  readonly backfills?: ReadonlyArray<BackfillProgress> | undefined
  /** Wallets whose backfill is over: their progress is forgotten. */
  readonly backfillsDone?: ReadonlyArray<EvmWallet> | undefined
}

/**
 * The last committed batch: its sequence number (1, 2, …), when it was committed, its event ids.
 *
 * @example
 * ```ts
 * import type { StateStore } from "@chainquery/watch"
 *
 * const mayRepeat = (last: StateStore.LastBatch, id: string) => last.eventIds.includes(id)
 * ```
 * @since 0.1.0
 */
export interface LastBatch {
  readonly sequence: number
  readonly committedAt: DateTime.Utc
  readonly eventIds: ReadonlyArray<string>
}

/**
 * Options of a store: how many recent blocks (their hashes, and their events) to keep per chain
 * (default 256).
 *
 * @example
 * ```ts
 * import type { StateStore } from "@chainquery/watch"
 *
 * const options: StateStore.Options = { keepBlocks: 64 }
 * ```
 * @since 0.1.0
 */
export interface Options {
  readonly keepBlocks?: number | undefined
}

/**
 * Turns what a store's `operation` failed with into a `StateStoreError` carrying its message.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { StateStore } from "@chainquery/watch"
 *
 * const written = Effect.try({ try: () => JSON.parse("{}"), catch: StateStore.failure("commit") })
 * ```
 * @since 0.3.0
 */
export const failure = (operation: StateStoreError["operation"]) => (cause: unknown): StateStoreError =>
  new StateStoreError({ operation, message: cause instanceof Error ? cause.message : String(cause), cause })

const read = <A>(body: () => A) => Effect.try({ try: body, catch: failure("read") })

/** The service over a store's tables (SQLite's or memory's). */
const make = (tables: StateTables): StateStore["Service"] =>
  StateStore.of({
    checkpoints: read(tables.checkpoints),
    checkpoint: (wallet) => read(() => Option.fromUndefinedOr(tables.checkpoint(wallet))),
    checkpointsOf: (wallets) =>
      read(() =>
        wallets.flatMap((wallet) => {
          const checkpoint = tables.checkpoint(wallet)
          return checkpoint === undefined ? [] : [checkpoint]
        })
      ),
    blockHashes: (chain) => read(() => tables.blockHashes(chain)),
    blockEvents: (chain) => read(() => tables.blockEvents(chain)),
    defiSnapshot: (wallet) => read(() => Option.fromUndefinedOr(tables.defiSnapshot(wallet))),
    pendingEvents: read(tables.pendingEvents),
    backfills: read(tables.backfills),
    clearPending: Effect.try({ try: tables.clearPending, catch: failure("commit") }),
    settle: (sequence) => Effect.try({ try: () => tables.settle(sequence), catch: failure("commit") }),
    lastBatch: read(() => Option.fromUndefinedOr(tables.lastBatch())),
    commit: (batch) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => Effect.try({ try: () => tables.commit(batch, now), catch: failure("commit") }))
  })

/** The number of blocks to keep: a whole number, at least 1, 256 unless given. */
const keepBlocksOf = (options: Options | undefined): number => {
  const wanted = options?.keepBlocks ?? 256
  return Number.isFinite(wanted) ? Math.max(1, Math.floor(wanted)) : 256
}

const acquire = (path: string, options: Options | undefined) =>
  Effect.acquireRelease(
    Effect.try({
      try: () => openDatabase(path),
      catch: (cause) =>
        new StateStoreError({
          operation: "open",
          message: `cannot open the state file ${path}: ${cause instanceof Error ? cause.message : String(cause)}`,
          cause
        })
    }),
    (db) => Effect.sync(() => {
      if (db.isOpen) db.close()
    })
  ).pipe(Effect.map((db) => make(stateTables(db, keepBlocksOf(options)))))

/**
 * A new, empty store in memory (no SQLite), as a service value: it lives as long as the value is
 * used. `StateStore.layerMemory` provides one; this one also takes {@link Options}.
 *
 * @example
 * ```ts
 * import { Layer } from "effect"
 * import { StateStore } from "@chainquery/watch"
 *
 * const small = Layer.effect(StateStore.StateStore, StateStore.makeMemory({ keepBlocks: 16 }))
 * ```
 * @since 0.1.0
 */
export const makeMemory = (options?: Options): Effect.Effect<StateStore["Service"]> =>
  Effect.sync(() => make(memoryTables(keepBlocksOf(options))))

/**
 * The state store service. Read the checkpoints at start, then `commit` once per cycle: with the
 * cycle's events as `pending` before they are written (write-ahead), then `clearPending` (or
 * `settle`) once they are; or without them, after they are written.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { StateStore, type WatchedWallet } from "@chainquery/watch"
 *
 * declare const wallet: WatchedWallet.WatchedWallet
 * const program = Effect.gen(function*() {
 *   const store = yield* StateStore.StateStore
 *   const checkpoints = yield* store.checkpoints
 *   yield* store.commit({ checkpoints: [{ wallet, position: 100n, hash: "0xabc…" }], eventIds: ["evm:0x1:…"] })
 * }).pipe(Effect.provide(StateStore.StateStore.layer("watcher-state.sqlite")))
 * ```
 * @since 0.1.0
 */
export class StateStore extends Context.Service<StateStore, {
  /** Every checkpoint, ordered by chain or network, then wallet. */
  readonly checkpoints: Effect.Effect<ReadonlyArray<Checkpoint>, StateStoreError>
  /** The checkpoint of one wallet, `None` before its first commit. */
  readonly checkpoint: (wallet: WatchedWallet) => Effect.Effect<Option.Option<Checkpoint>, StateStoreError>
  /**
   * The checkpoints of these wallets, those that have one, in no given order (since 0.5.0): what
   * the engine reads of wallets added to those it watches, rather than every checkpoint again.
   */
  readonly checkpointsOf: (wallets: ReadonlyArray<WatchedWallet>) => Effect.Effect<ReadonlyArray<Checkpoint>, StateStoreError>
  /** The recent block hashes of a chain, oldest first. */
  readonly blockHashes: (chain: Chain.ChainId) => Effect.Effect<ReadonlyArray<BlockHash>, StateStoreError>
  /** The NFT events emitted from the recent blocks of a chain, oldest block first. */
  readonly blockEvents: (chain: Chain.ChainId) => Effect.Effect<ReadonlyArray<BlockEvents>, StateStoreError>
  /** The last DeFi snapshot of a wallet on its chain. */
  readonly defiSnapshot: (wallet: EvmWallet) => Effect.Effect<Option.Option<DefiSnapshot>, StateStoreError>
  /** The events of a batch committed before they were all written (see `Batch.pending`), oldest first. */
  readonly pendingEvents: Effect.Effect<ReadonlyArray<WatchEvent>, StateStoreError>
  /** Every unfinished backfill's progress, ordered by chain, then wallet. */
  readonly backfills: Effect.Effect<ReadonlyArray<BackfillProgress>, StateStoreError>
  /** Forgets the pending events, once they are written. */
  readonly clearPending: Effect.Effect<void, StateStoreError>
  /**
   * Forgets the pending events if the last committed batch is still the one of that `sequence`,
   * in one step: what acknowledging a batch does, harmless once a later batch was committed.
   */
  readonly settle: (sequence: number) => Effect.Effect<void, StateStoreError>
  /** The last committed batch, `None` before the first commit. */
  readonly lastBatch: Effect.Effect<Option.Option<LastBatch>, StateStoreError>
  /** Writes a batch in one transaction (all or nothing) and returns it as the new last batch. */
  readonly commit: (batch: Batch) => Effect.Effect<LastBatch, StateStoreError>
}>()("@chainquery/watch/StateStore") {
  /** A store in the SQLite file at `path` (created if missing), closed when the layer is released. */
  static readonly layer = (path: string, options?: Options): Layer.Layer<StateStore, StateStoreError> =>
    Layer.effect(StateStore, acquire(path, options))

  /**
   * A store in memory with no SQLite (keeping 256 blocks per chain), gone when the layer is
   * released: for tests and runs that need no durability. SQLite's own in-memory database is
   * `StateStore.layer(":memory:")`.
   */
  static readonly layerMemory: Layer.Layer<StateStore, StateStoreError> = Layer.effect(StateStore, makeMemory())
}

/**
 * Same as `StateStore.layer`: a store in the SQLite file at `path`.
 *
 * @example
 * ```ts
 * import { StateStore } from "@chainquery/watch"
 *
 * const live = StateStore.layer("/var/lib/watcher/state.sqlite", { keepBlocks: 128 })
 * ```
 * @since 0.1.0
 */
export const layer = StateStore.layer

/**
 * Same as `StateStore.layerMemory`: a store in memory with no SQLite, gone when the layer is
 * released (SQLite's in-memory database is `StateStore.layer(":memory:")`).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { StateStore } from "@chainquery/watch"
 *
 * const test = (program: Effect.Effect<void, never, StateStore.StateStore>) => program.pipe(Effect.provide(StateStore.layerMemory))
 * ```
 * @since 0.1.0
 */
export const layerMemory = StateStore.layerMemory
