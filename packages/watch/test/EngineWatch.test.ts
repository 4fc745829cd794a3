/**
 * What the engine reports besides transfers, against the simulator over real HTTP: trades (A4,
 * read only for wallets that moved NFTs, equal to the ground truth, placed after their
 * transfers, retracted with an orphaned block), DeFi changes (A7: a baseline, then the
 * openings and closings of the simulator's ground truth, `defiEvery`) and holdings (A5: each
 * moved token's balance equals the fold of every transfer; a collection still SYNCING is
 * reported as such).
 */
import { assert, describe, it } from "@effect/vitest"
import { EvmClient } from "@chainquery/evm-client"
import { NftTransfer } from "@chainquery/schema"
import { Simulator } from "@chainquery/simulator"
import { Effect, Schema, Stream } from "effect"
import { Engine, type WatchedWallet, WatchEvent } from "../src/index.js"
import { allEvm, busiestEvm, evmTruth, harness, positionOf, type Sim } from "./support/engineHarness.js"
import { assertSyncingThenUpdated } from "./support/holdings.js"

const ids = (events: ReadonlyArray<WatchEvent.WatchEvent>) => events.map((event) => event.id)
const sorted = (values: ReadonlyArray<string>) => values.toSorted()
const ofKinds = (events: ReadonlyArray<WatchEvent.WatchEvent>, kinds: ReadonlyArray<string>) =>
  events.filter((event) => kinds.includes(event.kind))

/** The trade events of `wallets` in blocks `(after, upTo]`, read with A4 over the whole range. */
const tradeTruth = (wallets: ReadonlyArray<WatchedWallet.EvmWallet>, after: bigint, upTo: bigint) =>
  Effect.gen(function*() {
    const client = yield* EvmClient.EvmClient
    const all = yield* Effect.forEach(wallets, (wallet) =>
      client.streamNFTTradesByWallet({ address: wallet.address, chain: "0x1", fromBlock: after + 1n, toBlock: upTo }).pipe(
        Stream.runCollect,
        Effect.map((trades) => [...trades].flatMap((trade) => WatchEvent.fromTrade("0x1", wallet.address, trade)))
      ))
    return all.flat()
  })

const decodeTransfers = Schema.decodeUnknownSync(Schema.Struct({ events: Schema.Array(NftTransfer.NftTransfer) }))

/** Every transfer of a chain so far, from the simulator's ground-truth log. */
const allTransfers = (sim: Sim) =>
  Effect.promise(async () => decodeTransfers(await (await fetch(`${sim.url}/__sim/events?chain=0x1&fromBlock=0`)).json()).events)

