/**
 * Found by the soak (issue #18): a reorganisation that lands between two reads of one block
 * scanning cycle. Reads take time (four at a time, with retries), so one block of the cycle can
 * be read on the old chain and another on the new one; both went on record, and the next checks
 * trusted the one read after the reorganisation for the other too:
 *
 * - with confirmations, the next cycle's probe read the newest recorded block (read after the
 *   reorganisation, so unchanged) and took the one below it, read before, for unchanged: its old
 *   events stood, the new ones were never printed;
 * - without, a window read again was split: its top block was read before, the block below it
 *   after, and the blocks made meanwhile moved the window past the stale top block.
 *
 * Each cycle now reads a witness block (at or above every block it reads) first and again last,
 * and drops its reads when the witness changed. Here the client itself times the reorganisation
 * (over real HTTP, against the simulator); once the retractions are applied, what was printed
 * must be the ground truth of the new chain.
 */
import { assert, describe, it } from "@effect/vitest"
import { EvmClient } from "@chainquery/evm-client"
import { Simulator } from "@chainquery/simulator"
import { Deferred, Effect, Layer } from "effect"
import { FetchHttpClient } from "effect/http"
import { Engine, StateStore, type WatchEvent } from "../src/index.js"
import { busiestEvm, evmTruth, positionOf, type Sim } from "./support/engineHarness.js"
import { standing } from "./support/standing.js"

const world = { seed: "reorg-mid-cycle", indexing: false, chains: ["0x1"], wallets: 40, history: 20 } as const
const chain = "0x1"
const head = (sim: Sim) => BigInt(sim.world.evm.chain(chain).head)

/** When the trap springs, relative to the baseline `B`: which full A1 read, and what it does. */
interface Trap {
  /** The read that springs it. */
  readonly on: (baseline: bigint) => bigint
  /** The reorganisation comes before that read is sent (it reads the new chain) or after it answers. */
  readonly reorg: "before" | "after"
  /** A read held until the trap has sprung (so that it reads the new chain). */
  readonly hold?: (baseline: bigint) => bigint
  readonly depth: number
  /** Blocks made right after the reorganisation. */
  readonly grow: number
}

/**
 * An `EvmClient` over the simulator whose full A1 reads (not the one-record probes), once `arm`
 * is called, spring `trap` in the next cycle.
 */
const trappedClient = (trap: Trap) => {
  let armed: { readonly baseline: bigint; readonly sprung: Deferred.Deferred<void> } | undefined
  const layer = Layer.effect(
    EvmClient.EvmClient,
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const real = yield* EvmClient.make({ baseUrl: sim.evmUrl, apiKey: sim.apiKey })
      const spring = (sprung: Deferred.Deferred<void>) =>
        Effect.gen(function*() {
          armed = undefined
          yield* sim.reorg(chain, trap.depth)
          if (trap.grow > 0) yield* sim.advance(trap.grow)
          yield* Deferred.succeed(sprung, undefined)
        })
      const getNFTTransfersByBlock: typeof real.getNFTTransfersByBlock = (params, options) =>
        Effect.gen(function*() {
          const set = armed
          if (set === undefined || params.limit === 1) return yield* real.getNFTTransfersByBlock(params, options)
          const block = BigInt(params.block)
          if (trap.hold !== undefined && block === trap.hold(set.baseline)) {
            yield* Deferred.await(set.sprung)
            return yield* real.getNFTTransfersByBlock(params, options)
          }
          if (block !== trap.on(set.baseline)) return yield* real.getNFTTransfersByBlock(params, options)
          if (trap.reorg === "before") yield* spring(set.sprung)
          const page = yield* real.getNFTTransfersByBlock(params, options)
          if (trap.reorg === "after") yield* spring(set.sprung)
          return page
        })
      return { ...real, getNFTTransfersByBlock }
    })
  ).pipe(Layer.provide(FetchHttpClient.layer))
  const arm = (baseline: bigint) =>
    Effect.map(Deferred.make<void>(), (sprung) => {
      armed = { baseline, sprung }
    })
  return { layer, arm }
}

const cases = [
  {
    title: "confirmations 1: a block read before the reorganisation below one read after it",
    confirmations: 1,
    // The baseline B is one block below the head; 3 blocks later B+1..B+3 are new (B+4 is the
    // head): B+1 and B+2 are read one at a time, then the chain is reorganised (B+2..B+4
    // replaced) and B+3 is read on the new chain.
    before: 0,
    advance: 3,
    trap: { on: (b) => b + 3n, reorg: "before", depth: 3, grow: 0 }
  },
  {
    title: "confirmations 0: a window read again split by the reorganisation, then blocks past the window",
    confirmations: 0,
    // B+1..B+4 are on record; the next cycle reads them again: B+4 answers (old chain), the chain
    // is reorganised (B+3, B+4 replaced) and grows by 8, then B+3 is read (new chain).
    before: 4,
    advance: 0,
    trap: { on: (b) => b + 4n, reorg: "after", hold: (b) => b + 3n, depth: 2, grow: 8 }
  }
] satisfies ReadonlyArray<{ title: string; confirmations: number; before: number; advance: number; trap: Trap }>

describe("a reorganisation in the middle of a block scanning cycle", () => {
  for (const { advance, before, confirmations, title, trap } of cases) {
    it.effect(title, () =>
      Effect.gen(function*() {
        const trapped = trappedClient(trap)
        return yield* Effect.gen(function*() {
          const sim = yield* Simulator.Simulator
          const wallets = busiestEvm(sim, chain, 8)
          const engine = yield* Engine.make({ wallets, strategy: "block-scan", confirmations, watch: ["transfers"] })
          yield* engine.step(() => Effect.void)
          const baseline = (yield* positionOf(wallets)).min
          const printed: Array<WatchEvent.WatchEvent> = []
          const step = Effect.flatMap(engine.step(() => Effect.void), (events) => Effect.sync(() => printed.push(...events)))
          if (before > 0) {
            yield* sim.advance(before)
            yield* step
          }
          if (advance > 0) yield* sim.advance(advance)
          const reorgs = sim.world.evm.reorgs.length
          yield* trapped.arm(baseline)
          yield* step
          assert.strictEqual(sim.world.evm.reorgs.length, reorgs + 1, "the trap sprang in the cycle")
          for (let i = 0; i < 3; i++) yield* step
          const truth = yield* evmTruth(sim, chain, wallets, baseline, head(sim) - BigInt(confirmations))
          // The replaced blocks hold events of these wallets on the new chain: the test can fail.
          const top = head(sim) - BigInt(trap.grow)
          const replaced = truth.filter((event) => "blockNumber" in event && event.blockNumber > top - BigInt(trap.depth) && event.blockNumber <= top)
          assert.isAbove(replaced.length, 0, "no event of these wallets in the replaced blocks")
          const ids = standing(printed).map((event) => event.id)
          assert.deepStrictEqual(ids.toSorted(), truth.map((event) => event.id).toSorted())
          assert.strictEqual(new Set(ids).size, ids.length, "an event stands twice")
        }).pipe(
          Effect.provide(Layer.mergeAll(trapped.layer, StateStore.layerMemory).pipe(Layer.provideMerge(Simulator.layer(world))))
        )
      }), 60_000)
  }
})
