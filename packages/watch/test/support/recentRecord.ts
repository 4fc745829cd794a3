/**
 * Test support for the reorganisation code read on its own (`internal/cycle/deepReorg.ts`,
 * `internal/cycle/witness.ts`): a simulator with one chain, an `EvmClient` over real HTTP, and the
 * record of recent blocks the engine would have written, built by reading each block as a cycle
 * does.
 */
import { EvmClient } from "@chainquery/evm-client"
import { Simulator } from "@chainquery/simulator"
import { Effect, Layer, Logger } from "effect"
import { FetchHttpClient } from "effect/http"
import { readAgain, type WalkInput } from "../../src/internal/cycle/deepReorg.js"
import { byAddressOf, nothingRecorded, type Printed, type Recent, type Tracked } from "../../src/internal/cycle/recentBlocks.js"
import { allEvm, type Sim } from "./engineHarness.js"

export const chain = "0x1"

/**
 * A simulator of one chain with history and no indexing lag (no NFT transfers at `activityScale` 0),
 * and an `EvmClient` on it. With `indexing` given, the same world (same seed) served with that lag.
 */
export const simulated = (seed: string, activityScale = 1, indexing: Simulator.Options["indexing"] = false) =>
  Layer.effect(EvmClient.EvmClient, Effect.flatMap(Simulator.Simulator, (sim) => EvmClient.make({ baseUrl: sim.evmUrl, apiKey: sim.apiKey }))).pipe(
    Layer.provide(FetchHttpClient.layer),
    Layer.provideMerge(Simulator.layer({ seed, indexing, chains: [chain], wallets: 30, history: 40, activityScale }))
  )

export const headOf = (sim: Sim) => BigInt(sim.world.evm.chain(chain).head)

/** Every wallet of the world, covering every block up to `position`. */
export const everyWallet = (sim: Sim, position: bigint): Array<Tracked> =>
  allEvm(sim, chain).map((wallet) => ({ wallet, position, since: 0n }))

/** The input of a walk over `recent` for the tracked wallets. */
export const walkInput = (client: EvmClient.EvmClient["Service"], tracked: ReadonlyArray<Tracked>, recent: Recent): WalkInput => ({
  client,
  chain,
  recent,
  byAddress: byAddressOf(tracked)
})

/** The record of blocks `[from, to]` as a cycle writes it: each block's hash and the events printed from it. */
export const recordOf = (client: EvmClient.EvmClient["Service"], tracked: ReadonlyArray<Tracked>, from: bigint, to: bigint) =>
  Effect.gen(function*() {
    const hashes = new Map<bigint, string>()
    const printed = new Map<bigint, ReadonlyArray<Printed>>()
    for (let block = from; block <= to; block++) {
      const read = yield* readAgain(walkInput(client, tracked, nothingRecorded), block)
      if (read === undefined) return yield* Effect.die(new Error(`block ${block} is not indexed`))
      hashes.set(block, read.result.block.hash)
      if (read.result.blockEvents.events.length > 0) printed.set(block, read.result.blockEvents.events)
    }
    return { hashes, printed } satisfies Recent
  })

/** The error lines logged while `body` runs, and its result. */
export const collectingErrors = <A, E, R>(body: (errors: ReadonlyArray<string>) => Effect.Effect<A, E, R>) => {
  const errors: Array<string> = []
  const logger = Logger.make(({ logLevel, message }) => {
    if (logLevel === "Error") errors.push((Array.isArray(message) ? message : [message]).map(String).join(" "))
  })
  return body(errors).pipe(Effect.provide(Logger.layer([logger])))
}
