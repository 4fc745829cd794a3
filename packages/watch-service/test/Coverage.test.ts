/**
 * Coverage, over a real PostgreSQL (a fresh database per test), with the scan's checkpoints moved
 * as the engine moves them and its events fanned out by the outbox as the scanner does. It proves
 * that:
 *
 * - wallets admitted to a stream are covered from the block after their checkpoint: the baseline
 *   on a scope no scan reads, one placed just below the scan's lowest checkpoint otherwise (a
 *   checkpoint left behind by the scan is moved up to it), the one they have when another stream
 *   holds them; never from a block the stream was told about, and their events before it are not
 *   the stream's; the stream's coverage of the scope starts there;
 * - each batch with events covers from the block after the last one it stated up to the scan's
 *   lowest checkpoint, contiguously, and the next batch lists the wallets added (once);
 * - a batch with events at or before what was stated (a reorganisation) replaces that range, its
 *   retractions first, and covers from its start again;
 * - more than 500 events: the first delivery states what it replaces, the last what it covers;
 * - heartbeats: only for active streams quiet for the period, with the coverage moved on (up to
 *   the lowest checkpoint of the stream's own wallets) and no events; none when the period is 0;
 * - a delivered batch moves the stream's last delivered sequence and covered-to (back for a
 *   replaced range), as the API's stats show them;
 * - the planner's statistics are refreshed after a bulk addition only;
 * - a scan's commit takes the scan's lock before any checkpoint, as forgetting wallets does (so
 *   the two never deadlock).
 * The webhook body that states all of it: `webhookBody.test.ts`.
 */
import type { EvmAddress } from "@chainquery/schema"
import { StateStore, type WatchedWallet, WatchEvent } from "@chainquery/watch"
import { assert, describe, it } from "@effect/vitest"
import { Deferred, Duration, Effect, Fiber, Option } from "effect"
import { SqlClient } from "effect/sql"
import { TestClock } from "effect/testing"
import { alice, aptosAlice, aptosBob, bob, collection, nftTransfer } from "../../watch/test/fixtures.js"
import * as Coverage from "../src/store/Coverage.js"
import { DeliveryStore } from "../src/store/DeliveryStore.js"
import * as Heartbeats from "../src/delivery/Heartbeats.js"
import * as Scanner from "../src/scan/Scanner.js"
import * as Statistics from "../src/store/Statistics.js"
import { StreamStore } from "../src/store/StreamStore.js"
import { leftAt, movedTo, scannedAllTo } from "./support/checkpoints.js"
import { underScanLock, waitingForScanLock } from "./support/scanLock.js"
import { aptos, carol, enqueue, evm, makeStream, storedDeliveries, storedEvents, withStores } from "./support/storeFixtures.js"

const namespace = "scan:0x1:0"

/** Admits wallets to a stream as the API does (its row locked, in one transaction); a scope without a scan starts at `start`. */
const admit = (streamId: string, wallets: ReadonlyArray<WatchedWallet.WatchedWallet>, start = 100n) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const streams = yield* StreamStore
    return yield* sql.withTransaction(Effect.gen(function*() {
      assert.isTrue(yield* streams.lock(streamId))
      const coveredFrom = yield* Coverage.admit(streamId, 0, wallets, () => Effect.succeed(start))
      return yield* streams.addWallets(streamId, wallets, coveredFrom)
    }))
  })

/** The scan's engine reached `block` for every wallet (its checkpoints moved). */
const scanned = (block: bigint) => scannedAllTo(namespace, block)

/** Alice's `nft.received` in block `block` (log index `log`). */
const received = (block: bigint, log = 0) =>
  WatchEvent.fromNftTransfer("0x1", alice, nftTransfer({ block_number: String(block), log_index: log }))[0]!

/** Bob's `nft.received` in block `block`. */
const bobReceived = (block: bigint) => WatchEvent.fromNftTransfer("0x1", bob, nftTransfer({ to_address: bob, block_number: String(block) }))[0]!

