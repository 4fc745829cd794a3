/**
 * The watcher's engine as a `Stream`: wallet activity in batches, each change once and in order,
 * with stable ids, reorganisation retractions and checkpoints that survive a crash.
 *
 * A batch is committed write-ahead before it is produced (its checkpoints, the records of its
 * blocks, and its events kept as pending); `ack` settles it. Until a batch is acknowledged the
 * next one is not produced, and a consumer that fails or is interrupted before acknowledging gets
 * the same batch, with the same ids, first when the stream runs again on the same state
 * (`redelivered: true`). Since the records of its blocks were committed, a reorganisation in
 * between is retracted like any other.
 *
 * @since 0.1.0
 */
import type { EvmClient } from "@chainquery/evm-client"
import { Clock, Deferred, Duration, Effect, Metric, Option, Queue, Stream } from "effect"
import * as Backfill from "./Backfill.js"
import * as Engine from "./Engine.js"
import { pauseAfter } from "./internal/cycle/cadence.js"
import { cycleSeconds, eventsTotal } from "./internal/cycle/watchMetrics.js"
import { scopeOf } from "./internal/state/stateCodecs.js"
import { type EngineError, keyRefusal } from "./EngineError.js"
import { StateStore, type StateStoreError } from "./StateStore.js"
import { toSpec } from "./WalletSpec.js"
import type { WatchedWallet } from "./WatchedWallet.js"
import type { WatchEvent } from "./WatchEvent.js"
import * as WatchSet from "./WatchSet.js"

/**
 * What a watch stream fails with: the engine could not go on (`EngineError`) or the state could
 * not be read or written (`StateStoreError`).
 *
 * @example
 * ```ts
 * import type { Watch } from "@chainquery/watch"
 *
 * const describe = (error: Watch.WatchError) => `${error._tag}: ${error.message}`
 * ```
 * @since 0.1.0
 */
export type WatchError = EngineError | StateStoreError

/**
 * What to watch and how. `wallets`: a list, or a `WatchSet` to add and remove wallets while the
 * stream runs. `interval` (default 30 seconds): from one cycle's start to the next's (a cycle that
 * takes longer is followed after a tenth of the interval; one that failed or could not read a
 * chain, after a whole interval). `once`: one cycle
 * (after the backfill), then the stream ends, failing with the first chain that could not be
 * read. `backfill`: the history of `wallets` from that block or date, produced before watching
 * (`progress`: where its progress bar goes, none by default). The rest is `Engine.Options`
 * (`strategy` default `"auto"`, `confirmations` default 0).
 *
 * @example
 * ```ts
 * import type { Watch, WatchedWallet } from "@chainquery/watch"
 *
 * declare const wallets: ReadonlyArray<WatchedWallet.WatchedWallet>
 * const options: Watch.Options = { wallets, interval: "10 seconds", confirmations: 2 }
 * ```
 * @since 0.1.0
 */
export interface Options extends Omit<Engine.Options, "wallets" | "strategy" | "confirmations"> {
  readonly wallets: ReadonlyArray<WatchedWallet> | WatchSet.WatchSet
  readonly strategy?: Engine.Strategy | undefined
  readonly confirmations?: number | undefined
  readonly interval?: Duration.Input | undefined
  readonly once?: boolean | undefined
  readonly backfill?: Backfill.From | undefined
  readonly progress?: Backfill.ProgressOutput | undefined
}

/**
 * Whether a batch is history (a backfill's: the past of wallets) or live (a cycle's: blocks as
 * they come).
 * @example
 * ```ts
 * import type { Watch } from "@chainquery/watch"
 * const notify = (phase: Watch.Phase) => phase === "live"
 * ```
 * @since 0.5.0
 */
export type Phase = "live" | "history"

/**
 * Events committed together, in order, and the effect that settles them. `redelivered`: the
 * batch was produced before and not acknowledged (the consumer failed, was interrupted, or the
 * process died): its events are the same, with the same ids.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import type { Watch } from "@chainquery/watch"
 *
 * const handle = (batch: Watch.Batch) =>
 *   Effect.forEach(batch.events, (event) => Effect.log(event.id), { discard: true }).pipe(Effect.andThen(batch.ack))
 * ```
 * @since 0.1.0
 */
