/**
 * Where a service reads and puts the wallets of a `PgStateStore` namespace (`PgCheckpoints`), on a
 * real PostgreSQL: the lowest checkpoint, of all wallets or of those a query names; and placing
 * wallets at a block or after it (a fresh one gets it, one behind is moved up, one ahead stays),
 * in one namespace only.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import { SqlClient } from "effect/sql"
import { PgCheckpoints, PgStateStore, type WatchedWallet } from "../src/index.js"
import { alice, bob } from "./fixtures.js"
import { freshDatabase } from "./support/postgres.js"

const at = (address: string): WatchedWallet.EvmWallet => ({ family: "evm", chain: "0x1", address: address as WatchedWallet.EvmWallet["address"] })
const carol = at("0x" + "ca".repeat(20))
const dave = at("0x" + "da".repeat(20))

describe("PgCheckpoints", () => {
  it.effect("place: a fresh wallet gets the block, one behind is moved up to it, one ahead stays; answers in order", () =>
    Effect.gen(function*() {
      const store = yield* PgStateStore.make({ namespace: "scan:0x1:0" })
      yield* store.commit({ checkpoints: [{ wallet: at(alice), position: 90n, hash: "0x90" }, { wallet: at(bob), position: 120n, hash: "0x120" }], eventIds: [] })
      const placed = yield* PgCheckpoints.place("scan:0x1:0", [at(bob), carol, at(alice), carol], 100n)
      assert.deepStrictEqual(placed, [120n, 100n, 100n, 100n])
      const byAddress = new Map((yield* store.checkpoints).map((c) => [c.wallet.address, [c.position, c.hash, c.since]]))
      assert.deepStrictEqual(byAddress.get(alice), [100n, null, 90n], "moved up, its hash dropped, its since kept")
      assert.deepStrictEqual(byAddress.get(bob), [120n, "0x120", 120n], "ahead: left alone")
      assert.deepStrictEqual(byAddress.get(carol.address), [100n, null, 100n], "fresh: first checkpoint at the block")
      const other = yield* PgStateStore.make({ namespace: "scan:0x1:12" })
      assert.deepStrictEqual(yield* other.checkpoints, [], "another namespace is untouched")
      assert.deepStrictEqual(yield* PgCheckpoints.place("scan:0x1:0", [], 5n), [])
    }).pipe(Effect.provide(freshDatabase), Effect.orDie))

  it.effect("frontier: the lowest checkpoint of a scope, of the wallets a query names, or none", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const store = yield* PgStateStore.make({ namespace: "scan:0x1:0" })
      assert.isTrue(Option.isNone(yield* PgCheckpoints.frontier("scan:0x1:0", "0x1")))
      yield* store.commit({ checkpoints: [{ wallet: at(alice), position: 90n, hash: null }, { wallet: dave, position: 95n, hash: null }], eventIds: [] })
      assert.deepStrictEqual(yield* PgCheckpoints.frontier("scan:0x1:0", "0x1"), Option.some(90n))
      yield* sql`CREATE TABLE held (address text)`
      yield* sql`INSERT INTO held VALUES (${dave.address})`
      assert.deepStrictEqual(yield* PgCheckpoints.frontier("scan:0x1:0", "0x1", sql`SELECT address FROM held`), Option.some(95n))
      yield* sql`INSERT INTO held VALUES (${alice})`
      assert.deepStrictEqual(yield* PgCheckpoints.frontier("scan:0x1:0", "0x1", sql`SELECT address FROM held`), Option.some(90n), "one named stands at the lowest")
      yield* sql`DELETE FROM held`
      assert.isTrue(Option.isNone(yield* PgCheckpoints.frontier("scan:0x1:0", "0x1", sql`SELECT address FROM held`)))
      assert.isTrue(Option.isNone(yield* PgCheckpoints.frontier("scan:0x1:0", "0x89")), "another scope")
    }).pipe(Effect.provide(freshDatabase), Effect.orDie))
})
