/**
 * The demo: the watcher against an in-process simulator, no key, no network, no set-up. The
 * world is lively (a block every 2 s, some blocks indexed late, collections `SYNCING` at first)
 * and the demo reorganises eth every 12 s at a recent block where a watched wallet moved an NFT,
 * so that every kind of event shows within a minute. It shows one clock: every line's time is the
 * simulated time of its block (DeFi changes and holdings included, which the watcher would
 * otherwise stamp with the moment it read them, or not at all), under a line naming the columns.
 *
 * @since 0.1.0
 */
import type { Chain } from "@chainquery/schema"
import { Simulator } from "@chainquery/simulator"
import { DateTime, Duration, Effect, Logger, Redacted, Schedule } from "effect"
import { Command } from "effect/cli"
import * as Output from "./Output.js"
import * as Runner from "./Runner.js"
import { WalletSpec } from "@chainquery/watch"

type Sim = Simulator.Simulator["Service"]

const busiest = (sim: Sim, chain: Chain.ChainId, n: number): ReadonlyArray<string> =>
  [...sim.world.evm.chain(chain).transfersByWallet.entries()]
    .toSorted((a, b) => b[1].length - a[1].length)
    .slice(0, n)
    .map(([address]) => address)

/** The simulated time of a block of one of the simulator's EVM chains. */
const simulatedTime = (sim: Sim): Output.BlockTime => (chain, blockNumber) => {
  const simulated = sim.world.evm.chains.get(chain)
  return simulated === undefined ? undefined : DateTime.makeUnsafe(simulated.timestampOf(Number(blockNumber)))
}

/**
 * Reorganises eth from the newest block 2 to 4 blocks deep in which a watched wallet moved an NFT
 * (the watcher has read it by then), if there is one.
 */
const reorganise = (sim: Sim, watched: ReadonlySet<string>) =>
  Effect.gen(function*() {
    const chain = sim.world.evm.chain("0x1")
    const head = chain.head
    const moved = chain.transfers
      .slice(-400)
      .filter((t) => t.block >= head - 4 && t.block <= head - 2 && (watched.has(t.from) || watched.has(t.to)))
      .at(-1)
    if (moved === undefined) return
    const from = yield* sim.reorg("0x1", head - moved.block + 1)
    yield* Effect.logInfo(`demo: eth reorganised from block ${from}`)
  })

export const demo = Command.make(
  "demo",
  {},
  Effect.fnUntraced(function*() {
    yield* Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const eth = busiest(sim, "0x1", 4)
      const specs = [
        ...eth.map((address) => `eth:${address}`),
        ...busiest(sim, "0x89", 3).map((address) => `polygon:${address}`),
        ...sim.world.aptos.mainnet.sampleWallets(6).map((address) => `aptos:${address}`)
      ]
      const wallets = yield* WalletSpec.parseAll(specs)
      yield* Effect.logInfo(`demo: a simulator at ${sim.url}; press Ctrl-C to stop`)
      yield* Effect.sync(() => process.stdout.write(`${Output.header}\n`))
      yield* reorganise(sim, new Set(eth)).pipe(
        Effect.delay(Duration.seconds(12)),
        Effect.repeat(Schedule.forever),
        Effect.forkScoped
      )
      yield* Runner.run({
        wallets,
        interval: Duration.seconds(2),
        once: false,
        format: "pretty",
        state: ":memory:",
        confirmations: 0,
        strategy: "auto",
        watch: ["transfers", "trades", "defi", "holdings"],
        defiThreshold: 0.02,
        defiInterval: Duration.seconds(6),
        apiKey: Redacted.make(sim.apiKey),
        evmBaseUrl: sim.evmUrl,
        ledgerBaseUrl: sim.ledgerUrl.mainnet,
        ledgerTestnetBaseUrl: sim.ledgerUrl.testnet,
        blockTime: simulatedTime(sim)
      })
    }).pipe(
      Effect.scoped,
      Effect.provide(Simulator.layer({
        seed: 42,
        blockTime: "2 seconds",
        // 75 blocks of history: the demo starts where the world's DeFi positions open and close.
        history: 75,
        indexing: { lagProbability: 0.05, syncBlocks: 4 }
      })),
      Effect.provideService(Logger.LogToStderr, true)
    )
  })
).pipe(
  Command.withDescription(
    "Start a simulator in-process (a block every 2s, a reorganisation of eth every 12s) and watch a few busy wallets on eth, polygon and Aptos mainnet: transfers, trades, DeFi positions and holdings, in pretty output. No key or network needed; Ctrl-C stops it."
  ),
  Command.withExamples([{ command: "chainquery-watcher demo", description: "Watch the demo wallets until Ctrl-C" }])
)