export interface Batch {
  readonly events: ReadonlyArray<WatchEvent>
  readonly redelivered: boolean
  /**
   * `"history"` for the backfill's batches (the history of `backfill`, or of a wallet added to a
   * `WatchSet` with a `from`), `"live"` for the cycles': the service's webhooks and the CLI's
   * NDJSON say it the same way (since 0.5.0).
   */
  readonly phase: Phase
  /**
   * Settles the batch: once it returns, the batch is never produced again and the next one may
   * be. After the stream ended it still settles the batch, unless a later one was committed
   * meanwhile; acknowledging twice does nothing more. If the state cannot be written, it fails,
   * and so does the cycle that produced the batch (logged and tried again; before the first cycle
   * or with `once`, the stream fails).
   */
  readonly ack: Effect.Effect<void, StateStoreError>
}

/**
 * The entries that owe a backfill, grouped by where they start and where they are read: a chain
 * whose backfill fails is tried again without the others, whose history is then not written again.
 */
const byStart = (entries: ReadonlyArray<WatchSet.Entry>): ReadonlyArray<readonly [Backfill.From, ReadonlyArray<WatchSet.Entry>]> => {
  const groups = new Map<string, [Backfill.From, Array<WatchSet.Entry>]>()
  for (const entry of entries) {
    if (entry.from === undefined) continue
    const group = `${Backfill.formatFrom(entry.from)} ${scopeOf(entry.wallet)}`
    ;(groups.get(group) ?? groups.set(group, [entry.from, []]).get(group)!)[1].push(entry)
  }
  return [...groups.values()]
}

/** The entries after `before` in `entries` when `entries` begins with all of `before`, in order (else `undefined`). */
const addedAfter = (before: ReadonlyArray<WatchSet.Entry>, entries: ReadonlyArray<WatchSet.Entry>): ReadonlyArray<WatchSet.Entry> | undefined => {
  if (entries.length <= before.length) return undefined
  for (let i = 0; i < before.length; i++) if (entries[i] !== before[i]) return undefined
  return entries.slice(before.length)
}

/** The entries of every set whose backfill is done: never run again, whichever stream reads the set. */
const backfilled = new WeakSet<WatchSet.Entry>()

/** The most wallets named in the log line of a change (a set may hold a million). */
const namedAtMost = 20

const watching = (entries: ReadonlyArray<WatchSet.Entry>) => {
  const named = entries.slice(0, namedAtMost).map((entry) => toSpec(entry.wallet)).join(" ")
  const more = entries.length > namedAtMost ? ` and ${entries.length - namedAtMost} more` : ""
  return Effect.logInfo(`watching ${entries.length} wallet(s): ${named}${more}`)
}

/**
 * The batches of `options.wallets`, forever (or one cycle with `once`), over the `EvmClient` and
 * `StateStore` in context and the Aptos clients provided (`LedgerClients`). First a batch left
 * unacknowledged by a run before, then the backfill (if any, or the rest of one a run before was
 * interrupted in; if either fails, so does the stream), then one cycle per interval. A cycle that
 * fails is logged and tried again next interval (with `once`, the stream fails); a chain or
 * network that cannot be read is logged and read again next cycle while the others go on. The API
 * key refused by the service (a 401 or 403, see `EngineError.keyRefusal`) fails the stream: no
 * retry heals it. A commit refused because wallets were forgotten beside the engine is said at
 * INFO and the cycle is made again next interval. Each
 * batch must be acknowledged before the next is produced: an operator that waits for several
 * batches before acknowledging any (`Stream.grouped`, `Stream.runCollect` of unacknowledged
 * batches) waits forever. A wallet added to a `WatchSet` is read from the next cycle on: from the
 * head, or after its history from its `from` (a failed backfill is logged and tried again next
 * cycle, the other wallets going on; none if the state already reported the wallet from that
 * block on). A wallet removed is no longer read (a reorganisation of blocks it had passed is still
 * put right for it: its retractions may come).
 *
 * @example
 * ```ts
 * import { Effect, Stream } from "effect"
 * import { Watch, type WatchedWallet } from "@chainquery/watch"
 *
 * declare const wallets: ReadonlyArray<WatchedWallet.WatchedWallet>
 * const received = Watch.batches({ wallets, interval: "15 seconds" }).pipe(
 *   Stream.mapEffect((batch) =>
 *     Effect.forEach(batch.events.filter((event) => event.kind === "nft.received"), (event) => Effect.log(event.id)).pipe(
 *       Effect.andThen(batch.ack)
 *     )
 *   )
 * )
 * ```
 * @since 0.1.0
 */
