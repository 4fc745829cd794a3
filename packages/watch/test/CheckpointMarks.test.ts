/**
 * `PgStateStore` keeps checkpoints as marks (`internal/state/pgMarks.ts`): wallets that stand
 * together name one mark, so an advance of a thousand wallets writes one row, not a thousand (no
 * wallet row gets a new version: their `ctid`s stay); a wallet moved alone gets a mark of its own,
 * or the one already at its block; marks an advance brings together merge; the marks no wallet
 * names go. `PgCheckpoints.raise` never moves a wallet back. A database of the per-wallet layout
 * (migrations 1 and 2) is migrated with every wallet's block, hash and `since` kept.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { PgCheckpoints, PgStateStore, type WatchedWallet } from "../src/index.js"
import { freshDatabase } from "./support/postgres.js"

const namespace = "scan:0x1:0"
const walletAt = (index: number): WatchedWallet.EvmWallet => ({
  family: "evm",
  chain: "0x1",
  address: `0x${index.toString(16).padStart(40, "0")}` as WatchedWallet.EvmWallet["address"]
})
const hash = (block: number) => `0x${block.toString(16).padStart(64, "0")}`

/** Each wallet row's physical place: a row written again (a new version) moves. */
const ctids = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql<{ wallet: string; ctid: string }>`SELECT wallet, ctid::text AS ctid FROM watch_wallets WHERE namespace = ${namespace} ORDER BY wallet`)

const marks = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql<{ position: string; wallets: number }>`SELECT m.position::text, (SELECT count(*)::int FROM watch_wallets w WHERE w.mark = m.id) AS wallets
    FROM watch_marks m WHERE m.namespace = ${namespace} ORDER BY m.position, 2 DESC`)

