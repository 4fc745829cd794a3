/**
 * The state store, in a SQLite file, in memory and in PostgreSQL alike: reads what was committed; a commit is
 * atomic (a failure inside the transaction leaves the previous state). The SQLite file: a committed
 * batch survives `kill -9` of the process, and a process killed at a random moment leaves a
 * consistent state; only SQLite's ExperimentalWarning is suppressed. The store's connection has
 * the settings the README promises (WAL, `synchronous = FULL`, an exclusive lock), and a released
 * store is one file.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
import { type ChildProcessByStdio, spawn, spawnSync } from "node:child_process"
import { mkdtempSync, readdirSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import type { Readable } from "node:stream"
import { fileURLToPath } from "node:url"
import { afterAll } from "vitest"
import { loadSqlite } from "../src/internal/state/sqlite.js"
import { PgStateStore, StateStore, WatchedWallet, WatchEvent } from "../src/index.js"
import { alice, aptosAlice, bob, nftTransfer, summary } from "./fixtures.js"
import { freshDatabase } from "./support/postgres.js"

const child = fileURLToPath(new URL("./support/commit-and-die.mjs", import.meta.url))
const tempDirs: Array<string> = []
/** A state file in a folder of its own, removed after the tests. */
const tempFile = () => {
  const dir = mkdtempSync(join(tmpdir(), "watcher-state-"))
  tempDirs.push(dir)
  return join(dir, "state.sqlite")
}
afterAll(() => {
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true })
})

const evm: WatchedWallet.EvmWallet = { family: "evm", chain: "0x1", address: alice }
const base: WatchedWallet.EvmWallet = { family: "evm", chain: "0x2105", address: alice }
const aptos: WatchedWallet.AptosWallet = { family: "aptos", network: "testnet", address: aptosAlice }
const ids = (events: ReadonlyArray<{ readonly id: string }>) => events.map((event) => event.id)
const hash = (n: number) => `0x${n.toString(16).padStart(64, "0")}`

/** Block `n` of 0x1, and the events read from it. */
const blockOf = (n: number) => ({ chain: "0x1" as const, number: BigInt(n), hash: hash(n) })
const eventsOf = (n: number) => ({
  ...blockOf(n),
  events: WatchEvent.fromNftTransfer("0x1", alice, nftTransfer({ block_number: String(n), block_hash: hash(n), log_index: n }))
})
/** A backfill of `wallet` half done. */
const progress = (wallet: WatchedWallet.EvmWallet) => ({ wallet, label: "2024-05-01", origin: 250n, through: 270n, fromDate: null, upTo: 300n, since: 10n })

/** The checkpoints, the hashes of 0x1, the DeFi snapshot of `evm` and the last batch. */
const readBack = Effect.gen(function*() {
  const store = yield* StateStore.StateStore
  return {
    checkpoints: yield* store.checkpoints,
    blocks: yield* store.blockHashes("0x1"),
    defi: yield* store.defiSnapshot(evm),
    last: yield* store.lastBatch
  }
})

const snapshot = (path: string) => readBack.pipe(Effect.provide(StateStore.layer(path)))

/** Every implementation, as a fresh store with the given options. */
const implementations = [
  { name: "a SQLite file", store: (options?: StateStore.Options) => StateStore.layer(tempFile(), options) },
  {
    name: "memory",
    // `layerMemory` itself unless options are given.
    store: (options?: StateStore.Options) =>
      options === undefined ? StateStore.layerMemory : Layer.effect(StateStore.StateStore, StateStore.makeMemory(options))
  },
  {
    name: "PostgreSQL",
    store: (options?: StateStore.Options) => PgStateStore.layer({ namespace: "test", ...options }).pipe(Layer.provide(freshDatabase), Layer.orDie)
  }
]