/** A stream's deliveries, by sequence. */
const deliveriesOf = (streamId: string) =>
  DeliveryStore.use((store) => store.list(streamId, { limit: 1_000 })).pipe(Effect.map((page) => page.items))

const range = (from: bigint, to: bigint) => ({ scope: "0x1", from, to })

describe("Coverage: admission", () => {
  it.effect("the baseline where no scan reads, just below the scan's lowest checkpoint after, a held wallet's own checkpoint", () =>
    withStores(Effect.gen(function*() {
      const first = yield* makeStream([])
      assert.deepStrictEqual(yield* admit(first, [evm(alice)]), { added: 1, coveredFrom: [101n] })
      yield* scanned(120n)
      const second = yield* makeStream([])
      // bob joins the scan one block below its lowest checkpoint; alice has hers (another stream holds her).
      assert.deepStrictEqual(yield* admit(second, [evm(bob), evm(alice)], 999n), { added: 2, coveredFrom: [120n, 121n] })
      assert.deepStrictEqual(yield* Coverage.frontier("0x1", 0), Option.some(119n), "bob holds the claims back until the scan reads him")
      // Admitted again, a wallet keeps the block it was first covered from.
      yield* scanned(130n)
      assert.deepStrictEqual(yield* admit(first, [evm(alice), evm(carol)], 999n), { added: 1, coveredFrom: [101n, 130n] })
      const sql = yield* SqlClient.SqlClient
      const rows = yield* sql<{ stream_id: string; covered_from: string; batched_to: string }>`SELECT stream_id, covered_from::text, batched_to::text
        FROM stream_coverage ORDER BY stream_id`
      assert.deepStrictEqual(rows.map((r) => [r.stream_id, r.covered_from, r.batched_to]), [[first, "101", "100"], [second, "120", "119"]].toSorted())
    })))

  it.effect("never from a block the stream was told about: the wallet's events before are not the stream's", () =>
    withStores(Effect.gen(function*() {
      const stream = yield* makeStream([])
      yield* admit(stream, [evm(alice)])
      yield* scanned(110n)
      yield* enqueue([received(105n)])
      // Told up to 110; bob is placed at 109 (the scan's lowest is 110) but covered from 111.
      assert.deepStrictEqual(yield* admit(stream, [evm(bob)]), { added: 1, coveredFrom: [111n] })
      yield* scanned(115n)
      // A holdings change is read per wallet and dated at what it was read up to: it comes whenever it comes.
      const holding = WatchEvent.holdingUpdated("0x1", bob, collection, 7n, 1n, 110n)
      yield* enqueue([bobReceived(110n), bobReceived(112n), holding])
      const [, second] = yield* deliveriesOf(stream)
      assert.deepStrictEqual([second!.events, second!.replaces, second!.coverage], [2, [range(110n, 110n)], [range(110n, 115n)]])
      assert.deepStrictEqual(second!.wallets, [{ scope: "0x1", address: bob, coveredFrom: 111n }])
      const stored = yield* storedEvents(stream)
      assert.deepStrictEqual(stored.map((row) => row.event_id).slice(-2), [bobReceived(112n).id, holding.id], "block 110's transfer is not the stream's")
    })))

  it.effect("a wallet another stream holds keeps its checkpoint, even on Aptos where newer wallets start later", () =>
    withStores(Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const holder = yield* makeStream([])
      assert.deepStrictEqual(yield* admit(holder, [aptos(aptosAlice, "mainnet")], 500n), { added: 1, coveredFrom: [501n] })
      const adder = yield* makeStream([])
      // bob's newest transfer is later: he starts there; alice stays where the scan has her for the holder.
      assert.deepStrictEqual(yield* admit(adder, [aptos(aptosAlice, "mainnet"), aptos(aptosBob, "mainnet")], 900n), { added: 2, coveredFrom: [501n, 901n] })
      const rows = yield* sql<{ wallet: string; position: string }>`SELECT wallet, position::text FROM watch_checkpoints
        WHERE namespace = 'scan:aptos:mainnet:0' ORDER BY wallet`
      assert.deepStrictEqual(rows.map((row) => [row.wallet, row.position]), [[aptosAlice, "500"], [aptosBob, "900"]].toSorted())
      // A head read below the scan's lowest checkpoint (a lagging node) does not place a wallet below it.
      const late = yield* makeStream([])
      const carolAptos = aptos(`0x${"ca".repeat(32)}` as typeof aptosAlice, "mainnet")
      assert.deepStrictEqual(yield* admit(late, [carolAptos], 300n), { added: 1, coveredFrom: [501n] })
    })))

  it.effect("a held wallet ahead of what the stream was told starts after its own checkpoint; the stream's coverage at its lowest wallet", () =>
    withStores(Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const told = yield* makeStream([])
      yield* admit(told, [evm(alice)])
      const holder = yield* makeStream([])
      yield* admit(holder, [evm(bob)])
      // The scan has alice at 100 and bob, held by the other stream, at 101: one block past what the stream was told.
      yield* movedTo(namespace, bob, 101)
      // Told up to 100, the stream adds carol (placed below the scan's lowest, from 101) and bob (from 102, not 101).
      assert.deepStrictEqual(yield* admit(told, [evm(carol), evm(bob)]), { added: 2, coveredFrom: [101n, 102n] })
      // A first admission lists its latest wallet first: the stream's coverage starts at its lowest.
      const fresh = yield* makeStream([])
      assert.deepStrictEqual(yield* admit(fresh, [evm(bob), evm(carol)]), { added: 2, coveredFrom: [102n, 100n] })
      const [row] = yield* sql<{ covered_from: string; batched_to: string }>`SELECT covered_from::text, batched_to::text FROM stream_coverage
        WHERE stream_id = ${fresh}`
      assert.deepStrictEqual([row?.covered_from, row?.batched_to], ["100", "99"])
    })))

  it.effect("a wallet removed but not yet forgotten, ahead of the scan, keeps its checkpoint when added again", () =>
    withStores(Effect.gen(function*() {
      const first = yield* makeStream([])
      yield* admit(first, [evm(alice), evm(carol)])
      yield* movedTo(namespace, alice, 200)
      yield* movedTo(namespace, carol, 150)
      yield* (yield* StreamStore).removeWallets(first, [evm(alice)])
      // The scan still has alice at 200 (its lowest held is carol's 150): her events from 201 are what a stream can be told.
      const second = yield* makeStream([])
      assert.deepStrictEqual(yield* admit(second, [evm(alice)]), { added: 1, coveredFrom: [201n] })
    })))

  it.effect("the coverage of a chain the stream no longer receives ends", () =>
    withStores(Effect.gen(function*() {
      const stream = yield* makeStream([])
      yield* admit(stream, [evm(alice), evm(alice, "0x89")])
      const sql = yield* SqlClient.SqlClient
      const scopes = sql<{ scope: string }>`SELECT scope FROM stream_coverage WHERE stream_id = ${stream} ORDER BY scope`
      assert.deepStrictEqual((yield* scopes).map((row) => row.scope), ["0x1", "0x89"])
      yield* (yield* StreamStore).update(stream, { scopes: ["0x1"] })
      assert.deepStrictEqual((yield* scopes).map((row) => row.scope), ["0x1"])
    })))
})

