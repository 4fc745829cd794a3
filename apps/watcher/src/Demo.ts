/**
 * The demo: the watcher against an in-process simulator, no key, no network, no set-up.
 *
 * @since 0.1.0
 */
import { Chain } from "@chainquery/schema"
import { Simulator } from "@chainquery/simulator"
import { Duration, Effect, Logger, Redacted } from "effect"
import { Command } from "effect/cli"
import * as Runner from "./Runner.js"
import * as WalletSpec from "./WalletSpec.js"

/**
 * The `demo` subcommand: a simulator started in-process with a lively world (a block every 2 s),
 * a few busy wallets on eth, polygon and Aptos mainnet, watched through the real clients over
 * HTTP on 127.0.0.1 with pretty output until Ctrl-C.
 *
 * @example
 * ```ts
 * import { Command } from "effect/cli"
 * import { Demo } from "@chainquery/watcher"
 *
 * const cli = Command.make("mine").pipe(Command.withSubcommands([Demo.demo]))
 * ```
 * @since 0.1.0
 */
export const demo = Command.make(
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
      yield* Runner.run({
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