describe("Engine, trades", () => {
  for (const strategy of ["block-scan", "per-wallet"] as const) {
    it.effect(`${strategy}: the trades of the watched wallets, once each, after their transfers`, () =>
      Effect.gen(function*() {
        const sim = yield* Simulator.Simulator
        const wallets = busiestEvm(sim, "0x1", 12)
        const engine = yield* Engine.make({ wallets, strategy, confirmations: 0, watch: ["transfers", "trades"] })
        yield* engine.step(() => Effect.void)
        const baseline = yield* positionOf(wallets)
        const emitted: Array<WatchEvent.WatchEvent> = []
        for (const blocks of [8, 8, 8, 8]) {
          yield* sim.advance(blocks)
          const events = yield* engine.step(() => Effect.void)
          // A trade comes after a transfer of its wallet in the same transaction.
          events.forEach((event, index) => {
            if (event.kind !== "trade.bought" && event.kind !== "trade.sold") return
            const transfer = events.slice(0, index).findLastIndex((e) =>
              (e.kind === "nft.received" || e.kind === "nft.sent") && e.wallet === event.wallet &&
              e.transactionHash === event.transactionHash
            )
            assert.isAtLeast(transfer, 0, `trade ${event.id} is not after its transfer`)
          })
          emitted.push(...events)
        }
        const final = yield* positionOf(wallets)
        const truth = yield* tradeTruth(wallets, baseline.min, final.min)
        const trades = ofKinds(emitted, ["trade.bought", "trade.sold"])
        assert.isAbove(truth.length, 0)
        assert.strictEqual(new Set(ids(trades)).size, trades.length)
        assert.deepStrictEqual(sorted(ids(trades)), sorted(ids(truth)))
      }).pipe(Effect.provide(harness({ seed: 21, indexing: false, chains: ["0x1"] }))))
  }

  it.effect("trades only: no transfer is printed, and A4 is read only for wallets that moved NFTs", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const wallets = allEvm(sim, "0x1")
      const engine = yield* Engine.make({ wallets, strategy: "block-scan", confirmations: 0, watch: ["trades"] })
      yield* engine.step(() => Effect.void)
      const baseline = yield* positionOf(wallets)
      yield* sim.advance(5)
      yield* sim.resetStats
      const events = yield* engine.step(() => Effect.void)
      const final = yield* positionOf(wallets)
      const stats = yield* sim.stats
      assert.deepStrictEqual(ofKinds(events, ["nft.received", "nft.sent"]), [])
      const truth = yield* tradeTruth(wallets, baseline.min, final.min)
      assert.isAbove(truth.length, 0)
      assert.deepStrictEqual(sorted(ids(events)), sorted(ids(truth)))
      const movers = new Set(
        (yield* allTransfers(sim))
          .filter((t) => t.block_number > baseline.min && t.block_number <= final.min)
          .flatMap((t) => [t.from_address.toLowerCase(), t.to_address.toLowerCase()])
          .filter((address) => wallets.some((wallet) => wallet.address === address))
      )
      assert.isAtMost(stats.requests.byOperation.getNFTTradesByWallet, movers.size)
      assert.isBelow(stats.requests.byOperation.getNFTTradesByWallet, wallets.length)
    }).pipe(Effect.provide(harness({ seed: 22, indexing: false, chains: ["0x1"] }))))

  it.effect("a reorg of depth 2 retracts the orphaned trades too; what stands is the new chain's trades", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const wallets = allEvm(sim, "0x1")
      const engine = yield* Engine.make({ wallets, strategy: "block-scan", confirmations: 0, watch: ["transfers", "trades"] })
      yield* engine.step(() => Effect.void)
      const baseline = yield* positionOf(wallets)
      const emitted: Array<WatchEvent.WatchEvent> = []
      let retractedTrades = 0
      for (let round = 0; round < 4; round++) {
        yield* sim.advance(4)
        const before = yield* engine.step(() => Effect.void)
        emitted.push(...before)
        const fromBlock = BigInt(yield* sim.reorg("0x1", 2))
        const orphaned = ofKinds(before, ["trade.bought", "trade.sold"]).filter((e) => "blockNumber" in e && e.blockNumber >= fromBlock)
        const after = yield* engine.step(() => Effect.void)
        const retracts = new Set(after.flatMap((event) => (event.kind === "retracted" ? [event.retracts] : [])))
        for (const trade of orphaned) assert.isTrue(retracts.has(trade.id), `orphaned trade ${trade.id} not retracted`)
        retractedTrades += orphaned.length
        emitted.push(...after)
      }
      assert.isAbove(retractedTrades, 0)
      const gone = new Set(emitted.flatMap((event) => (event.kind === "retracted" ? [event.retracts] : [])))
      const standing = ofKinds(emitted, ["trade.bought", "trade.sold"]).filter((event) => !gone.has(event.id))
      const final = yield* positionOf(wallets)
      const truth = yield* tradeTruth(wallets, baseline.min, final.min)
      assert.deepStrictEqual(sorted(ids(standing)), sorted(ids(truth)))
    }).pipe(Effect.provide(harness({ seed: 23, indexing: false, chains: ["0x1"] }))))
})

interface PositionChange {
  readonly protocolId: string
  readonly address: string
  readonly change: "opened" | "closed"
}

