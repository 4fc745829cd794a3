/**
 * The engine against the simulator over real HTTP: for each strategy (and for Aptos), a baseline
 * emits nothing, then the union of the events of the following cycles equals the ground truth
 * of the watched wallets (no loss, no duplicate); with indexing lag the checkpoint never passes
 * an unindexed block; a reorganisation of depth 2 yields retractions and the replacement events.
 */
import { assert, describe, it } from "@effect/vitest"
import { Simulator } from "@chainquery/simulator"
import { AptosAddress } from "@chainquery/schema"
import { Effect, Schema } from "effect"
import { Engine, StateStore, type WatchedWallet, type WatchEvent } from "../src/index.js"
import { allEvm, aptosTruth, busiestAptos, busiestEvm, evmTruth, harness, positionOf } from "./support/engineHarness.js"

const ids = (events: ReadonlyArray<WatchEvent.WatchEvent>) => events.map((event) => event.id)
const sorted = (values: ReadonlyArray<string>) => values.toSorted()

const assertNoDuplicates = (events: ReadonlyArray<WatchEvent.WatchEvent>) =>
  assert.strictEqual(new Set(ids(events)).size, events.length, "an event was emitted twice")

/** Baseline, then `steps` advances of `blocks` with a cycle after each; returns all events. */
const runEvm = (
  strategy: Engine.Strategy,
  wallets: ReadonlyArray<WatchedWallet.EvmWallet>,
  check?: () => Effect.Effect<void, never, StateStore.StateStore>,
  confirmations = 0
) =>
  Effect.gen(function*() {
    const sim = yield* Simulator.Simulator
    const engine = yield* Engine.make({ wallets, strategy, confirmations, watch: ["transfers"] })
    assert.deepStrictEqual(yield* engine.step(() => Effect.void), [])
    const baseline = yield* positionOf(wallets)
    assert.strictEqual(baseline.count, wallets.length)
    assert.strictEqual(baseline.min, baseline.max)
    const emitted: Array<WatchEvent.WatchEvent> = []
    for (const blocks of [5, 7, 3, 9, 6]) {
      yield* sim.advance(blocks)
      emitted.push(...(yield* engine.step(() => Effect.void)))
      if (check !== undefined) yield* check()
    }
    const final = yield* positionOf(wallets)
    const truth = yield* evmTruth(sim, "0x1", wallets, baseline.min, final.min)
    return { baseline, final, emitted, truth, head: sim.world.evm.chain("0x1").head }
  })

describe("Engine, EVM, no indexing lag", () => {
  for (const strategy of ["block-scan", "per-wallet", "auto"] as const) {
    it.effect(`${strategy}: baseline, then every transfer of the watched wallets once`, () =>
      Effect.gen(function*() {
        const sim = yield* Simulator.Simulator
        const wallets = busiestEvm(sim, "0x1", 6)
        const { emitted, final, head, truth } = yield* runEvm(strategy, wallets)
        assert.strictEqual(final.min, BigInt(head))
        assert.strictEqual(final.max, BigInt(head))
        assert.isAbove(truth.length, 0)
        assertNoDuplicates(emitted)
        assert.deepStrictEqual(sorted(ids(emitted)), sorted(ids(truth)))
      }).pipe(Effect.provide(harness({ seed: 11, indexing: false, chains: ["0x1"] }))))
  }
})

describe("Engine, EVM, busy blocks (several pages per listing)", () => {
  for (const strategy of ["block-scan", "per-wallet"] as const) {
    it.effect(`${strategy}: every page is read`, () =>
      Effect.gen(function*() {
        const sim = yield* Simulator.Simulator
        const wallets = busiestEvm(sim, "0x1", 4)
        const chain = sim.world.evm.chain("0x1")
        const { emitted, truth } = yield* runEvm(strategy, wallets)
        const busiestBlock = Math.max(...chain.blocks.slice(-30).map((b) => b.transferEnd - b.transferStart))
        if (strategy === "block-scan") assert.isAbove(busiestBlock, 100)
        const perWallet = wallets.map((w) => truth.filter((event) => event.wallet === w.address).length)
        if (strategy === "per-wallet") assert.isAbove(Math.max(...perWallet), 100)
        assert.isAbove(truth.length, 0)
        assertNoDuplicates(emitted)
        assert.deepStrictEqual(sorted(ids(emitted)), sorted(ids(truth)))
      }).pipe(Effect.provide(harness({ seed: 17, indexing: false, chains: ["0x1"], activityScale: 20, wallets: 40 }))))
  }
})

