/**
 * One scope's scanner (a chain, or an Aptos network): the engine (`Watch.batches`) over the union
 * of the wallets every stream holds there, once for all of them, so that requests per block do not
 * grow with streams or wallets. Streams that want their events after N confirmations share one
 * scan per N. Each scan's state is a `PgStateStore` namespace (`scan:<scope>:<N>`) whose commit
 * fans the batch's events out to the streams' outboxes in the same transaction; the streams that
 * got events are woken once it is committed.
 *
 * The wallets and the scans follow the streams: they are read again after each change of what the
 * scans watch (`StreamStore.walletsVersion`, read every interval once for the runner's scanners by
 * `ScanSignals`; after a look at a changed set, the next waits for `rereadPause`): only the wallets
 * added since the last look, unless some may have left (`StreamStore.watchedSince`). At the head, a scan links new blocks by their parent hashes
 * (`Engine.Options.reorgCheck: "parent-hash"`).
 *
 * @since 0.2.0
 */
import type { EvmClient } from "@chainquery/evm-client"
import { type Engine, EngineError, PgStateStore, type StateStore, Watch, type WatchedWallet, type WatchEvent, WatchSet } from "@chainquery/watch"
import { Cause, Clock, Duration, Effect, FiberMap, type Layer, Metric, Option, Queue, Ref, Stream } from "effect"
import type { SqlClient } from "effect/sql"
import { writerOf } from "../store/ChainHeads.js"
import { forgetAllUnheld, forgetUnheld, lockScans, namespaceOf } from "../store/Coverage.js"
import { KeyRefusal } from "./KeyRefusal.js"
import { enqueue } from "../store/Outbox.js"
import type { Scope } from "../model/Scopes.js"
import { ServiceConfig } from "../model/ServiceConfig.js"
import { DeliveryWake } from "../delivery/DeliveryWake.js"
import { StreamStore } from "../store/StreamStore.js"
import { ScanSignals } from "./ScanSignals.js"

/** Which engine readings yield which event kinds. */
const readingOf = (kind: WatchEvent.Kind): Engine.Watch =>
  kind.startsWith("trade.") ? "trades" : kind.startsWith("defi.") ? "defi" : kind.startsWith("holding.") ? "holdings" : "transfers"

/**
 * What the engine reads for streams wanting `kinds` (`null`: all): transfers and trades cost a
 * few requests per block whatever the wallets; DeFi and holdings are read per wallet, so only
 * when a stream asks for them.
 *
 * @example
 * ```ts
 * import { Scanner } from "@chainquery/watch-service"
 *
 * Scanner.readingsFor([["nft.received"], ["trade.bought"]]) // ["transfers", "trades"]
 * ```
 * @since 0.2.0
 */
export const readingsFor = (kinds: ReadonlyArray<ReadonlyArray<WatchEvent.Kind> | null>): ReadonlyArray<Engine.Watch> => {
  const wanted = new Set<Engine.Watch>()
  for (const list of kinds) {
    if (list === null) {
      wanted.add("transfers")
      wanted.add("trades")
    } else {
      for (const kind of list) wanted.add(readingOf(kind))
    }
  }
  return (["transfers", "trades", "defi", "holdings"] as const).filter((reading) => wanted.has(reading))
}

/**
 * How many intervals apart a scan forgets the wallets no stream holds any more, at most: each
 * forgetting makes the cycle then in flight be refused and made again (see `PgStateStore.forget`),
 * so that removals every interval cannot keep a slow scan from ever committing.
 *
 * @example
 * ```ts
 * import { Scanner } from "@chainquery/watch-service"
 *
 * Scanner.forgetEvery // 10
 * ```
 * @since 0.3.0
 */
export const forgetEvery = 10

/**
 * How long a scan waits before it looks at the wallets again, after a look at a changed set that
 * took `spentMillis` (reading them, and the wallets' set replaced): at least an `interval`,
 * `rereadWaits` times what the look took, and at most `forgetEvery` intervals. Reading a large
 * set again is proportional to it, and so is the engine's next cycle (it indexes them again):
 * wallets added request after request are taken in a few reads, not in one read per request, and
 * the requests are not slowed by reads of the wallets they have just added. A wallet taken later
 * loses nothing: its coverage starts where it was placed. After a look that failed, the next is an
 * interval later; otherwise a change is looked at as soon as the runner reads it (`ScanSignals`).
 *
 * @example
 * ```ts
 * import { Duration } from "effect"
 * import { Scanner } from "@chainquery/watch-service"
 *
 * Duration.toMillis(Scanner.rereadPause(Duration.seconds(1), 50)) // 1000
 * Duration.toMillis(Scanner.rereadPause(Duration.seconds(1), 900)) // 7200
 * ```
 * @since 0.5.0
 */
