/**
 * Block scanning over a flaky service: the EVM client of the harness (real HTTP to the
 * simulator) with A1 reads of chosen blocks failing first, as they would after the client's own
 * retries. A block that cannot be read stops the scan there and keeps the blocks before it; a
 * record with a wrong field is not read again. Bodies cut short on the way are the clients' to
 * read again: an Aptos listing a third of whose answers are cut still gives every transfer once.
 */
import { assert, describe, it } from "@effect/vitest"
import { EvmClient } from "@chainquery/evm-client"
import { type Chain, Errors } from "@chainquery/schema"
import { Simulator } from "@chainquery/simulator"
import { Effect, Layer, Option } from "effect"
import { Engine, EngineError, StateStore, type WatchEvent } from "../src/index.js"
import { assertSyncingThenUpdated } from "./support/holdings.js"
import { allEvm, aptosTruth, busiestAptos, busiestEvm, evmTruth, harness, positionOf } from "./support/engineHarness.js"

const ids = (events: ReadonlyArray<WatchEvent.WatchEvent>) => events.map((event) => event.id)
const sorted = (values: ReadonlyArray<string>) => values.toSorted()

/** What an A1 read can fail with. */
type A1Error = Effect.Error<ReturnType<EvmClient.Service["getNFTTransfersByBlock"]>>

/** Per block, the errors its next A1 reads fail with (one each), and how often it was read. */
interface Faults {
  readonly failWith: Map<bigint, Array<A1Error>>
  readonly reads: Map<bigint, number>
  /** Chains whose every A1 read fails. */
  readonly down: Set<string>
  /** While true, every A5 read fails. */
  ownersDown: boolean
  /** Blocks whose A1 listing says `index_complete: false` (indexed again by the service). */
  readonly reindexing: Set<bigint>
}

/**
 * The harness with its `EvmClient` wrapped: A1 reads of a block first fail as `faults` says. The
 * probes of one record (the head search, the cycle's witness) are not counted or failed: the
 * faults are aimed at the reads of a block's transfers.
 */
const flaky = (faults: Faults, chains: ReadonlyArray<Chain.ChainId> = ["0x1"], indexing: Simulator.Options["indexing"] = false) => {
  const wrapped = Layer.effect(
    EvmClient.EvmClient,
    Effect.map(EvmClient.EvmClient, (client): EvmClient.Service => ({
      ...client,
      // Counted and failed when the read runs (a retry runs the same effect again).
      getNFTTransfersByBlock: (params, options) =>
        Effect.suspend(() => {
          const block = BigInt(params.block)
          if (faults.down.has(String(params.chain))) return Effect.fail(serverError())
          if (params.limit !== 1) {
            faults.reads.set(block, (faults.reads.get(block) ?? 0) + 1)
            const next = faults.failWith.get(block)?.shift()
            if (next !== undefined) return Effect.fail(next)
          }
          const page = client.getNFTTransfersByBlock(params, options)
          return faults.reindexing.has(block) ? Effect.map(page, (p) => ({ ...p, index_complete: Option.some(false) })) : page
        }),
      getNFTOwners: (params, options) =>
        Effect.suspend(() => (faults.ownersDown ? Effect.fail(serverError()) : client.getNFTOwners(params, options)))
    }))
  )
  return Layer.provideMerge(wrapped, harness({ seed: 21, indexing, chains }))
}

const newFaults = (): Faults => ({ failWith: new Map(), reads: new Map(), down: new Set(), ownersDown: false, reindexing: new Set() })

const serverError = () => new Errors.ServerError({ status: 503, message: "Service Unavailable" })

/** A baseline of the busiest wallets with block scanning, then `blocks` new blocks. */
const started = (blocks: number) =>
  Effect.gen(function*() {
    const sim = yield* Simulator.Simulator
    const wallets = busiestEvm(sim, "0x1", 6)
    const engine = yield* Engine.make({ wallets, strategy: "block-scan", confirmations: 0, watch: ["transfers"] })
    yield* engine.step(() => Effect.void)
    const baseline = (yield* positionOf(wallets)).min
    yield* sim.advance(blocks)
    return { sim, wallets, engine, baseline }
  })