/** Net openings and closings of a wallet's positions after `fromBlock` (simulator ground truth). */
const netChanges = (sim: Sim, wallet: string, fromBlock: bigint) =>
  Effect.promise(async () => {
    const response = await fetch(`${sim.url}/__sim/positions?chain=0x1&wallet=${wallet}&fromBlock=${fromBlock}`)
    const body = (await response.json()) as { changes?: ReadonlyArray<PositionChange> } | ReadonlyArray<PositionChange>
    const changes = Array.isArray(body) ? body : (body as { changes: ReadonlyArray<PositionChange> }).changes
    const firstAndLast = new Map<string, [PositionChange["change"], PositionChange["change"]]>()
    for (const change of changes) {
      const key = `${change.protocolId}:${change.address.toLowerCase()}`
      const known = firstAndLast.get(key)
      firstAndLast.set(key, [known?.[0] ?? change.change, change.change])
    }
    return [...firstAndLast].flatMap(([key, [first, last]]) => (first === last ? [`${first}:${key}`] : [])).toSorted()
  })

describe("Engine, DeFi", () => {
  it.effect("a baseline, then the positions opened and closed, and changes beyond the threshold", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const wallets = busiestEvm(sim, "0x1", 10)
      const engine = yield* Engine.make({ wallets, strategy: "auto", confirmations: 0, watch: ["defi"], defiThreshold: 0.05 })
      assert.deepStrictEqual(yield* engine.step(() => Effect.void), [])
      const head = BigInt(sim.world.evm.chain("0x1").head)
      // Not a multiple of the simulator's 40-block position cycle, so that positions opened and closed.
      yield* sim.advance(15)
      const events = yield* engine.step(() => Effect.void)
      const seen = events
        .filter((event) => event.kind === "defi.opened" || event.kind === "defi.closed")
        .map((event) => `${event.kind.slice(5)}:${event.protocolId}:${event.positionAddress}`)
        .toSorted()
      const truth = (yield* Effect.forEach(wallets, (wallet) => netChanges(sim, wallet.address, head))).flat().toSorted()
      assert.isAbove(truth.length, 0)
      assert.deepStrictEqual(seen, truth)
      for (const event of events) {
        assert.isTrue(event.kind.startsWith("defi."), `unexpected ${event.kind}`)
        if (event.kind !== "defi.changed") continue
        const before = event.usdBefore ?? 0
        assert.isAtLeast(Math.abs((event.usdAfter ?? 0) - before) / Math.abs(before), 0.05 - 1e-9)
      }
      assert.strictEqual(new Set(ids(events)).size, events.length)
    }).pipe(Effect.provide(harness({ seed: 24, indexing: false, chains: ["0x1"] }))))

  it.live("a DeFi read that fails is skipped with a warning: the transfers of the cycle still come and are committed", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const wallets = busiestEvm(sim, "0x1", 4)
      const engine = yield* Engine.make({ wallets, strategy: "block-scan", confirmations: 0, watch: ["transfers", "defi"] })
      yield* engine.step(() => Effect.void)
      const baseline = yield* positionOf(wallets)
      yield* sim.setFaults({ routes: { getDefiPositionsSummary: { malformed: 1 } } })
      yield* sim.advance(6)
      const events = yield* engine.step(() => Effect.void)
      const final = yield* positionOf(wallets)
      assert.isAbove((yield* sim.stats).faults.malformed, 0, "the DeFi reads did fail")
      const truth = yield* evmTruth(sim, "0x1", wallets, baseline.min, final.min)
      assert.isAbove(truth.length, 0)
      assert.strictEqual(final.min, BigInt(sim.world.evm.chain("0x1").head))
      assert.deepStrictEqual(sorted(ids(events)), sorted(ids(truth)))
    }).pipe(Effect.provide(harness({ seed: 27, indexing: false, chains: ["0x1"] }))))

  it.effect("defiEvery: positions are read on the first cycle and every n-th after it", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const wallets = busiestEvm(sim, "0x1", 3)
      const engine = yield* Engine.make({ wallets, strategy: "auto", confirmations: 0, watch: ["defi"], defiEvery: 3 })
      yield* sim.resetStats
      for (let cycle = 0; cycle < 7; cycle++) {
        yield* sim.advance(1)
        yield* engine.step(() => Effect.void)
      }
      const stats = yield* sim.stats
      // Cycles 0, 3 and 6.
      assert.strictEqual(stats.requests.byOperation.getDefiPositionsSummary, 3 * wallets.length)
    }).pipe(Effect.provide(harness({ seed: 24, indexing: false, chains: ["0x1"] }))))
})

