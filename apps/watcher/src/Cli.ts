/**
 * The `chainquery-watcher` command line: flags, wallet parsing, the layers and the polling loop,
 * and the `demo` subcommand that runs the same loop against an in-process simulator.
 *
 * @since 0.1.0
 */
import { EvmClient } from "@chainquery/evm-client"
import { Chain } from "@chainquery/schema"
import { Simulator } from "@chainquery/simulator"
import { Cause, Console, Duration, Effect, Layer, Logger, Option, Redacted, Schema } from "effect"
import { Command, Flag } from "effect/cli"
import * as Engine from "./Engine.js"
import { MainnetLedger, TestnetLedger } from "./LedgerClients.js"
import * as Output from "./Output.js"
import { StateStore } from "./StateStore.js"
import * as WalletSpec from "./WalletSpec.js"
import type { WatchedWallet } from "./WatchedWallet.js"
import type { WatchEvent } from "./WatchEvent.js"

/**
 * Bad input (a wallet spec, a wallet file, a missing key): the message was already written to
 * stderr; the executable exits with code 2.
 *
 * @example
 * ```ts
 * import { Cli } from "@chainquery/watcher"
 *
 * const error = new Cli.BadInput({ message: "no wallets" })
 * ```
 * @since 0.1.0
 */
export class BadInput extends Schema.TaggedError<BadInput>()("BadInput", {
  message: Schema.String
}) {}

/**
 * Parses a duration such as `10s`, `2s`, `500ms`, `1m`, `1.5 seconds`.
 *
 * @example
 * ```ts
 * import { Cli } from "@chainquery/watcher"
 *
 * Cli.parseInterval("2s") // Duration of 2 seconds
 * ```
 * @since 0.1.0
 */
export const parseInterval = (text: string): Duration.Duration => {
  const match = /^(\d+(?:\.\d+)?)\s*(ms|millis|milliseconds?|s|secs?|seconds?|m|mins?|minutes?|h|hours?)?$/i.exec(
    text.trim()
  )
  if (match === null || match[1] === undefined) {
    throw new Error(`expected a duration such as 10s, 500ms, 2m or 1h, got ${JSON.stringify(text)}`)
  }
  const value = Number(match[1])
  const unit = (match[2] ?? "s").toLowerCase()
  const millis = unit.startsWith("ms") || unit.startsWith("milli")
    ? value
    : unit.startsWith("h")
    ? value * 3_600_000
    : unit.startsWith("m")
    ? value * 60_000
    : value * 1000
  if (!(millis > 0)) throw new Error(`the interval must be positive, got ${JSON.stringify(text)}`)
  return Duration.millis(millis)
}

/**
 * What one run of the loop needs.
 *
 * @example
 * ```ts
 * import type { Cli } from "@chainquery/watcher"
 *
 * const wallets = (config: Cli.RunConfig) => config.wallets.length
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
}

const write = (format: Output.Format) => {
  const line = Output.formatter({ format, color: format === "pretty" && process.stdout.isTTY === true })
  return (events: ReadonlyArray<WatchEvent>): Effect.Effect<void> =>
    events.length === 0
      ? Effect.void
      : Effect.sync(() => {
        process.stdout.write(events.map((event) => `${line(event)}\n`).join(""))
      })
}

/**
 * Runs the polling loop with these options: one engine step per interval (one only with
 * `once`), each step uninterruptible so that SIGINT/SIGTERM stop after it. A failing cycle is
 * logged to stderr and retried next interval (with `once`, it fails the run).
 *
 * @example
 * ```ts
 * import { Cli } from "@chainquery/watcher"
 *
 * const program = Cli.run(config)
 * ```
 * @since 0.1.0
 */
export const run = (config: RunConfig): Effect.Effect<void, unknown> => {
  const options = { apiKey: config.apiKey }
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
  const print = write(config.format)
  const loop = Effect.gen(function*() {
    const engine = yield* Engine.make({
      wallets: config.wallets,
      strategy: config.strategy,
      confirmations: config.confirmations
    })
    yield* Effect.logInfo(
      `watching ${config.wallets.length} wallet(s): ${config.wallets.map(WalletSpec.toSpec).join(" ")}`
    )
    while (true) {
      if (config.once) {
        yield* Effect.uninterruptible(engine.step(print))
        return
      }
      yield* engine.step(print).pipe(
        Effect.catchCause((cause) =>
          Effect.logError(`cycle failed; retrying in ${Duration.format(config.interval)}`, Cause.squash(cause))
        ),
        Effect.uninterruptible
      )
      yield* Effect.sleep(config.interval)
    }
  })
  return loop.pipe(Effect.provide(layers), Effect.provideService(Logger.LogToStderr, true))
}

