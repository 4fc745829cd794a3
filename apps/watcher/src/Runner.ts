/**
 * The watcher's polling loop: the clients and the state store built from a {@link RunConfig},
 * the backfill when one is asked for, an engine over them, and one step per interval, each
 * written to stdout before it is committed.
 *
 * @since 0.1.0
 */
import { EvmClient } from "@chainquery/evm-client"
import { Scrub } from "@chainquery/transport"
import { Duration, Effect, Layer, Logger, type Redacted } from "effect"
import * as Backfill from "./Backfill.js"
import * as Engine from "./Engine.js"
import * as EventWriter from "./EventWriter.js"
import { MainnetLedger, TestnetLedger } from "./LedgerClients.js"
import * as Output from "./Output.js"
import { StateStore } from "./StateStore.js"
import * as WalletSpec from "./WalletSpec.js"
import type { WatchedWallet } from "./WatchedWallet.js"

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
  readonly wallets: ReadonlyArray<WatchedWallet>
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
}

/**
 * Runs the polling loop with these options: first the backfill if `backfill` is set, or the rest
 * of one a run before was interrupted in (its events on stdout, its progress bar on stderr; a
 * failed backfill fails the run, and the next run goes on from its last batch), then one engine step
 * per interval (one only with `once`). A step's reads may be interrupted (SIGINT/SIGTERM stop
 * them at once and nothing is committed); writing its events, waiting until stdout took them
 * (`EventWriter`), then committing them is never interrupted. A chain or Aptos network that
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
  const options = {
    apiKey: config.apiKey,
    attemptTimeout: config.requestTimeout,
    // A call (attempts and retries) may last as long as four attempts and their backoff.
    totalTimeout: config.requestTimeout === undefined
      ? undefined
      : Duration.max(Duration.seconds(60), Duration.times(config.requestTimeout, 6)),
    rateLimit: config.computeUnits === undefined ? undefined : { unitsPerSecond: config.computeUnits },
    allowInsecureHttp: config.allowInsecureHttp
  }
  const hasNetwork = (network: "mainnet" | "testnet") =>
    config.wallets.some((wallet) => wallet.family === "aptos" && wallet.network === network)
  const evm = EvmClient.layer({ ...options, ...(config.evmBaseUrl === undefined ? {} : { baseUrl: config.evmBaseUrl }) })
  const mainnet = hasNetwork("mainnet")
    ? MainnetLedger.layer({ ...options, ...(config.ledgerBaseUrl === undefined ? {} : { baseUrl: config.ledgerBaseUrl }) })
    : Layer.empty
  const testnet = hasNetwork("testnet")
    ? TestnetLedger.layer({
      ...options,
      ...(config.ledgerTestnetBaseUrl === undefined ? {} : { baseUrl: config.ledgerTestnetBaseUrl })
    })
    : Layer.empty
  const layers = Layer.mergeAll(evm, mainnet, testnet, StateStore.layer(config.state))
  // Records are printed as the service sent them, but never with the API key in them.
  const print = EventWriter.make(process.stdout, config.format, Scrub.make(config.apiKey))
  const loop = Effect.gen(function*() {
    const engine = yield* Engine.make({
      wallets: config.wallets,
      strategy: config.strategy,
      confirmations: config.confirmations,
      watch: config.watch,
      defiThreshold: config.defiThreshold,
      defiEvery: config.defiInterval === undefined
        ? 1
        : Math.max(1, Math.ceil(Duration.toMillis(config.defiInterval) / Duration.toMillis(config.interval)))
    })
    // First, a batch committed before its events were all written (the last run died in between):
    // `Backfill.run` writes it again before anything else. Then the backfill asked for, or one a
    // run before was interrupted in (resumed with or without --backfill: its wallets would
    // otherwise miss the rest of their history).
    yield* Backfill.run({
      wallets: config.wallets,
      from: config.backfill,
      watch: config.watch,
      confirmations: config.confirmations,
      write: print,
      progress: process.stderr
    })
    yield* Effect.logInfo(
      `watching ${config.wallets.length} wallet(s): ${config.wallets.map(WalletSpec.toSpec).join(" ")}`
    )
    // Reading may be interrupted (a signal stops it at once, nothing is committed); writing the
    // events and committing them may not.
    // A chain that could not be read was logged by the engine and is read again next cycle; with
    // `once` it fails the run, after the other chains' events are printed and committed.
    const step = Effect.gen(function*() {
      const result = yield* engine.cycle
      // Write-ahead: committed with its events pending, then written (see `Engine.step`).
      yield* engine.publish(result, print)
      if (config.once && result.failed.length > 0) return yield* Effect.fail(result.failed[0]!)
    })
    while (true) {
      if (config.once) return yield* step
      // A failed cycle is read again next time; only a lost output stops the loop.
      yield* step.pipe(
        Effect.catchIf(
          (error) => !(error instanceof EventWriter.OutputError),
          (error) => Effect.logError(`cycle failed; retrying in ${Duration.format(config.interval)}`, error)
        )
      )
      yield* Effect.sleep(config.interval)
    }
  })
  return loop.pipe(Effect.provide(layers), Effect.provideService(Logger.LogToStderr, true))
}

