/**
 * `reorgCheck: "parent-hash"` (`internal/cycle/parentHashes.ts`), against the simulator over real
 * HTTP: at the head, a new block costs its transfers and its header (2
 * requests after a cycle that found none, 3 when the one before found a block too), a cycle that
 * finds none the next block's listing and the newest recorded one's hash (2); a burst is caught
 * up; a reorganisation, with or without new blocks, and one that lands between a block's
 * transfers and its header, leave the events standing that the new chain holds, each once.
 */
import { assert, describe, it } from "@effect/vitest"
import { EvmClient } from "@chainquery/evm-client"
import { Simulator } from "@chainquery/simulator"
import { Effect, Layer } from "effect"
import { FetchHttpClient } from "effect/http"
import { Engine, StateStore, type WatchEvent } from "../src/index.js"
import { busiestEvm, evmTruth, harness, positionOf, type Sim } from "./support/engineHarness.js"
import { standing } from "./support/standing.js"

const chain = "0x1"
const world = (seed: string) => ({ seed, indexing: false, chains: [chain], wallets: 40, history: 20, requestLog: 1_000 }) as const
const head = (sim: Sim) => BigInt(sim.world.evm.chain(chain).head)

/** What a cycle asked the service: headers (A6), one-record probes and listings of a block by number or by hash (A1). */
const kindOf = (path: string, query: string): string => {
  if (/\/block\/0x[0-9a-f]+\/nft\/transfers/i.test(path)) return "A1 by hash"
  if (/\/block\/\d+\/nft\/transfers/.test(path)) return new URLSearchParams(query).get("limit") === "1" ? "A1 probe" : "A1"
  if (/\/block\/\d+$/.test(path)) return "A6"
  return path
}

/** Whether a block of the simulated chain has NFT transfers (one without is read once more: by its header's hash, or its header for its hash). */
const hasTransfers = (sim: Sim, block: bigint): boolean => {
  const row = sim.world.evm.chain(chain).block(Number(block))
  return row !== undefined && row.transferEnd > row.transferStart
}

/** One engine by parent hashes over `wallets`: `cycle` commits and answers its events and what it asked. */
const chained = (sim: Sim, wallets: ReturnType<typeof busiestEvm>) =>
  Effect.gen(function*() {
    const engine = yield* Engine.make({ wallets, strategy: "block-scan", confirmations: 0, watch: ["transfers"], reorgCheck: "parent-hash" })
    const printed: Array<WatchEvent.WatchEvent> = []
    const cycle = Effect.gen(function*() {
      const seen = (yield* sim.requests).length
      const { batch, events } = yield* engine.cycle
      yield* engine.commit(batch)
      printed.push(...events)
      const asked = (yield* sim.requests).slice(seen).map((request) => kindOf(request.path.split("?")[0]!, request.path.split("?")[1] ?? "")).toSorted()
      return { events, asked }
    })
    return { cycle, printed }
  })


/** The world's 8 busiest wallets, watched by parent hashes, placed by a first cycle at `baseline`. */
const placed = Effect.gen(function*() {
  const sim = yield* Simulator.Simulator
  const wallets = busiestEvm(sim, chain, 8)
  const engine = yield* chained(sim, wallets)
  yield* engine.cycle
  return { sim, wallets, ...engine, baseline: (yield* positionOf(wallets)).min }
})

/** What was printed, retractions applied, is the new chain's truth after `baseline`, each event once. */
const standsAsTruth = (sim: Sim, wallets: ReturnType<typeof busiestEvm>, baseline: bigint, printed: ReadonlyArray<WatchEvent.WatchEvent>) =>
  Effect.gen(function*() {
    const truth = yield* evmTruth(sim, chain, wallets, baseline, head(sim))
    const ids = standing(printed).map((event) => event.id)
    assert.deepStrictEqual(ids.toSorted(), truth.map((event) => event.id).toSorted())
    assert.strictEqual(new Set(ids).size, ids.length, "an event stands twice")
  })

/**
 * An `EvmClient` over the simulator whose next header read (A6), once armed, reorganises the chain
 * (the new block replaced) before it is sent or after it answers.
 */
