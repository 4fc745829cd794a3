/**
 * The watcher's engine: one `cycle` reads what changed since the committed checkpoints and
 * returns the new events in chain order together with the `Batch` that records them. It commits
 * nothing itself. `step` (or `publish` after `cycle`) commits the batch write-ahead, with its
 * events kept as pending, then writes them, then forgets them: a crash while writing costs
 * nothing, the next run writes that batch again first (`recover`, same ids), and since the
 * records of its blocks were committed, a reorganisation meanwhile retracts it. A failed cycle
 * commits nothing, so the next one reads the same blocks again. (`commit` after writing is the
 * plain way: a crash between the two repeats the batch, but a reorganisation meanwhile cannot
 * retract it.)
 *
 * - First start (no checkpoint for a wallet): a baseline, its checkpoint at the current safe
 *   head; nothing old is emitted.
 * - EVM, `block-scan`: A1 for every block after the lowest checkpoint of the chain, filtered to
 *   the watched wallets, until a block does not exist, is not fully indexed or cannot be read
 *   (read again next cycle; the checkpoint never passes it, the blocks before it are kept); with
 *   `confirmations: N` only up to `head - N`. Catching up, it reads 4 blocks at a time.
 * - EVM, `per-wallet`: A2 per wallet from its checkpoint + 1 to the safe head (the last block
 *   that exists, is indexed and is `confirmations` deep, found with O(log n) A1 probes). Without
 *   confirmations the same request starts `reorgWindow` blocks earlier: a recent block whose
 *   transfers for the wallet changed (hash, vanished, appeared) was replaced.
 * - EVM, `auto`: per chain and cycle, block scanning when the new blocks cost no more requests
 *   than one per wallet, per-wallet polling otherwise.
 * - Each EVM cycle reads a witness block (the newest it may read, or the block `confirmations`
 *   after it) first and again last, and keeps nothing of its reads when the witness changed: a
 *   reorganisation landed between them.
 * - Reorganisations: both strategies keep one record of the recent blocks (hash, and the events
 *   printed from it for every wallet that passed it). A replaced block, however noticed, is read
 *   again whole (A1) and compared by event id with its record, for every wallet whose `since` is
 *   before it and whose checkpoint passed it: what is gone is `retracted`, then the new events.
 *   Block scanning (and per-wallet polling with confirmations) reads the newest recorded block
 *   again each cycle; per-wallet polling without confirmations compares the window of each
 *   listing with the record. Below a replaced block, the record is walked down to the common
 *   ancestor; one deeper than the confirmations (without any, than `reorgWindow`) is logged as
 *   an error with its depth.
 * - Aptos: wallets batched 50 per B3 request, read newest first down to the checkpoint, emitted
 *   oldest first; the checkpoint is the highest ledger version seen.
 * - With `watch` (default transfers, trades, DeFi): trades through A4 only for the wallets with
 *   new transfers, over their blocks, each after its transfer and retracted with it; holdings
 *   through A5 for the collections those transfers touched (`holding.syncing` while the service
 *   is still indexing one); DeFi positions through A7 every `defiEvery` cycles, the first read a
 *   baseline. Transfers are read whatever is watched: the rest is found through them.
 * - A chain or Aptos network the service cannot be read for (after the clients' retries) is
 *   logged and left out of the cycle (`CycleResult.failed`): the others go on, it is read again
 *   next cycle.
 *
 * @since 0.1.0
 */
