/**
 * `Backfill` against the simulator over real HTTP: FROM parsing; from a block or a date, the
 * events of the watched wallets equal the ground truth of `[FROM, checkpoint]` (wallets the
 * state knows) or `[FROM, safe head]` (new wallets, whose checkpoints are then committed), in
 * chain order; the engine's first cycle after it goes on with no gap and no duplicate; trades
 * when watched, and only where A4 exists; Aptos in B3 batches of 50.
 */
import { assert, describe, it } from "@effect/vitest"
import { Simulator } from "@chainquery/simulator"
import type { Chain } from "@chainquery/schema"
import { DateTime, Effect, Result } from "effect"
import { Backfill, Engine, StateStore, type WatchedWallet, type WatchEvent } from "../src/index.js"
import { aptosTruth, busiestAptos, busiestEvm, evmTruth, harness, positionOf, type Sim, tradeTruth } from "./support/engineHarness.js"

const ids = (events: ReadonlyArray<WatchEvent.WatchEvent>) => events.map((event) => event.id)
const sorted = (values: ReadonlyArray<string>) => values.toSorted()
const isTrade = (event: WatchEvent.WatchEvent) => event.kind === "trade.bought" || event.kind === "trade.sold"
const isTransfer = (event: WatchEvent.WatchEvent) => event.kind === "nft.received" || event.kind === "nft.sent"

/** A `write` that keeps what it is given. */
const collector = () => {
  const written: Array<WatchEvent.WatchEvent> = []
  return { written, write: (events: ReadonlyArray<WatchEvent.WatchEvent>) => Effect.sync(() => void written.push(...events)) }
}

const assertSameEvents = (actual: ReadonlyArray<WatchEvent.WatchEvent>, expected: ReadonlyArray<WatchEvent.WatchEvent>) => {
  assert.strictEqual(new Set(ids(actual)).size, actual.length, "an event was written twice")
  assert.deepStrictEqual(sorted(ids(actual)), sorted(ids(expected)))
}

/** EVM events in chain order: block, then log index (trades: block only). */
const assertChainOrder = (events: ReadonlyArray<WatchEvent.WatchEvent>) => {
  const placed = events.flatMap((event) =>
    isTransfer(event) && "logIndex" in event ? [[event.blockNumber, event.logIndex] as const] : isTrade(event) && "blockNumber" in event ? [[event.blockNumber, -1] as const] : []
  )
  placed.forEach(([block, log], i) => {
    if (i === 0) return
    const [previousBlock, previousLog] = placed[i - 1]!
    assert.isTrue(block > previousBlock || (block === previousBlock && (log === -1 || previousLog === -1 || log >= previousLog)), `out of chain order at ${i}`)
  })
}

const checkpointsOf = (wallets: ReadonlyArray<WatchedWallet.WatchedWallet>) =>
  Effect.gen(function*() {
    const store = yield* StateStore.StateStore
    const all = yield* store.checkpoints
    return wallets.map((wallet) => all.find((c) => c.wallet.address === wallet.address && c.wallet.family === wallet.family)?.position)
  })

const headOf = (sim: Sim, chain: Chain.ChainId) => BigInt(sim.world.evm.chain(chain).head)

/** A FROM that must decode. */
const ok = (text: string) => {
  const result = Backfill.decodeFrom(text)
  if (Result.isFailure(result)) throw new Error(`rejected ${text}: ${result.failure.message}`)
  return result.success
}