describe("PgStateStore: checkpoints as marks", () => {
  it.effect("an advance of 1,000 wallets writes one mark and no wallet row; a wallet moved alone gets its own mark, empty marks go", () =>
    Effect.gen(function*() {
      const store = yield* PgStateStore.make({ namespace })
      const wallets = Array.from({ length: 1_000 }, (_, index) => walletAt(index + 1))
      yield* store.commit({ checkpoints: wallets.map((wallet) => ({ wallet, position: 100n, hash: null })), eventIds: [] })
      assert.deepStrictEqual(yield* marks, [{ position: "100", wallets: 1_000 }], "one mark for the wallets placed together")
      const before = yield* ctids
      for (let block = 101; block <= 105; block++) {
        yield* store.commit({ advances: [{ chain: "0x1", from: BigInt(block - 1), to: BigInt(block), hash: hash(block), count: 1_000 }], eventIds: [] })
      }
      assert.deepStrictEqual(yield* ctids, before, "no wallet row written again by five advances")
      assert.deepStrictEqual(yield* marks, [{ position: "105", wallets: 1_000 }])
      const read = yield* store.checkpoints
      assert.strictEqual(read.length, 1_000)
      assert.isTrue(read.every((c) => c.position === 105n && c.hash === hash(105) && c.since === 100n), "each wallet's block, hash and first block")
      // One wallet on its own: a mark of its own; the others reach it: one mark again.
      yield* store.commit({ checkpoints: [{ wallet: wallets[0]!, position: 107n, hash: hash(107) }], eventIds: [] })
      assert.deepStrictEqual(yield* marks, [{ position: "105", wallets: 999 }, { position: "107", wallets: 1 }])
      yield* store.commit({ advances: [{ chain: "0x1", from: 105n, to: 107n, hash: hash(107), count: 999 }], eventIds: [] })
      assert.deepStrictEqual(yield* marks, [{ position: "107", wallets: 1_000 }], "the marks brought to one block merged")
      // Moved alone again, then a second wallet to the same block: they share the mark there.
      yield* store.commit({ checkpoints: [{ wallet: wallets[0]!, position: 108n, hash: hash(108) }], eventIds: [] })
      yield* store.commit({ checkpoints: [{ wallet: wallets[1]!, position: 108n, hash: hash(108) }], eventIds: [] })
      assert.deepStrictEqual(yield* marks, [{ position: "107", wallets: 998 }, { position: "108", wallets: 2 }], "one mark per block, the empty one gone")
      const alone = (yield* store.checkpoints).find((c) => c.wallet.address === wallets[0]!.address)
      assert.deepStrictEqual([alone?.position, alone?.hash, alone?.since], [108n, hash(108), 100n], "moved alone, it keeps its first block")
      // Raised to 108: the wallets behind move, those at 108 stay where they are.
      assert.strictEqual(yield* PgCheckpoints.raise(namespace, [wallets[1]!, wallets[2]!], 108n), 1)
      assert.deepStrictEqual(yield* marks, [{ position: "107", wallets: 997 }, { position: "108", wallets: 2 }, { position: "108", wallets: 1 }])
      // Forgotten wallets take their marks with them.
      yield* PgStateStore.forget(namespace, [wallets[0]!, wallets[1]!])
      assert.deepStrictEqual(yield* marks, [{ position: "107", wallets: 997 }, { position: "108", wallets: 1 }])
    }).pipe(Effect.provide(freshDatabase), Effect.orDie))

  it.effect("marks of over 1,000 wallets brought to one block stay apart, no wallet row written again; past 16, the smallest merge", () =>
    Effect.gen(function*() {
      const store = yield* PgStateStore.make({ namespace })
      // Seventeen groups at blocks 100..116, of 1,001 to 1,017 wallets, and 10 wallets at 117.
      const groups = Array.from({ length: 17 }, (_, g) =>
        Array.from({ length: 1_001 + g }, (_unused, i) => walletAt(g * 2_000 + i + 1)))
      const few = Array.from({ length: 10 }, (_, i) => walletAt(50_000 + i))
      yield* store.commit({
        checkpoints: [
          ...groups.flatMap((wallets, g) => wallets.map((wallet) => ({ wallet, position: BigInt(100 + g), hash: hash(100 + g) }))),
          ...few.map((wallet) => ({ wallet, position: 117n, hash: hash(117) }))
        ],
        eventIds: []
      })
      const before = new Map((yield* ctids).map((row) => [row.wallet, row.ctid] as const))
      // Two large groups and the few reach 118 together: the few merge, the large stay apart.
      yield* store.commit({
        advances: [
          { chain: "0x1", from: 115n, to: 118n, hash: hash(118), count: 1_016 },
          { chain: "0x1", from: 116n, to: 118n, hash: hash(118), count: 1_017 },
          { chain: "0x1", from: 117n, to: 118n, hash: hash(118), count: 10 }
        ],
        eventIds: []
      })
      const at118 = (yield* marks).filter((mark) => mark.position === "118").map((mark) => mark.wallets)
      assert.strictEqual(at118.length, 2, "two marks at 118: the large ones apart")
      assert.strictEqual(at118[0]! + at118[1]!, 2_043)
      assert.includeMembers([1_016, 1_017, 1_026, 1_027], at118)
      const rewritten = (yield* ctids).filter((row) => before.get(row.wallet) !== row.ctid).map((row) => row.wallet)
      assert.deepStrictEqual(rewritten.toSorted(), few.map((wallet) => wallet.address).toSorted(), "only the few written again")
      // All seventeen groups at 119: sixteen marks stay, the smallest group merges into the largest.
      yield* store.commit({
        advances: [
          ...groups.slice(0, 15).map((wallets, g) => ({ chain: "0x1" as const, from: BigInt(100 + g), to: 119n, hash: hash(119), count: wallets.length })),
          { chain: "0x1", from: 118n, to: 119n, hash: hash(119), count: 2_043 }
        ],
        eventIds: []
      })
      const at119 = (yield* marks).map((mark) => mark.wallets)
      assert.strictEqual(at119.length, 16, "at most sixteen marks at a block")
      assert.strictEqual(at119.reduce((a, b) => a + b, 0), 17 * 1_001 + 136 + 10)
      const read = yield* store.checkpoints
      assert.isTrue(read.every((c) => c.position === 119n && c.hash === hash(119)), "every wallet at 119, whatever its mark")
      const smallest = new Set(groups[0]!.map((wallet) => wallet.address))
      const moved = (yield* ctids).filter((row) => before.get(row.wallet) !== row.ctid && !few.some((w) => w.address === row.wallet))
      assert.deepStrictEqual(moved.map((row) => row.wallet).toSorted(), [...smallest].toSorted(), "only the smallest group written again")
    }).pipe(Effect.provide(freshDatabase), Effect.orDie), 60_000)

  it.effect("a database of checkpoints per wallet is migrated with each wallet's block, hash and first block", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      // The layout of migrations 1 and 2, as a database of an earlier version has it.
      yield* sql`CREATE TABLE chainquery_watch_migrations (migration_id integer primary key, created_at timestamptz not null default now(), name text not null)`
      yield* sql`INSERT INTO chainquery_watch_migrations (migration_id, name) VALUES (1, 'watch_state'), (2, 'outside_writes')`
      yield* sql`CREATE TABLE watch_checkpoints (
        namespace text COLLATE "C" NOT NULL, scope text COLLATE "C" NOT NULL, wallet text COLLATE "C" NOT NULL,
        position bigint NOT NULL, hash text, since bigint NOT NULL, PRIMARY KEY (namespace, scope, wallet))`
      for (const table of ["watch_block_hashes", "watch_block_events", "watch_defi_snapshots", "watch_backfills", "watch_last_batch", "watch_outside_writes"]) {
        yield* sql`CREATE TABLE ${sql(table)} (namespace text)`
      }
      const rows = [
        [namespace, "0x1", walletAt(1).address, 200, hash(200), 150],
        [namespace, "0x1", walletAt(2).address, 200, hash(200), 180],
        [namespace, "0x1", walletAt(3).address, 190, null, 190],
        [namespace, "0x89", walletAt(1).address, 70, hash(70), 60],
        ["scan:0x1:12", "0x1", walletAt(1).address, 188, hash(188), 100]
      ] as const
      for (const [ns, scope, wallet, position, blockHash, since] of rows) {
        yield* sql`INSERT INTO watch_checkpoints VALUES (${ns}, ${scope}, ${wallet}, ${position}, ${blockHash}, ${since})`
      }
      yield* PgStateStore.migrate
      const after = yield* sql<{ namespace: string; scope: string; wallet: string; position: string; hash: string | null; since: string }>`
        SELECT namespace, scope, wallet, position::text, hash, since::text FROM watch_checkpoints ORDER BY namespace, scope, wallet`
      assert.deepStrictEqual(
        after.map((row) => [row.namespace, row.scope, row.wallet, Number(row.position), row.hash, Number(row.since)]),
        rows.map((row) => [...row]).toSorted((a, b) => `${a[0]} ${a[1]} ${a[2]}`.localeCompare(`${b[0]} ${b[1]} ${b[2]}`))
      )
      const [counted] = yield* sql<{ marks: number }>`SELECT count(*)::int AS marks FROM watch_marks`
      assert.strictEqual(counted!.marks, 4, "one mark per namespace, scope, block and hash")
    }).pipe(Effect.provide(freshDatabase), Effect.orDie))
})
