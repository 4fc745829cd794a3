/**
 * The stream store, over a real PostgreSQL (a fresh database per test), where the API cannot reach:
 * a status set only from the status given (a stream paused while its batch was in flight is not
 * put in `error` by the delivery loop); an unknown stream has no secret and no lock; an event kind
 * this version does not know (a row written by a newer service) is left out of what the stream
 * receives and of what its scans read.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import { SqlClient } from "effect/sql"
import { alice } from "../../watch/test/fixtures.js"
import { StreamStore } from "../src/store/StreamStore.js"
import { evm, makeStream, withStores } from "./support/storeFixtures.js"

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

  it.effect("an unknown stream has no secret and cannot be locked", () =>
    withStores(Effect.gen(function*() {
      const streams = yield* StreamStore
      const sql = yield* SqlClient.SqlClient
      assert.isTrue(Option.isNone(yield* streams.secret("str_0000000000000000000000")))
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
})