export const rereadPause = (interval: Duration.Duration, spentMillis: number): Duration.Duration =>
  Duration.min(Duration.max(interval, Duration.millis(Math.max(0, spentMillis) * rereadWaits)), Duration.times(interval, forgetEvery))

/** See `rereadPause`: a scan spends about a ninth of its time at most reading a changed set again. */
const rereadWaits = 8

/**
 * The engine state of the scan of `scope` at `confirmations`: its commits take the scan's lock
 * first (as adding and forgetting wallets do, so that none of them waits for the other's rows
 * while holding what the other needs), and fan their events out to the streams (`Outbox.enqueue`)
 * in the same transaction; `enqueued` gets the streams that got events.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Scanner } from "@chainquery/watch-service"
 *
 * const state = Scanner.scanState("0x1", 0, (streams) => Effect.log(`${streams.length} streams to wake`))
 * ```
 * @since 0.3.0
 */
export const scanState = (
  scope: Scope,
  confirmations: number,
  enqueued: (streamIds: ReadonlyArray<string>) => Effect.Effect<void>
): Layer.Layer<StateStore.StateStore, StateStore.StateStoreError, SqlClient.SqlClient> =>
  PgStateStore.layer({
    namespace: namespaceOf(scope, confirmations),
    beforeWrite: () => lockScans([scope], confirmations),
    onCommit: (batch) => Effect.flatMap(enqueue({ scope, confirmations, events: batch.pending ?? [] }), enqueued)
  })

/**
 * Records the heads the engine finds (`Engine.Options.onHead`) in the background, when they move
 * (see `ChainHeads.record`): the cycle does not wait for the write, and heads found while one is
 * written leave the newest.
 */
const headRecorder = (scope: Scope) =>
  Effect.gen(function*() {
    const found = yield* Queue.sliding<bigint>(1)
    const write = writerOf(scope)
    yield* Effect.forkScoped(
      Queue.take(found).pipe(
        Effect.flatMap(write),
        Effect.catchCause((cause) => Effect.logWarning(`scanner ${scope}: cannot record the chain's head (${Cause.pretty(cause)}); tried again next cycle`)),
        Effect.forever
      )
    )
    return (head: Engine.Head) => Effect.asVoid(Queue.offer(found, head.block))
  })

/** One scan: the wallets of `scope` held by streams with `confirmations`, read with `readings`. */
const scan = (scope: Scope, confirmations: number, readings: ReadonlyArray<Engine.Watch>) =>
  Effect.gen(function*() {
    const streams = yield* StreamStore
    const config = yield* ServiceConfig
    const waker = yield* DeliveryWake
    const signals = yield* ScanSignals
    // The runner's signal last seen, and the store's version the set was last read at (`watchedSince`).
    let version = yield* signals.walletsVersion
    const first = yield* streams.watchedSince(scope, confirmations, undefined)
    let since = first.version
    const set = yield* WatchSet.make(first.wallets)
    // Wallets no stream of this scan holds any more, to forget (kept until that succeeds).
    let unheld = new Map<string, WatchedWallet.WatchedWallet>()
    let forgotAt = yield* Clock.currentTimeMillis
    // The wallets follow the streams: read again after each change of what the scans watch, as
    // soon as it is seen, but not sooner than `hold` after the last look.
    let hold = Duration.zero
    yield* Effect.forkScoped(
      Effect.gen(function*() {
        yield* Effect.sleep(hold)
        const now = yield* signals.walletsChange(version, config.interval)
        hold = Duration.zero
        if (now !== undefined && now !== version) {
          const started = yield* Clock.monotonicTimeNanos
          const read = yield* streams.watchedSince(scope, confirmations, since)
          if (read.whole) {
            const before = yield* set.entries
            yield* set.replace(read.wallets)
            const kept = new Set(read.wallets.map((wallet) => wallet.address))
            for (const { wallet } of before) if (!kept.has(wallet.address)) unheld.set(wallet.address, wallet)
          } else {
            // Only wallets added: the set grows by them, and none of the others is looked at.
            yield* set.addAll(read.wallets)
          }
          for (const wallet of read.wallets) unheld.delete(wallet.address)
          since = read.version
          version = now
          hold = rereadPause(config.interval, Number((yield* Clock.monotonicTimeNanos) - started) / 1e6)
        }
        // Forgotten, a wallet added again starts afresh (see `Coverage.forgetUnheld`). Not more
        // often than every `forgetEvery` intervals: each refuses the scan's cycle then in flight.
        const at = yield* Clock.currentTimeMillis
        if (unheld.size > 0 && at - forgotAt >= forgetEvery * Duration.toMillis(config.interval)) {
          yield* forgetUnheld(scope, confirmations, [...unheld.values()])
          unheld = new Map()
          forgotAt = at
        }
      }).pipe(
        Effect.catchCause((cause) =>
          Effect.andThen(
            Effect.sync(() => {
              hold = config.interval
            }),
            Effect.logWarning(`scanner ${scope}: cannot read or forget the wallets (${Cause.pretty(cause)}); trying again`)
          )
        ),
        Effect.forever
      )
    )
    // Wallets removed while this scan did not run are forgotten first.
    yield* forgetAllUnheld(scope, confirmations).pipe(
      Effect.catchCause((cause) => Effect.as(Effect.logWarning(`scanner ${scope}: cannot forget the wallets no stream holds (${Cause.pretty(cause)})`), 0))
    )
    const woken = yield* Ref.make<ReadonlySet<string>>(new Set())
    const state = scanState(scope, confirmations, (ids) => Ref.update(woken, (all) => new Set([...all, ...ids])))
    const onHead = yield* headRecorder(scope)
    // At the head, new blocks are linked by their parent hashes: 2 requests per block, 2 per idle cycle.
    yield* Watch.batches({ wallets: set, interval: config.interval, confirmations, watch: readings, onHead, reorgCheck: "parent-hash" }).pipe(
      Stream.runForEach((batch) =>
        Effect.gen(function*() {
          yield* batch.ack
          const ids = yield* Ref.getAndSet(woken, new Set())
          yield* Effect.annotateCurrentSpan("streams.woken", ids.size)
          for (const id of ids) yield* waker.wake(id)
        }).pipe(Effect.withSpan("Scanner.batch", { attributes: { "events.count": batch.events.length } }))
      ),
      Effect.provide(state),
      // The engine's metrics of this scan carry its scope and confirmations.
      Effect.provideService(Metric.CurrentMetricAttributes, { scope, confirmations: String(confirmations) })
    )
  }).pipe(
    Effect.scoped,
    // Every span of this scan (the engine's cycles, their reads, the batches' commits) says which it is.
    Effect.annotateSpans({ scope, confirmations })
  )