const trapped = (when: "before" | "after") => {
  let armed = false
  let sprung = 0
  const layer = Layer.effect(
    EvmClient.EvmClient,
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const real = yield* EvmClient.make({ baseUrl: sim.evmUrl, apiKey: sim.apiKey })
      const getBlock: typeof real.getBlock = (params, options) =>
        Effect.gen(function*() {
          if (!armed) return yield* real.getBlock(params, options)
          armed = false
          sprung++
          if (when === "before") yield* sim.reorg(chain, 1)
          const found = yield* real.getBlock(params, options)
          if (when === "after") yield* sim.reorg(chain, 1)
          return found
        })
      return { ...real, getBlock }
    })
  ).pipe(Layer.provide(FetchHttpClient.layer))
  return { layer, arm: Effect.sync(() => (armed = true)), sprung: () => sprung }
}

/** An `EvmClient` over the simulator whose header reads (A6) always fail. */
const headerless = Layer.effect(
  EvmClient.EvmClient,
  Effect.gen(function*() {
    const sim = yield* Simulator.Simulator
    const real = yield* EvmClient.make({ baseUrl: sim.evmUrl, apiKey: sim.apiKey })
    // A block that cannot be asked for: the client's own typed refusal, as a failed read would be.
    const getBlock: typeof real.getBlock = (params, options) => real.getBlock({ ...params, block: -1 }, options)
    return { ...real, getBlock }
  })
).pipe(Layer.provide(FetchHttpClient.layer))

