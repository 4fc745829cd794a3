/**
 * An EVM backfill is written and committed in batches, in block order, with how far each wallet
 * got; a run that dies in the middle is resumed after its last committed batch, with the batch in
 * flight written again and nothing else. Against the simulator over real HTTP, a state store in
 * memory; the "death" is a `write` that writes its batch and then fails, as a process killed
 * before it forgot the batch's pending events.
 */
import { assert, describe, it } from "@effect/vitest"
import { Simulator } from "@chainquery/simulator"
import type { Chain } from "@chainquery/schema"
import { DateTime, Effect } from "effect"
import { Backfill, Engine, StateStore, type WatchedWallet, type WatchEvent } from "../src/index.js"
import { busiestEvm, evmTruth, harness, positionOf, type Sim, tradeTruth } from "./support/engineHarness.js"

const ids = (events: ReadonlyArray<WatchEvent.WatchEvent>) => events.map((event) => event.id)
const sorted = (values: ReadonlyArray<string>) => values.toSorted()
const headOf = (sim: Sim, chain: Chain.ChainId) => BigInt(sim.world.evm.chain(chain).head)
const blockOf = (event: WatchEvent.WatchEvent): bigint => ("blockNumber" in event ? event.blockNumber : -1n)

/** The ids that occur more than once. */
const repeated = (values: ReadonlyArray<string>) => {
  const seen = new Set<string>()
  return values.filter((value) => (seen.has(value) ? true : (seen.add(value), false)))
}

/** A `write` that keeps each batch apart, with how far the store says each wallet got when it was written. */
const batches = (options: { readonly failOn?: number } = {}) => {
  const written: Array<ReadonlyArray<WatchEvent.WatchEvent>> = []
  const through: Array<ReadonlyArray<bigint>> = []
  const write = (events: ReadonlyArray<WatchEvent.WatchEvent>) =>
    Effect.gen(function*() {
      const store = yield* StateStore.StateStore
      written.push(events)
      through.push((yield* store.backfills).map((progress) => progress.through ?? -1n))
      // Written, then dead before the batch was forgotten: as `kill -9` right after the write.
      if (written.length === options.failOn) return yield* Effect.fail("killed" as const)
    })
  return { written, through, write, all: () => written.flat() }
}

/** A `write` that keeps what it is given, in one list. */
const collector = () => {
  const written: Array<WatchEvent.WatchEvent> = []
  return { written, write: (events: ReadonlyArray<WatchEvent.WatchEvent>) => Effect.sync(() => void written.push(...events)) }
}