describe("Coverage: statistics", () => {
  it.effect("refreshed after a bulk addition (1,000 wallets or more, a quarter of what was counted), not after a few", () =>
    withStores(Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const counted = sql<{ rows: number }>`SELECT reltuples::float8 AS rows FROM pg_class WHERE oid = 'stream_wallets'::regclass`
      const many = Array.from({ length: 2_000 }, (_, i) => evm(`0x${i.toString(16).padStart(40, "0")}` as typeof alice))
      yield* makeStream(many)
      const before = (yield* counted)[0]!.rows
      yield* Statistics.refreshStatistics(999)
      assert.strictEqual((yield* counted)[0]!.rows, before, "999 wallets: left to autovacuum")
      yield* Statistics.refreshStatistics(2_000)
      assert.strictEqual((yield* counted)[0]!.rows, 2_000)
      yield* makeStream(many)
      yield* makeStream(many.slice(0, 1_000))
      yield* Statistics.refreshStatistics(1_000)
      assert.strictEqual((yield* counted)[0]!.rows, 5_000, "1,000 of 2,000 counted: refreshed")
      yield* makeStream(many.slice(0, 1_000))
      yield* Statistics.refreshStatistics(1_000)
      assert.strictEqual((yield* counted)[0]!.rows, 5_000, "1,000 of 5,000 counted: not worth it")
    })))

  it.live("refreshed in the background one at a time: bulk additions while one waits make one waiting ANALYZE, not one each", () =>
    withStores(Effect.scoped(Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const refresh = yield* Statistics.refresher
      const analyzing = sql<{ count: number }>`SELECT count(*)::int AS count FROM pg_stat_activity
        WHERE datname = current_database() AND state = 'active' AND query LIKE 'ANALYZE%'`
      const until = (what: string, holds: (count: number) => boolean) =>
        Effect.gen(function*() {
          for (let tries = 0; !holds((yield* analyzing)[0]!.count); tries++) {
            if (tries > 400) return yield* Effect.die(`never ${what}`)
            yield* Effect.sleep("25 millis")
          }
        })
      // The table held as an ANALYZE would hold it: the refresh waits.
      const locked = yield* Deferred.make<void>()
      const release = yield* Deferred.make<void>()
      // Released however the test ends: the refreshes waiting behind it end with the scope.
      yield* Effect.addFinalizer(() => Deferred.succeed(release, undefined))
      const holder = yield* Effect.forkChild(sql.withTransaction(Effect.gen(function*() {
        yield* sql`LOCK TABLE stream_wallets IN SHARE UPDATE EXCLUSIVE MODE`
        yield* Deferred.succeed(locked, undefined)
        yield* Deferred.await(release)
      })))
      yield* Deferred.await(locked)
      // Five (not ten: with one each, ten would hold every connection of the pool, this test's too).
      for (let i = 0; i < 5; i++) yield* refresh(2_000)
      yield* refresh(999)
      yield* until("an ANALYZE waiting", (count) => count >= 1)
      yield* Effect.sleep("500 millis")
      assert.strictEqual((yield* analyzing)[0]!.count, 1, "one ANALYZE at a time")
      yield* Deferred.succeed(release, undefined)
      yield* Fiber.join(holder)
      yield* until("the refreshes done", (count) => count === 0)
    }))))
})

