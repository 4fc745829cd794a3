/**
 * One scope's history reader, for as long as it runs (a cluster singleton, beside the scope's
 * scanner): it takes the wallets' histories the streams still owe (`HistoryStore.open`), reads
 * each a few wallets at once over the service's clients (their compute-unit budgets, shared with
 * the scans), and commits slice after slice (`HistoryStore.commit`), waking the stream's delivery
 * after each. On an EVM chain a wallet is read with `History.reader` from the block after the one
 * last committed. On Aptos, whose ledger lists a wallet's transfers newest first only, its history
 * is first staged in the database, a page at a time (`HistoryStore.stage`), then sent oldest first
 * from there. Memory holds a slice or two (a page) per wallet read, whatever the range. Killed at any moment, the runner that takes
 * the singleton over goes on from the last slice committed: at most the slice in flight is read
 * again, and nothing is sent twice. A wallet whose read fails is tried again at the next interval.
 * A history never runs ahead of its receiver: it reads and commits a slice only once the stream has
 * at most `maxPendingAhead` batches waiting, so live batches, which take their place in the same
 * sequence, never queue behind a long history (and a receiver that is down holds the history, not
 * the outbox). Each wallet's history is read in turns of at most 10 s, given up early when its
 * stream has no room for 2 s; only the histories of active streams are read (`HistoryStore.open`),
 * so a paused stream, or one in error, holds none of the others back.
 *
 * @since 0.5.0
 */
import type { EvmClient } from "@chainquery/evm-client"
import { EngineError, History, LedgerClients, WatchEvent, type WatchedWallet } from "@chainquery/watch"
import { Cause, Clock, Effect, Option, Stream } from "effect"
import type { SqlClient } from "effect/sql"
import { DeliveryWake } from "../delivery/DeliveryWake.js"
import { type Scope, walletOfScope } from "../model/Scopes.js"
import { ServiceConfig } from "../model/ServiceConfig.js"
import * as HistoryStore from "../store/HistoryStore.js"
import { KeyRefusal } from "./KeyRefusal.js"
import { ScanSignals } from "./ScanSignals.js"

/**
 * How many wallets' histories one scope reads at once.
 *
 * @example
 * ```ts
 * import { HistoryScan } from "@chainquery/watch-service"
 *
 * HistoryScan.walletsAtOnce // 4
 * ```
 * @since 0.5.0
 */
export const walletsAtOnce = 4

/**
 * How many records of complete blocks make a slice, each committed as a history batch: small
 * enough that a long history is many batches, between which live ones take their turn.
 */
const sliceRecords = 25

/**
 * The most batches of a stream that may wait to be delivered when a history commits its next
 * slice: the history goes at the pace its receiver takes it, so a live batch never waits behind
 * more than these (and the slices of the wallets read at once).
 */
export const maxPendingAhead = 2

/** How long a history waits between two looks at its stream's pending batches. */
const roomEvery = 100

/** How long a history waits for its stream to have room before it gives its turn up. */
const roomWithin = 2_000

/**
 * How long one wallet's history is read in one turn: then (or when its stream has no room) it
 * gives its turn up, and the histories owed are looked at again, so that none waits for a long or
 * a stuck one.
 */
const turnMillis = 10_000

/** Whether the stream has at most `maxPendingAhead` batches pending, waiting up to `roomWithin` for it. */
const room = (streamId: string) =>
  Effect.gen(function*() {
    for (let waited = 0; waited <= roomWithin; waited += roomEvery) {
      if ((yield* HistoryStore.pendingOf(streamId)) <= maxPendingAhead) return true
      yield* Effect.sleep(roomEvery)
    }
    return false
  })

/** How many transfers of an Aptos listing are staged at once (a page of the listing). */
const stagedAtOnce = 100

/**
 * Stages an Aptos wallet's history (see `HistoryStore.stage`): the ledger lists its transfers
 * newest first, from now; those after the history's end are passed over, those from its start on
 * kept, a page at a time, until one older than its start. Begun again from the newest when a run
 * before stopped half-way (nothing of it was sent yet).
 */
const stageAptos = (job: HistoryStore.Job, wallet: WatchedWallet.AptosWallet) =>
  Effect.gen(function*() {
    const client = yield* LedgerClients.clientFor(wallet.network)
    if (Option.isNone(client)) return yield* Effect.die(new Error(`no ledger client for ${wallet.network}`))
    let restart = true
    yield* client.value.streamWalletsNFTTransfers({ walletAddresses: [wallet.address], limit: stagedAtOnce }).pipe(
      Stream.takeUntil((transfer) => transfer.transaction_version < job.fromBlock),
      Stream.mapError(EngineError.fromClient("getWalletsNFTTransfers")),
      Stream.grouped(stagedAtOnce),
      Stream.runForEach((transfers) => {
        const events = transfers
          .filter((transfer) => transfer.transaction_version >= job.fromBlock && transfer.transaction_version <= job.upTo)
          .toReversed()
          .flatMap((transfer) => WatchEvent.fromAptosTransfer(wallet.network, wallet.address, transfer))
        const first = restart
        restart = false
        return HistoryStore.stage(job, { restart: first, events, done: false })
      })
    )
    yield* HistoryStore.stage(job, { restart, events: [], done: true })
  })