describe("Engine, commits", () => {
  it.effect("a cycle that was not committed is read again, with the same ids", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const wallets = busiestEvm(sim, "0x1", 6)
      const engine = yield* Engine.make({ wallets, strategy: "block-scan", confirmations: 0, watch: ["transfers"] })
      yield* engine.step(() => Effect.void)
      yield* sim.advance(8)
      const first = yield* engine.cycle
      assert.isAbove(first.events.length, 0)
      const again = yield* engine.cycle
      assert.deepStrictEqual(ids(again.events), ids(first.events))
      const last = yield* engine.commit(again.batch)
      assert.deepStrictEqual(last.eventIds, ids(first.events))
      const restarted = yield* Engine.make({ wallets, strategy: "block-scan", confirmations: 0, watch: ["transfers"] })
      assert.deepStrictEqual((yield* restarted.cycle).events, [])
    }).pipe(Effect.provide(harness({ seed: 18, indexing: false, chains: ["0x1"] }))))
})

describe("Engine, wallets added on a restart", () => {
  for (const strategy of ["block-scan", "per-wallet"] as const) {
    it.effect(`${strategy}: a new wallet gets a baseline, the others go on where they were`, () =>
      Effect.gen(function*() {
        const sim = yield* Simulator.Simulator
        const [first, ...others] = busiestEvm(sim, "0x1", 5)
        const old = [first!]
        const before = yield* Engine.make({ wallets: old, strategy, confirmations: 0, watch: ["transfers"] })
        yield* before.step(() => Effect.void)
        const baseline = yield* positionOf(old)
        yield* sim.advance(6)
        const restarted = yield* Engine.make({ wallets: [...old, ...others], strategy, confirmations: 0, watch: ["transfers"] })
        const emitted = [...(yield* restarted.step(() => Effect.void))]
        const joined = yield* positionOf(others)
        yield* sim.advance(6)
        emitted.push(...(yield* restarted.step(() => Effect.void)))
        const final = yield* positionOf([...old, ...others])
        assert.strictEqual(final.min, final.max)
        const truth = [
          ...(yield* evmTruth(sim, "0x1", old, baseline.min, final.min)),
          ...(yield* evmTruth(sim, "0x1", others, joined.min, final.min))
        ]
        assert.isAbove(truth.length, 0)
        assertNoDuplicates(emitted)
        assert.deepStrictEqual(sorted(ids(emitted)), sorted(ids(truth)))
      }).pipe(Effect.provide(harness({ seed: 19, indexing: false, chains: ["0x1"] }))))
  }
})

describe("Engine, EVM, confirmations", () => {
  for (const strategy of ["block-scan", "per-wallet"] as const) {
    it.effect(`${strategy}: with confirmations 3, only blocks <= head - 3, nothing lost`, () =>
      Effect.gen(function*() {
        const sim = yield* Simulator.Simulator
        const wallets = busiestEvm(sim, "0x1", 6)
        const check = () =>
          Effect.gen(function*() {
            const position = yield* Effect.orDie(positionOf(wallets))
            assert.strictEqual(position.max, BigInt(sim.world.evm.chain("0x1").head - 3))
          })
        const { emitted, truth } = yield* runEvm(strategy, wallets, check, 3)
        assert.isAbove(truth.length, 0)
        assertNoDuplicates(emitted)
        assert.deepStrictEqual(sorted(ids(emitted)), sorted(ids(truth)))
      }).pipe(Effect.provide(harness({ seed: 15, indexing: false, chains: ["0x1"] }))))
  }
})

/** Requests per operation id since the last reset of the simulator's stats. */
const requests = (sim: Simulator.Simulator["Service"]) => Effect.map(sim.stats, (stats) => stats.requests.byOperation)

describe("Engine, auto", () => {
  it.effect("few wallets and many new blocks: per-wallet polling (A2), a few A1 probes", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const wallets = busiestEvm(sim, "0x1", 2)
      const engine = yield* Engine.make({ wallets, strategy: "auto", confirmations: 0, watch: ["transfers"] })
      yield* engine.step(() => Effect.void)
      yield* sim.advance(40)
      yield* sim.resetStats
      yield* engine.step(() => Effect.void)
      const byOperation = yield* requests(sim)
      assert.strictEqual(byOperation.getWalletNFTTransfers, 2)
      assert.isBelow(byOperation.getNFTTransfersByBlock, 20)
    }).pipe(Effect.provide(harness({ seed: 16, indexing: false, chains: ["0x1"] }))))

  it.effect("many wallets and few new blocks: block scanning (A1), no A2", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const wallets = allEvm(sim, "0x1")
      const engine = yield* Engine.make({ wallets, strategy: "auto", confirmations: 0, watch: ["transfers"] })
      yield* engine.step(() => Effect.void)
      yield* sim.advance(3)
      yield* sim.resetStats
      yield* engine.step(() => Effect.void)
      const byOperation = yield* requests(sim)
      assert.strictEqual(byOperation.getWalletNFTTransfers, 0)
      assert.isAbove(byOperation.getNFTTransfersByBlock, 2)
    }).pipe(Effect.provide(harness({ seed: 16, indexing: false, chains: ["0x1"] }))))
})

