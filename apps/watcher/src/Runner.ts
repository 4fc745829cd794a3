/**
 * The watcher's polling loop: the clients and the state store built from a {@link RunConfig},
 * and `Watch.batches` over them (the backfill when one is asked for, then one cycle per
 * interval), each batch written to stdout, then acknowledged.
 *
 * @since 0.1.0
 */
import { Scrub } from "@chainquery/transport"
import { Duration, Effect, Layer, Logger, type Redacted, Stream } from "effect"
import { type Backfill, type Engine, StateStore, Watch, type WatchedWallet } from "@chainquery/watch"
import * as EventWriter from "./EventWriter.js"
import { clientLayers } from "./internal/clients.js"
import * as Output from "./Output.js"

/**
 * What one run of the loop needs.
 *
 * @example
 * ```ts
 * import type { Runner } from "@chainquery/watcher"
 *
 * const wallets = (config: Runner.RunConfig) => config.wallets.length
 * ```
 * @since 0.1.0
 */
export interface RunConfig {
  readonly wallets: ReadonlyArray<WatchedWallet.WatchedWallet>
  readonly interval: Duration.Duration
  readonly once: boolean
  readonly format: Output.Format
  readonly state: string
  readonly confirmations: number
  readonly strategy: Engine.Strategy
  readonly apiKey: Redacted.Redacted<string>
  readonly evmBaseUrl: string | undefined
  readonly ledgerBaseUrl: string | undefined
  readonly ledgerTestnetBaseUrl: string | undefined
  /** Send the API key over `http:` to a host that is not loopback (see `Transport.Options`). */
  readonly allowInsecureHttp?: boolean | undefined
  /** What to report (default `Engine.defaultWatch`). */
  readonly watch?: ReadonlyArray<Engine.Watch> | undefined
  /** The relative DeFi move reported as `defi.changed` (default 0.05). */
  readonly defiThreshold?: number | undefined
  /** How often DeFi positions are read (default: every cycle). */
  readonly defiInterval?: Duration.Duration | undefined
  /** Print the history from there before the first cycle (see `Backfill`), with a progress bar on stderr. */
  readonly backfill?: Backfill.From | undefined
  /** How long one request may wait for its answer before it is tried again (default 10 s). */
  readonly requestTimeout?: Duration.Duration | undefined
  /** Compute units per second for each API (EVM, each Aptos network; default: no limit but the service's 429s). */
  readonly computeUnits?: number | undefined
  /** For `pretty`: the time of a block, shown for DeFi, holdings and retractions (see `Output.BlockTime`); the demo's simulated clock. */
  readonly blockTime?: Output.BlockTime | undefined
}

/**
 * Runs the polling loop with these options: first the backfill if `backfill` is set, or the rest
 * of one a run before was interrupted in (its events on stdout, its progress bar on stderr; a
 * failed backfill fails the run, and the next run goes on from its last batch), then one cycle
 * per interval (one only with `once`), all through `Watch.batches`. A cycle's reads may be
 * interrupted (SIGINT/SIGTERM stop them at once and nothing is committed); writing a batch's
 * events, waiting until stdout took them (`EventWriter`), then acknowledging the batch is never
 * interrupted. A chain or Aptos network that
 * cannot be read is logged to stderr and read again next interval while the others go on (with
 * `once`, it fails the run after the others were printed and committed); a failing cycle is
 * logged and read again next interval (with `once`, it fails the run); events that cannot be
 * written (`OutputError`, e.g. stdout closed) stop the run.
 *
 * @example
 * ```ts
 * import { Runner } from "@chainquery/watcher"
 *
 * declare const config: Runner.RunConfig
 * const program = Runner.run(config)
 * ```
 * @since 0.1.0
 */
export const run = (config: RunConfig): Effect.Effect<void, unknown> => {
  const hasNetwork = (network: "mainnet" | "testnet") =>
    config.wallets.some((wallet) => wallet.family === "aptos" && wallet.network === network)
  const clients = clientLayers(config, { mainnet: hasNetwork("mainnet"), testnet: hasNetwork("testnet") })
  const layers = Layer.mergeAll(clients, StateStore.StateStore.layer(config.state))
  // Records are printed as the service sent them, but never with the API key in them.
  const print = EventWriter.make(process.stdout, config.format, Scrub.make(config.apiKey), config.blockTime)
  // First, a batch committed before its events were all written (the last run died in between),
  // then the backfill asked for, or one a run before was interrupted in (resumed with or without
  // --backfill: its wallets would otherwise miss the rest of their history), then one cycle per
  // interval (see `Watch.batches`). Reading may be interrupted (a signal stops it at once, nothing
  // is committed); writing a batch's events, waiting until stdout took them, and settling the
  // batch may not. A chain that could not be read is logged and read again next cycle; with
  // `once` it fails the run, after the other chains' events are printed and committed. A failed
  // cycle is logged and read again next interval; only a failed backfill (or a batch left by a run
  // before that cannot be settled) and a lost output stop the loop.
  const loop = Watch.batches({
    wallets: config.wallets,
    interval: config.interval,
    once: config.once,
    strategy: config.strategy,
    confirmations: config.confirmations,
    watch: config.watch,
    defiThreshold: config.defiThreshold,
    defiEvery: config.defiInterval === undefined
      ? 1
      : Math.max(1, Math.ceil(Duration.toMillis(config.defiInterval) / Duration.toMillis(config.interval))),
    backfill: config.backfill,
    progress: process.stderr
  }).pipe(
    // A batch that cannot be settled fails its cycle in the stream (logged, or with `once` the run).
    Stream.runForEach((batch) => Effect.uninterruptible(Effect.andThen(print(batch.events, batch.phase), Effect.ignore(batch.ack))))
  )
  return loop.pipe(Effect.provide(layers), Effect.provideService(Logger.LogToStderr, true))
}

