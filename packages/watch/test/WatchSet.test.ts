/**
 * Wallets added to and removed from a running `Watch.batches` stream (a `WatchSet`), against the
 * simulator over real HTTP: a wallet added without `from` starts at the head (its events appear
 * from the next block on), one added with `from` gets its history from there first, a removed one
 * produces nothing more, and the wallets watched all along see no gap and no repeat.
 */
import { assert, describe, it } from "@effect/vitest"
import { Simulator } from "@chainquery/simulator"
import { Effect, Fiber, Stream } from "effect"
import { StateStore, Watch, WatchedWallet, type WatchEvent, WatchSet } from "../src/index.js"
import { busiestEvm, evmTruth, harness } from "./support/engineHarness.js"

const ids = (events: ReadonlyArray<{ readonly id: string }>) => events.map((event) => event.id)
const sorted = (values: ReadonlyArray<string>) => values.toSorted()
const walletNo = (n: number): WatchedWallet.EvmWallet => ({ family: "evm", chain: "0x1", address: `0x${n.toString(16).padStart(40, "0")}` as WatchedWallet.EvmWallet["address"] })

describe("WatchSet: wallets added and removed while the stream runs", () => {
  it.live("added at the head, added with a backfill, removed: each exactly its ground truth; the others no gap, no repeat", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const store = yield* StateStore.StateStore
      const [a0, a1, b, c] = busiestEvm(sim, "0x1", 4) as [WatchedWallet.EvmWallet, WatchedWallet.EvmWallet, WatchedWallet.EvmWallet, WatchedWallet.EvmWallet]
      const head = () => BigInt(sim.world.evm.chain("0x1").head)
      const positions = Effect.map(store.checkpoints, (all) => new Map(all.map((checkpoint) => [WatchedWallet.key(checkpoint.wallet), checkpoint.position])))
      /** Waits until every one of `wallets` has its checkpoint at the head. */
      const settled = (wallets: ReadonlyArray<WatchedWallet.WatchedWallet>) =>
        Effect.gen(function*() {
          for (let tries = 0; tries < 1200; tries++) {
            const now = yield* positions
            // At the head, and the last batch acknowledged (so it reached `written`).
            const acknowledged = (yield* store.pendingEvents).length === 0
            if (acknowledged && wallets.every((wallet) => now.get(WatchedWallet.key(wallet)) === head())) return
            yield* Effect.sleep("50 millis")
          }
          assert.fail(`the stream did not reach block ${head()} for every wallet`)
        })
      const grow = (wallets: ReadonlyArray<WatchedWallet.WatchedWallet>, times: number) =>
        Effect.gen(function*() {
          for (let i = 0; i < times; i++) {
            yield* sim.advance(2)
            yield* settled(wallets)
          }
        })

      const set = yield* WatchSet.make([a0, a1])
      const written: Array<WatchEvent.WatchEvent> = []
      const running = yield* Effect.forkChild(
        Watch.batches({ wallets: set, watch: ["transfers"], interval: "50 millis" }).pipe(
          Stream.runForEach((batch) => Effect.andThen(Effect.sync(() => void written.push(...batch.events)), batch.ack))
        )
      )
      yield* settled([a0, a1])
      const start = head()
      yield* grow([a0, a1], 3)

      yield* set.add(b)
      const bStart = head()
      yield* settled([a0, a1, b])
      yield* grow([a0, a1, b], 3)

      const cFrom = head() - 8n
      yield* set.add(c, { from: { _tag: "Block", block: cFrom } })
      yield* settled([a0, a1, b, c])
      yield* grow([a0, a1, b, c], 2)

      yield* set.remove(a0)
      // The cycle under way when a0 was removed may still read it; the ones after do not.
      yield* grow([a1, b, c], 1)
      const a0End = (yield* positions).get(WatchedWallet.key(a0))!
      yield* grow([a1, b, c], 4)
      assert.strictEqual((yield* positions).get(WatchedWallet.key(a0)), a0End, "a removed wallet's checkpoint stays")
      yield* Fiber.interrupt(running)
      const end = head()
      // The set outlives the stream: read again, c's history is not produced again.
      assert.deepStrictEqual(yield* Stream.runCollect(Watch.batches({ wallets: set, watch: ["transfers"], once: true })), [])

      const of = (wallet: WatchedWallet.EvmWallet) => written.filter((event) => "wallet" in event && event.wallet === wallet.address)
      assert.strictEqual(new Set(ids(written)).size, written.length, "an event was produced twice")
      const truth = (wallet: WatchedWallet.EvmWallet, after: bigint, upTo: bigint) => evmTruth(sim, "0x1", [wallet], after, upTo)
      // Watched all along: no gap, no repeat.
      const a1Truth = yield* truth(a1, start, end)
      assert.isAbove(a1Truth.length, 0)
      assert.deepStrictEqual(sorted(ids(of(a1))), sorted(ids(a1Truth)))
      // Added at the head: from the next block on, nothing older.
      const bTruth = yield* truth(b, bStart, end)
      assert.isAbove(bTruth.length, 0)
      assert.deepStrictEqual(sorted(ids(of(b))), sorted(ids(bTruth)))
      assert.isAbove((yield* truth(b, 0n, bStart)).length, 0, "b had older transfers, not produced")
      // Added with a backfill: its history from `from` first.
      const cTruth = yield* truth(c, cFrom - 1n, end)
      assert.isTrue(cTruth.some((event) => "blockNumber" in event && event.blockNumber < cFrom + 8n), "c's history has events")
      assert.deepStrictEqual(sorted(ids(of(c))), sorted(ids(cTruth)))
      // Removed: up to where it was, then nothing, though it had more.
      assert.isTrue(a0End < end, `a0 stopped at ${a0End}, before the end ${end}`)
      assert.deepStrictEqual(sorted(ids(of(a0))), sorted(ids(yield* truth(a0, start, a0End))))
      assert.isAbove((yield* truth(a0, a0End, end)).length, 0, "a0 had transfers after its removal, not produced")
    }).pipe(Effect.provide(harness({ seed: 4201, indexing: false, chains: ["0x1"] }))), 180_000)

  it.effect("replace makes the set exactly the given wallets in one step: kept entries keep their backfill, new ones start at the head", () =>
    Effect.gen(function*() {
      const set = yield* WatchSet.make([walletNo(1), walletNo(2)])
      yield* set.add(walletNo(3), { from: { _tag: "Block", block: 10n } })
      yield* set.replace([walletNo(3), walletNo(4), walletNo(4), walletNo(2)])
      assert.deepStrictEqual(yield* set.entries, [{ wallet: walletNo(3), from: { _tag: "Block", block: 10n } }, { wallet: walletNo(4) }, { wallet: walletNo(2) }])
      const many = Array.from({ length: 100_000 }, (_, i) => walletNo(i + 1))
      yield* set.replace(many)
      assert.strictEqual((yield* set.entries).length, 100_000)
      yield* set.replace([])
      assert.deepStrictEqual(yield* set.entries, [])
    }))

  it.effect("addAll adds the new wallets in one step after the others; those already there keep their entry, a set that gains none is unchanged", () =>
    Effect.gen(function*() {
      const set = yield* WatchSet.make([walletNo(1)])
      yield* set.add(walletNo(2), { from: { _tag: "Block", block: 10n } })
      const before = yield* set.entries
      yield* set.addAll([walletNo(2), { ...walletNo(1) }])
      assert.strictEqual(yield* set.entries, before, "nothing new: the same list")
      yield* set.addAll([walletNo(3), walletNo(2), walletNo(3), walletNo(4)])
      assert.deepStrictEqual(yield* set.entries, [
        { wallet: walletNo(1) },
        { wallet: walletNo(2), from: { _tag: "Block", block: 10n } },
        { wallet: walletNo(3) },
        { wallet: walletNo(4) }
      ])
      assert.strictEqual((yield* set.entries)[1], before[1], "a kept entry is the same object")
      yield* set.addAll(Array.from({ length: 100_000 }, (_, i) => walletNo(i + 1)))
      assert.strictEqual((yield* set.entries).length, 100_000)
    }))
})
