/**
 * Issue #18, reproduced deterministically: per-wallet polling reads its wallets concurrently, so
 * a reorganisation can land between two wallets' reads of the same cycle. Wallet A's listing shows
 * the new blocks, wallet B's the old ones; B notices the replacement a cycle later. The engine
 * once let A's noticing update the block's recorded hash, so that B, finding the new hash already
 * on record, took its new transfer in the replaced block for one it had printed: lost.
 *
 * Here the reorganisation is timed by the client itself (B's A2 answer comes back, the simulator
 * reorganises, then A's request goes out), against the simulator over real HTTP. The wallets are
 * picked on a twin simulator (same seed, same steps): A and B both have a transfer in a replaced
 * block of the new chain, B had none in that block before. Once the retractions are applied, what
 * was printed must be the ground truth of the new chain, B's transfer in the replaced block included.
 */
import { assert, describe, it } from "@effect/vitest"
import { EvmClient } from "@chainquery/evm-client"
import { Simulator } from "@chainquery/simulator"
import { Deferred, Effect, Layer } from "effect"
import { FetchHttpClient } from "effect/http"
import { Engine, StateStore, type WatchedWallet, type WatchEvent } from "../src/index.js"
import { evmTruth, positionOf, type Sim } from "./support/engineHarness.js"
import { standing } from "./support/standing.js"
import { afterReorg } from "./support/twin.js"

const world = { seed: "reorg-noticed-later", indexing: false, chains: ["0x1"], wallets: 30, history: 20 } as const
const chain = "0x1"
/**
 * `before`: blocks advanced between the baseline and the cycle that records them; `between`: more
 * blocks before the cycle whose reads the reorganisation of `depth` splits. With confirmations,
 * the split reads are of new blocks (no window is read again). `auto` polls its two wallets one
 * by one only when more than two blocks are new, so its split cycle has four, and a
 * reorganisation deep enough to reach the recorded ones.
 */
const cases = [
  { strategy: "per-wallet", confirmations: 0, before: 4, between: 0, depth: 2 },
  { strategy: "auto", confirmations: 0, before: 4, between: 4, depth: 6 },
  { strategy: "per-wallet", confirmations: 2, before: 4, between: 4, depth: 5 }
] as const

const head = (sim: Sim) => BigInt(sim.world.evm.chain(chain).head)

/**
 * On a twin simulator: A and B with a transfer in the same replaced block of the new chain (one
 * the split cycle reads), B with none there before.
 */
const pickWallets = (advance: number, depth: number, confirmations: number) =>
  Effect.gen(function*() {
    for (const replaced of yield* afterReorg(world, chain, advance, depth)) {
      if (replaced.block > replaced.head - BigInt(confirmations)) continue
      const b = replaced.newcomers[0]
      const a = replaced.wallets.find((wallet) => wallet !== b)
      if (b !== undefined && a !== undefined) return { a, b, block: replaced.block }
    }
    return yield* Effect.die(new Error(`seed ${world.seed}: no block of the new chain has two wallets, one of them new to it`))
  })

/**
 * An `EvmClient` over the simulator whose next cycle, once `arm` is called, lets B's A2 request
 * through first, reorganises the chain, and only then sends A's.
 */
const trappedClient = (a: string, b: string, depth: number) => {
  let armed: Deferred.Deferred<void> | undefined
  const layer = Layer.effect(
    EvmClient.EvmClient,
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const real = yield* EvmClient.make({ baseUrl: sim.evmUrl, apiKey: sim.apiKey })
      const getWalletNFTTransfers: typeof real.getWalletNFTTransfers = (params) =>
        Effect.gen(function*() {
          const trap = armed
          if (trap === undefined) return yield* real.getWalletNFTTransfers(params)
          const address = params.address.toLowerCase()
          if (address === a) {
            yield* Deferred.await(trap)
            return yield* real.getWalletNFTTransfers(params)
          }
          if (address !== b) return yield* real.getWalletNFTTransfers(params)
          const page = yield* real.getWalletNFTTransfers(params)
          yield* sim.reorg(chain, depth)
          armed = undefined
          yield* Deferred.succeed(trap, undefined)
          return page
        })
      return { ...real, getWalletNFTTransfers }
    })
  ).pipe(Layer.provide(FetchHttpClient.layer))
  const arm = Effect.map(Deferred.make<void>(), (trap) => {
    armed = trap
  })
  return { layer, arm }
}


describe("a reorganisation two wallets notice in different cycles", () => {
  for (const { before, between, confirmations, depth, strategy } of cases) {
    it.effect(`${strategy}, confirmations ${confirmations}: every replaced block is read again for every wallet that had passed it`, () =>
      Effect.gen(function*() {
        const { a, b, block } = yield* pickWallets(before + between, depth, confirmations)
        const trap = trappedClient(a, b, depth)
        return yield* Effect.gen(function*() {
          const sim = yield* Simulator.Simulator
          const wallets: Array<WatchedWallet.EvmWallet> = [a, b].map((address) => ({ family: "evm", chain, address }))
          const engine = yield* Engine.make({ wallets, strategy, confirmations, watch: ["transfers"] })
          yield* engine.step(() => Effect.void)
          const baseline = (yield* positionOf(wallets)).min
          const printed: Array<WatchEvent.WatchEvent> = []
          const step = Effect.flatMap(engine.step(() => Effect.void), (events) => Effect.sync(() => printed.push(...events)))
          for (let i = 0; i < before; i++) yield* sim.advance(1)
          yield* step
          for (let i = 0; i < between; i++) yield* sim.advance(1)
          const reorgs = sim.world.evm.reorgs.length
          yield* trap.arm
          yield* step
          assert.strictEqual(sim.world.evm.reorgs.length, reorgs + 1, "the reorganisation came between the two wallets' reads")
          yield* step
          yield* step
          const truth = yield* evmTruth(sim, chain, wallets, baseline, head(sim) - BigInt(confirmations))
          const theirs = truth.filter((event) => event.wallet === b && "blockNumber" in event && event.blockNumber === block)
          assert.isAbove(theirs.length, 0)
          const ids = standing(printed).map((event) => event.id)
          for (const event of theirs) assert.include(ids, event.id, `B's transfer in replaced block ${block} was never printed`)
          assert.deepStrictEqual(ids.toSorted(), truth.map((event) => event.id).toSorted())
          assert.strictEqual(new Set(ids).size, ids.length, "an event stands twice")
        }).pipe(
          Effect.provide(Layer.mergeAll(trap.layer, StateStore.layerMemory).pipe(Layer.provideMerge(Simulator.layer(world))))
        )
      }), 60_000)
  }
})