describe("Backfill in batches", () => {
  it.live("written in batches in block order, each committed with how far every wallet got; forgotten at the end", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const store = yield* StateStore.StateStore
      const wallets = busiestEvm(sim, "0x1", 6)
      const head = headOf(sim, "0x1")
      const from = head - 100n
      const out = batches()
      yield* Backfill.run({ wallets, from: { _tag: "Block", block: from }, watch: ["transfers"], write: out.write, batchEvents: 25 })
      const truth = yield* evmTruth(sim, "0x1", wallets, from - 1n, head)
      assert.isAbove(truth.length, 100)
      assert.isAtLeast(out.written.length, 4, "several batches")
      assert.deepStrictEqual(repeated(ids(out.all())), [])
      assert.deepStrictEqual(sorted(ids(out.all())), sorted(ids(truth)))
      // Block order across the batches, and each batch's events are within what its commit says.
      const blocks = out.all().map(blockOf)
      assert.deepStrictEqual(blocks, blocks.toSorted((a, b) => (a < b ? -1 : a > b ? 1 : 0)))
      out.written.forEach((batch, index) => {
        const reached = out.through[index]!
        if (index === out.written.length - 1) return assert.deepStrictEqual(reached, [], "the last batch forgets the progress")
        assert.strictEqual(reached.length, wallets.length)
        for (const event of batch) assert.isTrue(reached.every((through) => blockOf(event) <= through), `batch ${index} wrote past its progress`)
      })
      assert.deepStrictEqual(yield* store.backfills, [])
      assert.strictEqual((yield* positionOf(wallets)).min, head)
    }).pipe(Effect.provide(harness({ seed: 61, indexing: false, chains: ["0x1"], history: 140 }))))

  it.live("killed after a batch was written: the next run writes it again, then goes on after it; nothing lost, nothing else repeated", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const store = yield* StateStore.StateStore
      const wallets = busiestEvm(sim, "0x1", 8)
      const head = headOf(sim, "0x1")
      const from = head - 110n
      const watch = ["transfers", "trades"] as const
      const first = batches({ failOn: 3 })
      const died = yield* Effect.flip(Backfill.run({ wallets, from: { _tag: "Block", block: from }, watch, write: first.write, batchEvents: 30 }))
      assert.strictEqual(died, "killed")
      const reached = yield* store.backfills
      assert.strictEqual(reached.length, wallets.length)
      const inFlight = ids(first.written[2]!)
      assert.isAbove(inFlight.length, 0)
      // The chain went on while the watcher was down.
      yield* sim.advance(5)
      // The restart, as the CLI's: the batch in flight first, then the backfill (no FROM needed).
      const second = collector()
      const engine = yield* Engine.make({ wallets, strategy: "auto", confirmations: 0, watch: [...watch] })
      yield* engine.recover(second.write)
      assert.deepStrictEqual(ids(second.written), inFlight)
      const resumedFrom = second.written.length
      yield* Backfill.run({ wallets, watch, write: second.write, batchEvents: 30 })
      const resumed = second.written.slice(resumedFrom)
      // Nothing of what was committed is read again: the resumed run starts after the last batch.
      const committedUpTo = reached.map((progress) => progress.through ?? -1n).reduce((low, through) => (through < low ? through : low))
      assert.isTrue(resumed.every((event) => blockOf(event) > committedUpTo), "the resumed run printed a committed block again")
      assert.deepStrictEqual(yield* store.backfills, [])
      // The checkpoints are where the first run meant to end, and the engine goes on from there.
      assert.deepStrictEqual(yield* positionOf(wallets), { min: head, max: head, count: wallets.length })
      yield* sim.advance(4)
      const after = yield* engine.step(second.write)
      assert.isAbove(after.length, 0)
      const final = headOf(sim, "0x1")
      const everything = [...first.all(), ...second.written]
      const truth = [...ids(yield* evmTruth(sim, "0x1", wallets, from - 1n, final)), ...tradeTruth(sim, "0x1", wallets, from, final)]
      assert.isAbove(tradeTruth(sim, "0x1", wallets, from, head).length, 0, "trades in the range")
      assert.deepStrictEqual(sorted([...new Set(ids(everything))]), sorted(truth))
      assert.deepStrictEqual(sorted(repeated(ids(everything))), sorted(inFlight), "only the batch in flight is written twice")
    }).pipe(Effect.provide(harness({ seed: 62, indexing: false, chains: ["0x1"], history: 140 }))))

  it.live("the progress bar of a resumed backfill starts from what was done and only moves on; without FROM and nothing interrupted, nothing is read", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const store = yield* StateStore.StateStore
      const busy = busiestEvm(sim, "0x1", 7)
      const from = headOf(sim, "0x1") - 100n
      // A wallet whose checkpoint is below FROM has nothing to read: it is done at once.
      const behind = busy[6]!
      yield* store.commit({ checkpoints: [{ wallet: behind, position: from - 10n, hash: null }], eventIds: [] })
      const wallets = busy
      const lines: Array<string> = []
      const progress = { isTTY: false, write: (text: string) => void lines.push(text) }
      yield* Effect.flip(
        Backfill.run({ wallets, from: { _tag: "Block", block: from }, watch: ["transfers"], write: batches({ failOn: 2 }).write, batchEvents: 40, progress })
      )
      assert.match(lines.at(-1)!, /stopped: \d\/7 wallets/)
      lines.length = 0
      yield* Backfill.run({ wallets, watch: ["transfers"], write: () => Effect.void, progress })
      const percents = lines.slice(0, -1).map((line) => Number(/ (\d+)% /.exec(line)?.[1]))
      assert.match(lines[0]!, /^backfill \(resumed from block \d+\)/)
      assert.isAbove(percents[0]!, 0, `the first line starts from what was done: ${lines[0]}`)
      assert.deepStrictEqual(percents, percents.toSorted((a, b) => a - b), `the bar went back: ${lines.join("")}`)
      assert.match(lines.at(-1)!, /done: 7\/7 wallets/)
      // Nothing interrupted any more, and no FROM: no request, no bar.
      yield* sim.resetStats
      lines.length = 0
      const summary = yield* Backfill.run({ wallets, watch: ["transfers"], write: () => Effect.void, progress })
      assert.deepStrictEqual(summary, { wallets: 0, events: 0, committed: [] })
      assert.strictEqual((yield* sim.stats).requests.total, 0)
      assert.deepStrictEqual(lines, [])
    }).pipe(Effect.provide(harness({ seed: 63, indexing: false, chains: ["0x1"], history: 140 }))))

  it.live("two chains from a date, killed in the first: the next run, without FROM and without the engine, writes the batch in flight, then finishes both", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const store = yield* StateStore.StateStore
      const wallets = [...busiestEvm(sim, "0x1", 4), ...busiestEvm(sim, "0x89", 4)]
      // The chains began together; polygon's blocks come every 2 s, eth's every 12 s.
      const date = DateTime.makeUnsafe(sim.world.evm.chain("0x89").timestampOf(Number(headOf(sim, "0x89")) - 100) + 1000)
      const first = batches({ failOn: 2 })
      assert.strictEqual(yield* Effect.flip(Backfill.run({ wallets, from: { _tag: "Date", date }, watch: ["transfers"], write: first.write, batchEvents: 30 })), "killed")
      assert.isTrue(first.all().every((event) => "chain" in event && event.chain === "0x1"), "killed in the first chain")
      // Every wallet's plan is on record, those of the second chain too, before it was read.
      assert.strictEqual((yield* store.backfills).length, wallets.length)
      const inFlight = ids(first.written[1]!)
      const second = collector()
      yield* Backfill.run({ wallets, watch: ["transfers"], write: second.write, batchEvents: 30 })
      assert.deepStrictEqual(ids(second.written.slice(0, inFlight.length)), inFlight, "the batch in flight first")
      const since = (event: { readonly timestamp: DateTime.Utc }) => DateTime.toEpochMillis(event.timestamp) >= DateTime.toEpochMillis(date)
      const truth = [
        ...(yield* evmTruth(sim, "0x1", wallets.filter((w) => w.chain === "0x1"), 0n, headOf(sim, "0x1"))),
        ...(yield* evmTruth(sim, "0x89", wallets.filter((w) => w.chain === "0x89"), 0n, headOf(sim, "0x89")))
      ].filter(since)
      assert.isAbove(truth.filter((event) => event.chain === "0x89").length, 0)
      const everything = [...first.all(), ...second.written]
      assert.deepStrictEqual(sorted([...new Set(ids(everything))]), sorted(ids(truth)))
      assert.deepStrictEqual(sorted(repeated(ids(everything))), sorted(inFlight))
      assert.deepStrictEqual(yield* store.backfills, [])
    }).pipe(Effect.provide(harness({ seed: 65, indexing: false, chains: ["0x1", "0x89"], history: 140 }))))

  it.live("from a date, stopped before its first batch (A4 down): the next run without FROM reads it all from that date", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const store = yield* StateStore.StateStore
      const wallets = busiestEvm(sim, "0x1", 5)
      const head = headOf(sim, "0x1")
      const date = DateTime.makeUnsafe(sim.world.evm.chain("0x1").timestampOf(Number(head) - 60) + 5000)
      const watch = ["transfers", "trades"] as const
      yield* sim.setFaults({ routes: { getNFTTradesByWallet: { serverError: { probability: 1, statuses: [503] } } } })
      const first = collector()
      const failed = yield* Effect.flip(Backfill.run({ wallets, from: { _tag: "Date", date }, watch, write: first.write }))
      yield* sim.setFaults({})
      assert.strictEqual(failed._tag, "EngineError")
      assert.deepStrictEqual(first.written, [])
      const planned = yield* store.backfills
      assert.deepStrictEqual(planned.map((progress) => [progress.through, progress.fromDate === null ? null : DateTime.toEpochMillis(progress.fromDate)]), wallets.map(() => [null, DateTime.toEpochMillis(date)]))
      const second = collector()
      yield* Backfill.run({ wallets, watch, write: second.write })
      const truth = (yield* evmTruth(sim, "0x1", wallets, 0n, head)).filter((event) =>
        DateTime.toEpochMillis(event.timestamp) >= DateTime.toEpochMillis(date)
      )
      assert.isAbove(truth.length, 20)
      assert.deepStrictEqual(repeated(ids(second.written)), [])
      assert.deepStrictEqual(sorted(ids(second.written.filter((event) => event.kind === "nft.received" || event.kind === "nft.sent"))), sorted(ids(truth)))
      assert.deepStrictEqual((yield* positionOf(wallets)).count, wallets.length)
    }).pipe(Effect.provide(harness({ seed: 66, indexing: false, chains: ["0x1"], history: 140 }))))

  it.live("from a date, in batches: the blocks at or after that instant, once each", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const wallets: ReadonlyArray<WatchedWallet.EvmWallet> = busiestEvm(sim, "0x1", 5)
      const head = headOf(sim, "0x1")
      const date = DateTime.makeUnsafe(sim.world.evm.chain("0x1").timestampOf(Number(head) - 80) + 5000)
      const out = batches()
      yield* Backfill.run({ wallets, from: { _tag: "Date", date }, watch: ["transfers"], write: out.write, batchEvents: 20 })
      const truth = (yield* evmTruth(sim, "0x1", wallets, 0n, head)).filter((event) =>
        DateTime.toEpochMillis(event.timestamp) >= DateTime.toEpochMillis(date)
      )
      assert.isAbove(truth.length, 40)
      assert.isAtLeast(out.written.length, 3)
      assert.deepStrictEqual(repeated(ids(out.all())), [])
      assert.deepStrictEqual(sorted(ids(out.all())), sorted(ids(truth)))
    }).pipe(Effect.provide(harness({ seed: 64, indexing: false, chains: ["0x1"], history: 140 }))))
})