for (const { name, store: fresh } of implementations) describe(`StateStore in ${name}`, () => {
  it.effect("a fresh store is empty", () =>
    Effect.gen(function*() {
      const store = yield* StateStore.StateStore
      assert.deepStrictEqual(yield* store.checkpoints, [])
      assert.isTrue(Option.isNone(yield* store.checkpoint(evm)))
      assert.deepStrictEqual(yield* store.blockHashes("0x1"), [])
      assert.isTrue(Option.isNone(yield* store.defiSnapshot(evm)))
      assert.isTrue(Option.isNone(yield* store.lastBatch))
      assert.deepStrictEqual(yield* store.pendingEvents, [], "no write-ahead events")
      assert.deepStrictEqual(yield* store.blockEvents("0x1"), [])
      assert.deepStrictEqual(yield* store.backfills, [])
    }).pipe(Effect.provide(fresh())))

  it.effect("settle before any commit changes nothing (and does not fail)", () =>
    Effect.gen(function*() {
      const store = yield* StateStore.StateStore
      yield* store.settle(1)
      assert.deepStrictEqual(yield* store.pendingEvents, [])
      assert.isTrue(Option.isNone(yield* store.lastBatch))
    }).pipe(Effect.provide(fresh())))

  it.effect("settle forgets the pending events only while their batch is the last committed", () =>
    Effect.gen(function*() {
      const store = yield* StateStore.StateStore
      const pending = WatchEvent.fromNftTransfer("0x1", alice, nftTransfer())
      const first = yield* store.commit({ pending, eventIds: ids(pending) })
      yield* store.settle(first.sequence - 1)
      assert.deepStrictEqual(yield* store.pendingEvents, pending, "another batch's ack changes nothing")
      yield* store.settle(first.sequence)
      assert.deepStrictEqual(yield* store.pendingEvents, [])
      const second = yield* store.commit({ pending, eventIds: ids(pending) })
      yield* store.settle(first.sequence)
      assert.deepStrictEqual(yield* store.pendingEvents, pending, "a late ack of an earlier batch changes nothing")
      yield* store.settle(second.sequence)
      assert.deepStrictEqual(yield* store.pendingEvents, [])
    }).pipe(Effect.provide(fresh())))

  it.effect("reads back checkpoints, block hashes, DeFi snapshots and the last batch", () =>
    Effect.gen(function*() {
      const store = yield* StateStore.StateStore
      const summaries = [summary("aave-v3", [["supplied", "0x" + "dd".repeat(20), 1234.5]])]
      const first = yield* store.commit({
        checkpoints: [
          { wallet: evm, position: 19_000_000n, hash: hash(1) },
          { wallet: base, position: 12n, hash: hash(2), since: 5n },
          { wallet: aptos, position: 9_007_199_254_740_993n, hash: null }
        ],
        blocks: [{ chain: "0x1", number: 19_000_000n, hash: hash(1) }, { chain: "0x1", number: 18_999_999n, hash: hash(3) }],
        defiSnapshots: [{ wallet: evm, blockNumber: 19_000_000n, summaries }],
        eventIds: ["b", "a", "b"]
      })
      assert.strictEqual(first.sequence, 1)
      assert.deepStrictEqual(first.eventIds, ["b", "a", "b"])
      // `since` is the first position unless given.
      assert.deepStrictEqual(yield* store.checkpoints, [
        { wallet: evm, position: 19_000_000n, hash: hash(1), since: 19_000_000n },
        { wallet: base, position: 12n, hash: hash(2), since: 5n },
        { wallet: aptos, position: 9_007_199_254_740_993n, hash: null, since: 9_007_199_254_740_993n }
      ])
      assert.deepStrictEqual(
        yield* store.checkpoint(aptos),
        Option.some({ wallet: aptos, position: 9_007_199_254_740_993n, hash: null, since: 9_007_199_254_740_993n })
      )
      assert.deepStrictEqual((yield* store.blockHashes("0x1")).map((b) => b.number), [18_999_999n, 19_000_000n])
      assert.deepStrictEqual(yield* store.defiSnapshot(evm), Option.some({ wallet: evm, blockNumber: 19_000_000n, summaries }))
      assert.isTrue(Option.isNone(yield* store.defiSnapshot(base)))
      const second = yield* store.commit({ checkpoints: [{ wallet: evm, position: 19_000_001n, hash: hash(4) }], eventIds: ["c"] })
      assert.strictEqual(second.sequence, 2)
      const last = Option.getOrThrow(yield* store.lastBatch)
      assert.strictEqual(last.sequence, 2)
      assert.deepStrictEqual(last.eventIds, ["c"])
      // A later checkpoint moves the position; `since` stays what the first one said.
      assert.deepStrictEqual(Option.map(yield* store.checkpoint(evm), (c) => [c.position, c.since]), Option.some([19_000_001n, 19_000_000n]))
      assert.deepStrictEqual(Option.map(yield* store.checkpoint(base), (c) => c.position), Option.some(12n))
    }).pipe(Effect.provide(fresh())))

  it.effect("keeps the last N block hashes per chain; forgetBlocks drops orphaned ones", () =>
    Effect.gen(function*() {
      const store = yield* StateStore.StateStore
      const blocks = [1, 2, 3, 4, 5].map((n) => ({ chain: "0x1" as const, number: BigInt(n), hash: hash(n) }))
      yield* store.commit({ blocks: [...blocks, { chain: "0x89", number: 1n, hash: hash(9) }], eventIds: [] })
      assert.deepStrictEqual((yield* store.blockHashes("0x1")).map((b) => b.number), [3n, 4n, 5n])
      assert.deepStrictEqual((yield* store.blockHashes("0x89")).map((b) => b.hash), [hash(9)])
      yield* store.commit({ forgetBlocks: [{ chain: "0x1", fromBlock: 4n }], blocks: [{ chain: "0x1", number: 4n, hash: hash(44) }], eventIds: [] })
      assert.deepStrictEqual((yield* store.blockHashes("0x1")).map((b) => b.hash), [hash(3), hash(44)])
      // Forgotten and not written again: the hash of the block it starts from goes too.
      yield* store.commit({ forgetBlocks: [{ chain: "0x1", fromBlock: 4n }], eventIds: [] })
      assert.deepStrictEqual((yield* store.blockHashes("0x1")).map((b) => b.hash), [hash(3)])
    }).pipe(Effect.provide(fresh({ keepBlocks: 3 }))))

  it.effect("keeps the events emitted per recent block: replaced, removed when empty, forgotten and pruned like the hashes", () =>
    Effect.gen(function*() {
      const store = yield* StateStore.StateStore
      const eventsAt = (n: number) =>
        WatchEvent.fromNftTransfer("0x1", alice, nftTransfer({ block_number: String(n), block_hash: hash(n), log_index: n }))
      const entry = (n: number) => ({ chain: "0x1" as const, number: BigInt(n), hash: hash(n), events: eventsAt(n) })
      yield* store.commit({ blockEvents: [1, 2, 3, 4, 5].map(entry), eventIds: [] })
      const kept = yield* store.blockEvents("0x1")
      assert.deepStrictEqual(kept.map((b) => b.number), [3n, 4n, 5n])
      assert.deepStrictEqual(kept[2], entry(5))
      assert.deepStrictEqual(yield* store.blockEvents("0x89"), [])
      yield* store.commit({ blockEvents: [{ chain: "0x1", number: 3n, hash: hash(33), events: [] }], eventIds: [] })
      assert.deepStrictEqual((yield* store.blockEvents("0x1")).map((b) => b.number), [4n, 5n])
      yield* store.commit({ forgetBlocks: [{ chain: "0x1", fromBlock: 5n }], eventIds: [] })
      assert.deepStrictEqual((yield* store.blockEvents("0x1")).map((b) => b.number), [4n])
    }).pipe(Effect.provide(fresh({ keepBlocks: 3 }))))

  it.effect("reads a chain's blocks (hashes and events) in block order, whatever order they were committed in", () =>
    Effect.gen(function*() {
      const store = yield* StateStore.StateStore
      yield* store.commit({ blocks: [5, 3].map(blockOf), blockEvents: [5, 3].map(eventsOf), eventIds: [] })
      yield* store.commit({ blocks: [4, 1].map(blockOf), blockEvents: [4, 1].map(eventsOf), eventIds: [] })
      assert.deepStrictEqual((yield* store.blockHashes("0x1")).map((b) => b.number), [1n, 3n, 4n, 5n])
      assert.deepStrictEqual((yield* store.blockEvents("0x1")).map((b) => b.number), [1n, 3n, 4n, 5n])
    }).pipe(Effect.provide(fresh())))

  it.effect("a finished backfill forgets that wallet's progress only, not another's on the same chain", () =>
    Effect.gen(function*() {
      const store = yield* StateStore.StateStore
      const bobEvm: WatchedWallet.EvmWallet = { ...evm, address: bob }
      yield* store.commit({ backfills: [evm, bobEvm, base].map(progress), eventIds: [] })
      yield* store.commit({ backfillsDone: [evm], eventIds: [] })
      assert.deepStrictEqual((yield* store.backfills).map((b) => WatchedWallet.key(b.wallet)), [WatchedWallet.key(bobEvm), WatchedWallet.key(base)])
    }).pipe(Effect.provide(fresh())))

  it.effect("keepBlocks is a whole number of blocks, at least 1, and 256 unless a finite number is given", () =>
    Effect.gen(function*() {
      const blocks = Array.from({ length: 300 }, (_, i) => ({ chain: "0x1" as const, number: BigInt(i + 1), hash: hash(i + 1) }))
      const kept = (options?: StateStore.Options) =>
        Effect.gen(function*() {
          const store = yield* StateStore.StateStore
          yield* store.commit({ blocks, blockEvents: [{ chain: "0x1", number: 1n, hash: hash(1), events: WatchEvent.fromNftTransfer("0x1", alice, nftTransfer()) }], eventIds: [] })
          const numbers = (yield* store.blockHashes("0x1")).map((b) => b.number)
          return { count: numbers.length, lowest: numbers[0], events: (yield* store.blockEvents("0x1")).length }
        }).pipe(Effect.provide(fresh(options)))
      assert.deepStrictEqual(yield* kept(), { count: 256, lowest: 45n, events: 1 })
      assert.deepStrictEqual(yield* kept({ keepBlocks: 2.7 }), { count: 2, lowest: 299n, events: 1 })
      assert.deepStrictEqual(yield* kept({ keepBlocks: 0 }), { count: 1, lowest: 300n, events: 1 })
      assert.deepStrictEqual(yield* kept({ keepBlocks: Number.NaN }), { count: 256, lowest: 45n, events: 1 })
      assert.deepStrictEqual(yield* kept({ keepBlocks: Number.POSITIVE_INFINITY }), { count: 256, lowest: 45n, events: 1 })
    }))

  it.effect("a batch naming a wallet twice keeps its first since and its last position; a block twice, its last hash", () =>
    Effect.gen(function*() {
      const store = yield* StateStore.StateStore
      yield* store.commit({
        checkpoints: [{ wallet: evm, position: 10n, hash: hash(10), since: 4n }, { wallet: evm, position: 12n, hash: hash(12), since: 9n }],
        blocks: [{ chain: "0x1", number: 12n, hash: hash(1) }, { chain: "0x1", number: 12n, hash: hash(12) }],
        eventIds: []
      })
      assert.deepStrictEqual(yield* store.checkpoints, [{ wallet: evm, position: 12n, hash: hash(12), since: 4n }])
      assert.deepStrictEqual(yield* store.blockHashes("0x1"), [{ chain: "0x1", number: 12n, hash: hash(12) }])
    }).pipe(Effect.provide(fresh())))

  it.effect("positions are signed 64-bit integers: the bounds are kept exactly, one past them refused with nothing written", () =>
    Effect.gen(function*() {
      const store = yield* StateStore.StateStore
      const top = 2n ** 63n - 1n
      const bottom = -(2n ** 63n)
      yield* store.commit({ checkpoints: [{ wallet: evm, position: top, hash: null }, { wallet: base, position: bottom, hash: null }], eventIds: ["a"] })
      const before = yield* store.checkpoints
      assert.deepStrictEqual(before.map((c) => c.position), [top, bottom])
      for (const position of [top + 1n, bottom - 1n]) {
        const error = yield* Effect.flip(store.commit({ checkpoints: [{ wallet: aptos, position, hash: null }], eventIds: ["b"] }))
        assert.strictEqual(error.operation, "commit", `${position} refused`)
      }
      assert.deepStrictEqual(yield* store.checkpoints, before)
      assert.strictEqual(Option.getOrThrow(yield* store.lastBatch).sequence, 1)
    }).pipe(Effect.provide(fresh())))

  it.effect("thousands of checkpoints in one commit are all written", () =>
    Effect.gen(function*() {
      const store = yield* StateStore.StateStore
      const many = Array.from({ length: 4_500 }, (_, i): StateStore.Checkpoint => ({
        wallet: { family: "evm", chain: "0x1", address: `0x${i.toString(16).padStart(40, "0")}` as WatchedWallet.EvmWallet["address"] },
        position: BigInt(i),
        hash: null
      }))
      yield* store.commit({ checkpoints: many, eventIds: [] })
      const read = yield* store.checkpoints
      assert.strictEqual(read.length, many.length)
      assert.deepStrictEqual(read.map((c) => c.position).toSorted((a, b) => (a < b ? -1 : 1)), many.map((c) => c.position))
    }).pipe(Effect.provide(fresh())))

  it.effect("a commit is atomic: a failure inside the transaction leaves the previous state", () =>
    Effect.gen(function*() {
      const { commit: write } = yield* StateStore.StateStore
      yield* write({
        checkpoints: [{ wallet: evm, position: 100n, hash: hash(100) }],
        blocks: [{ chain: "0x1", number: 100n, hash: hash(100) }],
        eventIds: ["first"]
      })
      const before = yield* readBack
      // The checkpoints and event ids are written first; the block number does not fit SQLite's
      // 64-bit integers, so the transaction fails half-way and must be rolled back.
      const error = yield* Effect.flip(write({
        checkpoints: [{ wallet: evm, position: 101n, hash: hash(101) }, { wallet: aptos, position: 5n, hash: null }],
        defiSnapshots: [{ wallet: evm, blockNumber: 101n, summaries: [] }],
        blocks: [{ chain: "0x1", number: 101n, hash: hash(101) }, { chain: "0x1", number: 2n ** 70n, hash: hash(0) }],
        eventIds: ["second"]
      }))
      assert.strictEqual(error._tag, "StateStoreError")
      assert.strictEqual(error.operation, "commit")
      assert.deepStrictEqual(yield* readBack, before)
      assert.strictEqual(Option.getOrThrow(before.last).sequence, 1)
      const after = yield* write({ checkpoints: [{ wallet: evm, position: 101n, hash: hash(101) }], eventIds: ["second"] })
      assert.strictEqual(after.sequence, 2, "the store is usable after a failed commit")
    }).pipe(Effect.provide(fresh())))
})

