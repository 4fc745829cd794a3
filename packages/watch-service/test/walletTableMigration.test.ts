/**
 * Migrations 14 to 17 on a database that has wallets: `stream_wallets` of before (addresses as
 * text, keyed by stream, three indexes) becomes the lean table (addresses as bytes, keyed by
 * wallet, two deduplicated indexes by stream, each wallet stamped with the version it was added
 * at), every wallet kept with what it had, and the store reads them as before: a stream's list
 * with its cursor and search, a scan's wallets (whole, then those added since), the wallets to
 * announce.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { alice, aptosAlice, bob } from "../../watch/test/fixtures.js"
import { scopeOfWallet } from "../src/model/Scopes.js"
import * as Coverage from "../src/store/Coverage.js"
import * as ServiceMigrations from "../src/store/ServiceMigrations.js"
import { StreamStore } from "../src/store/StreamStore.js"
import { aptos, carol, evm, makeStream, withStores } from "./support/storeFixtures.js"

/** `stream_wallets` put back as migration 13 left it, with its migrations 14 to 17 not run. */
const layoutOf13 = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`DELETE FROM chainquery_service_migrations WHERE migration_id >= 14`
  yield* sql`ALTER TABLE stream_wallets ADD FOREIGN KEY (stream_id) REFERENCES streams (id) ON DELETE CASCADE`
  yield* sql`DROP INDEX stream_wallets_by_added_version`
  yield* sql`ALTER TABLE stream_wallets DROP COLUMN added_version`
  yield* sql`ALTER TABLE wallet_set_version DROP COLUMN reset`
  yield* sql`UPDATE wallet_set_version SET version = 7`
  yield* sql`DROP INDEX stream_wallets_of_stream`
  yield* sql`DROP INDEX stream_wallets_unannounced`
  yield* sql`ALTER TABLE stream_wallets DROP CONSTRAINT stream_wallets_pkey`
  yield* sql`ALTER TABLE stream_wallets ALTER COLUMN address TYPE text COLLATE "C" USING '0x' || encode(address, 'hex')`
  yield* sql`ALTER TABLE stream_wallets ADD PRIMARY KEY (stream_id, scope, address)`
  yield* sql`CREATE INDEX stream_wallets_by_wallet ON stream_wallets (scope, address)`
  yield* sql`CREATE INDEX stream_wallets_unannounced ON stream_wallets (stream_id, scope, address) WHERE NOT announced`
})

describe("ServiceMigrations: stream_wallets of before migration 14", () => {
  it.effect("is migrated with every wallet and what it had, and read as before", () =>
    withStores(Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const streams = yield* StreamStore
      yield* layoutOf13
      const stream = yield* makeStream([])
      const wallets = [evm(bob), evm(alice), evm(alice, "0x89"), aptos(aptosAlice, "mainnet")]
      for (const [i, wallet] of wallets.entries()) {
        yield* sql`INSERT INTO stream_wallets (stream_id, scope, address, added_at, covered_from, announced)
          VALUES (${stream}, ${scopeOfWallet(wallet)}, ${wallet.address}, now(), ${100 + i}, ${i !== 1})`
      }
      const ran = yield* ServiceMigrations.run
      assert.deepStrictEqual(ran.map(([id]) => id), [14, 15, 16, 17])
      const [column] = yield* sql<{ type: string }>`SELECT data_type AS type FROM information_schema.columns
        WHERE table_name = 'stream_wallets' AND column_name = 'address'`
      assert.strictEqual(column!.type, "bytea")
      const indexes = yield* sql<{ name: string }>`SELECT indexname AS name FROM pg_indexes WHERE tablename = 'stream_wallets' ORDER BY 1`
      assert.deepStrictEqual(indexes.map((row) => row.name), [
        "stream_wallets_by_added_version",
        "stream_wallets_of_stream",
        "stream_wallets_pkey",
        "stream_wallets_unannounced"
      ])
      const listed = yield* streams.listWallets(stream, { limit: 2 })
      const cursor = JSON.parse(Buffer.from(listed.nextCursor!, "base64url").toString()) as [string, string]
      const rest = yield* streams.listWallets(stream, { limit: 10, cursor })
      const sorted = [evm(alice), evm(bob), evm(alice, "0x89"), aptos(aptosAlice, "mainnet")].toSorted((a, b) =>
        scopeOfWallet(a) < scopeOfWallet(b) ? -1 : scopeOfWallet(a) > scopeOfWallet(b) ? 1 : a.address < b.address ? -1 : 1)
      assert.deepStrictEqual([...listed.items, ...rest.items], sorted, "every wallet, in scope and address order, over the cursor")
      assert.deepStrictEqual((yield* streams.listWallets(stream, { limit: 10, search: bob.slice(2, 12).toUpperCase() })).items, [evm(bob)])
      assert.deepStrictEqual((yield* streams.watched("0x1", 0)).map((wallet) => wallet.address), [alice, bob].map((a) => a.toLowerCase()).toSorted())
      // A scan's first look reads them all; the wallets there before are not read again as added.
      const first = yield* streams.watchedSince("0x1", 0, undefined)
      assert.deepStrictEqual([first.version, first.whole, first.wallets.length], [7n, true, 2])
      yield* streams.addWallets(stream, [evm(carol)])
      const next = yield* streams.watchedSince("0x1", 0, first.version)
      assert.deepStrictEqual([next.whole, next.wallets], [false, [evm(carol)]])
      const announced = (yield* Coverage.announce([stream])).get(stream) ?? []
      assert.deepStrictEqual(announced, [{ scope: "0x1", address: alice.toLowerCase(), coveredFrom: 101n }], "the one not announced, with its first block")
      assert.strictEqual(yield* streams.walletCount(stream), 5)
      // No foreign key left, and the stream's wallets still go with it.
      const keys = yield* sql<{ name: string }>`SELECT conname AS name FROM pg_constraint WHERE conrelid = 'stream_wallets'::regclass AND contype = 'f'`
      assert.deepStrictEqual(keys, [])
      assert.isTrue(yield* streams.remove(stream))
      assert.strictEqual(yield* streams.walletCount(stream), 0)
    })))
})
