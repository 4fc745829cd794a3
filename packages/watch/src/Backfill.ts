/**
 * Printing history before watching (`--backfill FROM`). A first start normally takes a baseline
 * and prints nothing old; a backfill first prints, for every watched wallet, what happened from
 * FROM (a block number, or a date) up to where the watcher will go on from:
 *
 * - a wallet with a checkpoint in the `StateStore`: `[FROM, checkpoint]`. These events were
 *   printed once already (by the cycles that set the checkpoint) and are printed again with the
 *   same ids: consumers de-duplicate by `id`. Nothing is committed for such a wallet.
 * - a wallet without one (first start): `[FROM, safe head]`, the safe head being the newest
 *   block that is fully indexed (and `confirmations` deep), found as the engine finds it, or on
 *   Aptos the newest ledger version the listing showed. Once its events are written, its
 *   checkpoint is committed at that point, so the engine's first cycle goes on from there
 *   instead of taking a baseline: nothing is lost between the backfill and the watching.
 *
 * FROM is inclusive: block FROM itself (or, for a date, every block or transaction whose
 * timestamp is at or after it) is printed. A block number is the same number on every chain
 * (and the ledger version on Aptos); a date means the same instant everywhere.
 *
 * What is printed follows `watch` (default `Engine.defaultWatch`):
 *
 * - EVM NFT transfers (`transfers`): A2 per wallet over the range, oldest first.
 * - EVM trades (`trades`): A4 per wallet over the same range, each after its wallet's transfer.
 *   A4 exists only on eth, polygon, bsc, avalanche, arbitrum, base and optimism; wallets on other
 *   chains are backfilled without trades, silently (as the engine never reads trades there).
 * - Aptos transfers: B3, 50 wallets to a request, newest first down to FROM (a ledger version,
 *   or a transaction timestamp), printed oldest first. As in the engine, they are printed
 *   whatever `watch` says.
 * - DeFi positions and holdings have no history at the service (A7 and A5 tell the present
 *   only): a backfill prints none; they start with the engine's cycles.
 *
 * Output order: chain by chain (in the order the wallets were given), then Aptos network by
 * network; within one, chain order (block, then log index; ledger version), never newest first.
 * An EVM chain is written in batches (`batchEvents`), each committed first with its events pending
 * and how far each wallet got (write-ahead, see `Engine.step`); every wallet's plan is committed
 * before anything is read. An interrupted backfill keeps what it committed: the next `run` (with
 * or without `from`) writes again the batch in flight and goes on after the last batch. An Aptos
 * network is one batch, and is not resumed.
 *
 * Reorganisations: the new wallets' events in recorded blocks and the recent blocks they now cover
 * are recorded (`reorgWindow`), so that the engine retracts them if those blocks are replaced.
 *
 * @since 0.1.0
 */
import { EvmClient } from "@chainquery/evm-client"
import type { Chain } from "@chainquery/schema"
import { Clock, DateTime, Effect, type Option, Result, Schema } from "effect"
import { defaultWatch, type Watch } from "./Engine.js"
import { EngineError } from "./EngineError.js"
import { backfillNetwork } from "./internal/backfill/backfillAptos.js"
import { backfillChain, doneBefore } from "./internal/backfill/backfillEvm.js"
import { type From, planChain, progressOf, type WalletPlan } from "./internal/backfill/backfillPlan.js"
import * as ProgressBar from "./internal/backfill/progressBar.js"
import { loadRecent } from "./internal/cycle/recentBlocks.js"
import { writePending } from "./internal/state/pendingBatch.js"
import { clientFor, type LedgerService } from "./LedgerClients.js"
import { type Batch, type Checkpoint, StateStore, type StateStoreError } from "./StateStore.js"
import type { WatchEvent } from "./WatchEvent.js"
import { type AptosNetwork, byChain, byNetwork, dedupe, type EvmWallet, key, type WatchedWallet } from "./WatchedWallet.js"