describe("StateStore in a SQLite file", () => {
  it.effect("a state file from a newer watcher is refused with a StateStoreError", () =>
    Effect.gen(function*() {
      const path = tempFile()
      const { DatabaseSync } = loadSqlite()
      const db = new DatabaseSync(path)
      db.exec("PRAGMA user_version = 99")
      db.close()
      const error = yield* Effect.flip(snapshot(path))
      assert.strictEqual(error.operation, "open")
      assert.include(error.message, "newer watcher")
    }))

  it.effect("a state file of layout 1 (no `since`) opens: its wallets read `since` 0 and keep it after a commit", () =>
    Effect.gen(function*() {
      const path = tempFile()
      const { DatabaseSync } = loadSqlite()
      const db = new DatabaseSync(path)
      db.exec("CREATE TABLE checkpoints (scope TEXT NOT NULL, wallet TEXT NOT NULL, position INTEGER NOT NULL, hash TEXT, PRIMARY KEY (scope, wallet)) WITHOUT ROWID")
      db.prepare("INSERT INTO checkpoints (scope, wallet, position, hash) VALUES (?, ?, ?, ?)").run("0x1", alice, 500, null)
      db.exec("PRAGMA user_version = 1")
      db.close()
      const before = yield* snapshot(path)
      assert.deepStrictEqual(before.checkpoints, [{ wallet: evm, position: 500n, hash: null, since: 0n }])
      const after = yield* Effect.gen(function*() {
        const store = yield* StateStore.StateStore
        yield* store.commit({ checkpoints: [{ wallet: evm, position: 501n, hash: null }], eventIds: [] })
        return yield* store.checkpoints
      }).pipe(Effect.provide(StateStore.layer(path)))
      assert.deepStrictEqual(after, [{ wallet: evm, position: 501n, hash: null, since: 0n }])
    }))

  it.live("a state file in use by another store is refused (after a short wait), then opens once it is released", () =>
    Effect.gen(function*() {
      const path = tempFile()
      const busy = yield* Effect.scoped(
        Effect.gen(function*() {
          yield* Layer.build(StateStore.layer(path))
          return yield* Effect.flip(snapshot(path))
        })
      )
      assert.strictEqual(busy.operation, "open")
      assert.match(busy.message, /database is locked: another process \(a second watcher\?\) is using it/)
      const free = yield* snapshot(path)
      assert.deepStrictEqual(free.checkpoints, [])
    }), 30_000)
})

