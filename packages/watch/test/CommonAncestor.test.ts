/**
 * The check of the record of recent blocks (`internal/cycle/deepReorg.ts`), on its own against the
 * simulator over real HTTP: a replaced block is found by reading the newest recorded one again;
 * the blocks below it are read again down to the common ancestor (the first whose recorded hash
 * still matches), each reconciled for every wallet that covers it; an error gives the depth when
 * it is deeper than the confirmations waited for or, without any, than the reorganisation window;
 * nothing older than the record can be noticed, and the error says so.
 */
import { assert, describe, it } from "@effect/vitest"
import { EvmClient } from "@chainquery/evm-client"
import { Simulator } from "@chainquery/simulator"
import { Effect } from "effect"
import { below, foundDeeper, keeps, probeRecord, readAgain, type ReadAgain, walkDown } from "../src/internal/cycle/deepReorg.js"
import type { Recent } from "../src/internal/cycle/recentBlocks.js"
import { chain, collectingErrors, everyWallet, headOf, recordOf, simulated, walkInput } from "./support/recentRecord.js"

const numbers = (reads: ReadonlyArray<ReadAgain> | undefined) => (reads ?? []).map((read) => read.result.block.number)
const ids = (events: ReadonlyArray<{ readonly id: string }>) => events.map((event) => event.id).toSorted()

/** The simulator, its client, its head, every wallet covering every block, and the record of the last `blocks` blocks. */
const recorded = (blocks: number) =>
  Effect.gen(function*() {
    const sim = yield* Simulator.Simulator
    const client = yield* EvmClient.EvmClient
    const head = headOf(sim)
    const tracked = everyWallet(sim, head)
    const recent = yield* recordOf(client, tracked, head - BigInt(blocks) + 1n, head)
    return { sim, client, head, tracked, recent, input: walkInput(client, tracked, recent) }
  })

/** What the record would be for blocks `[from, to]` after the reorganisation: each block's events, read anew. */
const truthOf = (reads: ReadonlyArray<ReadAgain>, fresh: Recent) =>
  reads.map((read) => ({
    block: read.result.block.number,
    hash: read.result.block.hash,
    ids: ids(read.result.blockEvents.events),
    truth: { block: read.result.block.number, hash: fresh.hashes.get(read.result.block.number), ids: ids(fresh.printed.get(read.result.block.number) ?? []) }
  }))

