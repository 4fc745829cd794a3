/**
 * `HistoryStore` over a real PostgreSQL: a wallet's history planned up to the block before it is
 * covered from (none when `from` is not before it; one planned already kept), and announced again
 * with where it starts; each slice committed as the stream's next batches, `phase: history`, the
 * last stating the wallet's range and the wallets announced, with the progress in the same
 * transaction; a commit planned from a `through` another already moved on, or for a wallet
 * removed, changes nothing (`Stale`); the last slice marks it done.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import * as HistoryStore from "../src/store/HistoryStore.js"
import { StreamStore } from "../src/store/StreamStore.js"
import { WatchEvent } from "@chainquery/watch"
import { alice, aptosAlice, aptosTransfer, bob, nftTransfer } from "../../watch/test/fixtures.js"
import { aptos, evm, makeStream, storedEvents, transfers, withStores } from "./support/storeFixtures.js"

/** Alice's Aptos event of a transfer at `version`, the `sequence`-th event of its account. */
const at = (version: number, sequence: number) =>
  WatchEvent.fromAptosTransfer("mainnet", aptosAlice, aptosTransfer({ transaction_version: String(version), event_sequence_number: String(sequence) }))

/** The stream's deliveries: [sequence, phase, events, history, wallets]. */
const deliveries = (streamId: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ sequence: number; phase: string; count: number; history: unknown; wallets: unknown }>`SELECT sequence::int, phase, event_count AS count,
        history, wallets FROM deliveries WHERE stream_id = ${streamId} ORDER BY sequence`)