/**
 * The settings of the store's own connection, read from it just before the store closes it
 * (`DatabaseSync.prototype.close` wrapped for the duration of one store).
 */
const settingsOfTheStore = async (path: string) => {
  const { DatabaseSync } = loadSqlite()
  const close = DatabaseSync.prototype.close
  const seen: Array<Record<string, string>> = []
  DatabaseSync.prototype.close = function(this: InstanceType<typeof DatabaseSync>) {
    if (this.isOpen) {
      const read = (pragma: string) => String(this.prepare(`PRAGMA ${pragma}`).get()?.[pragma])
      seen.push({ synchronous: read("synchronous"), journal_mode: read("journal_mode"), locking_mode: read("locking_mode") })
    }
    return close.call(this)
  }
  try {
    await Effect.runPromise(snapshot(path))
  } finally {
    DatabaseSync.prototype.close = close
  }
  return seen
}

describe("the state file as the README promises it", () => {
  it("power loss: every commit is fsynced (synchronous = FULL), to the WAL journal, under an exclusive lock", async () => {
    const settings = await settingsOfTheStore(tempFile())
    // synchronous: 0 OFF, 1 NORMAL (a WAL commit is not fsynced), 2 FULL, 3 EXTRA.
    assert.deepStrictEqual(settings, [{ synchronous: "2", journal_mode: "wal", locking_mode: "exclusive" }])
  })

  it.effect("one file: once the store is released, its WAL is folded in, and a SQLite shell reads the file alone in WAL mode", () =>
    Effect.gen(function*() {
      const path = tempFile()
      yield* Effect.gen(function*() {
        const store = yield* StateStore.StateStore
        yield* store.commit({ checkpoints: [{ wallet: evm, position: 7n, hash: hash(7) }], eventIds: ["a"] })
      }).pipe(Effect.provide(StateStore.layer(path)))
      assert.deepStrictEqual(readdirSync(dirname(path)), ["state.sqlite"], "no -wal or -shm file is left beside it")
      const { DatabaseSync } = loadSqlite()
      const shell = new DatabaseSync(path, { readOnly: true })
      try {
        assert.strictEqual(shell.prepare("PRAGMA journal_mode").get()?.["journal_mode"], "wal")
        assert.deepStrictEqual(shell.prepare("SELECT position FROM checkpoints").all().map((row) => Number(row["position"])), [7])
      } finally {
        shell.close()
      }
    }))
})

