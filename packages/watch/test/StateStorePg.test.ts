/**
 * The state store in PostgreSQL (`PgStateStore`), on a real server (the run's embedded one, or
 * `DATABASE_URL`): after the same commits it reads back exactly what the memory store (and so
 * SQLite) reads back; stores of different namespaces share a database without seeing each other;
 * what `onCommit` writes commits with the batch, or not at all; its tables are migrated once.
 */
import { assert, describe, it } from "@effect/vitest"
import { PgClient } from "@effect/sql-pg"
import { Cause, Effect, Exit, Option, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { PgStateStore, StateStore, type WatchedWallet } from "../src/index.js"
import { alice } from "./fixtures.js"
import { freshDatabase } from "./support/postgres.js"
import { bought, evm, hash, received, replay } from "./support/stateReplay.js"

const base: WatchedWallet.EvmWallet = { family: "evm", chain: "0x2105", address: alice }

/** The outcome of each commit with the failures' messages left out (each store words its own). */
const withoutMessages = (result: Effect.Success<typeof replay>) => ({
  ...result,
  steps: result.steps.map((step) => "failed" in step.outcome ? { ...step, outcome: { failed: step.outcome.failed.split(":")[0] } } : step)
})

const store = (namespace: string, onCommit?: PgStateStore.Options["onCommit"]) => PgStateStore.make({ namespace, onCommit })

describe("StateStore in PostgreSQL", () => {
  it.effect("reads back, after the same commits, exactly what the memory store reads back", () =>
    Effect.gen(function*() {
      const inPostgres = yield* replay.pipe(Effect.provide(PgStateStore.layer({ namespace: "replay" })))
      const inMemory = yield* replay.pipe(Effect.provide(StateStore.layerMemory))
      assert.deepStrictEqual(withoutMessages(inPostgres), withoutMessages(inMemory))
      const [first, second, failed] = inPostgres.steps
      assert.deepStrictEqual(failed, { outcome: { failed: "commit: 18446744073709551616 does not fit a bigint" }, state: second!.state })
      assert.deepStrictEqual(first!.state.blocks[0]!.map((b) => b.number), Array.from({ length: 256 }, (_, i) => BigInt(45 + i)))
      assert.deepStrictEqual(second!.state.pending, [...received(evm, 299), ...bought])
      const [advanced, overridden, miscounted] = inPostgres.steps.slice(-3)
      assert.deepStrictEqual(miscounted, {
        outcome: { failed: "commit: chain 0x1: 1 checkpoint(s) stood at block 304, not the 2 the engine counted; the state was changed by another writer, and is read again" },
        state: overridden!.state
      })
      assert.deepStrictEqual(advanced!.state.each.slice(0, 4).map((c) => Option.map(c, ({ position, since }) => [position, since])), [
        Option.some([301n, 300n]),
        Option.some([302n, 300n]),
        Option.none(),
        Option.some([50n, 50n])
      ])
      assert.deepStrictEqual(overridden!.state.each.slice(0, 4).map((c) => Option.map(c, (checkpoint) => [checkpoint.position, checkpoint.hash])), [
        Option.some([304n, hash(304)]),
        Option.some([303n, hash(303)]),
        Option.none(),
        Option.some([50n, hash(50)])
      ])
    }).pipe(Effect.provide(freshDatabase), Effect.orDie))

  it.effect("stores of two namespaces share a database and never see each other's state", () =>
    Effect.gen(function*() {
      const eth = yield* store("scanner:eth")
      const baseChain = yield* store("scanner:base")
      yield* eth.commit({ checkpoints: [{ wallet: evm, position: 10n, hash: hash(10) }], blocks: [{ chain: "0x1", number: 10n, hash: hash(10) }], pending: received(evm, 10), eventIds: ["a"] })
      yield* eth.commit({ checkpoints: [{ wallet: evm, position: 11n, hash: hash(11) }], eventIds: ["b"] })
      const other = yield* baseChain.commit({ checkpoints: [{ wallet: base, position: 5n, hash: null }], eventIds: ["c"] })
      assert.strictEqual(other.sequence, 1, "each namespace counts its own batches")
      assert.deepStrictEqual((yield* eth.checkpoints).map((c) => [c.wallet, c.position, c.since]), [[evm, 11n, 10n]])
      assert.deepStrictEqual((yield* baseChain.checkpoints).map((c) => [c.wallet, c.position]), [[base, 5n]])
      assert.deepStrictEqual(yield* baseChain.blockHashes("0x1"), [])
      assert.deepStrictEqual(yield* baseChain.pendingEvents, [])
      assert.deepStrictEqual(yield* eth.pendingEvents, received(evm, 10))
      // Settling the other namespace's sequence 1 leaves this one's pending events (its last is 2).
      yield* baseChain.settle(1)
      yield* eth.settle(1)
      assert.deepStrictEqual(yield* eth.pendingEvents, received(evm, 10))
      yield* eth.settle(2)
      assert.deepStrictEqual(yield* eth.pendingEvents, [])
      // A store opened again on the same namespace reads it all back (and migrates nothing twice).
      const again = yield* store("scanner:eth")
      assert.deepStrictEqual(Option.map(yield* again.lastBatch, (last) => [last.sequence, last.eventIds]), Option.some([2, ["b"]]))
      const sql = yield* SqlClient.SqlClient
      const migrations = yield* sql<{ count: string }>`SELECT count(*)::text AS count FROM chainquery_watch_migrations`
      assert.strictEqual(migrations[0]!.count, "3", "each migration once")
    }).pipe(Effect.provide(freshDatabase), Effect.orDie))

  it.effect("what onCommit writes commits in the batch's transaction: both, or neither", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* sql`CREATE TABLE outbox (sequence int, event_id text)`
      let failNext = false
      const outbox = yield* store("scanner:eth", (batch, committed) =>
        Effect.gen(function*() {
          for (const event of batch.pending ?? []) yield* sql`INSERT INTO outbox VALUES (${committed.sequence}, ${event.id})`
          if (failNext) return yield* Effect.fail(new Error("the outbox is full"))
        }))
      const events = received(evm, 20)
      yield* outbox.commit({ checkpoints: [{ wallet: evm, position: 20n, hash: hash(20) }], pending: events, eventIds: events.map((e) => e.id) })
      failNext = true
      const later = received(evm, 21)
      const error = yield* Effect.flip(
        outbox.commit({ checkpoints: [{ wallet: evm, position: 21n, hash: hash(21) }], pending: later, eventIds: later.map((e) => e.id) })
      )
      assert.strictEqual(error.operation, "commit")
      assert.strictEqual(error.message, "the outbox is full")
      const rows = yield* sql<{ sequence: number; event_id: string }>`SELECT sequence, event_id FROM outbox ORDER BY sequence`
      assert.deepStrictEqual(rows.map((row) => [row.sequence, row.event_id]), events.map((e) => [1, e.id]), "the failed batch's rows were rolled back")
      assert.deepStrictEqual(Option.map(yield* outbox.checkpoint(evm), (c) => c.position), Option.some(20n))
      assert.deepStrictEqual(yield* outbox.pendingEvents, events)
      assert.strictEqual(Option.getOrThrow(yield* outbox.lastBatch).sequence, 1)
    }).pipe(Effect.provide(freshDatabase), Effect.orDie))

  it.effect("beforeWrite runs first in the commit's transaction, and its failure rolls the commit back", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const seen: Array<string | null> = []
      let failNext = false
      const eth = yield* PgStateStore.make({
        namespace: "scanner:eth",
        beforeWrite: () =>
          Effect.gen(function*() {
            const [row] = yield* sql<{ position: string | null }>`SELECT max(position)::text AS position FROM watch_checkpoints WHERE namespace = 'scanner:eth'`
            seen.push(row?.position ?? null)
            if (failNext) return yield* Effect.fail(new Error("the lock is taken"))
          })
      })
      yield* eth.commit({ checkpoints: [{ wallet: evm, position: 20n, hash: hash(20) }], eventIds: [] })
      yield* eth.commit({ checkpoints: [{ wallet: evm, position: 21n, hash: hash(21) }], eventIds: [] })
      failNext = true
      const error = yield* Effect.flip(eth.commit({ checkpoints: [{ wallet: evm, position: 22n, hash: hash(22) }], eventIds: [] }))
      assert.strictEqual(error.message, "the lock is taken")
      assert.deepStrictEqual(seen, [null, "20", "21"], "each commit's hook saw the state before its own writes")
      assert.deepStrictEqual(Option.map(yield* eth.checkpoint(evm), (c) => c.position), Option.some(21n))
    }).pipe(Effect.provide(freshDatabase), Effect.orDie))

  it.effect("forget drops the checkpoints (and DeFi snapshots) of the given wallets in one namespace only", () =>
    Effect.gen(function*() {
      const eth = yield* store("scanner:eth")
      const other = yield* store("scanner:other")
      const both = { checkpoints: [{ wallet: evm, position: 10n, hash: hash(10) }, { wallet: base, position: 7n, hash: null }], eventIds: [] }
      yield* eth.commit({ ...both, defiSnapshots: [{ wallet: evm, blockNumber: 10n, summaries: [] }] })
      yield* other.commit(both)
      yield* PgStateStore.forget("scanner:eth", [evm])
      assert.isTrue(Option.isNone(yield* eth.checkpoint(evm)))
      assert.isTrue(Option.isNone(yield* eth.defiSnapshot(evm)))
      assert.deepStrictEqual(Option.map(yield* eth.checkpoint(base), (c) => c.position), Option.some(7n))
      assert.deepStrictEqual((yield* other.checkpoints).length, 2, "another namespace keeps its own")
      yield* PgStateStore.forget("scanner:eth", [])
    }).pipe(Effect.provide(freshDatabase), Effect.orDie))

  it.live("a database it cannot reach fails the store's start with a typed error, not a crash", () =>
    Effect.gen(function*() {
      const nowhere = PgClient.layer({ url: Redacted.make("postgres://postgres:postgres@127.0.0.1:1/none"), connectTimeout: "2 seconds" })
      const exit = yield* Effect.exit(store("scanner:eth").pipe(Effect.provide(nowhere)))
      assert.isTrue(Exit.isFailure(exit))
      const error = Exit.isFailure(exit) ? Cause.findErrorOption(exit.cause) : Option.none()
      assert.isTrue(Option.isSome(error), "a typed failure, not a defect")
      const tag = Option.getOrThrow(error)._tag
      assert.include(["StateStoreError", "SqlError"], tag)
    }))
})