describe("the record's check finds the common ancestor of a reorganisation", () => {
  it.effect("nothing replaced: the newest recorded block alone is read, unchanged, and nothing is logged", () =>
    collectingErrors((errors) =>
      Effect.gen(function*() {
        const { head, input } = yield* recorded(12)
        const reads = yield* probeRecord(input, head, 0, 6)
        assert.deepStrictEqual(numbers(reads), [head])
        assert.isFalse(reads![0]!.replaced)
        assert.isTrue(reads![0]!.sure)
        assert.isFalse(keeps(reads![0]!))
        assert.deepStrictEqual(yield* probeRecord(input, head, 2, 6), reads, "with confirmations too")
        assert.deepStrictEqual(errors, [])
      }).pipe(Effect.provide(simulated("ancestor-none")))
    ))

  const cases = [
    { depth: 3, window: 6, deep: undefined },
    { depth: 6, window: 6, deep: undefined },
    { depth: 7, window: 6, deep: 7 },
    { depth: 9, window: 6, deep: 9 }
  ] as const
  for (const { deep, depth, window } of cases) {
    it.effect(`without confirmations, depth ${depth} and window ${window}: every replaced block read again down to the ancestor, ${deep === undefined ? "no error" : `an error of ${deep} blocks`}`, () =>
      collectingErrors((errors) =>
        Effect.gen(function*() {
          const { client, head, input, recent, sim, tracked } = yield* recorded(14)
          const fromBlock = BigInt(yield* sim.reorg(chain, depth))
          assert.strictEqual(fromBlock, head - BigInt(depth) + 1n)
          const reads = (yield* probeRecord(input, head, 0, window))!
          // Newest first: the probe, then the walk down, which stops at the ancestor (not returned).
          assert.deepStrictEqual(numbers(reads), Array.from({ length: depth }, (_, i) => head - BigInt(i)))
          for (const read of reads) assert.isTrue(read.replaced && read.sure && keeps(read), `block ${read.result.block.number} found replaced`)
          const fresh = yield* recordOf(client, tracked, fromBlock, head)
          for (const row of truthOf(reads, fresh)) assert.deepStrictEqual({ block: row.block, hash: row.hash, ids: row.ids }, row.truth)
          const orphaned = [...recent.printed].filter(([block]) => block >= fromBlock).flatMap(([, events]) => events)
          const retracted = reads.flatMap((read) => read.result.retractions.map((r) => r.retracts))
          const kept = new Set(reads.flatMap((read) => read.result.blockEvents.events.map((event) => event.id)))
          assert.deepStrictEqual(retracted.toSorted(), ids(orphaned.filter((event) => !kept.has(event.id))))
          assert.isAbove(retracted.length, 0, "the reorganisation orphans printed events")
          if (deep === undefined) assert.deepStrictEqual(errors, [])
          else {
            assert.deepStrictEqual(errors, [
              `chain ${chain}: a reorganisation ${deep} blocks deep (blocks ${fromBlock}..${head} replaced), deeper than the ${window}-block reorganisation window; read again back to block ${fromBlock - 1n}, the common ancestor`
            ])
          }
        }).pipe(Effect.provide(simulated(`ancestor-${depth}-${window}`)))
      ))
  }

  it.effect("with confirmations, any replaced block on record is an error giving its depth below the newest recorded one", () =>
    collectingErrors((errors) =>
      Effect.gen(function*() {
        const sim = yield* Simulator.Simulator
        const client = yield* EvmClient.EvmClient
        const head = headOf(sim)
        const top = head - 2n
        const tracked = everyWallet(sim, top)
        const recent = yield* recordOf(client, tracked, top - 11n, top)
        const fromBlock = BigInt(yield* sim.reorg(chain, 5))
        const reads = yield* probeRecord(walkInput(client, tracked, recent), top, 2, 6)
        assert.deepStrictEqual(numbers(reads), [top, top - 1n, top - 2n])
        assert.deepStrictEqual(errors, [
          `chain ${chain}: a reorganisation 3 blocks deep (blocks ${fromBlock}..${top} replaced), deeper than the 2 confirmations waited for; read again back to block ${fromBlock - 1n}, the common ancestor`
        ])
      }).pipe(Effect.provide(simulated("ancestor-confirmations")))
    ))

  it.effect("deeper than the record: every recorded block is read again, and the error says older blocks may have changed unseen", () =>
    collectingErrors((errors) =>
      Effect.gen(function*() {
        const { head, input, sim } = yield* recorded(4)
        yield* sim.reorg(chain, 9)
        const reads = yield* probeRecord(input, head, 0, 2)
        assert.deepStrictEqual(numbers(reads), [head, head - 1n, head - 2n, head - 3n])
        assert.deepStrictEqual(errors, [
          `chain ${chain}: a reorganisation 4 blocks deep (blocks ${head - 3n}..${head} replaced), deeper than the 2-block reorganisation window; no recorded block below ${head - 3n} matched (the record keeps the last 256 blocks): older blocks may have changed unseen`
        ])
      }).pipe(Effect.provide(simulated("ancestor-beyond")))
    ))

  it.effect("at most 128 recorded blocks are read again below the replaced one in a cycle", () =>
    collectingErrors((errors) =>
      Effect.gen(function*() {
        const sim = yield* Simulator.Simulator
        const client = yield* EvmClient.EvmClient
        yield* sim.advance(110)
        const head = headOf(sim)
        const tracked = everyWallet(sim, head)
        const recent = yield* recordOf(client, tracked, head - 139n, head)
        yield* sim.reorg(chain, 135)
        const reads = yield* probeRecord(walkInput(client, tracked, recent), head, 0, 6)
        assert.deepStrictEqual(numbers(reads), Array.from({ length: 129 }, (_, i) => head - BigInt(i)))
        const lowest = head - 128n
        assert.deepStrictEqual(errors, [
          `chain ${chain}: a reorganisation 129 blocks deep (blocks ${lowest}..${head} replaced), deeper than the 6-block reorganisation window; no recorded block below ${lowest} matched (the record keeps the last 256 blocks): older blocks may have changed unseen`
        ])
      }).pipe(Effect.provide(simulated("ancestor-long")))
    ), 120_000)

  it.effect("blocks recorded after the start (other wallets ahead) are not read: the newest at or before it is", () =>
    collectingErrors((errors) =>
      Effect.gen(function*() {
        const { head, input, recent } = yield* recorded(12)
        const start = head - 3n
        assert.deepStrictEqual(numbers(yield* probeRecord(input, start, 0, 6)), [start])
        const topUnknown = { ...input, recent: { ...recent, hashes: new Map(recent.hashes).set(start, "") } }
        assert.deepStrictEqual(numbers(yield* probeRecord(topUnknown, start, 0, 6)), [start, start - 1n], "an unknown hash is no probe")
        assert.deepStrictEqual(errors, [])
      }).pipe(Effect.provide(simulated("ancestor-start")))
    ))

  it.effect("a recorded block of unknown hash in the window is read once; one below the window is not", () =>
    collectingErrors((errors) =>
      Effect.gen(function*() {
        const { client, head, recent, tracked } = yield* recorded(12)
        const hashes = new Map(recent.hashes).set(head - 1n, "").set(head - 5n, "")
        const reads = yield* probeRecord(walkInput(client, tracked, { ...recent, hashes }), head, 0, 3)
        assert.deepStrictEqual(numbers(reads), [head - 1n, head])
        const unknown = reads![0]!
        assert.isTrue(unknown.replaced && !unknown.sure && !unknown.result.changed, "no hash on record: recorded again, nothing printed")
        assert.isTrue(keeps(unknown))
        assert.deepStrictEqual(errors, [])
      }).pipe(Effect.provide(simulated("ancestor-unknown")))
    ))

  it.effect("no recorded hash at all: the blocks of the window are read, and nothing below them", () =>
    collectingErrors((errors) =>
      Effect.gen(function*() {
        const { client, head, recent, sim, tracked } = yield* recorded(10)
        const hashes = new Map([...recent.hashes].map(([block]) => [block, ""] as const))
        yield* sim.reorg(chain, 8)
        const reads = yield* probeRecord(walkInput(client, tracked, { ...recent, hashes }), head, 0, 3)
        assert.deepStrictEqual(numbers(reads).toSorted(), [head - 2n, head - 1n, head])
        assert.deepStrictEqual(errors, [], "no block of known hash: nothing to compare, no error")
      }).pipe(Effect.provide(simulated("ancestor-no-hash")))
    ))

  it.effect("a block of unknown hash above the newest known one counts in the depth", () =>
    collectingErrors((errors) =>
      Effect.gen(function*() {
        const { client, head, recent, sim, tracked } = yield* recorded(14)
        const hashes = new Map(recent.hashes).set(head, "")
        const fromBlock = BigInt(yield* sim.reorg(chain, 8))
        const reads = yield* probeRecord(walkInput(client, tracked, { ...recent, hashes }), head, 0, 6)
        assert.deepStrictEqual(numbers(reads), Array.from({ length: 8 }, (_, i) => head - BigInt(i)))
        assert.deepStrictEqual(errors, [
          `chain ${chain}: a reorganisation 8 blocks deep (blocks ${fromBlock}..${head} replaced), deeper than the 6-block reorganisation window; read again back to block ${fromBlock - 1n}, the common ancestor`
        ])
      }).pipe(Effect.provide(simulated("ancestor-top-unknown")))
    ))

  it.effect("a block not indexed yet stops the check: everything is read again next cycle", () =>
    Effect.gen(function*() {
      const { head, input, recent } = yield* recorded(6)
      assert.isUndefined(yield* readAgain(input, head + 1n))
      const ahead = { ...input, recent: { ...recent, hashes: new Map(recent.hashes).set(head + 1n, "0x" + "ee".repeat(32)) } }
      assert.isUndefined(yield* probeRecord(ahead, head + 1n, 0, 6))
      assert.isUndefined(yield* walkDown(ahead, head + 3n, new Set()))
      assert.isUndefined(yield* below(ahead, head + 3n, new Set(), head + 3n, 6))
      const aheadUnknown = { ...input, recent: { ...recent, hashes: new Map(recent.hashes).set(head + 1n, "") } }
      assert.isUndefined(yield* probeRecord(aheadUnknown, head + 1n, 0, 6), "a block of the window not indexed")
    }).pipe(Effect.provide(simulated("ancestor-unindexed"))))
})