/**
 * Where a backfill starts: a block number (on Aptos, a ledger version) or an instant.
 *
 * @example
 * ```ts
 * import { DateTime } from "effect"
 * import type { Backfill } from "@chainquery/watch"
 *
 * const fromBlock: Backfill.From = { _tag: "Block", block: 19_000_000n }
 * const fromDate: Backfill.From = { _tag: "Date", date: DateTime.makeUnsafe("2026-11-01T00:00:00Z") }
 * ```
 * @since 0.1.0
 */
export type { From }

/**
 * What a FROM may be, as said in error messages and `--help`.
 *
 * @example
 * ```ts
 * import { Backfill } from "@chainquery/watch"
 *
 * console.log(`--backfill takes ${Backfill.validFrom}`)
 * ```
 * @since 0.1.0
 */
export const validFrom =
  "a block number (e.g. 19000000; the ledger version on Aptos) or an ISO 8601 date (e.g. 2026-11-01 or 2026-11-01T12:00:00Z; UTC when no zone is given)"

/**
 * A FROM that is neither a block number nor an ISO 8601 date, or a date that is not on the
 * calendar; `message` says what is valid, `expected` says it without repeating the input.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Backfill } from "@chainquery/watch"
 *
 * const from = Backfill.parseFrom("yesterday").pipe(Effect.catchTag("InvalidFrom", (error) => Effect.die(error.message)))
 * ```
 * @since 0.1.0
 */
export class InvalidFrom extends Schema.TaggedError<InvalidFrom>()("InvalidFrom", {
  input: Schema.String,
  /** What a FROM may be (with why this one is not, for a date off the calendar). */
  expected: Schema.String,
  message: Schema.String
}) {}

const isoDate = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}(?::?\d{2})?)?)?$/i

const invalid = (input: string, calendar: boolean) =>
  Result.fail(
    new InvalidFrom({
      input,
      expected: calendar ? `a date on the calendar (${JSON.stringify(input)} is not one), i.e. ${validFrom}` : validFrom,
      message: `${JSON.stringify(input)} is ${calendar ? "not a date on the calendar" : "neither a block number nor a date"}: expected ${validFrom}`
    })
  )

/** Milliseconds east of UTC of a zone designator (`Z`, `+02`, `-0530`, `+05:30`). */
const offsetMillis = (zone: string | undefined): number | undefined => {
  if (zone === undefined || zone.toUpperCase() === "Z") return 0
  const digits = zone.slice(1).replace(":", "")
  const hours = Number(digits.slice(0, 2))
  const minutes = digits.length > 2 ? Number(digits.slice(2)) : 0
  if (hours > 23 || minutes > 59) return undefined
  return (zone.startsWith("-") ? -1 : 1) * (hours * 60 + minutes) * 60_000
}

/**
 * Reads a FROM: digits are a block number; `YYYY-MM-DD`, optionally with `THH:MM[:SS[.fff]]`
 * and a zone (`Z`, `+02:00`; UTC when absent) is a date. Anything else, or a date that is not
 * on the calendar (`2026-02-30`, `25:00`), is an `InvalidFrom`.
 *
 * @example
 * ```ts
 * import { Backfill } from "@chainquery/watch"
 *
 * Backfill.decodeFrom("19000000") // Result.succeed({ _tag: "Block", block: 19000000n })
 * Backfill.decodeFrom("2026-11-01") // Result.succeed({ _tag: "Date", date: 2026-11-01T00:00:00Z })
 * Backfill.decodeFrom("yesterday-ish") // Result.fail(InvalidFrom)
 * ```
 * @since 0.1.0
 */