export const batches = (options: Options): Stream.Stream<Batch, WatchError, EvmClient.EvmClient | StateStore> =>
  Stream.callback<Batch, WatchError, EvmClient.EvmClient | StateStore>((queue) =>
    Effect.gen(function*() {
      const store = yield* StateStore
      const set = WatchSet.isWatchSet(options.wallets) ? options.wallets : yield* WatchSet.make(options.wallets)
      const interval = Duration.fromInputUnsafe(options.interval ?? "30 seconds")
      const once = options.once === true
      const common = { watch: options.watch, confirmations: options.confirmations, reorgWindow: options.reorgWindow }

      /**
       * Produces one batch, the pending events of the batch committed as `sequence`, and waits,
       * interruptibly, until it is acknowledged: interrupted, it stays pending.
       */
      const offer = (events: ReadonlyArray<WatchEvent>, redelivered: boolean, sequence: number, phase: Phase) =>
        Effect.gen(function*() {
          const acknowledged = yield* Deferred.make<void, StateStoreError>()
          // Clears the pending events if they are still this batch's (no later batch was committed).
          const ack = Effect.uninterruptible(
            store.settle(sequence).pipe(
              Effect.tapError((error) => Deferred.fail(acknowledged, error)),
              Effect.andThen(Deferred.succeed(acknowledged, undefined)),
              Effect.asVoid
            )
          )
          yield* Queue.offer(queue, { events, redelivered, phase, ack })
          yield* Deferred.await(acknowledged)
        })
      /** `offer` as a `write` callback (recovery, backfills): the events pending since the last commit. */
      const deliver = (redelivered: boolean) => (events: ReadonlyArray<WatchEvent>, phase: Phase) =>
        events.length === 0 ? Effect.void : Effect.flatMap(store.lastBatch, (last) =>
          offer(events, redelivered, Option.match(last, { onNone: () => 0, onSome: (batch) => batch.sequence }), phase))
      const backfill = (wallets: ReadonlyArray<WatchedWallet>, from: Backfill.From | undefined) =>
        Backfill.run({ ...common, wallets, from, write: deliver(false), progress: options.progress })

      const engine = yield* Engine.make({
        ...options,
        wallets: [],
        strategy: options.strategy ?? "auto",
        confirmations: options.confirmations ?? 0
      })
      yield* engine.recover(deliver(true))
      // `options.backfill` (or the rest of one a run before was interrupted in) for the wallets
      // given, but those of a set with a `from` of their own: theirs comes next, in `follow`.
      const initial = yield* set.entries
      yield* backfill(
        initial.filter((entry) => options.backfill === undefined || entry.from === undefined).map((entry) => entry.wallet),
        options.backfill
      )

      /** Whether the state already reported an entry's wallet from its `from` block on: no backfill then. */
      const covered = ({ from, wallet }: WatchSet.Entry) =>
        from?._tag === "Block"
          ? Effect.map(store.checkpoint(wallet), (checkpoint) =>
            Option.isSome(checkpoint) && checkpoint.value.since !== undefined && checkpoint.value.since < from.block)
          : Effect.succeed(false)

      /** The entries the engine watches. */
      let watched: ReadonlyArray<WatchSet.Entry> | undefined
      /** The set's list when all of it was last found watched (see `WatchSet.entries`: the same list while the set is unchanged). */
      let settled: ReadonlyArray<WatchSet.Entry> | undefined
      /**
       * The set as it is now: the entries added with a `from` are backfilled first (one that fails
       * is left out until it succeeds: logged, tried again next cycle; with `once` it fails).
       */
      const follow = Effect.gen(function*() {
        const entries = yield* set.entries
        // The same list as last time, every entry watched: nothing to do (no pass over a million).
        if (entries === settled) return
        // The list of last time, every entry watched, with entries added after it from the head
        // (`WatchSet.add`, `addAll`): the engine takes those alone.
        const added = settled === undefined ? undefined : addedAfter(settled, entries)
        if (added !== undefined && added.every((entry) => entry.from === undefined)) {
          yield* engine.addWallets(added.map((entry) => entry.wallet))
          settled = watched = entries
          yield* watching(entries)
          return
        }
        for (const entry of entries) {
          if (entry.from !== undefined && !backfilled.has(entry) && (yield* covered(entry))) backfilled.add(entry)
        }
        for (const [from, group] of byStart(entries.filter((entry) => !backfilled.has(entry)))) {
          const wallets = group.map((entry) => entry.wallet)
          yield* backfill(wallets, from).pipe(
            Effect.andThen(Effect.sync(() => group.forEach((entry) => backfilled.add(entry)))),
            Effect.catch((error) =>
              once || keyRefusal(error) !== undefined ? Effect.fail(error) : Effect.logWarning(
                `backfill of ${wallets.map(toSpec).join(" ")} from ${Backfill.formatFrom(from)} failed (${error.message}); tried again next cycle`
              )
            )
          )
        }
        const ready = entries.filter((entry) => entry.from === undefined || backfilled.has(entry))
        settled = ready.length === entries.length ? entries : undefined
        if (watched !== undefined && ready.length === watched.length && ready.every((entry, i) => entry === watched![i])) return
        yield* engine.setWallets(ready.map((entry) => entry.wallet))
        watched = ready
        yield* watching(ready)
      })

      const cycle = Effect.gen(function*() {
        yield* follow
        const [elapsed, [result, committed]] = yield* Effect.timed(Effect.gen(function*() {
          const read = yield* engine.cycle
          // Write-ahead even without events: the commit then clears whatever may still be pending.
          return [read, yield* engine.commitAhead(read)] as const
        }))
        yield* Metric.update(cycleSeconds, Duration.toMillis(elapsed) / 1000)
        yield* Metric.update(eventsTotal, result.events.length)
        yield* Effect.annotateCurrentSpan({
          "wallets.count": watched?.length ?? 0,
          "events.count": result.events.length,
          "failed.count": result.failed.length
        })
        if (result.events.length > 0) yield* offer(result.events, false, committed.sequence, "live")
        if (once && result.failed.length > 0) return yield* Effect.fail(result.failed[0]!)
        // A refused API key stops the run: no retry heals it.
        const refused = result.failed.find((error) => keyRefusal(error) !== undefined)
        if (refused !== undefined) return yield* Effect.fail(refused)
        // Whether every chain and network was read (one that was not waits a whole interval).
        return result.failed.length === 0
      }).pipe(
        // One span a cycle (reads, commit), with what it found: a caller's `Effect.annotateSpans`
        // (the service's scope) is on it and on its reads' spans.
        Effect.withSpan("Watch.cycle")
      )

      if (once) {
        yield* cycle
        return yield* Queue.end(queue)
      }
      while (true) {
        const started = yield* Clock.monotonicTimeNanos
        const done = yield* cycle.pipe(
          Effect.catch((error) =>
            keyRefusal(error) !== undefined
              ? Effect.fail(error)
              : Effect.as(
                error._tag === "StateStoreError" && error.refused === true
                  // Expected (wallets were forgotten beside it): said, without a stack trace.
                  ? Effect.logInfo(`cycle made again next interval: ${error.message}`)
                  : Effect.logError(`cycle failed; retrying in ${Duration.format(interval)}`, error),
                false
              )
          )
        )
        // The interval counts from the cycle's start (see `cadence`).
        yield* Effect.sleep(pauseAfter(interval, Number((yield* Clock.monotonicTimeNanos) - started) / 1e6, done))
      }
    })
  )