describe("Engine, block scanning over a flaky service", () => {
  const faults = newFaults()
  it.effect("a block that cannot be read ends the scan there: the blocks before it are committed, the rest come next cycle", () =>
    Effect.gen(function*() {
      const { baseline, engine, sim, wallets } = yield* started(12)
      // Read in a group of four (+3 to +6): the blocks after the broken one are read and dropped.
      const broken = baseline + 4n
      faults.failWith.set(broken, [serverError()])
      const first = yield* engine.step(() => Effect.void)
      assert.strictEqual((yield* positionOf(wallets)).max, broken - 1n)
      assert.deepStrictEqual(sorted(ids(first)), sorted(ids(yield* evmTruth(sim, "0x1", wallets, baseline, broken - 1n))))
      const second = yield* engine.step(() => Effect.void)
      const final = yield* positionOf(wallets)
      assert.strictEqual(final.min, BigInt(sim.world.evm.chain("0x1").head))
      const truth = yield* evmTruth(sim, "0x1", wallets, baseline, final.min)
      assert.isAbove(truth.length, 0)
      assert.deepStrictEqual(sorted(ids([...first, ...second])), sorted(ids(truth)))
      assert.strictEqual(new Set(ids([...first, ...second])).size, first.length + second.length)
    }).pipe(Effect.provide(flaky(faults))))
})

describe("Engine, block scanning: the first new block unreadable", () => {
  const faults = newFaults()
  it.effect("fails the cycle with an EngineError naming the operation, and commits nothing", () =>
    Effect.gen(function*() {
      const { baseline, engine, wallets } = yield* started(4)
      faults.failWith.set(baseline + 1n, [serverError()])
      const error = yield* Effect.flip(engine.step(() => Effect.void))
      assert.instanceOf(error, EngineError.EngineError)
      assert.strictEqual(error.operation, "getNFTTransfersByBlock")
      assert.match(error.message, /Service Unavailable/)
      assert.strictEqual((yield* positionOf(wallets)).max, baseline)
    }).pipe(Effect.provide(flaky(faults))))
})

describe("Engine, a chain that cannot be read", () => {
  const faults = newFaults()
  it.effect("is left for the next cycle while the other chains go on; step fails with its error after committing them", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const eth = busiestEvm(sim, "0x1", 4)
      const polygon = busiestEvm(sim, "0x89", 4)
      const engine = yield* Engine.make({ wallets: [...eth, ...polygon], strategy: "block-scan", confirmations: 0, watch: ["transfers"] })
      yield* engine.step(() => Effect.void)
      const before = { eth: yield* positionOf(eth), polygon: yield* positionOf(polygon) }
      yield* sim.advance(5)
      faults.down.add("0x89")
      const { events, failed } = yield* engine.cycle
      assert.strictEqual(failed.length, 1)
      assert.match(failed[0]!.message, /Service Unavailable/)
      const written: Array<WatchEvent.WatchEvent> = []
      const error = yield* Effect.flip(engine.step((printed) => Effect.sync(() => written.push(...printed))))
      assert.instanceOf(error, EngineError.EngineError)
      const ethNow = (yield* positionOf(eth)).min
      assert.strictEqual(ethNow, BigInt(sim.world.evm.chain("0x1").head))
      assert.strictEqual((yield* positionOf(polygon)).max, before.polygon.max)
      const ethTruth = yield* evmTruth(sim, "0x1", eth, before.eth.min, ethNow)
      assert.isAbove(ethTruth.length, 0)
      assert.deepStrictEqual(sorted(ids(written)), sorted(ids(ethTruth)))
      assert.deepStrictEqual(ids(events), ids(written))
      // Back up: the chain left behind catches up, nothing of the other is printed again.
      faults.down.clear()
      const later = yield* engine.step(() => Effect.void)
      const polygonNow = (yield* positionOf(polygon)).min
      assert.strictEqual(polygonNow, BigInt(sim.world.evm.chain("0x89").head))
      const polygonTruth = yield* evmTruth(sim, "0x89", polygon, before.polygon.min, polygonNow)
      assert.isAbove(polygonTruth.length, 0)
      assert.deepStrictEqual(sorted(ids(later)), sorted(ids(polygonTruth)))
    }).pipe(Effect.provide(flaky(faults, ["0x1", "0x89"]))))
})