import { EvmClient } from "@chainquery/evm-client"
import { Chain } from "@chainquery/schema"
import { Effect } from "effect"
import { type EngineError, keyRefusal, noLedgerClient } from "./EngineError.js"
import { networkCycle } from "./internal/cycle/aptosCycle.js"
import type { HeadPace, ReorgCheck as ChainReorgCheck, Strategy as ChainStrategy } from "./internal/cycle/chainInput.js"
import { advanceIndex, chainIndex, type ChainIndex, extendIndex } from "./internal/cycle/chainIndex.js"
import { emptyStep, type Step } from "./internal/cycle/cycleStep.js"
import { enrich } from "./internal/cycle/enrich.js"
import { chainCycle } from "./internal/cycle/evmCycle.js"
import type { Pending } from "./internal/cycle/holdingsCycle.js"
import { restingOf, type Tracked } from "./internal/cycle/recentBlocks.js"
import { writePending } from "./internal/state/pendingBatch.js"
import { clientFor } from "./LedgerClients.js"
import { type Advance, type Batch, type Checkpoint, type LastBatch, StateStore, type StateStoreError } from "./StateStore.js"
import type { WatchEvent } from "./WatchEvent.js"
import { byChain, byKey, byNetwork, type EvmWallet, key, type WatchedWallet } from "./WatchedWallet.js"

/**
 * How EVM wallets are polled: one A1 listing per new block, one A2 listing per wallet, or the
 * cheaper of the two per chain and cycle.
 *
 * @example
 * ```ts
 * import type { Engine } from "@chainquery/watch"
 *
 * const strategy: Engine.Strategy = "auto"
 * ```
 * @since 0.1.0
 */
export type Strategy = ChainStrategy

/**
 * How a block scanning cycle at the head, without confirmations, notices a reorganisation.
 * `"witness"` (the default): the newest recorded block is read again each cycle, and a witness
 * block before and after the cycle's reads (5 requests for a new block, 3 to 4 for none).
 * `"parent-hash"`: a new block is taken when its header (A6) names the newest recorded block as
 * its parent and its transfers carry the header's hash; a cycle that finds no block reads the
 * newest recorded block's hash again (one A1 record): 2 requests for a new block after a cycle
 * that found none, 3 when the cycle before found one too, 2 small ones for none. An engine's first
 * cycle, one after a cycle that moved the wallets by several blocks (a chain making more than a
 * block an interval, or catching up), and one whose header cannot be read use the witness
 * protocol. A reorganisation is noticed by the same cycle in both (the next one after it), and
 * read down to the common ancestor by the witness protocol.
 *
 * @example
 * ```ts
 * import type { Engine } from "@chainquery/watch"
 *
 * const reorgCheck: Engine.ReorgCheck = "parent-hash"
 * ```
 * @since 0.5.0
 */
export type ReorgCheck = ChainReorgCheck

/**
 * What a watcher reports: NFT `transfers` (EVM and Aptos), EVM NFT `trades` (A4, read only for
 * wallets whose transfers changed), `defi` positions (A7, every `defiEvery` cycles) and
 * `holdings` (a wallet's balance of each token it moved, from the collection's owners, A5; a
 * collection still `SYNCING` is reported as such).
 *
 * @example
 * ```ts
 * import type { Engine } from "@chainquery/watch"
 *
 * const watch: ReadonlyArray<Engine.Watch> = ["transfers", "trades"]
 * ```
 * @since 0.1.0
 */
export type Watch = "transfers" | "trades" | "defi" | "holdings"

/**
 * Every `Watch` value, in the order of `--help`.
 *
 * @example
 * ```ts
 * import { Engine } from "@chainquery/watch"
 *
 * Engine.watchKinds // ["transfers", "trades", "defi", "holdings"]
 * ```
 * @since 0.1.0
 */
export const watchKinds: ReadonlyArray<Watch> = ["transfers", "trades", "defi", "holdings"]

/**
 * What is watched when `Options.watch` is not given: transfers, trades and DeFi positions.
 *
 * @example
 * ```ts
 * import { Engine } from "@chainquery/watch"
 *
 * Engine.defaultWatch.includes("holdings") // false
 * ```
 * @since 0.1.0
 */
export const defaultWatch: ReadonlyArray<Watch> = ["transfers", "trades", "defi"]