describe("Engine, EVM, indexing lag", () => {
  for (const strategy of ["block-scan", "per-wallet"] as const) {
    it.effect(`${strategy}: nothing lost, the checkpoint never passes an unindexed block`, () =>
      Effect.gen(function*() {
        const sim = yield* Simulator.Simulator
        const wallets = busiestEvm(sim, "0x1", 6)
        const check = () =>
          Effect.gen(function*() {
            const position = yield* Effect.orDie(positionOf(wallets))
            assert.isTrue(position.max <= BigInt(sim.world.evm.indexedHead("0x1")), `checkpoint ${position.max} past the indexed head`)
          })
        const { emitted, final, head, truth } = yield* runEvm(strategy, wallets, check)
        assert.strictEqual(final.min, BigInt(head - 1))
        assert.isAbove(truth.length, 0)
        assertNoDuplicates(emitted)
        assert.deepStrictEqual(sorted(ids(emitted)), sorted(ids(truth)))
      }).pipe(Effect.provide(harness({ seed: 12, indexing: { lagProbability: 1, syncBlocks: 0 }, chains: ["0x1"] }))))
  }
})

describe("Engine, reorgs", () => {
  for (const strategy of ["block-scan", "per-wallet", "auto"] as const) {
  it.effect(`${strategy}: a reorg of depth 2 retracts the orphaned transfers, then emits the replacements`, () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const wallets = allEvm(sim, "0x1")
      const engine = yield* Engine.make({ wallets, strategy, confirmations: 0, watch: ["transfers"] })
      yield* engine.step(() => Effect.void)
      const baseline = yield* positionOf(wallets)
      yield* sim.advance(6)
      const before = yield* engine.step(() => Effect.void)
      const fromBlock = BigInt(yield* sim.reorg("0x1", 2))
      const orphaned = before.filter((event) => event.kind !== "retracted" && "blockNumber" in event && event.blockNumber >= fromBlock)
      assert.isAbove(orphaned.length, 0)
      const after = yield* engine.step(() => Effect.void)
      const retracted = after.filter((event) => event.kind === "retracted")
      assert.deepStrictEqual(sorted(retracted.map((event) => event.retracts)), sorted(ids(orphaned)))
      // Retractions come before the replacement events.
      const firstNew = after.findIndex((event) => event.kind !== "retracted")
      const lastRetraction = after.findLastIndex((event) => event.kind === "retracted")
      assert.isTrue(firstNew === -1 || lastRetraction < firstNew)
      // What stands (emitted and not retracted) is the ground truth of the new chain.
      yield* sim.advance(3)
      const later = yield* engine.step(() => Effect.void)
      const all = [...before, ...after, ...later]
      const gone = new Set(all.flatMap((event) => (event.kind === "retracted" ? [event.retracts] : [])))
      const standing = all.filter((event) => event.kind !== "retracted" && !gone.has(event.id))
      const final = yield* positionOf(wallets)
      const truth = yield* evmTruth(sim, "0x1", wallets, baseline.min, final.min)
      assert.isAbove(after.length - retracted.length, 0)
      assert.deepStrictEqual(sorted(ids(standing)), sorted(ids(truth)))
    }).pipe(Effect.provide(harness({ seed: 13, indexing: false, chains: ["0x1"] }))))
  }
})