/**
 * Reads the commit loop's reported sequence numbers and kills it with SIGKILL once it reported
 * commit 137 (any moment will do: every reported commit must be kept wherever the kill lands).
 * Resolves with the last reported number.
 */
const killedAfterSome = (loop: ChildProcessByStdio<null, Readable, Readable>) =>
  new Promise<number>((resolve, reject) => {
    let last = 0
    let buffer = ""
    let stderr = ""
    loop.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()))
    loop.stdout.on("data", (chunk: Buffer) => {
      buffer += chunk.toString()
      const lines = buffer.split("\n")
      buffer = lines.pop() ?? ""
      for (const line of lines) last = Math.max(last, Number(line))
      if (last >= 137) loop.kill("SIGKILL")
    })
    loop.on("exit", (_, signal) => signal === "SIGKILL" ? resolve(last) : reject(new Error(`the child exited without being killed: ${stderr}`)))
  })

describe("StateStore durability", () => {
  it.effect("a batch committed by a process that then dies of kill -9 is there after a restart", () =>
    Effect.gen(function*() {
      const path = tempFile()
      const result = spawnSync(process.execPath, [child, path, "once"], { encoding: "utf8", timeout: 30_000 })
      assert.strictEqual(result.signal, "SIGKILL", result.stderr)
      assert.deepStrictEqual(JSON.parse(result.stdout), { sequence: 1 })
      assert.include(result.stderr, "probe warning", "other warnings are still printed")
      assert.notInclude(result.stderr, "SQLite is an experimental feature")
      const state = yield* snapshot(path)
      const last = Option.getOrThrow(state.last)
      assert.strictEqual(last.sequence, 1)
      assert.deepStrictEqual(last.eventIds, ["event-41-a", "event-41-b"])
      assert.deepStrictEqual(state.checkpoints.map((c) => [c.wallet.family, c.position, c.hash]), [
        ["evm", 41n, hash(41)],
        ["aptos", 41_000n, null]
      ])
      assert.deepStrictEqual(state.blocks, [{ chain: "0x1", number: 41n, hash: hash(41) }])
    }), { timeout: 60_000 })

  it.effect("killed with kill -9 in the middle of a commit loop: every reported commit kept, nothing half-written", () =>
    Effect.gen(function*() {
      const path = tempFile()
      const reported = yield* Effect.acquireUseRelease(
        Effect.sync(() => spawn(process.execPath, [child, path, "loop"], { stdio: ["ignore", "pipe", "pipe"] })),
        (process_) => Effect.promise(() => killedAfterSome(process_)),
        (process_) => Effect.sync(() => process_.kill("SIGKILL"))
      )
      const state = yield* snapshot(path)
      const last = Option.getOrThrow(state.last)
      assert.isAtLeast(last.sequence, reported)
      const n = last.sequence
      assert.deepStrictEqual(last.eventIds, [`event-${n}-a`, `event-${n}-b`])
      assert.deepStrictEqual(state.checkpoints.map((c) => c.position), [BigInt(n), BigInt(n) * 1000n])
      assert.deepStrictEqual(state.blocks.at(-1), { chain: "0x1", number: BigInt(n), hash: hash(n) })
    }), { timeout: 60_000 })
})