/**
 * What to watch and how. `confirmations`: how deep a block must be to be read (0: read the
 * newest indexed block, and watch for reorganisations). `reorgWindow` (default 6): without
 * confirmations, how deep a reorganisation may be without an error being logged (per-wallet
 * polling also lists that many recent blocks again); 0: no record, reorganisations are not followed. `maxBlocksPerCycle` (default
 * 500): at most this many new blocks are read per chain in one cycle (by either strategy), so that catching up
 * after a long stop is committed in bounded batches. `watch` (default {@link defaultWatch}): what
 * is reported. `defiThreshold` (default 0.05): the relative move of a position's USD value that
 * is reported as `defi.changed`. `defiEvery` (default 1): DeFi positions are read every that
 * many cycles (they cost one request per wallet and chain). `onHead` (since 0.5.0): told each
 * EVM chain's head as a cycle found it (see {@link Head}); the chains wait for it, so what it does
 * should be quick (a callback that throws is logged, and the cycle goes on). `reorgCheck` (since
 * 0.5.0, default `"witness"`): how a cycle at the head notices reorganisations (see {@link ReorgCheck}).
 *
 * @example
 * ```ts
 * import type { Engine, WatchedWallet } from "@chainquery/watch"
 *
 * declare const wallets: ReadonlyArray<WatchedWallet.WatchedWallet>
 * const options: Engine.Options = { wallets, strategy: "block-scan", confirmations: 0 }
 * ```
 * @since 0.1.0
 */
export interface Options {
  readonly wallets: ReadonlyArray<WatchedWallet>
  readonly strategy: Strategy
  readonly confirmations: number
  readonly reorgWindow?: number | undefined
  readonly maxBlocksPerCycle?: number | undefined
  readonly watch?: ReadonlyArray<Watch> | undefined
  readonly defiThreshold?: number | undefined
  readonly defiEvery?: number | undefined
  readonly onHead?: ((head: Head) => Effect.Effect<void>) | undefined
  readonly reorgCheck?: ReorgCheck | undefined
}

/**
 * An EVM chain's head as a cycle found it: the newest block the data service had fully indexed
 * (with `confirmations`, the safe head plus that many blocks). Told to `Options.onHead` once per
 * chain and cycle that read it and stood, before the cycle's batch is committed. Not told: for a
 * chain's first cycle (its wallets placed), a cycle dropped for a reorganisation, a chain that
 * could not be read, block scanning with no confirmations and no `reorgWindow` (it reads no head),
 * and Aptos networks (their cycles read no head). With `reorgCheck: "parent-hash"`, a cycle that
 * found one block after a cycle that found none tells that block without asking for the next: a
 * block made in the same interval is told by the next cycle.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import type { Engine } from "@chainquery/watch"
 *
 * const onHead = (head: Engine.Head) => Effect.logDebug(`chain ${head.chain} at block ${head.block}`)
 * ```
 * @since 0.5.0
 */
export interface Head {
  readonly chain: Chain.ChainId
  readonly block: bigint
}

/**
 * The outcome of one cycle: the new events in chain order (per chain, then per Aptos network)
 * and the batch to commit once they are written.
 *
 * @example
 * ```ts
 * import type { Engine } from "@chainquery/watch"
 *
 * const count = (result: Engine.CycleResult) => result.events.length
 * ```
 * @since 0.1.0
 */
export interface CycleResult {
  readonly events: ReadonlyArray<WatchEvent>
  readonly batch: Batch
  /**
   * The chains and Aptos networks the service could not be read for this cycle (after the
   * clients' retries), one error each: logged, nothing of theirs in the batch, read again next
   * cycle. The others went on.
   */
  readonly failed: ReadonlyArray<EngineError>
}

/**
 * A running engine.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Engine, type WatchedWallet } from "@chainquery/watch"
 *
 * declare const wallets: ReadonlyArray<WatchedWallet.WatchedWallet>
 * const once = Effect.gen(function*() {
 *   const engine = yield* Engine.make({ wallets, strategy: "auto", confirmations: 0 })
 *   const { events, batch } = yield* engine.cycle
 *   yield* Effect.forEach(events, (event) => Effect.log(event.id))
 *   yield* engine.commit(batch)
 * })
 * ```
 * @since 0.1.0
 */