describe("Backfill.decodeFrom", () => {
  it("a block number, a date, a date-time with or without a zone", () => {
    assert.deepStrictEqual(ok("19000000"), { _tag: "Block", block: 19_000_000n })
    assert.deepStrictEqual(ok(" 0 "), { _tag: "Block", block: 0n })
    const at = (text: string) => {
      const from = ok(text)
      return from._tag === "Date" ? DateTime.formatIso(from.date) : `block ${from.block}`
    }
    assert.strictEqual(at("2026-11-01"), "2026-11-01T00:00:00.000Z")
    assert.strictEqual(at("2026-11-01T12:00:00Z"), "2026-11-01T12:00:00.000Z")
    assert.strictEqual(at("2026-11-01T12:00"), "2026-11-01T12:00:00.000Z")
    assert.strictEqual(at("2026-11-01T12:00:00.250+02:00"), "2026-11-01T10:00:00.250Z")
    assert.strictEqual(at("2024-02-29T23:59:59-0530"), "2024-03-01T05:29:59.000Z")
    assert.strictEqual(at("0099-01-01"), "0099-01-01T00:00:00.000Z")
  })

  it("anything else is an InvalidFrom saying what is valid", () =>
    Effect.gen(function*() {
      for (const text of ["yesterday-ish", "", "-5", "1e6", "2026-02-30", "2026-13-01", "2026-11-01T25:00:00Z", "2026-11-01T12:00:00+24:00", "11/01/2026"]) {
        const result = Backfill.decodeFrom(text)
        assert.isTrue(Result.isFailure(result), `accepted ${JSON.stringify(text)}`)
        const error = yield* Effect.flip(Backfill.parseFrom(text))
        assert.strictEqual(error._tag, "InvalidFrom")
        assert.strictEqual(error.input, text)
        assert.match(error.message, /expected a block number \(e\.g\. 19000000.*or an ISO 8601 date \(e\.g\. 2026-11-01 or 2026-11-01T12:00:00Z/)
        assert.include(error.message, JSON.stringify(text))
        assert.include(error.expected, Backfill.validFrom)
      }
      assert.match((yield* Effect.flip(Backfill.parseFrom("yesterday-ish"))).message, /^"yesterday-ish" is neither a block number nor a date: expected/)
      assert.match((yield* Effect.flip(Backfill.parseFrom("2026-02-30"))).message, /^"2026-02-30" is not a date on the calendar: expected/)
    }).pipe(Effect.runSync))
})

describe("Backfill, EVM", () => {
  it.live("from a block, new wallets: [FROM, safe head], checkpoints committed, then the first cycle goes on with no gap", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const wallets = busiestEvm(sim, "0x1", 6)
      const head = headOf(sim, "0x1")
      // FROM is a block with a transfer of a watched wallet: FROM itself is part of the history.
      const recent = (yield* evmTruth(sim, "0x1", wallets, head - 40n, head)).filter(isTransfer)
      const from = recent[0]!.blockNumber
      const { write, written } = collector()
      const summary = yield* Backfill.run({ wallets, from: { _tag: "Block", block: from }, watch: ["transfers"], write })
      const truth = yield* evmTruth(sim, "0x1", wallets, from - 1n, head)
      assert.isAbove(truth.length, 5)
      assert.isTrue(written.some((event) => "blockNumber" in event && event.blockNumber === from))
      assertSameEvents(written, truth)
      assertChainOrder(written)
      assert.strictEqual(summary.events, written.length)
      assert.deepStrictEqual(yield* checkpointsOf(wallets), wallets.map(() => head))
      // The engine continues from the committed checkpoints: no baseline, nothing lost or repeated.
      const engine = yield* Engine.make({ wallets, strategy: "auto", confirmations: 0, watch: ["transfers"] })
      const after: Array<WatchEvent.WatchEvent> = []
      for (const blocks of [4, 7]) {
        yield* sim.advance(blocks)
        after.push(...(yield* engine.step(() => Effect.void)))
      }
      const final = headOf(sim, "0x1")
      assert.strictEqual((yield* positionOf(wallets)).min, final)
      assert.isAbove(after.length, 0)
      assertSameEvents([...written, ...after], yield* evmTruth(sim, "0x1", wallets, from - 1n, final))
    }).pipe(Effect.provide(harness({ seed: 31, indexing: false, chains: ["0x1"] }))))

  it.live("from a block, wallets with a checkpoint: up to it, nothing committed for them; a new wallet beside them: up to the head", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const [newcomer, ...old] = busiestEvm(sim, "0x1", 5)
      const store = yield* StateStore.StateStore
      const engine = yield* Engine.make({ wallets: old, strategy: "per-wallet", confirmations: 0, watch: ["transfers"] })
      yield* engine.step(() => Effect.void)
      yield* sim.advance(10)
      yield* engine.step(() => Effect.void)
      const checkpoint = (yield* positionOf(old)).min
      yield* sim.advance(4)
      const head = headOf(sim, "0x1")
      const batches = (yield* store.lastBatch).pipe((last) => (last._tag === "Some" ? last.value.sequence : 0))
      const from = checkpoint - 30n
      const wallets = [...old, newcomer!]
      const { write, written } = collector()
      const summary = yield* Backfill.run({ wallets, from: { _tag: "Block", block: from }, watch: ["transfers"], write })
      const expected = [
        ...(yield* evmTruth(sim, "0x1", old, from - 1n, checkpoint)),
        ...(yield* evmTruth(sim, "0x1", [newcomer!], from - 1n, head))
      ]
      // Both bounds matter here: the old wallets moved after their checkpoint, the newcomer too.
      assert.isAbove((yield* evmTruth(sim, "0x1", old, checkpoint, head)).length, 0)
      assert.isAbove(expected.filter((event) => event.wallet === newcomer!.address && event.blockNumber > checkpoint).length, 0)
      assertSameEvents(written, expected)
      assertChainOrder(written)
      assert.deepStrictEqual(yield* checkpointsOf(wallets), [...old.map(() => checkpoint), head])
      assert.deepStrictEqual(summary.committed.map((c) => c.wallet), [newcomer!])
      const last = yield* store.lastBatch
      // Two commits: the wallets' plans before anything was read, then the one batch.
      assert.strictEqual(last._tag === "Some" ? last.value.sequence : 0, batches + 2)
      // The next cycle: the old wallets from their checkpoint, the newcomer from the head.
      yield* sim.advance(5)
      const all = yield* Engine.make({ wallets, strategy: "auto", confirmations: 0, watch: ["transfers"] })
      const after = yield* all.step(() => Effect.void)
      const final = headOf(sim, "0x1")
      assertSameEvents([...written, ...after], yield* evmTruth(sim, "0x1", wallets, from - 1n, final))
    }).pipe(Effect.provide(harness({ seed: 32, indexing: false, chains: ["0x1"] }))))

  it.live("from a date: the blocks at or after that instant", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const wallets = busiestEvm(sim, "0x1", 6)
      const head = headOf(sim, "0x1")
      const chain = sim.world.evm.chain("0x1")
      // 5 s after a block's timestamp (blocks are 12 s apart on eth): that block is before FROM.
      const date = DateTime.makeUnsafe(chain.timestampOf(Number(head) - 25) + 5000)
      const { write, written } = collector()
      yield* Backfill.run({ wallets, from: { _tag: "Date", date }, watch: ["transfers"], write })
      const truth = (yield* evmTruth(sim, "0x1", wallets, 0n, head)).filter((event) =>
        DateTime.toEpochMillis(event.timestamp) >= DateTime.toEpochMillis(date)
      )
      assert.isAbove(truth.length, 0)
      assert.isTrue(truth.every((event) => event.blockNumber >= head - 24n))
      assertSameEvents(written, truth)
      assertChainOrder(written)
    }).pipe(Effect.provide(harness({ seed: 33, indexing: false, chains: ["0x1"] }))))

  it.live("indexing lag and confirmations: the committed checkpoint is the engine's safe head", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const wallets = busiestEvm(sim, "0x1", 3)
      const from = headOf(sim, "0x1") - 20n
      const lagging = collector()
      yield* Backfill.run({ wallets: wallets.slice(0, 2), from: { _tag: "Block", block: from }, watch: ["transfers"], write: lagging.write })
      const indexed = BigInt(sim.world.evm.indexedHead("0x1"))
      assert.isTrue(indexed < headOf(sim, "0x1"), "the newest block is not indexed yet")
      assert.deepStrictEqual(yield* checkpointsOf(wallets.slice(0, 2)), [indexed, indexed])
      assertSameEvents(lagging.written, yield* evmTruth(sim, "0x1", wallets.slice(0, 2), from - 1n, indexed))
      const deep = collector()
      yield* Backfill.run({ wallets: wallets.slice(2), from: { _tag: "Block", block: from }, watch: ["transfers"], confirmations: 3, write: deep.write })
      // N deep: the block N after it is fully indexed.
      const safe = BigInt(sim.world.evm.indexedHead("0x1")) - 3n
      assert.deepStrictEqual(yield* checkpointsOf(wallets.slice(2)), [safe])
      assertSameEvents(deep.written, yield* evmTruth(sim, "0x1", wallets.slice(2), from - 1n, safe))
    }).pipe(Effect.provide(harness({ seed: 34, indexing: { lagProbability: 1, syncBlocks: 0 }, chains: ["0x1"] }))))
})

