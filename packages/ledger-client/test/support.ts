/**
 * Shared by the tests: a simulator on a free port, a mainnet client (`LedgerClient.LedgerClient`)
 * and a testnet client (`Testnet`) pointed at it over real HTTP, the simulator's sample data and
 * counters.
 */
import { Simulator } from "@chainquery/simulator"
import { Context, Effect, Layer } from "effect"
import { FetchHttpClient } from "effect/http"
import { LedgerClient } from "../src/index.js"

/** The testnet client. */
export class Testnet extends Context.Service<Testnet, LedgerClient.LedgerClient["Service"]>()("test/Testnet") {}

const mainnet = Layer.unwrap(Effect.gen(function*() {
  const sim = yield* Simulator.Simulator
  return LedgerClient.layer({ network: "mainnet", baseUrl: sim.ledgerUrl.mainnet, apiKey: sim.apiKey })
}))

const testnet = Layer.effect(
  Testnet,
  Effect.gen(function*() {
    const sim = yield* Simulator.Simulator
    return yield* LedgerClient.make({ network: "testnet", baseUrl: sim.ledgerUrl.testnet, apiKey: sim.apiKey })
  })
).pipe(Layer.provide(FetchHttpClient.layer))

/** The simulator and both clients. */
export const TestLayer = Layer.mergeAll(mainnet, testnet).pipe(
  Layer.provideMerge(Simulator.layer({ seed: 21, indexing: false, history: 30 }))
)

/** What `GET /__sim/sample?chain=aptos-<network>` lists. */
export interface Sample {
  readonly wallets: ReadonlyArray<string>
  readonly creators: ReadonlyArray<string>
  readonly collections: ReadonlyArray<string>
  readonly tokens: ReadonlyArray<string>
}

/** Wallets, creators, collections and tokens that exist on a network. */
export const sampleOf = (network: "mainnet" | "testnet") =>
  Effect.gen(function*() {
    const sim = yield* Simulator.Simulator
    return yield* Effect.promise(async () => {
      const response = await fetch(`${sim.url}/__sim/sample?chain=aptos-${network}`)
      return (await response.json()) as Sample
    })
  })

/** The part of the simulator's counters the tests read. */
export interface Stats {
  readonly requests: {
    readonly total: number
    readonly byNetwork: { readonly mainnet: number; readonly testnet: number }
    readonly byOperation: Readonly<Record<string, number>>
  }
  readonly faults: Readonly<Record<string, number>> & { readonly total: number }
}

/** The simulator's counters now. */
export const stats = Effect.flatMap(Simulator.Simulator, (sim) => sim.stats as Effect.Effect<Stats>)
