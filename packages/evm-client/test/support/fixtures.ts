/**
 * Test support: a simulator with an EvmClient pointed at it, extra clients with their own options,
 * the simulator's counters, and ground truth read from its world to pick inputs with data.
 */
import type { Errors } from "@chainquery/schema"
import { Simulator } from "@chainquery/simulator"
import { Effect, Layer } from "effect"
import { FetchHttpClient } from "effect/http"
import { EvmClient } from "../../src/index.js"

export type Sim = Simulator.Simulator["Service"]

/** The part of the simulator's stats snapshot the tests read. */
export interface Stats {
  readonly requests: { readonly total: number; readonly byOperation: Readonly<Record<string, number>> }
  readonly faults: Readonly<Record<string, number>> & { readonly total: number }
  readonly rateLimited: number
}

/** The simulator's counters now. */
export const stats = (sim: Sim): Effect.Effect<Stats> => sim.stats as Effect.Effect<Stats>

/**
 * The two ways a client sends: straight on `fetch` (what `EvmClient.layer` gives, the one most
 * tests use) and through an `HttpClient`, which also has a span per request with its headers.
 */
export const clientWays: ReadonlyArray<{
  readonly name: string
  readonly make: (options: EvmClient.Options) => Effect.Effect<EvmClient.Service, Errors.InvalidConfig>
  readonly clientSpans: boolean
}> = [
  { name: "on fetch", make: EvmClient.makeOnFetch, clientSpans: false },
  { name: "on an HttpClient", make: (options) => EvmClient.make(options).pipe(Effect.provide(FetchHttpClient.layer)), clientSpans: true }
]

/**
 * A layer with a simulator started on a free port and an `EvmClient` pointed at it (straight on
 * `fetch`, as `EvmClient.layer` makes it; real HTTP), both available to the tests.
 */
export const simulatorWithClient = (
  simulator: Simulator.Options,
  client: Partial<EvmClient.Options> = {}
): Layer.Layer<Simulator.Simulator | EvmClient.EvmClient, Error> =>
  Layer.effect(
    EvmClient.EvmClient,
    Effect.flatMap(Simulator.Simulator, (sim) => EvmClient.makeOnFetch({ baseUrl: sim.evmUrl, apiKey: sim.apiKey, ...client }))
  ).pipe(Layer.provideMerge(Simulator.layer(simulator)))

/** Another client on the same simulator, with its own options (a wrong key, a small body cap...). */
export const clientOn = (sim: Sim, options: Partial<EvmClient.Options> = {}): Effect.Effect<EvmClient.Service, Errors.InvalidConfig> =>
  EvmClient.makeOnFetch({ baseUrl: sim.evmUrl, apiKey: sim.apiKey, ...options })

/** The key of the longest list in a map of indexes. */
const busiestKey = (map: ReadonlyMap<string, ReadonlyArray<number>>): string =>
  [...map].toSorted((a, b) => b[1].length - a[1].length)[0]![0]

/**
 * Inputs with data on a chain: the busiest wallet, token (contract + id) and trader, a block
 * with transfers, and the chain itself for ground truth.
 */
export const busiest = (sim: Sim, chainId: "0x1" | "0x89" = "0x1") => {
  const chain = sim.world.evm.chain(chainId)
  const [contract, tokenId] = busiestKey(chain.transfersByToken).split(":") as [string, string]
  let block = chain.head
  while (chain.block(block)!.transferEnd === chain.block(block)!.transferStart) block--
  return {
    chain,
    wallet: busiestKey(chain.transfersByWallet),
    contract,
    tokenId: BigInt(tokenId),
    trader: busiestKey(chain.tradesByWallet),
    block
  }
}

/** Milliseconds taken by an effect, with its result. */
export const timed = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<readonly [number, A], E, R> =>
  Effect.gen(function*() {
    const start = Date.now()
    const value = yield* effect
    return [Date.now() - start, value] as const
  })