describe("Engine, block scanning with a wallet behind the others", () => {
  it.effect("a reorg among the blocks the others read already is noticed, and their records are kept", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const store = yield* StateStore.StateStore
      const wallets = allEvm(sim, "0x1")
      const options = { wallets, strategy: "block-scan", confirmations: 0, watch: ["transfers"] } as const
      const engine = yield* Engine.make(options)
      yield* engine.step(() => Effect.void)
      const baseline = yield* positionOf(wallets)
      yield* sim.advance(6)
      const before = yield* engine.step(() => Effect.void)
      const head = (yield* positionOf(wallets)).max
      // One wallet 5 blocks behind (as a wallet added again, or one per-wallet polling left behind);
      // it had printed nothing of those blocks.
      const behind = wallets.find((w) => before.some((e) => "wallet" in e && e.wallet === w.address && "blockNumber" in e && e.blockNumber > head - 5n && e.blockNumber < head - 2n))!
      yield* store.commit({ checkpoints: [{ wallet: behind, position: head - 5n, hash: null }], eventIds: [] })
      const recordedBefore = new Map((yield* store.blockEvents("0x1")).map((b) => [b.number, b.events.length]))
      const fromBlock = BigInt(yield* sim.reorg("0x1", 2))
      const orphaned = before.filter((e) => e.kind !== "retracted" && "blockNumber" in e && e.blockNumber >= fromBlock)
      assert.isAbove(orphaned.length, 0)
      const restarted = yield* Engine.make(options)
      const after = yield* restarted.step(() => Effect.void)
      assert.deepStrictEqual(
        sorted(after.flatMap((e) => (e.kind === "retracted" ? [e.retracts] : []))),
        sorted(ids(orphaned))
      )
      // The blocks before the reorg still record what every wallet printed from them.
      for (const { events, number } of yield* store.blockEvents("0x1")) {
        if (number > head - 5n && number < fromBlock) assert.isAtLeast(events.length, recordedBefore.get(number) ?? 0)
      }
      yield* sim.advance(3)
      const later = yield* restarted.step(() => Effect.void)
      const all = [...before, ...after, ...later]
      const gone = new Set(all.flatMap((e) => (e.kind === "retracted" ? [e.retracts] : [])))
      // The wallet behind printed its events of the blocks it had not read; the others printed nothing twice.
      const standing = all.filter((e) => e.kind !== "retracted" && !gone.has(e.id))
      const others = ids(standing.filter((e) => !("wallet" in e) || e.wallet !== behind.address))
      assert.strictEqual(new Set(others).size, others.length, "a wallet ahead printed an event twice")
      const final = yield* positionOf(wallets)
      const truth = yield* evmTruth(sim, "0x1", wallets, baseline.min, final.min)
      assert.deepStrictEqual(sorted([...new Set(ids(standing))]), sorted(ids(truth)))
    }).pipe(Effect.provide(harness({ seed: 13, indexing: false, chains: ["0x1"] }))))
})

describe("Engine, Aptos", () => {
  it.effect("batched B3 reads: baseline, then every transfer of the watched wallets once, oldest first", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const wallets = busiestAptos(sim, 8)
      const engine = yield* Engine.make({ wallets, strategy: "auto", confirmations: 0, watch: ["transfers"] })
      assert.deepStrictEqual(yield* engine.step(() => Effect.void), [])
      const baseline = yield* positionOf(wallets)
      const emitted: Array<WatchEvent.WatchEvent> = []
      for (const blocks of [5, 7, 3, 9, 6]) {
        yield* sim.advance(blocks)
        emitted.push(...(yield* engine.step(() => Effect.void)))
      }
      const final = yield* positionOf(wallets)
      const truth = aptosTruth(sim, wallets, baseline.min, final.max)
      assert.isAbove(truth.length, 0)
      assertNoDuplicates(emitted)
      assert.deepStrictEqual(sorted(ids(emitted)), sorted(ids(truth)))
      const versions = emitted.flatMap((event) => ("version" in event ? [event.version] : []))
      assert.deepStrictEqual(versions, versions.toSorted((a, b) => (a < b ? -1 : a > b ? 1 : 0)))
    }).pipe(Effect.provide(harness({ seed: 14, indexing: false, chains: ["0x1"] }))))

  it.effect("a wallet without any transfer, added to watched ones, starts at the newest version known, not at 0", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const wallets = busiestAptos(sim, 8)
      const engine = yield* Engine.make({ wallets, strategy: "auto", confirmations: 0, watch: ["transfers"] })
      yield* engine.step(() => Effect.void)
      yield* sim.advance(3)
      yield* engine.step(() => Effect.void)
      const watched = yield* positionOf(wallets)
      const empty: WatchedWallet.AptosWallet = { family: "aptos", network: "mainnet", address: Schema.decodeUnknownSync(AptosAddress.AptosAddress)("0xdeadbeef") }
      const restarted = yield* Engine.make({ wallets: [...wallets, empty], strategy: "auto", confirmations: 0, watch: ["transfers"] })
      assert.deepStrictEqual(yield* restarted.step(() => Effect.void), [])
      assert.strictEqual((yield* positionOf([empty])).min, watched.max)
      // The next cycle reads the batch from there: the new transfers only, each printed once.
      yield* sim.advance(3)
      const emitted = yield* restarted.step(() => Effect.void)
      const truth = aptosTruth(sim, wallets, watched.min, (yield* positionOf(wallets)).max)
      assert.deepStrictEqual(sorted(ids(emitted)), sorted(ids(truth)))
    }).pipe(Effect.provide(harness({ seed: 14, indexing: false, chains: ["0x1"] }))))
})