export const decodeFrom = (text: string): Result.Result<From, InvalidFrom> => {
  const input = text.trim()
  if (/^\d+$/.test(input)) return Result.succeed({ _tag: "Block", block: BigInt(input) })
  const match = isoDate.exec(input)
  if (match === null) return invalid(text, false)
  const [year, month, day, hour, minute, second] = [1, 2, 3, 4, 5, 6].map((i) => Number(match[i] ?? 0)) as [
    number,
    number,
    number,
    number,
    number,
    number
  ]
  const millis = Math.floor(Number(`0.${match[7] ?? "0"}`) * 1000)
  // setUTCFullYear, unlike Date.UTC, does not read the years 0 to 99 as 1900 to 1999.
  const back = new Date(0)
  back.setUTCFullYear(year, month - 1, day)
  back.setUTCHours(hour, minute, second, millis)
  const local = back.getTime()
  const onCalendar = back.getUTCFullYear() === year && back.getUTCMonth() === month - 1 && back.getUTCDate() === day &&
    back.getUTCHours() === hour && back.getUTCMinutes() === minute && back.getUTCSeconds() === second
  const offset = offsetMillis(match[8])
  if (!onCalendar || offset === undefined) return invalid(text, true)
  return Result.succeed({ _tag: "Date", date: DateTime.makeUnsafe(local - offset) })
}

/**
 * {@link decodeFrom} as an Effect, failing with `InvalidFrom`.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Backfill } from "@chainquery/watch"
 *
 * const program = Effect.gen(function*() {
 *   const from = yield* Backfill.parseFrom("2026-11-01T12:00:00Z")
 *   return from._tag // "Date"
 * })
 * ```
 * @since 0.1.0
 */
export const parseFrom = (text: string): Effect.Effect<From, InvalidFrom> => Effect.fromResult(decodeFrom(text))

/**
 * A FROM as written in messages: `block 19000000` or the ISO instant.
 *
 * @example
 * ```ts
 * import { Backfill } from "@chainquery/watch"
 *
 * Backfill.formatFrom({ _tag: "Block", block: 19_000_000n }) // "block 19000000"
 * ```
 * @since 0.1.0
 */
export const formatFrom = (from: From): string => from._tag === "Block" ? `block ${from.block}` : DateTime.formatIso(from.date)

/**
 * Where the progress bar goes (`process.stderr` in the CLI; never stdout, which carries the
 * events): a line redrawn in place when `isTTY`, plain occasional lines otherwise.
 *
 * @example
 * ```ts
 * import type { Backfill } from "@chainquery/watch"
 *
 * const lines: Array<string> = []
 * const output: Backfill.ProgressOutput = { isTTY: false, write: (text) => lines.push(text) }
 * ```
 * @since 0.1.0
 */
export type ProgressOutput = ProgressBar.ProgressOutput

/**
 * What to backfill. `wallets`: the watched wallets (repeats are dropped). `from`: where the
 * history starts; absent, only an interrupted backfill of these wallets is resumed (a run
 * without `--backfill` does that too). `watch` (default `Engine.defaultWatch`): what is printed,
 * see the module comment. `confirmations` (default 0): as the engine's, for the safe head of
 * wallets without a checkpoint. `reorgWindow` (default 6): as the engine's; the new wallets' events
 * of that many blocks below the safe head are recorded, so that the engine retracts them after a
 * reorganisation. `write`: prints a batch of events, after it is committed as pending (see
 * `Engine.step`). `progress`: where the progress bar goes (none when absent). `concurrency`
 * (default 4): wallets (EVM) or batches (Aptos) read at once; the clients' compute-unit budget
 * paces the requests in any case. `batchEvents` (default 500): an EVM chain's events are written
 * and committed in batches of about that many, with how far each wallet got.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import type { Backfill, WatchedWallet } from "@chainquery/watch"
 *
 * declare const wallets: ReadonlyArray<WatchedWallet.WatchedWallet>
 * const options: Backfill.Options<never, never> = {
 *   wallets,
 *   from: { _tag: "Block", block: 19_000_000n },
 *   watch: ["transfers", "trades"],
 *   write: (events) => Effect.sync(() => events.forEach((event) => console.log(event.id))),
 *   progress: process.stderr
 * }
 * ```
 * @since 0.1.0
 */