export interface Engine {
  /** Reads what changed since the committed checkpoints; commits nothing. */
  readonly cycle: Effect.Effect<CycleResult, EngineError | StateStoreError>
  /** Commits a cycle's batch (after its events were written), in one transaction. */
  readonly commit: (batch: Batch) => Effect.Effect<LastBatch, StateStoreError>
  /**
   * Writes the events of a batch that `step` committed but may not have written in full (the
   * process died in between), then forgets them; returns them (none after a clean stop). `write`
   * is told whether they are a history's (a backfill's batch) or live. `step` calls it first, and
   * so does `Backfill.run`.
   */
  readonly recover: <E, R>(
    write: (events: ReadonlyArray<WatchEvent>, phase: "live" | "history") => Effect.Effect<void, E, R>
  ) => Effect.Effect<ReadonlyArray<WatchEvent>, StateStoreError | E, R>
  /**
   * Commits a cycle's batch write-ahead: its checkpoints and records, with its events kept as
   * pending until `StateStore.clearPending` (a crash before that costs nothing: `recover` writes
   * them again, with the same ids). What `publish` and `Watch.batches` do first.
   */
  readonly commitAhead: (result: CycleResult) => Effect.Effect<LastBatch, StateStoreError>
  /**
   * Watches these wallets from the next cycle on, in place of those it was made with (each new one
   * starts from its checkpoint, read again from the store, or at the safe head with a baseline);
   * what it knew of the others (holdings still owed, the DeFi cadence) is kept. When wallets were
   * only added, only the new ones' checkpoints are read (`StateStore.checkpointsOf`), not every
   * wallet's again.
   */
  readonly setWallets: (wallets: ReadonlyArray<WatchedWallet>) => Effect.Effect<void>
  /**
   * Adds wallets to those watched, from the next cycle on (as `setWallets` with the watched ones
   * and these; since 0.5.0): only the new ones' checkpoints are read, and the index of each chain
   * they join is extended in place, so that 100,000 wallets gaining 10,000 cost a pass over the
   * 10,000. Wallets already watched are left as they are.
   */
  readonly addWallets: (wallets: ReadonlyArray<WatchedWallet>) => Effect.Effect<void>
  /**
   * A cycle's result, write-ahead and uninterruptibly: commits its batch with its events kept as
   * pending, `write`s them, then forgets them (see `step`).
   */
  readonly publish: <E, R>(
    result: CycleResult,
    write: (events: ReadonlyArray<WatchEvent>) => Effect.Effect<void, E, R>
  ) => Effect.Effect<void, StateStoreError | E, R>
  /**
   * One cycle, write-ahead: `recover`, read, commit with the events kept as pending, `write` them,
   * then forget them. A crash after the commit costs nothing: the next `step` (or `recover`) writes
   * the pending events again, with the same ids, and the records of their blocks are committed,
   * so a reorganisation meanwhile retracts them. Returns the events written; fails with the first
   * `failed` error of the cycle, if any, after committing what the other chains read.
   */
  readonly step: <E, R>(
    write: (events: ReadonlyArray<WatchEvent>) => Effect.Effect<void, E, R>
  ) => Effect.Effect<ReadonlyArray<WatchEvent>, EngineError | StateStoreError | E, R>
}

/** A committed checkpoint as the engine holds it (see `committed`). */
interface Held {
  readonly wallet: WatchedWallet
  position: bigint
  hash: string | null
  readonly since?: bigint | undefined
}

