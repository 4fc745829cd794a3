/**
 * `Watch.batches` and `Watch.events` used as a user would, from an Effect program (not the CLI),
 * against the simulator over real HTTP and a SQLite state file: a sink of `nft.received` events
 * interrupted in the middle of a batch, then run again on the same state, ends with exactly the
 * ground truth (the only repeats are the batch it had not acknowledged, produced again first, with
 * the same ids); `Watch.events` acknowledges as it is pulled.
 */
import { assert, describe, it } from "@effect/vitest"
import { Simulator } from "@chainquery/simulator"
import { Deferred, Effect, Fiber, Stream } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll } from "vitest"
import { StateStore, Watch, type WatchEvent } from "../src/index.js"
import { busiestEvm, evmTruth, harness } from "./support/engineHarness.js"

const dir = mkdtempSync(join(tmpdir(), "chainquery-watch-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const ids = (events: ReadonlyArray<{ readonly id: string }>) => events.map((event) => event.id)
const received = (event: WatchEvent.WatchEvent) => event.kind === "nft.received"

/** Each batch acknowledged as soon as it is produced. */
const acknowledged = <R>(stream: Stream.Stream<Watch.Batch, Watch.WatchError, R>) => Stream.mapEffect(stream, (batch) => Effect.as(batch.ack, batch))

/** Every repeated value, once. */
const repeated = (values: ReadonlyArray<string>) => [...new Set(values.filter((value, i) => values.indexOf(value) !== i))]

describe("Watch.batches, as a user", () => {
  it.live("nft.received into the user's sink, interrupted mid-batch, run again: exactly the ground truth, repeats only of the unacknowledged batch", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const wallets = busiestEvm(sim, "0x1", 4)
      const from = BigInt(sim.world.evm.chain("0x1").head) - 20n
      const state = join(dir, "user.db")
      /** The user's own sink, and every batch as it was produced. */
      const sink: Array<WatchEvent.WatchEvent> = []
      const produced: Array<{ readonly ids: ReadonlyArray<string>; readonly redelivered: boolean }> = []
      const stuck = yield* Deferred.make<void>()
      /** In the second batch with two `nft.received` or more, the sink stops for good after the first. */
      let busyBatches = 0
      const program = (options: { readonly backfill: boolean; readonly once: boolean; readonly stopMidBatch: boolean }) =>
        Watch.batches({
          wallets,
          backfill: options.backfill ? { _tag: "Block", block: from } : undefined,
          watch: ["transfers"],
          interval: "50 millis",
          once: options.once
        }).pipe(
          Stream.tap((batch) => Effect.sync(() => produced.push({ ids: ids(batch.events), redelivered: batch.redelivered }))),
          Stream.flatMap((batch) => {
            const stops = options.stopMidBatch && batch.events.filter(received).length >= 2 && ++busyBatches === 2
            let taken = 0
            return Stream.fromArray(batch.events).pipe(
              Stream.filter(received),
              Stream.mapEffect((event) =>
                stops && taken === 1
                  ? Effect.andThen(Deferred.succeed(stuck, undefined), Effect.never)
                  : Effect.sync(() => {
                    taken++
                    sink.push(event)
                  })
              ),
              Stream.concat(Stream.fromEffectDrain(batch.ack))
            )
          }),
          Stream.runDrain,
          Effect.provide(StateStore.layer(state))
        )

      // First run: the backfill, then cycles as the chain grows, until the sink stops in a batch.
      const first = yield* Effect.forkChild(program({ backfill: true, once: false, stopMidBatch: true }))
      for (let step = 0; step < 60 && !(yield* Deferred.isDone(stuck)); step++) {
        yield* sim.advance(2)
        yield* Effect.sleep("150 millis")
      }
      assert.isTrue(yield* Deferred.isDone(stuck), "the sink never stopped in the middle of a batch")
      yield* Fiber.interrupt(first)
      const interrupted = produced.at(-1)!
      const before = sink.length
      assert.isAbove(produced.length, 1, "batches were acknowledged before the interrupted one")
      assert.strictEqual(sink.filter((event) => interrupted.ids.includes(event.id)).length, 1, "one event of the interrupted batch reached the sink")

      // Second run, on the same state, once the chain grew again: the unacknowledged batch first.
      yield* sim.advance(5)
      const seen = produced.length
      yield* program({ backfill: false, once: true, stopMidBatch: false })
      const again = produced.slice(seen)
      assert.isTrue(again[0]!.redelivered, "the unacknowledged batch came first")
      assert.deepStrictEqual(again[0]!.ids, interrupted.ids, "the same batch, with the same ids")
      assert.isTrue(again.slice(1).every((batch) => !batch.redelivered))

      const head = BigInt(sim.world.evm.chain("0x1").head)
      const truth = (yield* evmTruth(sim, "0x1", wallets, from - 1n, head)).filter(received)
      assert.isAbove(truth.length, 20)
      assert.isAbove(sink.length, before, "the second run went on")
      // No loss: everything of the ground truth, in order; repeats only of the interrupted batch.
      assert.deepStrictEqual([...new Set(ids(sink))].toSorted(), ids(truth).toSorted())
      assert.deepStrictEqual(repeated(ids(sink)).filter((id) => !interrupted.ids.includes(id)), [])
      assert.isAbove(repeated(ids(sink)).length, 0, "the events of the interrupted batch that reached the sink came again")
      const blocks = sink.map((event) => ("blockNumber" in event ? event.blockNumber : -1n))
      const firstRepeat = sink.findIndex((event, i) => sink.findIndex((other) => other.id === event.id) !== i)
      for (const [i, block] of blocks.entries()) {
        if (i > 0 && i !== firstRepeat) assert.isTrue(block >= blocks[i - 1]!, `out of chain order at ${i}`)
      }
    }).pipe(Effect.provide(harness({ seed: 4101, indexing: false, chains: ["0x1"] }))), 120_000)

  it.live("Watch.events: plain events, each batch acknowledged once its last event was pulled", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const wallets = busiestEvm(sim, "0x1", 3)
      const head = BigInt(sim.world.evm.chain("0x1").head)
      const store = yield* StateStore.StateStore
      const options = { wallets, watch: ["transfers"], once: true } as const
      // Taking two events: the batch of the second is not acknowledged (the ack comes after a
      // batch's last event), whatever the batch sizes.
      const some = yield* Stream.runCollect(Stream.take(Watch.events({ ...options, backfill: { _tag: "Block", block: head - 10n } }), 2))
      assert.strictEqual(some.length, 2)
      const pending = yield* store.pendingEvents
      assert.include(ids(pending), some[1]!.id, "the batch is still pending")
      // Run to the end: the pending batch again first (at least once), then nothing is pending.
      const all = yield* Stream.runCollect(Watch.events(options))
      assert.deepStrictEqual(ids(all.slice(0, pending.length)), ids(pending))
      assert.deepStrictEqual((yield* store.pendingEvents).length, 0)
      // Of the two taken, only those of the unacknowledged batch come again.
      assert.deepStrictEqual(ids(all).filter((id) => ids(some).includes(id)), ids(some).filter((id) => ids(pending).includes(id)))
      const truth = yield* evmTruth(sim, "0x1", wallets, head - 11n, head)
      assert.deepStrictEqual([...new Set([...ids(some), ...ids(all)])].toSorted(), ids(truth).toSorted())
    }).pipe(Effect.provide(harness({ seed: 4102, indexing: false, chains: ["0x1"] }))), 120_000)

  it.live("an acknowledged batch is settled when ack returns, even after its stream ended: never produced again", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const wallets = busiestEvm(sim, "0x1", 3)
      const store = yield* StateStore.StateStore
      const options = { wallets, watch: ["transfers"], interval: "50 millis" } as const
      // A baseline at the head, then a cycle's batch (not a backfill's) is the first produced.
      assert.deepStrictEqual(yield* Stream.runCollect(Watch.batches({ ...options, once: true })), [])
      yield* sim.advance(6)
      const [first] = yield* Stream.runCollect(Stream.take(acknowledged(Watch.batches(options)), 1))
      assert.isAbove(first!.events.length, 0)
      assert.deepStrictEqual(yield* store.pendingEvents, [], "nothing pending once ack returned")
      yield* sim.advance(3)
      // A batch acknowledged only after its stream ended is settled all the same.
      const [late] = yield* Stream.runCollect(Stream.take(Watch.batches(options), 1))
      assert.isFalse(late!.redelivered)
      assert.deepStrictEqual(ids(yield* store.pendingEvents), ids(late!.events))
      yield* late!.ack
      assert.deepStrictEqual(yield* store.pendingEvents, [], "nothing pending once the late ack returned")
      yield* sim.advance(3)
      const later = yield* Stream.runCollect(acknowledged(Watch.batches({ ...options, once: true })))
      assert.isAbove(later.length, 0)
      assert.isTrue(later.every((batch) => !batch.redelivered))
      const settled = [...ids(first!.events), ...ids(late!.events)]
      assert.deepStrictEqual(later.flatMap((batch) => ids(batch.events)).filter((id) => settled.includes(id)), [])
    }).pipe(Effect.provide(harness({ seed: 4103, indexing: false, chains: ["0x1"] }))), 120_000)
})