describe("below the lowest block a cycle found replaced", () => {
  it.effect("a recorded block of unknown hash is no proof either way: read again, passed, and no error", () =>
    collectingErrors((errors) =>
      Effect.gen(function*() {
        const { client, head, recent, tracked } = yield* recorded(8)
        const hashes = new Map(recent.hashes).set(head - 2n, "")
        const reads = yield* below(walkInput(client, tracked, { ...recent, hashes }), head - 1n, new Set(), head, 1)
        assert.deepStrictEqual(numbers(reads), [head - 2n])
        assert.isTrue(reads![0]!.replaced && !reads![0]!.sure)
        assert.deepStrictEqual(errors, [], "nothing below was really replaced")
      }).pipe(Effect.provide(simulated("ancestor-below-unknown")))
    ))

  it.effect("blocks replaced with nothing printed from them count as deeper too; a depth of exactly the window is no error", () =>
    collectingErrors((errors) =>
      Effect.gen(function*() {
        const { client, head, recent, sim } = yield* recorded(12)
        const fromBlock = BigInt(yield* sim.reorg(chain, 5))
        const nobody = walkInput(client, [], { ...recent, printed: new Map() })
        assert.deepStrictEqual(numbers(yield* below(nobody, head - 1n, new Set(), head, 5)), [head - 2n, head - 3n, head - 4n])
        assert.deepStrictEqual(errors, [])
        yield* below(nobody, head - 1n, new Set(), head, 2)
        assert.deepStrictEqual(errors, [
          `chain ${chain}: a reorganisation 5 blocks deep (blocks ${fromBlock}..${head} replaced), deeper than the 2-block reorganisation window; read again back to block ${fromBlock - 1n}, the common ancestor`
        ])
      }).pipe(Effect.provide(simulated("ancestor-below-nothing")))
    ))

  it.effect("the walk reads down to the ancestor, skipping what the cycle read; an error only deeper than the window", () =>
    collectingErrors((errors) =>
      Effect.gen(function*() {
        const { head, input, sim } = yield* recorded(12)
        const unchanged = yield* below(input, head - 1n, new Set(), head, 6)
        assert.deepStrictEqual(unchanged, [])
        const fromBlock = BigInt(yield* sim.reorg(chain, 5))
        const within = yield* below(input, head - 1n, new Set([head - 3n]), head, 6)
        assert.deepStrictEqual(numbers(within), [head - 2n, head - 4n])
        assert.deepStrictEqual(errors, [])
        const walk = yield* walkDown(input, head - 1n, new Set())
        assert.strictEqual(walk!.ancestor, fromBlock - 1n)
        assert.isTrue(foundDeeper(walk!))
        assert.isFalse(foundDeeper({ read: [], ancestor: head }))
        const deeper = yield* below(input, head - 1n, new Set(), head, 4)
        assert.deepStrictEqual(numbers(deeper), [head - 2n, head - 3n, head - 4n])
        assert.deepStrictEqual(errors, [
          `chain ${chain}: a reorganisation 5 blocks deep (blocks ${fromBlock}..${head} replaced), deeper than the 4-block reorganisation window; read again back to block ${fromBlock - 1n}, the common ancestor`
        ])
      }).pipe(Effect.provide(simulated("ancestor-below")))
    ))
})