/**
 * The events of `Watch.batches`, one by one, each batch acknowledged when the element after its
 * last event is pulled: once the consumer is done with its last event, if it pulls one element
 * at a time (`Stream.mapEffect`, `Stream.runForEach`; an operator that pulls ahead, such as
 * `Stream.buffer` or a concurrent `mapEffect`, acknowledges earlier). At least once: a consumer
 * that fails or is interrupted in the middle of a batch gets that whole batch again when the
 * stream runs again on the same state (de-duplicate by `id` if that matters).
 *
 * @example
 * ```ts
 * import { Effect, Stream } from "effect"
 * import { Watch, type WatchedWallet } from "@chainquery/watch"
 *
 * declare const wallets: ReadonlyArray<WatchedWallet.WatchedWallet>
 * const sent = Watch.events({ wallets }).pipe(
 *   Stream.filter((event) => event.kind === "nft.sent"),
 *   Stream.mapEffect((event) => Effect.log(event.id))
 * )
 * ```
 * @since 0.1.0
 */
export const events = (options: Options): Stream.Stream<WatchEvent, WatchError, EvmClient.EvmClient | StateStore> =>
  Stream.flatMap(batches(options), (batch) => Stream.concat(Stream.fromArray(batch.events), Stream.fromEffectDrain(batch.ack)))