describe("Backfill, trades", () => {
  it.live("trades watched: the range's trades, each after its wallet's transfer; trades only: no transfer", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const wallets = busiestEvm(sim, "0x1", 12)
      const head = headOf(sim, "0x1")
      const from = head - 45n
      const both = collector()
      yield* Backfill.run({ wallets, from: { _tag: "Block", block: from }, watch: ["transfers", "trades"], write: both.write })
      const trades = both.written.filter(isTrade)
      const truth = tradeTruth(sim, "0x1", wallets, from, head)
      assert.isAbove(truth.length, 0)
      assert.deepStrictEqual(sorted(ids(trades)), sorted(truth))
      assertSameEvents(both.written.filter(isTransfer), yield* evmTruth(sim, "0x1", wallets, from - 1n, head))
      assertChainOrder(both.written)
      both.written.forEach((event, index) => {
        if (!isTrade(event) || !("transactionHash" in event)) return
        const transfer = both.written.slice(0, index).findLastIndex((e) =>
          isTransfer(e) && e.wallet === event.wallet && "transactionHash" in e && e.transactionHash === event.transactionHash
        )
        assert.isAtLeast(transfer, 0, `trade ${event.id} is not after its transfer`)
      })
      // Trades only, over the same range (the checkpoints now exist: up to them).
      const only = collector()
      yield* Backfill.run({ wallets, from: { _tag: "Block", block: from }, watch: ["trades"], write: only.write })
      assert.deepStrictEqual(only.written.filter(isTransfer), [])
      assert.deepStrictEqual(sorted(ids(only.written)), sorted(truth))
      assertChainOrder(only.written)
    }).pipe(Effect.provide(harness({ seed: 21, indexing: false, chains: ["0x1"] }))))

  it.live("a chain without A4 (fantom): transfers only, and A4 is never asked", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const wallets = busiestEvm(sim, "0xfa", 4)
      const head = headOf(sim, "0xfa")
      const from = head - 40n
      yield* sim.resetStats
      const { write, written } = collector()
      yield* Backfill.run({ wallets, from: { _tag: "Block", block: from }, watch: ["transfers", "trades"], write })
      const stats = yield* sim.stats
      assert.strictEqual(stats.requests.byOperation.getNFTTradesByWallet ?? 0, 0)
      assert.isAbove(stats.requests.byOperation.getWalletNFTTransfers ?? 0, 0)
      const truth = yield* evmTruth(sim, "0xfa", wallets, from - 1n, head)
      assert.isAbove(truth.length, 0)
      assertSameEvents(written, truth)
    }).pipe(Effect.provide(harness({ seed: 35, indexing: false, chains: ["0xfa"] }))))
})