describe("Engine, per-wallet polling when the safe head falls below a wallet's checkpoint", () => {
  const faults = newFaults()
  it.effect("the blocks past the safe head are not compared (they were not read): nothing is retracted", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const store = yield* StateStore.StateStore
      const wallets = allEvm(sim, "0x1")
      const options = { wallets, strategy: "per-wallet", confirmations: 0, watch: ["transfers"] } as const
      const engine = yield* Engine.make(options)
      yield* engine.step(() => Effect.void)
      yield* sim.advance(5)
      const before = yield* engine.step(() => Effect.void)
      const head = BigInt(sim.world.evm.chain("0x1").head)
      assert.isTrue(before.some((e) => "blockNumber" in e && e.blockNumber === head), "no watched transfer in the newest block")
      // One wallet 3 blocks behind, and the newest block indexed again: the safe head is head - 1.
      const behind = wallets.find((w) => !before.some((e) => "wallet" in e && e.wallet === w.address && "blockNumber" in e && e.blockNumber > head - 3n))!
      yield* store.commit({ checkpoints: [{ wallet: behind, position: head - 3n, hash: null }], eventIds: [] })
      faults.reindexing.add(head)
      const after = yield* (yield* Engine.make(options)).step(() => Effect.void)
      assert.deepStrictEqual(after.filter((e) => e.kind === "retracted").map((e) => e.id), [])
    }).pipe(Effect.provide(flaky(faults))))
})

describe("Engine, holdings when the owners cannot be read", () => {
  const faults = newFaults()
  it.effect("the collections of that cycle are checked next cycle: SYNCING reported once, balances later", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const wallets = busiestEvm(sim, "0x1", 6)
      const engine = yield* Engine.make({ wallets, strategy: "block-scan", confirmations: 0, watch: ["transfers", "holdings"] })
      yield* engine.step(() => Effect.void)
      yield* sim.advance(4)
      faults.ownersDown = true
      const unread = yield* engine.step(() => Effect.void)
      faults.ownersDown = false
      assert.isFalse(unread.some((event) => event.kind.startsWith("holding.")))
      const moved = new Set(unread.flatMap((e) => (e.kind === "nft.received" || e.kind === "nft.sent" ? [`${e.wallet}:${e.collection}`] : [])))
      assert.isAbove(moved.size, 0)
      const later: Array<WatchEvent.WatchEvent> = []
      for (let round = 0; round < 8; round++) {
        yield* sim.advance(3)
        later.push(...(yield* engine.step(() => Effect.void)))
      }
      assertSyncingThenUpdated(later)
      const reported = (kind: string) =>
        new Set(later.flatMap((e) => (e.kind === kind && "collection" in e ? [`${e.wallet}:${e.collection}`] : [])))
      // Every wallet and collection of the unread cycle got its balances, and some were SYNCING first.
      for (const pair of moved) assert.isTrue(reported("holding.updated").has(pair), `no holding.updated for ${pair}`)
      assert.isTrue([...moved].some((pair) => reported("holding.syncing").has(pair)))
    }).pipe(Effect.provide(flaky(faults, ["0x1"], { lagProbability: 0, syncBlocks: 6 }))))
})

describe("Engine, block scanning: a record that does not decode", () => {
  const faults = newFaults()
  it.effect("a field of the wrong type is the service's answer: not read again, the cycle fails, the checkpoint stays", () =>
    Effect.gen(function*() {
      const { baseline, engine, wallets } = yield* started(1)
      const block = baseline + 1n
      faults.reads.clear()
      faults.failWith.set(block, [new Errors.ResponseDecode({ path: "result[0].block_number", message: "Expected a numeric string" })])
      const wrongField = yield* Effect.flip(engine.step(() => Effect.void))
      assert.strictEqual(faults.reads.get(block), 1)
      assert.instanceOf(wrongField, EngineError.EngineError)
      assert.match(wrongField.message, /numeric string/)
      assert.strictEqual((yield* positionOf(wallets)).max, baseline)
    }).pipe(Effect.provide(flaky(faults))))
})

describe("Engine, Aptos: corrupt bodies", () => {
  it.live("a B3 page cut short is read again (by the client): every transfer once, although a third of the answers are cut", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const wallets = busiestAptos(sim, 8)
      const engine = yield* Engine.make({ wallets, strategy: "auto", confirmations: 0, watch: ["transfers"] })
      yield* engine.step(() => Effect.void)
      const baseline = yield* positionOf(wallets)
      yield* sim.setFaults({ routes: { getWalletsNFTTransfers: { truncated: 0.34 } } })
      const emitted: Array<WatchEvent.WatchEvent> = []
      for (const blocks of [4, 6, 5, 7]) {
        yield* sim.advance(blocks)
        emitted.push(...(yield* engine.step(() => Effect.void)))
      }
      const stats = yield* sim.stats
      assert.isAbove(stats.faults.truncated, 0)
      const truth = aptosTruth(sim, wallets, baseline.min, (yield* positionOf(wallets)).max)
      assert.isAbove(truth.length, 0)
      assert.deepStrictEqual(sorted(ids(emitted)), sorted(ids(truth)))
    }).pipe(Effect.provide(harness({ seed: 22, indexing: false, chains: ["0x1"] }))))
})