export interface Options<E, R> {
  readonly wallets: ReadonlyArray<WatchedWallet>
  readonly from?: From | undefined
  readonly watch?: ReadonlyArray<Watch> | undefined
  readonly confirmations?: number | undefined
  readonly reorgWindow?: number | undefined
  /**
   * Writes a batch, once it is committed with its events pending, with its `phase`: `"history"`
   * (a batch left pending by a run before: its own). It may be interrupted: the events stay
   * pending, and the next run writes them again first.
   */
  readonly write: (events: ReadonlyArray<WatchEvent>, phase: "live" | "history") => Effect.Effect<void, E, R>
  readonly progress?: ProgressOutput | undefined
  readonly concurrency?: number | undefined
  readonly batchEvents?: number | undefined
}

/**
 * What a backfill did: the wallets read, the events written, and the checkpoints committed for
 * the wallets that had none.
 *
 * @example
 * ```ts
 * import type { Backfill } from "@chainquery/watch"
 *
 * const report = (summary: Backfill.Summary) => `${summary.events} events for ${summary.wallets} wallets`
 * ```
 * @since 0.1.0
 */
export interface Summary {
  readonly wallets: number
  readonly events: number
  readonly committed: ReadonlyArray<Checkpoint>
}

/** How long an EVM chain's backfill goes without committing how far it got, when no batch fills up. */
const batchMillis = 2000

/**
 * Prints the history of the watched wallets from `from`, chain by chain, in batches, and commits
 * the checkpoints of the wallets that had none (see the module comment); resumes an interrupted
 * backfill of these wallets first. Run it before the engine's first cycle. Fails with
 * `EngineError` when the service cannot be read (after the clients' retries) or a watched Aptos
 * network has no client; what was committed before stays, and the next run goes on from there.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Backfill, Engine, type WatchedWallet } from "@chainquery/watch"
 *
 * declare const wallets: ReadonlyArray<WatchedWallet.WatchedWallet>
 * const program = Effect.gen(function*() {
 *   const print = (events: ReadonlyArray<unknown>) => Effect.sync(() => console.log(events.length))
 *   yield* Backfill.run({ wallets, from: { _tag: "Block", block: 19_000_000n }, write: print, progress: process.stderr })
 *   const engine = yield* Engine.make({ wallets, strategy: "auto", confirmations: 0 })
 *   yield* engine.step(print) // goes on where the backfill stopped
 * })
 * ```
 * @since 0.1.0
 */