const badInput = (message: string) =>
  Console.error(`chainquery-watcher: ${message}`).pipe(Effect.andThen(Effect.fail(new BadInput({ message }))))

const wallet = Flag.String("wallet").pipe(
  Flag.withMetavar("SPEC"),
  Flag.withDescription(
    `A wallet to watch (repeatable): ${WalletSpec.syntax}. Valid chains: ${WalletSpec.validChains}. ` +
      "Example: --wallet eth,polygon:0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed --wallet aptos:0x1"
  ),
  Flag.atLeast(0)
)

const walletsFile = Flag.String("wallets-file").pipe(
  Flag.withMetavar("PATH"),
  Flag.withDescription(
    "A text file of wallet specs, one per line; '#' starts a comment, blank lines are ignored. Example: --wallets-file wallets.txt"
  ),
  Flag.optional
)

const interval = Flag.String("interval").pipe(
  Flag.withMetavar("DURATION"),
  Flag.withDescription("Time between polling cycles (default 10s). Example: --interval 30s, --interval 500ms, --interval 2m"),
  Flag.withDefault("10s"),
  Flag.mapTryCatch(parseInterval, (error) => error instanceof Error ? error.message : String(error))
)

const once = Flag.Boolean("once").pipe(
  Flag.withDescription("Run one polling cycle, print what changed since the last run and exit. Example: --once"),
  Flag.withDefault(false)
)

const format = Flag.Literals("format", ["pretty", "json"]).pipe(
  Flag.withDescription(
    "Output format: 'pretty' (aligned lines, coloured on a terminal) or 'json' (NDJSON, one event per line). Default pretty. Example: --format json"
  ),
  Flag.withDefault("pretty")
)

const state = Flag.String("state").pipe(
  Flag.withMetavar("PATH"),
  Flag.withDescription(
    "SQLite file keeping checkpoints between runs (created if missing; default ./chainquery-watcher.db). Example: --state /var/lib/watcher.db"
  ),
  Flag.withDefault("./chainquery-watcher.db")
)

const confirmations = Flag.Int("confirmations").pipe(
  Flag.withMetavar("N"),
  Flag.withDescription(
    "Only read EVM blocks at least N blocks deep (default 0: read the newest block and follow reorganisations). Example: --confirmations 3"
  ),
  Flag.withDefault(0),
  Flag.mapTryCatch((n) => {
    if (n < 0) throw new Error(`--confirmations must be 0 or more, got ${n}`)
    return n
  }, (error) => error instanceof Error ? error.message : String(error))
)

const strategy = Flag.Literals("strategy", ["auto", "block-scan", "per-wallet"]).pipe(
  Flag.withDescription(
    "How EVM wallets are polled: 'block-scan' (one listing per new block), 'per-wallet' (one listing per wallet) or 'auto' (the cheaper per chain and cycle). Default auto. Example: --strategy per-wallet"
  ),
  Flag.withDefault("auto")
)

const evmBaseUrl = Flag.String("evm-base-url").pipe(
  Flag.withMetavar("URL"),
  Flag.withDescription(
    "Base URL of the EVM API (without /api/v2.2); default: the production service. Example: --evm-base-url http://127.0.0.1:4000"
  ),
  Flag.optional
)

const ledgerBaseUrl = Flag.String("ledger-base-url").pipe(
  Flag.withMetavar("URL"),
  Flag.withDescription(
    "Base URL of the Aptos mainnet API; default: the production service. Example: --ledger-base-url http://127.0.0.1:4000/aptos/mainnet"
  ),
  Flag.optional
)

const ledgerTestnetBaseUrl = Flag.String("ledger-testnet-base-url").pipe(
  Flag.withMetavar("URL"),
  Flag.withDescription(
    "Base URL of the Aptos testnet API; default: the production service. Example: --ledger-testnet-base-url http://127.0.0.1:4000/aptos/testnet"
  ),
  Flag.optional
)

const apiKey = Flag.Redacted("api-key").pipe(
  Flag.withMetavar("KEY"),
  Flag.withDescription(
    "The service's API key; when absent, the MORALIS_API_KEY environment variable. Never printed. Example: --api-key $KEY"
  ),
  Flag.optional
)

const optionalString = (option: Option.Option<string>): string | undefined => Option.getOrUndefined(option)