describe("Coverage: the scan's lowest checkpoint", () => {
  it.effect("counts only the wallets a stream holds; forgetting spares a wallet held again", () =>
    withStores(Effect.gen(function*() {
      const stream = yield* makeStream([])
      yield* admit(stream, [evm(alice)])
      yield* scanned(110n)
      // A wallet no stream holds, whose checkpoint the scan left behind (it stopped reading it).
      const sql = yield* SqlClient.SqlClient
      yield* leftAt(namespace, "0x1", carol, 50)
      assert.deepStrictEqual(yield* Coverage.frontier("0x1", 0), Option.some(110n))
      yield* enqueue([received(105n)])
      assert.deepStrictEqual((yield* deliveriesOf(stream))[0]!.coverage, [range(101n, 110n)])
      // Held again, carol's checkpoint is moved up to bob's placement: no stream is owed what she missed.
      assert.deepStrictEqual(yield* admit(yield* makeStream([]), [evm(bob), evm(carol)]), { added: 2, coveredFrom: [110n, 110n] })
      // Forgetting alice and carol while another stream holds carol: carol keeps her checkpoint.
      yield* (yield* StreamStore).removeWallets(stream, [evm(alice)])
      yield* Coverage.forgetUnheld("0x1", 0, [evm(alice), evm(carol)])
      const left = yield* sql<{ wallet: string; position: string }>`SELECT wallet, position::text FROM watch_checkpoints WHERE namespace = ${namespace} ORDER BY wallet`
      assert.deepStrictEqual(left.map((row) => [row.wallet, row.position]), [[bob, "109"], [carol, "109"]].toSorted())
    })))
})