describe("HistoryStore", () => {
  it.effect("planned up to the block before live, committed slice by slice as history batches with the progress, done at the end; stale commits change nothing", () =>
    withStores(Effect.gen(function*() {
      const streamId = yield* makeStream([])
      const streams = yield* StreamStore
      yield* streams.addWallets(streamId, [evm(alice), evm(bob)], [19_000_050n, 19_000_050n])
      const planned = yield* HistoryStore.plan(streamId, [
        { wallet: evm(alice), from: 18_999_950n, coveredFrom: 19_000_050n },
        { wallet: evm(bob), from: 19_000_050n, coveredFrom: 19_000_050n }
      ])
      assert.deepStrictEqual(planned, [{ from: 18_999_950n, to: 19_000_049n }, undefined], "none when from is not before live")
      const again = yield* HistoryStore.plan(streamId, [{ wallet: evm(alice), from: 18_000_000n, coveredFrom: 19_000_050n }])
      assert.deepStrictEqual(again, [{ from: 18_999_950n, to: 19_000_049n }], "one planned already is kept")
      const [job] = yield* HistoryStore.open("0x1", 10)
      assert.deepStrictEqual(job, { streamId: streamId, scope: "0x1", address: alice, fromBlock: 18_999_950n, upTo: 19_000_049n, through: 18_999_949n, events: 0, done: false, staged: false })

      const events = transfers(3)
      const first = yield* HistoryStore.commit(job!, { through: 19_000_000n, events })
      assert.deepStrictEqual(first, { _tag: "Committed", deliveries: 1, done: false })
      // The same slice again, planned from the old through (a runner that lost the singleton): nothing.
      assert.deepStrictEqual(yield* HistoryStore.commit(job!, { through: 19_000_000n, events }), { _tag: "Stale" })
      const last = yield* HistoryStore.commit({ ...job!, through: 19_000_000n }, { through: 19_000_049n, events: [] })
      assert.deepStrictEqual(last, { _tag: "Committed", deliveries: 1, done: true })
      assert.deepStrictEqual(yield* HistoryStore.open("0x1", 10), [])
      const [progress] = yield* HistoryStore.ofStream(streamId, 10)
      assert.deepStrictEqual([progress!.through, progress!.events, progress!.done], [19_000_049n, 3, true])

      const made = yield* deliveries(streamId)
      assert.deepStrictEqual(made.map((d) => [d.sequence, d.phase, d.count]), [[1, "history", 3], [2, "history", 0]])
      assert.deepStrictEqual(made[0]!.history, [{ scope: "0x1", address: alice, from: "18999950", to: "19000000" }])
      assert.deepStrictEqual(made[1]!.history, [{ scope: "0x1", address: alice, from: "19000001", to: "19000049" }])
      assert.deepStrictEqual(made[0]!.wallets, [
        { scope: "0x1", address: alice, coveredFrom: "19000050", historyFrom: "18999950" },
        { scope: "0x1", address: bob, coveredFrom: "19000050" }
      ], "the wallets not announced yet, alice with where its history starts")
      assert.isNull(made[1]!.wallets)
      assert.deepStrictEqual((yield* storedEvents(streamId)).map((row) => row.event_id), events.map((event) => event.id))
    })))

  it.effect("a filtered stream's history: only what its content filter lets through is sent, the rest counted, the range stated whole", () =>
    withStores(Effect.gen(function*() {
      const kept = "0x" + "c0".repeat(20)
      const streamId = yield* makeStream([], { filters: { contracts: [kept], minValue: null } })
      const streams = yield* StreamStore
      yield* streams.addWallets(streamId, [evm(alice)], [19_000_050n])
      yield* HistoryStore.plan(streamId, [{ wallet: evm(alice), from: 18_999_950n, coveredFrom: 19_000_050n }])
      const [job] = yield* HistoryStore.open("0x1", 10)
      const events = [
        ...transfers(2),
        ...WatchEvent.fromNftTransfer("0x1", alice, nftTransfer({ token_address: "0x" + "d0".repeat(20), log_index: 40 }))
      ]
      assert.deepStrictEqual(yield* HistoryStore.commit(job!, { through: 19_000_049n, events }), { _tag: "Committed", deliveries: 1, done: true })
      assert.deepStrictEqual((yield* storedEvents(streamId)).map((row) => row.event_id), events.slice(0, 2).map((event) => event.id))
      const made = yield* deliveries(streamId)
      assert.deepStrictEqual(made[0]!.history, [{ scope: "0x1", address: alice, from: "18999950", to: "19000049" }], "the range is stated whole")
      const [row] = yield* Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ filtered: number }>`SELECT filtered_events::int AS filtered FROM streams`)
      assert.strictEqual(row!.filtered, 1)
    })))

  it.effect("a wallet removed: its history is gone, a commit of it changes nothing", () =>
    withStores(Effect.gen(function*() {
      const streamId = yield* makeStream([])
      const streams = yield* StreamStore
      yield* streams.addWallets(streamId, [evm(alice)], [19_000_050n])
      yield* HistoryStore.plan(streamId, [{ wallet: evm(alice), from: 18_999_950n, coveredFrom: 19_000_050n }])
      const [job] = yield* HistoryStore.open("0x1", 10)
      yield* streams.removeWallets(streamId, [evm(alice)])
      assert.deepStrictEqual(yield* HistoryStore.open("0x1", 10), [])
      assert.deepStrictEqual(yield* HistoryStore.commit(job!, { through: 19_000_000n, events: transfers(1) }), { _tag: "Stale" })
      assert.deepStrictEqual(yield* deliveries(streamId), [])
    })))

  it.effect("an Aptos history staged newest first is sent oldest first, a version never split, what was sent forgotten; a restart stages afresh", () =>
    withStores(Effect.gen(function*() {
      const streamId = yield* makeStream([])
      const streams = yield* StreamStore
      const wallet = aptos(aptosAlice, "mainnet")
      yield* streams.addWallets(streamId, [wallet], [200n])
      yield* HistoryStore.plan(streamId, [{ wallet, from: 100n, coveredFrom: 200n }])
      const [job] = yield* HistoryStore.open("aptos:mainnet", 10)
      // Two transfers at version 120 (a wallet's two events of one transaction), one at 110, one at 150.
      const [v110, v120a, v120b, v150] = [at(110, 1), at(120, 2), at(120, 3), at(150, 4)].map((events) => events[0]!)
      // Listed newest first, staged page by page; a listing begun again forgets what the last one staged.
      yield* HistoryStore.stage(job!, { restart: true, events: [v150!], done: false })
      yield* HistoryStore.stage(job!, { restart: true, events: [v150!], done: false })
      yield* HistoryStore.stage(job!, { restart: false, events: [v110!, v120a!, v120b!], done: true })
      assert.isTrue((yield* HistoryStore.open("aptos:mainnet", 10))[0]!.staged)
      // A slice of at least one event takes all of its last version.
      const first = yield* HistoryStore.stagedSlice(job!, 2)
      assert.deepStrictEqual([first.through, first.events.map((event) => event.id)], [120n, [v110!.id, v120a!.id, v120b!.id]])
      yield* HistoryStore.commit(job!, { through: first.through!, events: first.events })
      const rest = yield* HistoryStore.stagedSlice({ ...job!, through: 120n }, 2)
      assert.deepStrictEqual([rest.through, rest.events.map((event) => event.id)], [150n, [v150!.id]])
      // What was sent is forgotten: nothing at or below 120 is staged any more.
      assert.deepStrictEqual((yield* HistoryStore.stagedSlice({ ...job!, through: 0n }, 10)).events.map((event) => event.id), [v150!.id])
      yield* streams.removeWallets(streamId, [wallet])
      assert.deepStrictEqual((yield* HistoryStore.stagedSlice({ ...job!, through: 0n }, 10)).events, [], "a wallet removed: its staged history too")
    })))

  it.effect("only an active stream's histories are read; a chain dropped from the stream ends its wallets' histories there, unsent", () =>
    withStores(Effect.gen(function*() {
      const streams = yield* StreamStore
      const [paused, moved] = [yield* makeStream([]), yield* makeStream([])]
      for (const id of [paused, moved]) {
        yield* streams.addWallets(id, [evm(alice)], [19_000_050n])
        yield* HistoryStore.plan(id, [{ wallet: evm(alice), from: 18_999_950n, coveredFrom: 19_000_050n }])
      }
      const streamsOf = Effect.map(HistoryStore.open("0x1", 10), (jobs) => jobs.map((job) => job.streamId).toSorted())
      assert.deepStrictEqual(yield* streamsOf, [paused, moved].toSorted())
      yield* streams.setStatus(paused, "paused", null)
      assert.deepStrictEqual(yield* streamsOf, [moved], "a paused stream's history waits, the others are read")
      yield* streams.setStatus(paused, "active", null)
      // The other stream's chains changed to polygon only: its eth history is not read, and a commit of it forgets it.
      const [job] = (yield* HistoryStore.open("0x1", 10)).filter((open) => open.streamId === moved)
      yield* streams.update(moved, { scopes: ["0x89"] })
      assert.deepStrictEqual(yield* streamsOf, [paused])
      assert.deepStrictEqual(yield* HistoryStore.commit(job!, { through: 19_000_000n, events: transfers(2) }), { _tag: "Stale" })
      assert.deepStrictEqual(yield* HistoryStore.ofStream(moved, 10), [])
      assert.deepStrictEqual(yield* deliveries(moved), [], "nothing sent of it")
    })))
})