export const run = Effect.fnUntraced(function*<E, R>(
  options: Options<E, R>
): Effect.fn.Return<Summary, EngineError | StateStoreError | E, R | EvmClient.EvmClient | StateStore> {
  const client = yield* EvmClient.EvmClient
  const store = yield* StateStore
  const clock = yield* Clock.Clock
  const from = options.from
  const watch = new Set(options.watch ?? defaultWatch)
  const concurrency = Math.max(1, Math.floor(options.concurrency ?? 4))
  const confirmations = Math.max(0, Math.floor(options.confirmations ?? 0))
  const reorgWindow = Math.max(0, Math.floor(options.reorgWindow ?? 6))
  const batchEvents = Math.max(1, Math.floor(options.batchEvents ?? 500))
  const wallets = dedupe(options.wallets)
  const transfers = watch.has("transfers")
  const trades = watch.has("trades")
  // A batch committed before it was all written (the run before died in between) comes first: the
  // next commit would replace it.
  yield* writePending(store, options.write)
  const interrupted = new Map((yield* store.backfills).map((progress) => [key(progress.wallet), progress]))
  // EVM wallets have nothing to backfill when neither transfers nor trades are watched; without
  // FROM, only those whose backfill was interrupted.
  const chains = new Map<Chain.ChainId, Array<EvmWallet>>()
  if (transfers || trades) {
    for (const [chain, chainWallets] of byChain(wallets)) {
      const planned = from === undefined ? chainWallets.filter((wallet) => interrupted.has(key(wallet))) : chainWallets
      if (planned.length > 0) chains.set(chain, planned)
    }
  }
  const networks: ReturnType<typeof byNetwork> = from === undefined ? new Map() : byNetwork(wallets)
  const total = [...chains.values(), ...networks.values()].reduce((sum, group) => sum + group.length, 0)
  if (total === 0) return { wallets: 0, events: 0, committed: [] } satisfies Summary
  const ledgers = new Map<AptosNetwork, Option.Option<LedgerService>>()
  for (const network of networks.keys()) ledgers.set(network, yield* clientFor(network))
  const checkpoints = new Map((yield* store.checkpoints).map((checkpoint) => [key(checkpoint.wallet), checkpoint]))
  const planned: Array<readonly [Chain.ChainId, ReadonlyArray<WalletPlan>]> = []
  const fromLabel = from === undefined ? "" : formatFrom(from)
  for (const [chain, chainWallets] of chains) {
    const input = { client, chain, wallets: chainWallets, checkpoints, interrupted, from, label: fromLabel, confirmations, concurrency }
    planned.push([chain, yield* planChain(input)])
  }
  const resumed = planned.flatMap(([, plans]) => plans.filter((plan) => plan.resumed))
  if (resumed.length > 0) {
    yield* Effect.logInfo(
      `resuming the interrupted backfill of ${resumed.length} wallet(s) (${[...new Set(resumed.map((plan) => plan.label))].join(", ")}), ` +
        `where each got to: ${resumed.map((plan) => `${plan.wallet.chain}:${plan.wallet.address} ${plan.through === undefined ? "not started" : `block ${plan.through}`}`).join(", ")}`
    )
  }
  const label = from === undefined ? `backfill (resumed from ${resumed[0]!.label})` : `backfill from ${fromLabel}`
  const bar = options.progress === undefined
    ? ProgressBar.silent
    : ProgressBar.make(options.progress, { label, total, done: doneBefore(resumed), now: () => clock.currentTimeMillisUnsafe() })
  let events = 0
  const committed: Array<Checkpoint> = []
  /** Commits a batch with its events pending (write-ahead, as the engine's), writes them, then forgets them. */
  const emit = (batch: Omit<Batch, "eventIds" | "pending"> & { readonly events: ReadonlyArray<WatchEvent> }) =>
    Effect.uninterruptibleMask((restore) => Effect.gen(function*() {
      yield* store.commit({ ...batch, eventIds: batch.events.map((event) => event.id), pending: batch.events, pendingPhase: "history" })
      // A batch without events committed no pending events: nothing to forget. Writing may be
      // interrupted (`Watch.batches` waits there for its consumer): the events stay pending.
      if (batch.events.length > 0) {
        bar.clear()
        yield* restore(options.write(batch.events, "history"))
        yield* store.clearPending
      }
      events += batch.events.length
      committed.push(...batch.checkpoints ?? [])
    }))
  const body = Effect.gen(function*() {
    // Every wallet's plan is on record before anything is read: a run killed at any moment, in
    // any chain, is resumed for all of them (those of a later chain from FROM).
    const started = planned.flatMap(([, plans]) => plans.filter((plan) => !plan.resumed).map((plan) => progressOf(plan)))
    if (started.length > 0) yield* store.commit({ eventIds: [], backfills: started })
    for (const [chain, plans] of planned) {
      yield* backfillChain({
        client,
        chain,
        plans,
        transfers,
        trades,
        concurrency,
        progress: bar,
        recent: yield* loadRecent(store, chain),
        reorgWindow,
        batchEvents,
        batchMillis,
        emit
      })
    }
    for (const [network, networkWallets] of networks) {
      const ledger = ledgers.get(network)
      if (ledger === undefined || ledger._tag === "None") {
        return yield* new EngineError({
          operation: `LedgerClient(${network})`,
          message: `no ledger client for Aptos ${network}: provide LedgerClients.${network === "mainnet" ? "MainnetLedger" : "TestnetLedger"}`,
          cause: undefined
        })
      }
      const history = yield* backfillNetwork({
        client: ledger.value,
        network,
        wallets: networkWallets,
        checkpoints,
        from: from!,
        concurrency,
        progress: bar
      })
      yield* emit(history)
    }
    return { wallets: total, events, committed } satisfies Summary
  })
  return yield* body.pipe(Effect.onExit((exit) => Effect.sync(() => bar.finish(exit._tag === "Success" ? "done" : "stopped"))))
})