describe("Coverage: writers of one scan", () => {
  it.live("a scan's commit takes the scan's lock before it touches a checkpoint: forgetting under the lock never deadlocks with it", () =>
    withStores(Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const stream = yield* makeStream([])
      yield* admit(stream, [evm(alice)])
      const probe = yield* Deferred.make<void>()
      // As forgetting does: the scan's lock, then the wallets' rows.
      const forgetting = yield* underScanLock(Effect.andThen(
        Deferred.await(probe),
        sql`SELECT wallet FROM watch_checkpoints WHERE namespace = ${namespace} AND wallet = ${alice} FOR UPDATE NOWAIT`
      ))
      const event = received(101n)
      const committing = yield* Effect.forkChild(
        Effect.flatMap(StateStore.StateStore, (store) =>
          store.commit({ checkpoints: [{ wallet: evm(alice), position: 101n, hash: null }], pending: [event], eventIds: [event.id] })).pipe(
            Effect.provide(Scanner.scanState("0x1", 0, () => Effect.void))
          )
      )
      // Once the commit waits for the scan's lock, alice's row must still be free.
      yield* waitingForScanLock
      yield* Deferred.succeed(probe, undefined)
      assert.strictEqual((yield* Fiber.join(forgetting)).length, 1, "the row was free while the commit waited")
      yield* Fiber.join(committing)
      const [row] = yield* sql<{ position: string }>`SELECT position::text FROM watch_checkpoints WHERE namespace = ${namespace} AND wallet = ${alice}`
      assert.strictEqual(row?.position, "101")
      assert.strictEqual((yield* deliveriesOf(stream)).length, 1, "the commit fanned its event out")
    })), 60_000)

  it.live("forgetting wallets waits for the scan's lock (held by a commit), then forgets them", () =>
    withStores(Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      for (const forget of [Coverage.forgetUnheld("0x1", 0, [evm(alice)]), Coverage.forgetAllUnheld("0x1", 0)]) {
        const stream = yield* makeStream([])
        yield* admit(stream, [evm(alice)])
        yield* (yield* StreamStore).removeWallets(stream, [evm(alice)])
        // A scan's commit holds the scan's lock until `release`.
        const release = yield* Deferred.make<void>()
        const commit = yield* underScanLock(Deferred.await(release))
        const forgetting = yield* Effect.forkChild(forget)
        // Either the forgetting is seen waiting for the lock, or it ended without it.
        const seen = yield* Effect.raceFirst(
          Effect.as(Fiber.await(forgetting), "ended while the scan's lock was held"),
          Effect.as(waitingForScanLock, "waiting")
        )
        yield* Deferred.succeed(release, undefined)
        yield* Fiber.join(commit)
        yield* Fiber.join(forgetting)
        assert.strictEqual(seen, "waiting")
        const left = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM watch_checkpoints WHERE namespace = ${namespace} AND wallet = ${alice}`
        assert.strictEqual(left[0]!.n, 0, "alice forgotten once the lock was free")
      }
    })), 60_000)

  it.effect("a scan that starts forgets every wallet no stream holds, in its own namespace only", () =>
    withStores(Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* admit(yield* makeStream([]), [evm(alice)])
      for (const [ns, wallet] of [[namespace, bob], [namespace, carol], ["scan:0x1:12", carol]] as const) {
        yield* leftAt(ns, "0x1", wallet, 50)
      }
      assert.strictEqual(yield* Coverage.forgetAllUnheld("0x1", 0), 2)
      const left = yield* sql<{ namespace: string; wallet: string }>`SELECT namespace, wallet FROM watch_checkpoints ORDER BY namespace, wallet`
      assert.deepStrictEqual(left.map((row) => [row.namespace, row.wallet]), [[namespace, alice], ["scan:0x1:12", carol]])
      assert.strictEqual(yield* Coverage.forgetAllUnheld("0x1", 0), 0)
    })))
})

describe("Coverage: batches", () => {
  it.effect("contiguous ranges up to the scan's lowest checkpoint, new wallets listed once, a reorganisation replacing what was stated", () =>
    withStores(Effect.gen(function*() {
      const stream = yield* makeStream([])
      yield* admit(stream, [evm(alice)])
      yield* scanned(110n)
      yield* enqueue([received(105n)])
      yield* scanned(120n)
      // A commit without the stream's events moves nothing: the next batch states it.
      yield* enqueue([WatchEvent.fromNftTransfer("0x1", carol, nftTransfer({ to_address: carol, block_number: "118" }))[0]!])
      yield* scanned(125n)
      const reorged = received(116n, 1)
      yield* enqueue([reorged])
      yield* scanned(130n)
      const retraction = WatchEvent.retract(reorged)
      const replacement = received(117n, 2)
      yield* enqueue([replacement, retraction])
      const [one, two, three] = yield* deliveriesOf(stream)
      assert.deepStrictEqual([one!.coverage, one!.replaces, one!.wallets], [[range(101n, 110n)], [], [{ scope: "0x1", address: alice, coveredFrom: 101n }]])
      assert.deepStrictEqual([two!.coverage, two!.replaces, two!.wallets], [[range(111n, 125n)], [], []])
      assert.deepStrictEqual([three!.coverage, three!.replaces], [[range(116n, 130n)], [range(116n, 125n)]])
      const bodies = Option.getOrThrow(yield* DeliveryStore.use((store) => store.next(stream)))
      assert.strictEqual(bodies.delivery.sequence, 1)
      const sql = yield* SqlClient.SqlClient
      const stored = yield* sql<{ event_id: string }>`SELECT event_id FROM stream_events WHERE stream_id = ${stream} ORDER BY stream_events.position`
      assert.deepStrictEqual(stored.map((row) => row.event_id).slice(-2), [retraction.id, replacement.id], "the retraction first")
    })))

  it.effect("1,001 events: the first delivery states what it replaces, the last what it covers and the wallets", () =>
    withStores(Effect.gen(function*() {
      const stream = yield* makeStream([])
      yield* admit(stream, [evm(alice)])
      yield* scanned(110n)
      yield* enqueue([received(105n)])
      yield* scanned(140n)
      yield* enqueue(Array.from({ length: 1_001 }, (_, index) => received(108n + BigInt(index % 30), 10 + index)))
      const [, first, middle, last] = yield* deliveriesOf(stream)
      assert.deepStrictEqual([first!.events, first!.replaces, first!.coverage], [500, [range(108n, 110n)], []])
      assert.deepStrictEqual([middle!.events, middle!.replaces, middle!.coverage], [500, [], []])
      assert.deepStrictEqual([last!.events, last!.replaces, last!.coverage], [1, [], [range(108n, 140n)]])
    })))
})

describe("Coverage: heartbeats and progress", () => {
  it.effect("a heartbeat for an active stream quiet for the period only, with its coverage; delivered, the stats move", () =>
    withStores(Effect.gen(function*() {
      // The service's clock, two hours ago: what it made then is quiet for PostgreSQL's now().
      yield* TestClock.setTime(Date.now() - 2 * 3_600_000)
      const quiet = yield* makeStream([])
      yield* admit(quiet, [evm(alice)])
      const paused = yield* makeStream([])
      yield* (yield* StreamStore).setStatus(paused, "paused", null)
      yield* scanned(150n)
      assert.deepStrictEqual(yield* Heartbeats.makeDue(Duration.zero), [], "0: no heartbeats")
      assert.deepStrictEqual(yield* Heartbeats.makeDue("3 hours"), [], "not quiet for 3 hours")
      // Made now: not due again within the hour.
      yield* TestClock.setTime(Date.now())
      // A wallet of another stream (not due), placed below the scan, holds that stream back, not this one.
      const other = yield* makeStream([])
      yield* admit(other, [evm(bob)])
      assert.deepStrictEqual(yield* Coverage.frontier("0x1", 0), Option.some(149n))
      assert.deepStrictEqual(yield* Heartbeats.makeDue("1 hour"), [quiet])
      assert.deepStrictEqual(yield* Heartbeats.makeDue("1 hour"), [])
      const [beat] = yield* deliveriesOf(quiet)
      assert.deepStrictEqual(
        [beat!.sequence, beat!.heartbeat, beat!.events, beat!.coverage, beat!.wallets],
        [1, true, 0, [range(101n, 150n)], [{ scope: "0x1", address: alice, coveredFrom: 101n }]]
      )
      assert.deepStrictEqual(yield* storedDeliveries(quiet), [[1, 1, 0, 0, false]], "an empty range: from the next position, to the one before")
      const store = yield* DeliveryStore
      const pending = Option.getOrThrow(yield* store.next(quiet))
      assert.deepStrictEqual(pending.bodies, [])
      yield* store.record(pending.delivery, { result: "delivered", status: 200, error: null }, [])
      const stats = yield* store.stats(quiet)
      assert.deepStrictEqual([stats.lastDeliveredSequence, stats.coverage], [1, [{ scope: "0x1", coveredFrom: 101n, coveredTo: 150n, batchedTo: 150n, head: null, headAt: null }]])
      assert.deepStrictEqual((yield* store.progress).map((p) => p.streamId).toSorted(), [quiet, paused, other].toSorted())
      // Quiet again with no wallet added since: the next heartbeat lists none.
      const sql = yield* SqlClient.SqlClient
      yield* sql`UPDATE streams SET last_batch_at = now() - interval '2 hours' WHERE id = ${quiet}`
      assert.deepStrictEqual(yield* Heartbeats.makeDue("1 hour"), [quiet])
      const second = (yield* deliveriesOf(quiet)).find((d) => d.sequence === 2)!
      assert.deepStrictEqual([second.heartbeat, second.events, second.wallets], [true, 0, []], "no wallet added since: none listed")
    })))

  it.effect("a delivered reorganisation moves the covered-to back to before what it replaces, then on to what it covers", () =>
    withStores(Effect.gen(function*() {
      const stream = yield* makeStream([])
      yield* admit(stream, [evm(alice)])
      yield* scanned(110n)
      const reorged = received(108n)
      yield* enqueue([reorged])
      yield* scanned(112n)
      // The retraction and 600 new events: the first delivery replaces, the second covers.
      yield* enqueue([WatchEvent.retract(reorged), ...Array.from({ length: 600 }, (_, index) => received(108n + BigInt(index % 5), 10 + index))])
      const store = yield* DeliveryStore
      const deliverNext = Effect.gen(function*() {
        const next = Option.getOrThrow(yield* store.next(stream))
        yield* store.record(next.delivery, { result: "delivered", status: 200, error: null }, [])
        return (yield* store.stats(stream)).coverage
      })
      assert.deepStrictEqual(yield* deliverNext, [{ scope: "0x1", coveredFrom: 101n, coveredTo: 110n, batchedTo: 112n, head: null, headAt: null }])
      assert.deepStrictEqual(yield* deliverNext, [{ scope: "0x1", coveredFrom: 101n, coveredTo: 107n, batchedTo: 112n, head: null, headAt: null }], "replaced from 108: covered to 107")
      assert.deepStrictEqual(yield* deliverNext, [{ scope: "0x1", coveredFrom: 101n, coveredTo: 112n, batchedTo: 112n, head: null, headAt: null }])
      const [, second, third] = yield* deliveriesOf(stream)
      assert.deepStrictEqual([second!.replaces, second!.coverage, third!.replaces, third!.coverage], [[range(108n, 110n)], [], [], [range(108n, 112n)]])
      assert.strictEqual((yield* store.stats(stream)).lastDeliveredSequence, 3)
    })))
})

describe("Coverage: claims", () => {
  it.effect("a claim states only what is new: nothing when the scan did not move, a reorganisation from the stream's start at the earliest, to what was stated at least", () =>
    withStores(Effect.gen(function*() {
      const stream = yield* makeStream([])
      assert.deepStrictEqual(yield* admit(stream, [evm(alice), evm(bob)]), { added: 2, coveredFrom: [101n, 101n] })
      const claimOf = (upTo: bigint, lowest?: bigint) =>
        Effect.map(Coverage.claim("0x1", [{ id: stream, lowest }], Option.some(upTo)), (claims) => claims.get(stream))
      assert.isUndefined(yield* claimOf(100n), "the scan at the stream's start: nothing to state")
      assert.deepStrictEqual(yield* claimOf(110n), { coverage: range(101n, 110n) })
      assert.isUndefined(yield* claimOf(110n), "the scan did not move: nothing to state (no empty range)")
      assert.isUndefined(yield* claimOf(105n), "a scan behind what was stated states nothing")
      // A reorganisation from block 106 while the scan stands at 108: it states 106 to 110 again, up to what was stated.
      assert.deepStrictEqual(yield* claimOf(108n, 106n), { replaces: range(106n, 110n), coverage: range(106n, 110n) })
      // One reaching below the stream's start replaces from its start only.
      assert.deepStrictEqual(yield* claimOf(112n, 90n), { replaces: range(101n, 110n), coverage: range(101n, 112n) })
      const batches = yield* Coverage.announce([stream])
      assert.deepStrictEqual(batches.get(stream), [
        { scope: "0x1", address: alice.toLowerCase(), coveredFrom: 101n },
        { scope: "0x1", address: bob.toLowerCase(), coveredFrom: 101n }
      ].toSorted((a, b) => a.address < b.address ? -1 : 1), "every wallet added is announced, in address order")
    })))

  it.effect("a batch announces at most 1,000 of a stream's new wallets, the next batches the rest, each once", () =>
    withStores(Effect.gen(function*() {
      const stream = yield* makeStream([])
      const other = yield* makeStream([])
      const wallets = Array.from({ length: Coverage.maxAnnouncedPerBatch + 5 }, (_, i) =>
        evm(`0x${(i + 1).toString(16).padStart(40, "0")}` as EvmAddress.EvmAddress))
      assert.strictEqual((yield* admit(stream, wallets)).added, wallets.length)
      yield* admit(other, [evm(alice)])
      const first = yield* Coverage.announce([stream, other, stream])
      const second = yield* Coverage.announce([stream, other])
      const third = yield* Coverage.announce([stream, other])
      assert.deepStrictEqual(
        [first.get(stream)?.length, first.get(other)?.length, second.get(stream)?.length, second.get(other), third.size],
        [Coverage.maxAnnouncedPerBatch, 1, 5, undefined, 0]
      )
      const all = [...first.get(stream)!, ...second.get(stream)!].map((wallet) => wallet.address)
      assert.deepStrictEqual(all.toSorted(), wallets.map((wallet) => wallet.address).toSorted(), "every wallet once")
      assert.deepStrictEqual(first.get(stream)!.map((wallet) => wallet.address), first.get(stream)!.map((wallet) => wallet.address).toSorted(), "in address order")
    })))

  it.effect("a batch announces its new wallets in chain, then address order, whatever order they were added in", () =>
    withStores(Effect.gen(function*() {
      const stream = yield* makeStream([])
      for (const wallet of [evm(carol), evm(alice, "0x89"), evm(bob), evm(alice)]) yield* admit(stream, [wallet])
      const announced = (yield* Coverage.announce([stream])).get(stream) ?? []
      assert.deepStrictEqual(
        announced.map((wallet) => [wallet.scope, wallet.address]),
        [["0x1", alice.toLowerCase()], ["0x1", bob.toLowerCase()], ["0x1", carol.toLowerCase()], ["0x89", alice.toLowerCase()]]
      )
    })))
})