const merge = (steps: ReadonlyArray<Step>): Omit<CycleResult, "failed"> => {
  const all = {
    events: steps.flatMap((step) => step.events),
    advances: steps.flatMap((step) => step.advances),
    checkpoints: steps.flatMap((step) => step.checkpoints),
    blocks: steps.flatMap((step) => step.blocks),
    blockEvents: steps.flatMap((step) => step.blockEvents),
    forgetBlocks: steps.flatMap((step) => step.forgetBlocks),
    defiSnapshots: steps.flatMap((step) => step.defiSnapshots)
  }
  return {
    events: all.events,
    batch: {
      advances: all.advances,
      checkpoints: all.checkpoints,
      blocks: all.blocks,
      blockEvents: all.blockEvents,
      forgetBlocks: all.forgetBlocks,
      defiSnapshots: all.defiSnapshots,
      eventIds: all.events.map((event) => event.id)
    }
  }
}

/**
 * Moves the held checkpoints that `advances` move (each from its block to its `to`), in one pass
 * over them however many advances a batch has (a scan catching wallets up from many blocks makes
 * one per block). A batch's advances go to the block its cycle scanned to, so none starts where
 * another ends; were one to, they are applied one after the other.
 */
const moveHeld = (committed: ReadonlyMap<string, Held>, advances: ReadonlyArray<Advance>) => {
  if (advances.length === 0) return
  const moves = new Map<Chain.ChainId, Map<bigint, Advance>>()
  for (const advance of advances) (moves.get(advance.chain) ?? moves.set(advance.chain, new Map()).get(advance.chain)!).set(advance.from, advance)
  if (advances.length > 1 && advances.some((advance) => moves.get(advance.chain)!.has(advance.to))) {
    for (const advance of advances) moveHeld(committed, [advance])
    return
  }
  for (const held of committed.values()) {
    const move = held.wallet.family === "evm" ? moves.get(held.wallet.chain)?.get(held.position) : undefined
    if (move !== undefined) {
      held.position = move.to
      held.hash = move.hash
    }
  }
}

/** The watched wallets, each once (by `key`), by EVM chain and by Aptos network. */
const placed = (wallets: ReadonlyArray<WatchedWallet>) => {
  const watched = byKey(wallets)
  const unique = [...watched.values()]
  return { watched, chains: byChain(unique), networks: byNetwork(unique) }
}

/**
 * Makes an engine over the `EvmClient` and `StateStore` in context, and the Aptos ledger clients
 * (`LedgerClients.MainnetLedger`, `LedgerClients.TestnetLedger`) that are provided: a cycle
 * fails with `EngineError` if a watched Aptos network has no client.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Engine, type WatchedWallet } from "@chainquery/watch"
 *
 * declare const wallets: ReadonlyArray<WatchedWallet.WatchedWallet>
 * const program = Effect.gen(function*() {
 *   const engine = yield* Engine.make({ wallets, strategy: "block-scan", confirmations: 2 })
 *   yield* engine.step((events) => Effect.forEach(events, (event) => Effect.log(event.id), { discard: true }))
 * })
 * ```
 * @since 0.1.0
 */