const demoCommand = Command.make(
  "demo",
  {},
  Effect.fnUntraced(function*() {
    yield* Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const busiest = (chain: Chain.ChainId, n: number): ReadonlyArray<string> =>
        [...sim.world.evm.chain(chain).transfersByWallet.entries()]
          .toSorted((a, b) => b[1].length - a[1].length)
          .slice(0, n)
          .map(([address]) => address)
      const specs = [
        ...busiest("0x1", 3).map((address) => `eth:${address}`),
        ...busiest("0x89", 3).map((address) => `polygon:${address}`),
        ...sim.world.aptos.mainnet.sampleWallets(3).map((address) => `aptos:${address}`)
      ]
      const wallets = yield* WalletSpec.parseAll(specs)
      yield* Effect.logInfo(`demo: a simulator at ${sim.url}; press Ctrl-C to stop`)
      yield* run({
        wallets,
        interval: Duration.seconds(2),
        once: false,
        format: "pretty",
        state: ":memory:",
        confirmations: 0,
        strategy: "auto",
        apiKey: Redacted.make(sim.apiKey),
        evmBaseUrl: sim.evmUrl,
        ledgerBaseUrl: sim.ledgerUrl.mainnet,
        ledgerTestnetBaseUrl: sim.ledgerUrl.testnet
      })
    }).pipe(
      Effect.provide(Simulator.layer({ seed: 42, blockTime: "2 seconds", indexing: false })),
      Effect.provideService(Logger.LogToStderr, true)
    )
  })
).pipe(
  Command.withDescription(
    "Start a simulator in-process and watch a few busy wallets on eth, polygon and Aptos mainnet (every 2s, pretty output; no key or network needed)."
  ),
  Command.withExamples([{ command: "chainquery-watcher demo", description: "Watch the demo wallets until Ctrl-C" }])
)

/**
 * The `chainquery-watcher` command, with its `demo` subcommand.
 *
 * @example
 * ```ts
 * import { NodeRuntime, NodeServices } from "@effect/platform-node"
 * import { Effect } from "effect"
 * import { Command } from "effect/cli"
 * import { Cli } from "@chainquery/watcher"
 *
 * Command.run(Cli.command, { version: "0.1.0" }).pipe(Effect.provide(NodeServices.layer), NodeRuntime.runMain)
 * ```
 * @since 0.1.0
 */
export const command = Command.make(
  "chainquery-watcher",
  {
    wallet,
    walletsFile,
    interval,
    once,
    format,
    state,
    confirmations,
    strategy,
    evmBaseUrl,
    ledgerBaseUrl,
    ledgerTestnetBaseUrl,
    apiKey
  },
  Effect.fnUntraced(function*(flags) {
    const fromFlags = yield* WalletSpec.parseAll(flags.wallet).pipe(
      Effect.catchTag("InvalidWalletSpec", (error) => badInput(error.message))
    )
    const fromFile = Option.isSome(flags.walletsFile)
      ? yield* WalletSpec.readFile(flags.walletsFile.value).pipe(
        Effect.catchTag("InvalidWalletSpec", (error) => badInput(error.message))
      )
      : []
    const wallets = [...fromFlags, ...fromFile]
    if (wallets.length === 0) {
      return yield* badInput(`no wallets to watch: give --wallet SPEC (${WalletSpec.syntax}) or --wallets-file PATH`)
    }
    const env = process.env["MORALIS_API_KEY"]
    const key = Option.isSome(flags.apiKey)
      ? flags.apiKey.value
      : env !== undefined && env !== ""
      ? Redacted.make(env)
      : undefined
    if (key === undefined) {
      return yield* badInput("no API key: give --api-key KEY or set the MORALIS_API_KEY environment variable")
    }
    yield* run({
      wallets,
      interval: flags.interval,
      once: flags.once,
      format: flags.format,
      state: flags.state,
      confirmations: flags.confirmations,
      strategy: flags.strategy,
      apiKey: key,
      evmBaseUrl: optionalString(flags.evmBaseUrl),
      ledgerBaseUrl: optionalString(flags.ledgerBaseUrl),
      ledgerTestnetBaseUrl: optionalString(flags.ledgerTestnetBaseUrl)
    })
  })
).pipe(
  Command.withDescription(
    "Poll wallets through chainquery and print what changed: NFT transfers, trades, DeFi position changes and Aptos transfers."
  ),
  Command.withExamples([
    {
      command: "chainquery-watcher --wallet eth:0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed --interval 30s",
      description: "Watch one wallet on Ethereum every 30 seconds"
    },
    {
      command: "chainquery-watcher --wallets-file wallets.txt --once --format json",
      description: "One cycle over the wallets of a file, as NDJSON"
    },
    { command: "chainquery-watcher demo", description: "The demo against an in-process simulator" }
  ]),
  Command.withSubcommands([demoCommand])
)