/**
 * Scans `scope` for as long as it runs: one scan per confirmations value that streams holding
 * wallets there use, started and stopped as streams change. A scan that fails is logged and
 * started again at the next interval. Run it as the scope's cluster singleton.
 *
 * @example
 * ```ts
 * import { Scanner } from "@chainquery/watch-service"
 *
 * const eth = Scanner.run("0x1")
 * ```
 * @since 0.2.0
 */
export const run = (
  scope: Scope
): Effect.Effect<never, never, StreamStore | ServiceConfig | DeliveryWake | KeyRefusal | ScanSignals | SqlClient.SqlClient | EvmClient.EvmClient> =>
  Effect.gen(function*() {
    const streams = yield* StreamStore
    const config = yield* ServiceConfig
    const keys = yield* KeyRefusal
    const signals = yield* ScanSignals
    const scans = yield* FiberMap.make<string>()
    let version: bigint | undefined
    let wanted = new Map<string, { readonly confirmations: number; readonly readings: ReadonlyArray<Engine.Watch> }>()
    while (true) {
      // A refused API key stops every scan until the service is restarted with the right one.
      if (Option.isSome(yield* keys.reason)) return yield* Effect.never
      // The scans follow the streams: read again after each change of what they watch.
      const now = yield* signals.walletsVersion
      if (now === undefined || now !== version) {
        const read = yield* streams.scansOn(scope).pipe(
          Effect.catchCause((cause) => Effect.as(Effect.logWarning(`scanner ${scope}: cannot read the streams (${Cause.pretty(cause)})`), undefined))
        )
        if (read !== undefined) {
          version = now
          wanted = new Map(read.map(({ confirmations, kinds }) => {
            const readings = readingsFor(kinds)
            return [`${confirmations} ${readings.join(",")}`, { confirmations, readings }] as const
          }))
          for (const [key] of Array.from(scans)) if (!wanted.has(key)) yield* FiberMap.remove(scans, key)
        }
      }
      // Every scan wanted runs: one that stopped on an error starts again.
      for (const [key, { confirmations, readings }] of wanted) {
        if (yield* FiberMap.has(scans, key)) continue
        yield* FiberMap.run(
          scans,
          key,
          scan(scope, confirmations, readings).pipe(
            Effect.catchCause((cause) => {
              if (Cause.hasInterruptsOnly(cause)) return Effect.interrupt
              const refused = cause.reasons.filter(Cause.isFailReason).map((reason) => EngineError.keyRefusal(reason.error)).find((said) => said !== undefined)
              return refused !== undefined
                ? keys.refuse(refused)
                : Effect.logError(`scanner ${scope} (${confirmations} confirmations) stopped: ${Cause.pretty(cause)}`)
            })
          )
        )
      }
      // Planned again as soon as the wallets' version moves; the scans that stopped start again an interval on.
      yield* signals.walletsChange(now, config.interval)
    }
  }).pipe(Effect.scoped)
