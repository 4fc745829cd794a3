/**
 * The transactional outbox, over a real PostgreSQL (a fresh database per test), run as the scanner
 * runs it (`enqueue` inside `sql.withTransaction`). It proves that:
 *
 * - an event goes to every stream that holds its wallet (wallet sets overlap, EVM and Aptos), and
 *   only to those; each stream's events keep the scan's order at positions 1..n without gaps, and
 *   are stored as exactly `WatchEvent.toJson(event)`; `enqueue` returns exactly the woken streams;
 * - a stream's kinds, chains and confirmations filter what it gets;
 * - a retraction goes only to the streams that received the event it retracts;
 * - deliveries are cut at 500 events with contiguous sequences and position ranges (`cut` itself
 *   on 0, 1, 500, 501 and 1,234 events), and a later enqueue continues both counters;
 * - a transaction rolled back after `enqueue` leaves no event, no delivery, and the counters as
 *   they were;
 * - an Aptos event's block is its ledger version; a scan's commit waits for the scan's lock.
 */
import { WatchEvent } from "@chainquery/watch"
import { assert, describe, it } from "@effect/vitest"
import { DateTime, Deferred, Effect, Fiber } from "effect"
import { SqlClient } from "effect/sql"
import { TestClock } from "effect/testing"
import { alice, aptosAlice, aptosTransfer, bob, nftTransfer, trade } from "../../watch/test/fixtures.js"
import * as Coverage from "../src/store/Coverage.js"
import { DeliveryStore } from "../src/store/DeliveryStore.js"
import * as Outbox from "../src/store/Outbox.js"
import { StreamStore } from "../src/store/StreamStore.js"
import { scannedAllTo } from "./support/checkpoints.js"
import { underScanLock, waitingForScanLock } from "./support/scanLock.js"
import {
  aptos,
  carol,
  counters,
  enqueue,
  evm,
  makeStream,
  storedDeliveries,
  storedEvents,
  transfers,
  withStores
} from "./support/storeFixtures.js"

/** What a stream's events must be stored as: the events given, at positions 1..n, as their NDJSON lines. */
const stored = (events: ReadonlyArray<WatchEvent.WatchEvent>) =>
  events.map((event, index) => ({ position: String(index + 1), event_id: event.id, body: WatchEvent.toJson(event) }))

/** Asserts a stream's stored events, one delivery of them all (or none), and its counters. */
const assertOneBatch = (streamId: string, events: ReadonlyArray<WatchEvent.WatchEvent>) =>
  Effect.gen(function*() {
    assert.deepStrictEqual(yield* storedEvents(streamId), stored(events))
    assert.deepStrictEqual(yield* storedDeliveries(streamId), events.length === 0 ? [] : [[1, 1, events.length, events.length, false]])
    assert.deepStrictEqual(yield* counters(streamId), [events.length + 1, events.length === 0 ? 1 : 2])
  })

/** The only event of an NFT transfer, as `wallet`'s (on Ethereum unless told). */
const nftEvent = (wallet: typeof alice, overrides: Record<string, unknown>, chain: "0x1" | "0x89" = "0x1") =>
  WatchEvent.fromNftTransfer(chain, wallet, nftTransfer(overrides))[0]!

const sendsToBob = { from_address: alice, to_address: bob }

/** Alice's Aptos token deposit at ledger version `version`. */
const aptosDeposit = (version: string) => WatchEvent.fromAptosTransfer("mainnet", aptosAlice, aptosTransfer({ transaction_version: version }))[0]!

/** A range of Aptos mainnet versions, as a delivery states it. */
const aptosRange = (from: bigint, to: bigint) => ({ scope: "aptos:mainnet", from, to })

describe("Outbox.cut", () => {
  it("cuts 0, 1, 500, 501 and 1,234 events into ranges of at most 500, from the first position", () => {
    assert.strictEqual(Outbox.maxEventsPerDelivery, 500)
    assert.deepStrictEqual(Outbox.cut(1n, 0), [])
    assert.deepStrictEqual(Outbox.cut(7n, 1), [{ first: 7n, last: 7n, count: 1 }])
    assert.deepStrictEqual(Outbox.cut(1n, 500), [{ first: 1n, last: 500n, count: 500 }])
    assert.deepStrictEqual(Outbox.cut(1n, 501), [{ first: 1n, last: 500n, count: 500 }, { first: 501n, last: 501n, count: 1 }])
    assert.deepStrictEqual(Outbox.cut(11n, 1234), [
      { first: 11n, last: 510n, count: 500 },
      { first: 511n, last: 1010n, count: 500 },
      { first: 1011n, last: 1244n, count: 234 }
    ])
  })
})