/** The balance of every (owner, collection, token) from every transfer so far. */
const balances = (transfers: ReadonlyArray<NftTransfer.NftTransfer>) => {
  const held = new Map<string, bigint>()
  for (const t of transfers) {
    const token = `${t.token_address.toLowerCase()}:${t.token_id}`
    held.set(`${t.from_address.toLowerCase()}:${token}`, (held.get(`${t.from_address.toLowerCase()}:${token}`) ?? 0n) - t.amount)
    held.set(`${t.to_address.toLowerCase()}:${token}`, (held.get(`${t.to_address.toLowerCase()}:${token}`) ?? 0n) + t.amount)
  }
  return held
}

describe("Engine, holdings", () => {
  it.effect("each token a wallet moved: its balance equals the fold of every transfer", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const wallets = busiestEvm(sim, "0x1", 6)
      const engine = yield* Engine.make({ wallets, strategy: "block-scan", confirmations: 0, watch: ["transfers", "holdings"] })
      yield* engine.step(() => Effect.void)
      yield* sim.advance(10)
      const events = yield* engine.step(() => Effect.void)
      const held = balances(yield* allTransfers(sim))
      const reports = events.filter((event) => event.kind === "holding.updated")
      const moved = new Set(
        ofKinds(events, ["nft.received", "nft.sent"]).flatMap((e) => ("tokenId" in e && "collection" in e ? [`${e.wallet}:${e.collection}:${e.tokenId}`] : []))
      )
      assert.isAbove(reports.length, 0)
      assert.deepStrictEqual(sorted(reports.map((r) => `${r.wallet}:${r.collection}:${r.tokenId}`)), sorted([...moved]))
      for (const report of reports) {
        assert.strictEqual(report.amount, held.get(`${report.wallet}:${report.collection}:${report.tokenId}`) ?? 0n, report.id)
      }
    }).pipe(Effect.provide(harness({ seed: 25, indexing: false, chains: ["0x1"] }))))

  const cases = [
    ["a collection whose owners are still SYNCING is reported as such once, then with its balances once synced", false],
    ["a cycle that is not committed changes nothing that holdings owe: each SYNCING report and its later balances come once", true]
  ] as const
  for (const [name, loseEachCycleOnce] of cases) {
    it.effect(name, () =>
      Effect.gen(function*() {
        const sim = yield* Simulator.Simulator
        const wallets = busiestEvm(sim, "0x1", 6)
        const engine = yield* Engine.make({ wallets, strategy: "block-scan", confirmations: 0, watch: ["transfers", "holdings"] })
        yield* engine.step(() => Effect.void)
        const all: Array<WatchEvent.WatchEvent> = []
        // Then blocks with nothing new for some collections: the pending ones are checked again.
        for (let round = 0; round < 10; round++) {
          yield* sim.advance(round < 6 ? 4 : 3)
          // Read, then lost before it was committed (a failed write, a crash): read again.
          const lost = loseEachCycleOnce ? yield* engine.cycle : undefined
          const events = yield* engine.step(() => Effect.void)
          if (lost !== undefined) assert.deepStrictEqual(ids(events), ids(lost.events))
          all.push(...events)
        }
        assertSyncingThenUpdated(all)
      }).pipe(Effect.provide(harness({ seed: 26, indexing: { lagProbability: 0, syncBlocks: 6 }, chains: ["0x1"] }))))
  }
})