describe("Engine: reorganisations noticed by parent hashes", () => {
  it.live("2 requests for a new block after an idle cycle, 3 after one that found a block, 2 for none; a burst caught up; each event once", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const wallets = busiestEvm(sim, chain, 8)
      const { cycle, printed } = yield* chained(sim, wallets)
      // The wallets placed, then a block read by the witness protocol: the record has its top.
      yield* cycle
      const baseline = (yield* positionOf(wallets)).min
      yield* sim.advance(1)
      yield* cycle
      /** What a cycle asks: an idle one, the next block's listing and the top's hash; a block, its listing and header (and the next block's probe when `looking`). */
      const idle = (top: bigint) => (hasTransfers(sim, top) ? ["A1", "A1 probe"] : ["A1", "A1 probe", "A6"]).toSorted()
      const found = (block: bigint, looking: boolean) =>
        [...(hasTransfers(sim, block) ? ["A1", "A6"] : ["A1", "A1 by hash", "A6"]), ...(looking ? ["A1 probe"] : [])].toSorted()
      assert.deepStrictEqual((yield* cycle).asked, idle(head(sim)), "an idle cycle: the next block's listing, the top's hash")
      yield* sim.advance(1)
      assert.isTrue(hasTransfers(sim, head(sim)), "the world's new block has NFT transfers (2 requests, not 3)")
      assert.deepStrictEqual((yield* cycle).asked, found(head(sim), false), "a block after an idle cycle: its listing and its header")
      yield* sim.advance(1)
      assert.deepStrictEqual((yield* cycle).asked, found(head(sim), true), "a block after a cycle that found one: the next block probed too")
      assert.deepStrictEqual((yield* positionOf(wallets)).min, head(sim))
      assert.deepStrictEqual((yield* cycle).asked, idle(head(sim)))
      // A burst after a block: the cycle that finds the chain further ahead reads it all.
      yield* sim.advance(1)
      yield* cycle
      yield* sim.advance(12)
      const burst = yield* cycle
      assert.isAbove(burst.asked.filter((kind) => kind === "A1").length, 10, "the burst read ahead by the witness protocol")
      assert.deepStrictEqual(yield* positionOf(wallets), { min: head(sim), max: head(sim), count: wallets.length })
      assert.isAbove((yield* evmTruth(sim, chain, wallets, baseline, head(sim))).length, 0)
      yield* standsAsTruth(sim, wallets, baseline, printed)
    }).pipe(Effect.provide(harness(world("parent-hashes-requests")))), 60_000)

  it.live("a chain making several blocks a cycle is read by the witness protocol, without a wasted header; an engine's first cycle finds the head", () =>
    Effect.gen(function*() {
      const { baseline, cycle, printed, sim, wallets } = yield* placed
      for (let i = 0; i < 3; i++) {
        yield* sim.advance(3)
        const { asked } = yield* cycle
        assert.deepStrictEqual((yield* positionOf(wallets)).min, head(sim))
        if (i > 0 && hasTransfers(sim, head(sim))) assert.notInclude(asked, "A6", `cycle ${i}: no header after a cycle that moved 3 blocks`)
      }
      // Restarted after 7 blocks: its first cycle reads them all (the head found by the witness protocol).
      yield* sim.advance(7)
      const restarted = yield* chained(sim, wallets)
      yield* restarted.cycle
      assert.deepStrictEqual((yield* positionOf(wallets)).min, head(sim), "the first cycle of an engine reaches the head")
      yield* standsAsTruth(sim, wallets, baseline, [...printed, ...restarted.printed])
    }).pipe(Effect.provide(harness(world("parent-hashes-fast")))), 60_000)

  it.live("headers that cannot be read: the witness protocol reads the chain", () =>
    Effect.gen(function*() {
      const { baseline, cycle, printed, sim, wallets } = yield* placed
      for (let i = 0; i < 4; i++) {
        yield* sim.advance(1)
        yield* cycle
        assert.deepStrictEqual((yield* positionOf(wallets)).min, head(sim), `block ${i + 1} read`)
      }
      yield* standsAsTruth(sim, wallets, baseline, printed)
    }).pipe(Effect.provide(Layer.mergeAll(headerless, StateStore.layerMemory).pipe(Layer.provideMerge(Simulator.layer(world("parent-hashes-headerless")))))), 60_000)

  for (const grow of [0, 1, 3]) {
    it.live(`a reorganisation of 2 blocks${grow > 0 ? ` and ${grow} new block${grow > 1 ? "s" : ""}` : " (no new block)"}, after an idle cycle: the next cycle retracts what was replaced`, () =>
      Effect.gen(function*() {
        const { baseline, cycle, printed, sim, wallets } = yield* placed
        for (let i = 0; i < 4; i++) {
          yield* sim.advance(1)
          yield* cycle
        }
        // Idle: the next cycle asks for no header past the new block (one new block is its only clue).
        yield* cycle
        const fromBlock = BigInt(yield* sim.reorg(chain, 2))
        if (grow > 0) yield* sim.advance(grow)
        const orphaned = printed.filter((event) => event.kind !== "retracted" && "blockNumber" in event && event.blockNumber >= fromBlock)
        assert.isAbove(orphaned.length, 0, "the replaced blocks held events of these wallets")
        const after = (yield* cycle).events
        assert.deepStrictEqual(
          after.flatMap((event) => (event.kind === "retracted" ? [event.retracts] : [])).toSorted(),
          orphaned.map((event) => event.id).toSorted()
        )
        yield* cycle
        yield* standsAsTruth(sim, wallets, baseline, printed)
      }).pipe(Effect.provide(harness(world(`parent-hashes-reorg-${grow}`)))), 60_000)
  }

  for (const when of ["before", "after"] as const) {
    it.live(`a reorganisation ${when === "before" ? "between a block's transfers and its header" : "right after a block's header was read"}: the new chain's events stand, each once`, () => {
      const trap = trapped(when)
      return Effect.gen(function*() {
        const { baseline, cycle, printed, sim, wallets } = yield* placed
        yield* sim.advance(1)
        yield* cycle
        yield* cycle
        yield* sim.advance(1)
        yield* trap.arm
        yield* cycle
        assert.strictEqual(trap.sprung(), 1, "the trap sprang in the cycle")
        for (let i = 0; i < 3; i++) yield* cycle
        const replaced = (yield* evmTruth(sim, chain, wallets, head(sim) - 1n, head(sim))).length
        assert.isAbove(replaced, 0, "no event of these wallets in the replaced block")
        yield* standsAsTruth(sim, wallets, baseline, printed)
      }).pipe(Effect.provide(Layer.mergeAll(trap.layer, StateStore.layerMemory).pipe(Layer.provideMerge(Simulator.layer(world(`parent-hashes-trap-${when}`))))))
    }, 60_000)
  }
})