export const make = Effect.fnUntraced(function*(
  options: Options
): Effect.fn.Return<Engine, never, EvmClient.EvmClient | StateStore> {
  const client = yield* EvmClient.EvmClient
  const store = yield* StateStore
  const ledgers = {
    mainnet: yield* clientFor("mainnet"),
    testnet: yield* clientFor("testnet")
  }
  let { chains, networks, watched } = placed(options.wallets)
  const confirmations = Math.max(0, Math.floor(options.confirmations))
  const reorgWindow = Math.max(0, Math.floor(options.reorgWindow ?? 6))
  const maxBlocks = Math.max(1, Math.floor(options.maxBlocksPerCycle ?? 500))
  const watch = new Set(options.watch ?? defaultWatch)
  const defiThreshold = options.defiThreshold ?? 0.05
  const defiEvery = Math.max(1, Math.floor(options.defiEvery ?? 1))
  /** Cycles started by this engine: DeFi is read on the first and every `defiEvery`-th after. */
  let cycles = 0
  /** Per chain, the collections still owed a holding report (they were `SYNCING`) after the last commit. */
  const pending = new Map<Chain.ChainId, Pending>()
  /** Per chain, how many blocks its last cycle moved the wallets (see `parentHashes`). */
  const paces = new Map<Chain.ChainId, HeadPace>()
  /** Per batch not committed yet, what the holdings owe once it is. */
  const owedAfter = new WeakMap<Batch, ReadonlyMap<Chain.ChainId, Pending>>()

  /**
   * The committed checkpoints, read from the store on the first cycle (after a backfill may have
   * committed some), then kept up to date by `commit`: a cycle does not read and decode every
   * wallet's row again. The engine's own copies: an advance moves them in place, so that a block
   * scanned for a hundred thousand wallets does not make a hundred thousand new objects.
   */
  let committed: Map<string, Held> | undefined
  /** Wallets added (`setWallets`) since `committed` was read: their checkpoints are read at the next cycle. */
  const addedUnread = new Map<string, WatchedWallet>()
  /**
   * Holds a checkpoint read from the store under the watched wallet's own object and key, when it
   * is watched: the store's copy of the wallet (and of its address and key) is not kept.
   */
  const hold = (held: Map<string, Held>, checkpoint: Checkpoint) => {
    const id = key(checkpoint.wallet)
    const own = watched.get(id)
    if (own === undefined) held.set(id, { ...checkpoint })
    else held.set(key(own), { ...checkpoint, wallet: own })
  }
  const loadCheckpoints = Effect.map(store.checkpoints, (all) => {
    committed = new Map()
    for (const checkpoint of all) hold(committed, checkpoint)
    return committed
  })

  /** Per chain, the state file's wallets this engine does not watch: found once (their checkpoints do not move). */
  const resting = new Map<Chain.ChainId, ReadonlyArray<Tracked>>()
  /**
   * Per chain, its wallets and checkpoints indexed (see `chainIndex`), kept between cycles: a
   * commit that moves a chain's checkpoints drops its index, and `forgetHeld` (new wallets, the
   * state read again) drops them all, so that a cycle without a new block does no work per wallet.
   */
  const indexes = new Map<Chain.ChainId, ChainIndex>()
  /** Per chain whose index is kept, the wallets added since (`addWallets`): indexed at the next cycle, once their checkpoints are read. */
  const unindexed = new Map<Chain.ChainId, ReadonlyArray<EvmWallet>>()
  const indexOn = (chain: Chain.ChainId, chainWallets: ReadonlyArray<EvmWallet>, checkpoints: ReadonlyMap<string, Checkpoint>) => {
    const kept = indexes.get(chain)
    const added = unindexed.get(chain)
    unindexed.delete(chain)
    if (kept === undefined) return indexes.set(chain, chainIndex(chainWallets, checkpoints, restingOn(chain, chainWallets, checkpoints))).get(chain)!
    if (added !== undefined) extendIndex(kept, added, checkpoints)
    return kept
  }
  /** The chain is indexed again at its next cycle. */
  const dropIndex = (chain: Chain.ChainId) => {
    indexes.delete(chain)
    unindexed.delete(chain)
  }

  /** What the engine holds of the state is read again on the next cycle. */
  const forgetHeld = () => {
    resting.clear()
    indexes.clear()
    unindexed.clear()
    addedUnread.clear()
    committed = undefined
  }

  /** The checkpoints held, with those of the wallets added since they were read (from the store, once). */
  const heldCheckpoints = Effect.gen(function*() {
    const held = committed ?? (yield* loadCheckpoints)
    if (addedUnread.size === 0) return held
    const asked = [...addedUnread]
    const found = yield* store.checkpointsOf(asked.map(([, wallet]) => wallet))
    // What the store has of them now, and nothing it no longer has (a resting wallet forgotten meanwhile).
    for (const [id] of asked) {
      held.delete(id)
      addedUnread.delete(id)
    }
    for (const checkpoint of found) hold(held, checkpoint)
    return held
  })

  const restingOn = (chain: Chain.ChainId, chainWallets: ReadonlyArray<EvmWallet>, checkpoints: ReadonlyMap<string, Checkpoint>) =>
    resting.get(chain) ?? resting.set(chain, restingOf(chain, chainWallets, checkpoints)).get(chain)!

  /** Tells `options.onHead` a head; a callback that throws is logged, and the cycle goes on. */
  const tellHead = (head: Head): Effect.Effect<void> =>
    options.onHead === undefined ? Effect.void : Effect.suspend(() => options.onHead!(head)).pipe(
      Effect.catchDefect((defect) => Effect.logWarning(`onHead failed for chain ${head.chain} (the cycle goes on)`, defect))
    )

  const cycle: Engine["cycle"] = Effect.gen(function*() {
    const checkpoints: ReadonlyMap<string, Checkpoint> = yield* heldCheckpoints
    const readDefi = watch.has("defi") && cycles % defiEvery === 0
    cycles++
    const steps: Array<Step> = []
    /** What the holdings of each chain owe after this cycle: kept only if it is committed. */
    const owed = new Map<Chain.ChainId, Pending>()
    const failed: Array<EngineError> = []
    /** A chain or network the service could not be read for: logged, left for the next cycle. */
    const unread = (where: string) => (error: EngineError) =>
      Effect.as(
        Effect.andThen(
          Effect.sync(() => failed.push(error)),
          // A refused key is no passing trouble: the caller stops on it (see `Watch.batches`).
          keyRefusal(error) === undefined
            ? Effect.logWarning(`${where} not read this cycle (${error.operation}: ${error.message}); read again next cycle`)
            : Effect.void
        ),
        emptyStep
      )
    for (const [chain, chainWallets] of chains) {
      const pendingHoldings = pending.get(chain) ?? new Map()
      const step = chainCycle({
        client,
        store,
        chain,
        wallets: chainWallets,
        checkpoints,
        resting: restingOn(chain, chainWallets, checkpoints),
        index: indexOn(chain, chainWallets, checkpoints),
        strategy: options.strategy,
        confirmations,
        reorgWindow,
        maxBlocks,
        reorgCheck: options.reorgCheck ?? "witness",
        pace: paces.get(chain) ?? paces.set(chain, { moved: -1n }).get(chain)!,
        onHead: (block) => tellHead({ chain, block })
      }).pipe(
        Effect.flatMap((transfers) =>
          enrich({ client, store, chain, wallets: chainWallets, checkpoints, watch, readDefi, defiThreshold, pendingHoldings }, transfers)
        ),
        Effect.tap((enriched) => Effect.sync(() => owed.set(chain, enriched.pendingHoldings))),
        Effect.catchTag("EngineError", unread(`chain ${Chain.nameOf(chain)} (${chain})`))
      )
      steps.push(yield* step)
    }
    for (const [network, networkWallets] of networks) {
      const ledger = ledgers[network]
      if (ledger._tag === "None") {
        return yield* noLedgerClient(network)
      }
      steps.push(
        yield* networkCycle({ client: ledger.value, network, wallets: networkWallets, checkpoints }).pipe(
          Effect.catchTag("EngineError", unread(`Aptos ${network}`))
        )
      )
    }
    const result = { ...merge(steps), failed }
    owedAfter.set(result.batch, owed)
    return result
  })

  /** Commits `batch`, with its events as pending when they are to be written after (write-ahead). */
  const commitWith = (batch: Batch, ahead: ReadonlyArray<WatchEvent> | undefined) =>
    store.commit(ahead === undefined ? batch : { ...batch, pending: ahead }).pipe(
      // Failed, it may still have been written (an answer lost), or the state changed under the
      // engine (an advance found another count): what the engine holds is read again.
      Effect.tapError(() => Effect.sync(forgetHeld)),
      Effect.tap(() =>
      Effect.sync(() => {
        for (const [chain, owed] of owedAfter.get(batch) ?? []) pending.set(chain, owed)
        // A chain whose wallets moved one by one is indexed again at its next cycle; one whose
        // checkpoints moved whole (advances) has them moved in its index, in place.
        const oneByOne = new Set<Chain.ChainId>()
        for (const checkpoint of batch.checkpoints ?? []) if (checkpoint.wallet.family === "evm") oneByOne.add(checkpoint.wallet.chain)
        for (const chain of oneByOne) dropIndex(chain)
        for (const advance of batch.advances ?? []) {
          const index = indexes.get(advance.chain)
          if (index !== undefined && advanceIndex(index, advance.from, advance.to) !== advance.count) dropIndex(advance.chain)
        }
        if (committed === undefined) return
        moveHeld(committed, batch.advances ?? [])
        for (const checkpoint of batch.checkpoints ?? []) {
          // `since` is written with a wallet's first checkpoint only (as the store does).
          const wallet = key(checkpoint.wallet)
          const since = committed.get(wallet)?.since ?? checkpoint.since ?? checkpoint.position
          committed.set(wallet, { ...checkpoint, since })
        }
      }))
    )

  const commit = (batch: Batch) => commitWith(batch, undefined)

  const recover: Engine["recover"] = (write) => writePending(store, write)

  const commitAhead: Engine["commitAhead"] = (result) => commitWith(result.batch, result.events)

  /**
   * Wallets only added, what is held of the others kept: a backfill or a service may have
   * committed the checkpoints of the new ones, read at the next cycle (`heldCheckpoints`); they no
   * longer rest. The chains they join are indexed again, or, with `extend`, have their index
   * extended with them (once their checkpoints are read), unless one of them rested there.
   */
  const takeAdded = (added: ReadonlyMap<string, WatchedWallet>, extend: boolean) => {
    for (const [id, wallet] of added) addedUnread.set(id, wallet)
    for (const [chain, more] of byChain(added.values())) {
      const rest = resting.get(chain) ?? []
      const rested = rest.some((tracked) => added.has(key(tracked.wallet)))
      if (rested) resting.set(chain, rest.filter((tracked) => !added.has(key(tracked.wallet))))
      if (extend && !rested && indexes.has(chain)) unindexed.set(chain, [...(unindexed.get(chain) ?? []), ...more])
      else dropIndex(chain)
    }
  }

  const setWallets: Engine["setWallets"] = (wallets) =>
    Effect.sync(() => {
      const before = watched
      ;({ chains, networks, watched } = placed(wallets))
      const added = new Map<string, WatchedWallet>()
      watched.forEach((wallet, id) => {
        if (!before.has(id)) added.set(id, wallet)
      })
      // A wallet no longer watched joins the state's others this engine does not watch: all is read again.
      if (committed === undefined || before.size + added.size !== watched.size) return forgetHeld()
      // The chains' lists are made again in the order given: their indexes too.
      takeAdded(added, false)
    })

  const addWallets: Engine["addWallets"] = (wallets) =>
    Effect.sync(() => {
      const added = new Map<string, WatchedWallet>()
      for (const wallet of wallets) {
        const id = key(wallet)
        if (!watched.has(id)) added.set(id, wallet)
      }
      if (added.size === 0) return
      // After the others: their chains' and networks' lists are made again with them, the others' kept.
      for (const [id, wallet] of added) watched.set(id, wallet)
      for (const [chain, more] of byChain(added.values())) chains.set(chain, [...(chains.get(chain) ?? []), ...more])
      for (const [network, more] of byNetwork(added.values())) networks.set(network, [...(networks.get(network) ?? []), ...more])
      if (committed === undefined) return forgetHeld()
      takeAdded(added, true)
    })

  const publish: Engine["publish"] = (result, write) =>
    Effect.uninterruptible(Effect.gen(function*() {
      yield* commitAhead(result)
      yield* write(result.events)
      yield* store.clearPending
    }))

  return {
    cycle,
    commit,
    recover,
    commitAhead,
    setWallets,
    addWallets,
    publish,
    step: (write) =>
      Effect.gen(function*() {
        yield* recover(write)
        const result = yield* cycle
        yield* publish(result, write)
        if (result.failed.length > 0) return yield* Effect.fail(result.failed[0]!)
        return result.events
      })
  }
})