describe("a block read again is reconciled for the wallets that cover it", () => {
  it.effect("only they (and the readers named) derive it; the others' recorded events stay", () =>
    Effect.gen(function*() {
      const { client, head, recent, sim, tracked } = yield* recorded(6)
      const covering = tracked.slice(0, 15)
      const behind = tracked.slice(15).map((t) => ({ ...t, position: head - 20n }))
      const behindAddresses = new Set(behind.map((t) => t.wallet.address as string))
      const input = walkInput(client, [...covering, ...behind], recent)
      yield* sim.reorg(chain, 2)
      const read = (yield* readAgain(input, head))!
      assert.isTrue(read.replaced)
      const printedBefore = recent.printed.get(head) ?? []
      assert.isTrue(printedBefore.some((event) => behindAddresses.has(event.wallet)), "the wallets behind had events in the block")
      for (const retraction of read.result.retractions) assert.isFalse(behindAddresses.has(retraction.wallet), `${retraction.retracts} of a wallet behind retracted`)
      for (const event of read.result.events) assert.isFalse(behindAddresses.has(event.wallet), `${event.id} of a wallet behind printed`)
      assert.deepStrictEqual(
        read.result.blockEvents.events.filter((event) => behindAddresses.has(event.wallet)),
        printedBefore.filter((event) => behindAddresses.has(event.wallet))
      )
      const asReaders = (yield* readAgain(input, head, new Set(behind)))!
      assert.isTrue(asReaders.result.events.some((event) => behindAddresses.has(event.wallet)) || asReaders.result.retractions.some((r) => behindAddresses.has(r.wallet)), "read for the readers too")
      const fresh = yield* recordOf(client, tracked, head, head)
      assert.deepStrictEqual(ids(asReaders.result.blockEvents.events), ids(fresh.printed.get(head) ?? []))
      const nothingOnRecord = (yield* readAgain(walkInput(client, tracked, { ...recent, printed: new Map() }), head))!
      assert.deepStrictEqual(nothingOnRecord.result.retractions, [])
      assert.deepStrictEqual(ids(nothingOnRecord.result.events), ids(fresh.printed.get(head) ?? []), "nothing on record: all of it is new")
    }).pipe(Effect.provide(simulated("ancestor-covers"))))
})
