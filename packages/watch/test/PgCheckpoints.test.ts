/**
 * Where a service reads and puts the wallets of a `PgStateStore` namespace (`PgCheckpoints`), on a
 * real PostgreSQL: the lowest checkpoint, of all wallets or of those a query names; placing fresh
 * wallets at a block, in one namespace only; moving wallets left behind up to a block, which the
 * engine's next commit notices (refused once, it reads the state again).
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import { SqlClient, type Statement } from "effect/sql"
import { PgCheckpoints, PgStateStore, type WatchedWallet } from "../src/index.js"
import { alice, bob } from "./fixtures.js"
import { freshDatabase } from "./support/postgres.js"

const at = (address: string): WatchedWallet.EvmWallet => ({ family: "evm", chain: "0x1", address: address as WatchedWallet.EvmWallet["address"] })
const carol = at("0x" + "ca".repeat(20))
const dave = at("0x" + "da".repeat(20))

describe("PgCheckpoints", () => {
  it.effect("place: a fresh wallet gets the block, one that has a checkpoint keeps it; answers in order", () =>
    Effect.gen(function*() {
      const store = yield* PgStateStore.make({ namespace: "scan:0x1:0" })
      yield* store.commit({ checkpoints: [{ wallet: at(alice), position: 90n, hash: "0x90" }, { wallet: at(bob), position: 120n, hash: "0x120" }], eventIds: [] })
      const placed = yield* PgCheckpoints.place("scan:0x1:0", [at(bob), carol, at(alice), carol], 100n)
      assert.deepStrictEqual(placed, [120n, 100n, 90n, 100n])
      const byAddress = new Map((yield* store.checkpoints).map((c) => [c.wallet.address, [c.position, c.hash, c.since]]))
      assert.deepStrictEqual(byAddress.get(alice), [90n, "0x90", 90n], "behind: left alone")
      assert.deepStrictEqual(byAddress.get(carol.address), [100n, null, 100n], "fresh: first checkpoint at the block")
      const other = yield* PgStateStore.make({ namespace: "scan:0x1:12" })
      assert.deepStrictEqual(yield* other.checkpoints, [], "another namespace is untouched")
      assert.deepStrictEqual(yield* PgCheckpoints.place("scan:0x1:0", [], 5n), [])
      // Placing is no write beside the engine: its next commit goes through.
      yield* store.commit({ checkpoints: [{ wallet: at(bob), position: 121n, hash: "0x121" }], eventIds: [] })
    }).pipe(Effect.provide(freshDatabase), Effect.orDie))

  it.effect("raise: one behind is moved up (its since kept), one at or after stays; the engine's next commit is refused, then goes on", () =>
    Effect.gen(function*() {
      const store = yield* PgStateStore.make({ namespace: "scan:0x1:0" })
      yield* store.commit({ checkpoints: [{ wallet: at(alice), position: 90n, hash: "0x90" }, { wallet: at(bob), position: 120n, hash: "0x120" }], eventIds: [] })
      assert.strictEqual((yield* store.checkpoints).length, 2)
      assert.strictEqual(yield* PgCheckpoints.raise("scan:0x1:0", [at(bob), carol], 100n), 0, "ahead, or none: nothing moves")
      yield* PgStateStore.forget("scan:0x1:0", [carol])
      // Neither moved nor forgot anything: the engine's next commit goes through.
      yield* store.commit({ checkpoints: [{ wallet: at(bob), position: 121n, hash: "0x121" }], eventIds: [] })
      assert.strictEqual(yield* PgCheckpoints.raise("scan:0x1:0", [at(alice), at(bob), carol], 100n), 1)
      const byAddress = new Map((yield* store.checkpoints).map((c) => [c.wallet.address, [c.position, c.hash, c.since]]))
      assert.deepStrictEqual(byAddress.get(alice), [100n, null, 90n])
      assert.deepStrictEqual(byAddress.get(bob), [121n, "0x121", 120n])
      assert.isFalse(byAddress.has(carol.address))
      // Its view of the checkpoints dates from its first read, before the raise.
      const refused = yield* Effect.flip(store.commit({ checkpoints: [{ wallet: at(bob), position: 122n, hash: "0x122" }], eventIds: [] }))
      assert.match(refused.message, /changed beside the engine/)
      assert.strictEqual(Option.getOrThrow(yield* store.checkpoint(at(bob))).position, 121n, "nothing written")
      yield* store.checkpoints
      yield* store.commit({ checkpoints: [{ wallet: at(bob), position: 122n, hash: "0x122" }], eventIds: [] })
      assert.strictEqual(Option.getOrThrow(yield* store.checkpoint(at(bob))).position, 122n)
    }).pipe(Effect.provide(freshDatabase), Effect.orDie))

  it.effect("frontier: the lowest checkpoint of a scope, of the wallets a query names, or none", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const store = yield* PgStateStore.make({ namespace: "scan:0x1:0" })
      assert.isTrue(Option.isNone(yield* PgCheckpoints.frontier("scan:0x1:0", "0x1")))
      yield* store.commit({ checkpoints: [{ wallet: at(alice), position: 90n, hash: null }, { wallet: dave, position: 95n, hash: null }], eventIds: [] })
      assert.deepStrictEqual(yield* PgCheckpoints.frontier("scan:0x1:0", "0x1"), Option.some(90n))
      yield* sql`CREATE TABLE held (address text)`
      // The wallets named by a query of addresses, or by a condition on a checkpoint's wallet.
      const named = sql`SELECT address FROM held`
      const holds = (wallet: Statement.Fragment) => sql`EXISTS (SELECT 1 FROM held h WHERE h.address = ${wallet})`
      for (const among of [named, holds]) {
        yield* sql`DELETE FROM held`
        yield* sql`INSERT INTO held VALUES (${dave.address})`
        assert.deepStrictEqual(yield* PgCheckpoints.frontier("scan:0x1:0", "0x1", among), Option.some(95n))
        yield* sql`INSERT INTO held VALUES (${alice})`
        assert.deepStrictEqual(yield* PgCheckpoints.frontier("scan:0x1:0", "0x1", among), Option.some(90n), "one named stands at the lowest")
        yield* sql`DELETE FROM held`
        assert.isTrue(Option.isNone(yield* PgCheckpoints.frontier("scan:0x1:0", "0x1", among)))
      }
      assert.isTrue(Option.isNone(yield* PgCheckpoints.frontier("scan:0x1:0", "0x89")), "another scope")
    }).pipe(Effect.provide(freshDatabase), Effect.orDie))
})