describe("Outbox.enqueue", () => {
  it.effect("fans each event out to every stream holding its wallet, only those, in order, as WatchEvent.toJson", () =>
    withStores(Effect.gen(function*() {
      const at = DateTime.makeUnsafe("2030-01-02T03:04:05.678Z")
      yield* TestClock.setTime(DateTime.toEpochMillis(at))
      const onlyAlice = yield* makeStream([evm(alice)])
      const both = yield* makeStream([evm(alice), evm(bob)])
      const onlyBob = yield* makeStream([evm(bob)])
      const nobody = yield* makeStream([evm(carol)])
      const aptosMainnet = yield* makeStream([aptos(aptosAlice, "mainnet")])
      const aptosTestnet = yield* makeStream([aptos(aptosAlice, "testnet")])
      const [received1, sent1, bought, aptosIn, received2, sent2] = [
        nftEvent(alice, { log_index: 1 }),
        nftEvent(bob, { log_index: 2 }),
        WatchEvent.fromTrade("0x1", alice, trade())[0]!,
        WatchEvent.fromAptosTransfer("mainnet", aptosAlice, aptosTransfer())[0]!,
        nftEvent(alice, { log_index: 3 }),
        nftEvent(bob, { log_index: 4 })
      ]
      assert.deepStrictEqual([received1.kind, sent1.kind, bought.kind, aptosIn.kind], ["nft.received", "nft.sent", "trade.bought", "aptos.token.in"])
      const woken = yield* enqueue([received1, sent1, bought, aptosIn, received2, sent2])
      assert.deepStrictEqual(woken, [onlyAlice, both, onlyBob, aptosMainnet].toSorted())
      yield* assertOneBatch(onlyAlice, [received1, bought, received2])
      yield* assertOneBatch(both, [received1, sent1, bought, received2, sent2])
      yield* assertOneBatch(onlyBob, [sent1, sent2])
      yield* assertOneBatch(aptosMainnet, [aptosIn])
      yield* assertOneBatch(nobody, [])
      yield* assertOneBatch(aptosTestnet, [])
      // Each delivery is pending, due at once, with its own msg_ id.
      const { items } = yield* (yield* DeliveryStore).list(both, { limit: 10 })
      assert.deepStrictEqual(items.map((d) => [d.sequence, d.status, d.events, d.attempts, d.replay]), [[1, "pending", 5, 0, false]])
      assert.deepStrictEqual([items[0]!.createdAt, items[0]!.nextAttemptAt], [at, at])
      assert.match(items[0]!.id, /^msg_[0-9a-z]{9}[0-9a-f]{12}$/)
      const sql = yield* SqlClient.SqlClient
      const ids = yield* sql<{ count: number }>`SELECT count(DISTINCT id)::int AS count FROM deliveries`
      assert.strictEqual(ids[0]!.count, 4)
    })))

  it.effect("a stream gets only the kinds, chains and confirmations it asked for", () =>
    withStores(Effect.gen(function*() {
      const received = yield* makeStream([evm(alice)], { events: ["nft.received"] })
      const polygon = yield* makeStream([evm(alice), evm(alice, "0x89")], { scopes: ["0x89"] })
      const confirmed = yield* makeStream([evm(alice)], { confirmations: 3 })
      const receivedOnEth = nftEvent(alice, { log_index: 1 })
      const sentOnEth = nftEvent(alice, { ...sendsToBob, log_index: 2 })
      const receivedOnPolygon = nftEvent(alice, { log_index: 3 }, "0x89")
      assert.strictEqual(sentOnEth.kind, "nft.sent")
      const scan = [receivedOnEth, sentOnEth, receivedOnPolygon]
      assert.deepStrictEqual(yield* enqueue(scan, 0), [received, polygon].toSorted())
      yield* assertOneBatch(received, [receivedOnEth])
      yield* assertOneBatch(polygon, [receivedOnPolygon])
      yield* assertOneBatch(confirmed, [])
      // The same events from the scan at 3 confirmations go to that stream alone.
      assert.deepStrictEqual(yield* enqueue(scan, 3), [confirmed])
      yield* assertOneBatch(confirmed, [receivedOnEth, sentOnEth])
      yield* assertOneBatch(received, [receivedOnEth])
      yield* assertOneBatch(polygon, [receivedOnPolygon])
    })))

  it.effect("an Aptos event's block is its ledger version: what the wallet is covered from, what a batch replaces", () =>
    withStores(Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const streams = yield* StreamStore
      const stream = yield* makeStream([])
      const wallets = [aptos(aptosAlice, "mainnet")]
      // Admitted as the API admits: the scan places alice at version 500, so she is covered from 501.
      const admitted = yield* sql.withTransaction(Effect.gen(function*() {
        assert.isTrue(yield* streams.lock(stream))
        return yield* streams.addWallets(stream, wallets, yield* Coverage.admit(stream, 0, wallets, () => Effect.succeed(500n)))
      }))
      assert.deepStrictEqual(admitted.coveredFrom, [501n])
      yield* scannedAllTo("scan:aptos:mainnet:0", 700)
      const scan = (events: ReadonlyArray<WatchEvent.WatchEvent>) =>
        sql.withTransaction(Outbox.enqueue({ scope: "aptos:mainnet", confirmations: 0, events }))
      assert.deepStrictEqual(yield* scan([aptosDeposit("400"), aptosDeposit("600")]), [stream])
      assert.deepStrictEqual((yield* storedEvents(stream)).map((row) => row.event_id), [aptosDeposit("600").id], "version 400 is before alice's coverage")
      // An event at a version the stream was told about: the batch replaces from that version.
      yield* scan([aptosDeposit("650")])
      const { items } = yield* (yield* DeliveryStore).list(stream, { limit: 10 })
      assert.deepStrictEqual(items.map((d) => [d.sequence, d.replaces, d.coverage]), [
        [1, [], [aptosRange(501n, 700n)]],
        [2, [aptosRange(650n, 700n)], [aptosRange(650n, 700n)]]
      ])
    })))

  it.live("a scan's commit waits for the scan's lock (held by wallets being added), then fans out", () =>
    withStores(Effect.gen(function*() {
      const stream = yield* makeStream([evm(alice)])
      const release = yield* Deferred.make<void>()
      const adding = yield* underScanLock(Deferred.await(release))
      const committing = yield* Effect.forkChild(enqueue(transfers(1)))
      const seen = yield* Effect.raceFirst(
        Effect.as(Fiber.await(committing), "committed while the scan's lock was held"),
        Effect.as(waitingForScanLock, "waiting")
      )
      yield* Deferred.succeed(release, undefined)
      yield* Fiber.join(adding)
      assert.deepStrictEqual(yield* Fiber.join(committing), [stream])
      assert.strictEqual(seen, "waiting")
    })), 60_000)

  it.effect("a retraction goes only to the streams that received the event it retracts", () =>
    withStores(Effect.gen(function*() {
      const everything = yield* makeStream([evm(alice)])
      const sentOnly = yield* makeStream([evm(alice)], { events: ["nft.sent"] })
      const later = yield* makeStream([])
      const [received, afterwards] = transfers(2)
      assert.deepStrictEqual(yield* enqueue([received!]), [everything])
      assert.strictEqual((yield* (yield* StreamStore).addWallets(later, [evm(alice)])).added, 1)
      const retraction = WatchEvent.retract(received as WatchEvent.NftEvent)
      assert.deepStrictEqual(yield* enqueue([retraction, afterwards!]), [everything, later].toSorted())
      assert.deepStrictEqual(yield* storedEvents(everything), stored([received!, retraction, afterwards!]))
      assert.deepStrictEqual(yield* storedDeliveries(everything), [[1, 1, 1, 1, false], [2, 2, 3, 2, false]])
      yield* assertOneBatch(later, [afterwards!])
      yield* assertOneBatch(sentOnly, [])
      // Retracting the later event reaches both streams that received it; one nobody received, nobody.
      const second = WatchEvent.retract(afterwards as WatchEvent.NftEvent)
      assert.deepStrictEqual(yield* enqueue([second]), [everything, later].toSorted())
      assert.deepStrictEqual(yield* storedEvents(later), stored([afterwards!, second]))
      assert.deepStrictEqual(yield* enqueue([WatchEvent.retract(nftEvent(alice, { log_index: 99 }) as WatchEvent.NftEvent)]), [])
      assert.deepStrictEqual(yield* counters(everything), [5, 4])
      // A stream that received an event gets its retraction even after it removed the wallet.
      const [third] = transfers(3).slice(2)
      assert.deepStrictEqual(yield* enqueue([third!]), [everything, later].toSorted())
      assert.strictEqual(yield* (yield* StreamStore).removeWallets(later, [evm(alice)]), 1)
      assert.deepStrictEqual(yield* enqueue([WatchEvent.retract(third as WatchEvent.NftEvent)]), [everything, later].toSorted())
    })))

  it.effect("1,234 events for one stream make deliveries of 500, 500 and 234 with contiguous sequences and positions", () =>
    withStores(Effect.gen(function*() {
      const stream = yield* makeStream([evm(alice)])
      const events = transfers(1234)
      assert.strictEqual(new Set(events.map((event) => event.id)).size, 1234)
      assert.deepStrictEqual(yield* enqueue(events), [stream])
      assert.deepStrictEqual(yield* storedDeliveries(stream), [[1, 1, 500, 500, false], [2, 501, 1000, 500, false], [3, 1001, 1234, 234, false]])
      assert.deepStrictEqual(yield* storedEvents(stream), stored(events))
      assert.deepStrictEqual(yield* counters(stream), [1235, 4])
      // The next scan's events continue both counters.
      assert.deepStrictEqual(yield* enqueue(transfers(501, { from: 2000 })), [stream])
      assert.deepStrictEqual((yield* storedDeliveries(stream)).slice(3), [[4, 1235, 1734, 500, false], [5, 1735, 1735, 1, false]])
      assert.deepStrictEqual(yield* counters(stream), [1736, 6])
    })))

  it.effect("two enqueues continue sequences and positions; streams with no match get nothing; it returns exactly the woken ids", () =>
    withStores(Effect.gen(function*() {
      const ofAlice = yield* makeStream([evm(alice)])
      const ofBob = yield* makeStream([evm(bob)])
      const ofCarol = yield* makeStream([evm(carol)])
      const first = [...transfers(3), ...transfers(1, { from: 3, wallet: bob })]
      const second = transfers(2, { from: 10 })
      assert.deepStrictEqual(yield* enqueue(first), [ofAlice, ofBob].toSorted())
      assert.deepStrictEqual(yield* enqueue(second), [ofAlice])
      assert.deepStrictEqual(yield* enqueue([]), [])
      assert.deepStrictEqual(yield* enqueue(transfers(2, { from: 20, chain: "0x89" })), [])
      assert.deepStrictEqual(yield* storedEvents(ofAlice), stored([...first.slice(0, 3), ...second]))
      assert.deepStrictEqual(yield* storedDeliveries(ofAlice), [[1, 1, 3, 3, false], [2, 4, 5, 2, false]])
      assert.deepStrictEqual(yield* counters(ofAlice), [6, 3])
      yield* assertOneBatch(ofBob, [first[3]!])
      yield* assertOneBatch(ofCarol, [])
    })))

  it.effect("a transaction rolled back after enqueue leaves no events, no deliveries and the counters as they were", () =>
    withStores(Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const stream = yield* makeStream([evm(alice)])
      const failed = yield* sql.withTransaction(
        Effect.gen(function*() {
          const woken = yield* Outbox.enqueue({ scope: "0x1", confirmations: 0, events: transfers(3) })
          assert.deepStrictEqual(woken, [stream])
          return yield* Effect.fail("the checkpoint write failed" as const)
        })
      ).pipe(Effect.flip)
      assert.strictEqual(failed, "the checkpoint write failed")
      const rows = yield* sql<{ events: number; deliveries: number }>`SELECT (SELECT count(*)::int FROM stream_events) AS events,
        (SELECT count(*)::int FROM deliveries) AS deliveries`
      assert.deepStrictEqual(rows.map((row) => [row.events, row.deliveries]), [[0, 0]])
      assert.deepStrictEqual(yield* counters(stream), [1, 1])
      // The next commit starts at position and sequence 1.
      const events = transfers(2, { from: 5 })
      assert.deepStrictEqual(yield* enqueue(events), [stream])
      yield* assertOneBatch(stream, events)
    })))
})
