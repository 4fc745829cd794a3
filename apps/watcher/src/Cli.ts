/**
 * The `chainquery-watcher` command line: flags and wallets checked before anything starts (bad
 * input is a `BadInput`, exit code 2), then the polling loop of `Runner`; and the `demo`
 * subcommand.
 *
 * @since 0.1.0
 */
import { Duration, Effect, Option, Result } from "effect"
import { Command } from "effect/cli"
import { demo } from "./Demo.js"
import * as Serve from "./Serve.js"
import * as Flags from "./internal/flags.js"
import { apiKeyOf, refusedBaseUrl } from "./internal/serviceAccess.js"
import { badInput } from "./internal/badInput.js"
import * as Runner from "./Runner.js"
import { type Backfill, type Engine, EngineError, WalletSpec } from "@chainquery/watch"

export { BadInput } from "./internal/badInput.js"

/**
 * Parses a duration such as `10s`, `2s`, `500ms`, `1m`, `1h`, `1.5 seconds` (as `--interval`
 * does: the grammar of `DurationInput` in `@chainquery/schema`, at least 100ms); throws an `Error`
 * worded as the CLI words it, e.g. `--interval must be at least 100ms, got "50ms"`.
 *
 * @example
 * ```ts
 * import { Cli } from "@chainquery/watcher"
 *
 * Cli.parseInterval("2s") // Duration of 2 seconds
 * Cli.parseInterval("1h") // Duration of 1 hour
 * ```
 * @since 0.1.0
 */
export const parseInterval: (text: string) => Duration.Duration = Flags.parseInterval

const optionalString = (option: Option.Option<string>): string | undefined => Option.getOrUndefined(option)

/**
 * The `chainquery-watcher` command, with its `demo` subcommand.
 *
 * @example
 * ```ts
 * import { NodeRuntime, NodeServices } from "@effect/platform-node"
 * import { Effect } from "effect"
 * import { Command } from "effect/cli"
 * import { Cli, Version } from "@chainquery/watcher"
 *
 * Command.run(Cli.command, { version: Version.version }).pipe(Effect.provide(NodeServices.layer), NodeRuntime.runMain)
 * ```
 * @since 0.1.0
 */
export const command = Command.make(
  "chainquery-watcher",
  {
    wallet: Flags.wallet,
    walletsFile: Flags.walletsFile,
    interval: Flags.interval,
    once: Flags.once,
    format: Flags.format,
    state: Flags.state,
    confirmations: Flags.confirmations,
    strategy: Flags.strategy,
    watch: Flags.watch,
    defiThreshold: Flags.defiThreshold,
    defiInterval: Flags.defiInterval,
    backfill: Flags.backfill,
    ...Flags.serviceAccess
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
    const key = apiKeyOf(flags)
    if (Result.isFailure(key)) return yield* badInput(key.failure)
    const refused = refusedBaseUrl(flags)
    if (refused !== undefined) return yield* badInput(refused)
    yield* Runner.run({
      wallets,
      interval: flags.interval,
      once: flags.once,
      format: flags.format,
      state: flags.state,
      confirmations: flags.confirmations,
      strategy: flags.strategy satisfies Engine.Strategy,
      watch: flags.watch satisfies ReadonlyArray<Engine.Watch>,
      defiThreshold: flags.defiThreshold,
      defiInterval: flags.defiInterval,
      backfill: Option.getOrUndefined<Backfill.From>(flags.backfill),
      requestTimeout: flags.requestTimeout,
      computeUnits: Option.getOrUndefined(flags.computeUnits),
      apiKey: key.success,
      evmBaseUrl: optionalString(flags.evmBaseUrl),
      ledgerBaseUrl: optionalString(flags.ledgerBaseUrl),
      ledgerTestnetBaseUrl: optionalString(flags.ledgerTestnetBaseUrl),
      allowInsecureHttp: flags.allowInsecureHttp
    }).pipe(
      // A key the data service refuses is the operator's to fix: bad input (exit 2), said once.
      Effect.catch((error) => {
        const keyRefused = EngineError.keyRefusal(error)
        return keyRefused === undefined ? Effect.fail(error) : badInput(`${keyRefused}: run again with the right key (--api-key-file PATH or MORALIS_API_KEY)`)
      })
    )
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
    {
      command: "chainquery-watcher --wallet eth:0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed --backfill 2026-11-01",
      description: "Print the wallet's history since 1 November 2026 (progress on stderr), then watch it"
    },
    { command: "chainquery-watcher demo", description: "The demo against an in-process simulator" },
    {
      command: "chainquery-watcher serve --api-token-file ./api-token",
      description: "The watcher as a service with webhooks (see serve --help); the API key from MORALIS_API_KEY or --api-key-file"
    }
  ]),
  Command.withSubcommands([demo, Serve.command])
)