/**
 * Sends a wallet's history for one turn: slice after slice from `next` (`undefined`: nothing more
 * to read), each committed once its stream has room, the stream's delivery woken after each; the
 * turn ends early when the stream has no room, the history is done or stale (another runner, a
 * wallet removed).
 */
const sendTurn = <E, R>(
  job: HistoryStore.Job,
  next: (through: bigint) => Effect.Effect<{ readonly through: bigint; readonly events: ReadonlyArray<WatchEvent.WatchEvent> } | undefined, E, R>
) =>
  Effect.gen(function*() {
    const waker = yield* DeliveryWake
    let through = job.through
    const ends = (yield* Clock.currentTimeMillis) + turnMillis
    while ((yield* Clock.currentTimeMillis) < ends) {
      // Live first: the next slice is read once the stream's receiver took what is ahead of it.
      if (!(yield* room(job.streamId))) return
      const slice = yield* next(through)
      if (slice === undefined) return
      const committed = yield* HistoryStore.commit({ ...job, through }, slice)
      if (committed._tag === "Stale") return
      yield* waker.wake(job.streamId)
      if (committed.done) return
      through = slice.through
    }
  })

/** Reads one Aptos wallet's history: staged newest first (once), then sent oldest first from there. */
const readAptos = (job: HistoryStore.Job, wallet: WatchedWallet.AptosWallet) =>
  Effect.gen(function*() {
    if (!job.staged) yield* stageAptos(job, wallet)
    // The last slice states the rest of the range, up to the history's end.
    yield* sendTurn(job, (through) =>
      Effect.map(HistoryStore.stagedSlice({ ...job, through }, sliceRecords), (staged) => ({ through: staged.through ?? job.upTo, events: staged.events })))
  })

/** Reads one wallet's history for a turn (or until it is done or stale), committing each slice. */
const readWallet = (job: HistoryStore.Job) =>
  Effect.gen(function*() {
    const wallet = walletOfScope(job.scope, job.address)
    if (wallet.family === "aptos") return yield* readAptos(job, wallet)
    const reader = yield* History.reader({
      wallet,
      from: { _tag: "Block", block: job.through + 1n },
      upTo: job.upTo,
      watch: ["transfers", "trades"],
      sliceRecords
    })
    yield* sendTurn(job, () => reader.next)
  }).pipe(
    Effect.scoped,
    Effect.withSpan("HistoryScan.wallet", { attributes: { "stream.id": job.streamId, scope: job.scope, "wallet.address": job.address } })
  )

/**
 * Reads the histories owed on `scope` (an EVM chain or an Aptos network) for as long as it runs:
 * a few wallets at once, each for a turn, the next ones as they finish; then it looks again at
 * what is owed, every interval. Run it as the scope's cluster singleton (`history/<scope>`).
 *
 * @example
 * ```ts
 * import { HistoryScan } from "@chainquery/watch-service"
 *
 * const eth = HistoryScan.run("0x1")
 * ```
 * @since 0.5.0
 */
export const run = (
  scope: Scope
): Effect.Effect<never, never, ServiceConfig | DeliveryWake | KeyRefusal | ScanSignals | SqlClient.SqlClient | EvmClient.EvmClient> =>
  Effect.gen(function*() {
    const config = yield* ServiceConfig
    const keys = yield* KeyRefusal
    const signals = yield* ScanSignals
    while (true) {
      // A refused API key stops every read until the service is restarted with the right one.
      if (Option.isSome(yield* keys.reason)) return yield* Effect.never
      // A scope that owed nothing at the runner's last look costs no read of its own.
      const jobs = !(yield* signals.historyOwed(scope)) ? [] : yield* HistoryStore.open(scope, 100).pipe(
        Effect.catchCause((cause) => Effect.as(Effect.logWarning(`history ${scope}: cannot read the histories owed (${Cause.pretty(cause)})`), []))
      )
      yield* Effect.forEach(jobs, (job) =>
        readWallet(job).pipe(
          Effect.catchCause((cause) => {
            if (Cause.hasInterruptsOnly(cause)) return Effect.interrupt
            const refused = cause.reasons.filter(Cause.isFailReason).map((reason) => EngineError.keyRefusal(reason.error)).find((said) => said !== undefined)
            return refused !== undefined
              ? keys.refuse(refused)
              : Effect.logWarning(`history of ${job.address} on ${scope} for stream ${job.streamId} stopped (${Cause.pretty(cause)}); tried again`)
          })
        ), { concurrency: walletsAtOnce, discard: true })
      yield* Effect.sleep(config.interval)
    }
  }).pipe(Effect.annotateSpans({ scope }))
