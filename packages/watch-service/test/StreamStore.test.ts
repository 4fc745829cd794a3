/**
 * The stream store, over a real PostgreSQL (a fresh database per test), where the API cannot reach:
 * a status set only from the status given (a stream paused while its batch was in flight is not
 * put in `error` by the delivery loop); an unknown stream has no secret and no lock; an event kind
 * this version does not know (a row written by a newer service) is left out of what the stream
 * receives and of what its scans read; a scan's look at its wallets reads those added since its
 * last look alone, and all of them once some may have left; a removal of wallets while wallets are
 * added to the same stream waits for the adding, and neither fails (no deadlock).
 */
import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Fiber, Option } from "effect"
import { SqlClient } from "effect/sql"
import { alice, bob } from "../../watch/test/fixtures.js"
import { StreamStore } from "../src/store/StreamStore.js"
import { carol, evm, makeStream, withStores } from "./support/storeFixtures.js"

describe("StreamStore", () => {
  it.effect("setStatus with `from` changes a stream only while it has that status", () =>
    withStores(Effect.gen(function*() {
      const streams = yield* StreamStore
      const id = yield* makeStream([])
      assert.isTrue(Option.isSome(yield* streams.setStatus(id, "paused", null)))
      // The delivery loop puts an active stream in error; this one was paused meanwhile.
      assert.isTrue(Option.isNone(yield* streams.setStatus(id, "error", "the receiver answered 410 Gone", "active")))
      const kept = Option.getOrThrow(yield* streams.get(id))
      assert.deepStrictEqual([kept.status, kept.statusReason], ["paused", null])
      const resumed = yield* streams.setStatus(id, "active", null, "paused")
      assert.strictEqual(Option.getOrThrow(resumed).status, "active")
    })))

  it.effect("an unknown stream has no secret, cannot be locked and gets no wallet", () =>
    withStores(Effect.gen(function*() {
      const streams = yield* StreamStore
      const sql = yield* SqlClient.SqlClient
      assert.isTrue(Option.isNone(yield* streams.secret("str_0000000000000000000000")))
      assert.strictEqual((yield* streams.addWallets("str_0000000000000000000000", [evm(alice)], [5n])).added, 0)
      assert.deepStrictEqual(yield* sql`SELECT 1 FROM stream_wallets`, [])
      assert.isFalse(yield* sql.withTransaction(streams.lock("str_0000000000000000000000")))
      const id = yield* makeStream([])
      assert.isTrue(yield* sql.withTransaction(streams.lock(id)))
      assert.isTrue(Option.isSome(yield* streams.secret(id)))
    })))

  it.effect("a stored event kind this version does not know is left out of the stream and of its scans", () =>
    withStores(Effect.gen(function*() {
      const streams = yield* StreamStore
      const sql = yield* SqlClient.SqlClient
      const id = yield* makeStream([evm(alice)], { events: ["nft.received"] })
      yield* sql`UPDATE streams SET event_kinds = ARRAY['nft.received', 'nft.minted'] WHERE id = ${id}`
      assert.deepStrictEqual(Option.getOrThrow(yield* streams.get(id)).events, ["nft.received"])
      assert.deepStrictEqual(yield* streams.scansOn("0x1"), [{ confirmations: 0, kinds: [["nft.received"]] }])
      // A stream of every kind (none stored) asks its scans for all of them.
      yield* makeStream([evm(alice)])
      assert.deepStrictEqual(yield* streams.scansOn("0x1"), [{ confirmations: 0, kinds: [["nft.received"], null] }])
    })))

  it.live("a removal while an addition to the stream is under way waits for it; neither meets a deadlock", () =>
    withStores(Effect.gen(function*() {
      const streams = yield* StreamStore
      const sql = yield* SqlClient.SqlClient
      const id = yield* makeStream([evm(alice)])
      // Read afresh each time (a transaction keeps its first view of the activity otherwise).
      const waiting = Effect.andThen(
        sql`SELECT pg_stat_clear_snapshot()`,
        sql<{ count: number }>`SELECT count(*)::int AS count FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`
      )
      // The removal on a connection of its own, once the addition is under way.
      const started = yield* Deferred.make<void>()
      const removing = yield* Effect.forkChild(Effect.andThen(Deferred.await(started), streams.removeWallets(id, [evm(alice)])))
      yield* sql.withTransaction(Effect.gen(function*() {
        // An addition under way: it holds the wallets' version until it commits.
        yield* streams.addWallets(id, [evm(bob)])
        yield* Deferred.succeed(started, undefined)
        for (let tries = 0; (yield* waiting)[0]!.count === 0; tries++) {
          if (tries > 200) return yield* Effect.die("the removal never waited")
          yield* Effect.sleep("25 millis")
        }
        // The same addition meets alice, whom the removal is taking.
        yield* streams.addWallets(id, [evm(alice), evm(carol)])
      }))
      assert.strictEqual(yield* Fiber.join(removing), 1)
      assert.deepStrictEqual((yield* streams.listWallets(id, { limit: 10 })).items.map((wallet) => wallet.address).toSorted(), [bob, carol].toSorted())
    })))

  it.effect("watchedSince reads the wallets added since a version alone, and every wallet once some may have left", () =>
    withStores(Effect.gen(function*() {
      const streams = yield* StreamStore
      const look = (since: bigint | undefined) =>
        Effect.map(streams.watchedSince("0x1", 0, since), (read) => ({ ...read, addresses: read.wallets.map((wallet) => wallet.address) }))
      const empty = yield* look(undefined)
      assert.deepStrictEqual([empty.whole, empty.addresses], [true, []])
      const first = yield* makeStream([evm(alice)])
      const one = yield* look(empty.version)
      assert.deepStrictEqual([one.whole, one.addresses], [false, [alice]])
      assert.isTrue(one.version > empty.version)
      // Added to another stream too, with a new one; wallets of other scans are not this one's.
      const second = yield* makeStream([evm(bob), evm(alice)])
      yield* makeStream([evm(carol)], { confirmations: 2 })
      yield* makeStream([evm(carol)], { scopes: ["0x89"] })
      const two = yield* look(one.version)
      assert.deepStrictEqual([two.whole, two.addresses], [false, [alice, bob]])
      const none = yield* look(two.version)
      assert.deepStrictEqual([none.version, none.whole, none.addresses], [two.version, false, []])
      // Each change that may take wallets from the scan has it read whole.
      yield* streams.removeWallets(second, [evm(bob)])
      const removed = yield* look(none.version)
      assert.deepStrictEqual([removed.whole, removed.addresses], [true, [alice]])
      yield* streams.update(first, { description: "renamed" })
      assert.deepStrictEqual((yield* look(removed.version)).whole, false, "a change no scan sees")
      yield* streams.update(first, { confirmations: 1 })
      const moved = yield* look(removed.version)
      assert.deepStrictEqual([moved.whole, moved.addresses], [true, [alice]])
      assert.isTrue(yield* streams.remove(second))
      assert.strictEqual(yield* streams.walletCount(second), 0, "a stream's wallets go with it")
      assert.isFalse(yield* streams.remove(second))
      const deleted = yield* look(moved.version)
      assert.deepStrictEqual([deleted.whole, deleted.addresses], [true, []])
      // Added back after: read as added, from the version last read.
      yield* streams.addWallets(first, [evm(bob)])
      yield* streams.update(first, { confirmations: 0 })
      const back = yield* look(deleted.version)
      assert.deepStrictEqual([back.whole, back.addresses], [true, [alice, bob]])
      yield* streams.addWallets(first, [evm(carol)])
      const added = yield* look(back.version)
      assert.deepStrictEqual([added.whole, added.addresses], [false, [carol]])
    })))
})