/** The Aptos truth of each wallet from `from` (a version) up to its own checkpoint. */
const aptosUpTo = (sim: Sim, wallets: ReadonlyArray<WatchedWallet.AptosWallet>, from: bigint, upTo: ReadonlyArray<bigint | undefined>) =>
  wallets.flatMap((wallet, i) => aptosTruth(sim, [wallet], from - 1n, upTo[i] ?? -1n))

const assertVersionOrder = (events: ReadonlyArray<WatchEvent.WatchEvent>) => {
  const versions = events.flatMap((event) => ("version" in event ? [event.version] : []))
  assert.strictEqual(versions.length, events.length)
  assert.deepStrictEqual(versions, versions.toSorted((a, b) => (a < b ? -1 : a > b ? 1 : 0)))
}

describe("Backfill, Aptos", () => {
  it.live("from a version, 60 wallets in two B3 batches: [FROM, newest seen], then the first cycle goes on", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const wallets = busiestAptos(sim, 60)
      const history = aptosTruth(sim, wallets, 0n, 2n ** 62n)
      const from = history[Math.floor(history.length * 0.6)]!.version
      yield* sim.resetStats
      const { write, written } = collector()
      yield* Backfill.run({ wallets, from: { _tag: "Block", block: from }, watch: ["transfers"], write })
      const stats = yield* sim.stats
      const checkpoints = yield* checkpointsOf(wallets)
      // Each batch's new checkpoint is the newest version its listing showed: its wallets' newest transfer.
      for (const [start, end] of [[0, 50], [50, 60]] as const) {
        const newest = aptosTruth(sim, wallets.slice(start, end), 0n, 2n ** 62n).at(-1)!.version
        assert.deepStrictEqual(checkpoints.slice(start, end), wallets.slice(start, end).map(() => newest))
      }
      const expected = aptosUpTo(sim, wallets, from, checkpoints)
      assert.isAbove(expected.length, 10)
      assert.isTrue(written.some((event) => "version" in event && event.version === from))
      assertSameEvents(written, expected)
      assertVersionOrder(written)
      assert.isAtLeast(stats.requests.byOperation.getWalletsNFTTransfers ?? 0, 2)
      const engine = yield* Engine.make({ wallets, strategy: "auto", confirmations: 0, watch: ["transfers"] })
      yield* sim.advance(6)
      const after = yield* engine.step(() => Effect.void)
      assert.isAbove(after.length, 0)
      assertSameEvents([...written, ...after], aptosUpTo(sim, wallets, from, yield* checkpointsOf(wallets)))
    }).pipe(Effect.provide(harness({ seed: 36, indexing: false, chains: ["0x1"] }))))

  it.live("from a date: the transactions at or after that instant; a wallet with a checkpoint up to it", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const wallets = busiestAptos(sim, 8)
      const history = aptosTruth(sim, wallets, 0n, 2n ** 62n)
      const date = history[Math.floor(history.length / 2)]!.timestamp
      // Half of the wallets were watched before: their checkpoint is behind the ledger now.
      const known = wallets.slice(0, 4)
      yield* (yield* Engine.make({ wallets: known, strategy: "auto", confirmations: 0, watch: ["transfers"] })).step(() => Effect.void)
      const before = yield* checkpointsOf(known)
      yield* sim.advance(8)
      assert.isAbove(aptosUpTo(sim, known, before[0]! + 1n, known.map(() => 2n ** 62n)).length, 0)
      const { write, written } = collector()
      yield* Backfill.run({ wallets, from: { _tag: "Date", date }, watch: ["transfers", "trades"], write })
      const checkpoints = yield* checkpointsOf(wallets)
      assert.deepStrictEqual(checkpoints.slice(0, 4), before)
      const expected = wallets.flatMap((wallet, i) =>
        aptosTruth(sim, [wallet], 0n, checkpoints[i] ?? -1n).filter((event) => DateTime.toEpochMillis(event.timestamp) >= DateTime.toEpochMillis(date))
      )
      assert.isAbove(expected.length, 0)
      assert.isBelow(expected.length, history.length)
      assertSameEvents(written, expected)
      assertVersionOrder(written)
    }).pipe(Effect.provide(harness({ seed: 37, indexing: false, chains: ["0x1"] }))))
})
