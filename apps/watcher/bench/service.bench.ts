/**
 * `chainquery-watcher serve` against issue #13's goals: the real process (the built
 * `dist/bin.js`, `service.support.ts` starts it) on a fresh PostgreSQL database per scenario
 * (`DATABASE_URL`, else an embedded PostgreSQL started here), reading an in-process simulator over
 * HTTP (eth only, no indexing lag), its streams wanting `nft.received` and `nft.sent` on eth and
 * delivering to a local receiver that answers 200 at once. Measured in one run:
 *
 * 1. Requests per block with 1, 10 and 100 streams of 1,000 wallets each (taken from the world's
 *    10,000, so streams overlap from 11 on): once the scan has every wallet at the head, blocks
 *    one at a time (the next once the scan's checkpoints reached it), warm-up blocks first (the
 *    engine's record of recent blocks fills), then the simulator's request count per block, the
 *    median of the counted blocks. Goal: the same for 1, 10 and 100 streams.
 * 2. Events delivered per second: one stream of the busy world's 10,000 wallets, several hundred
 *    blocks at once; the time from the advance to the last event received, and when the scan had
 *    committed them (the outbox filled).
 * 3. The time to add 100,000 wallets to one stream through the API: 10 requests of 10,000 specs,
 *    with `--memory lean` (the default; the goal's figure), and with `--memory fast` (scenario 4's
 *    second run): what a lean heap's collections cost while the wallets come.
 * 4. Memory and database bytes per watched wallet: the service's resident memory (`VmRSS` of the
 *    serve process, the median of samples) and `pg_database_size` with no wallet and with those
 *    100,000 watched (once the scan has them all at the head and followed a few blocks, the first
 *    two not measured); the difference per wallet. Goal: <= 2 KB of memory per wallet. Measured with `--memory lean` (the
 *    default), then again with `--memory fast` (V8's own heap growth) on a fresh database, to show
 *    what the default trades: memory per wallet against CPU per block. The CPU a block costs, and
 *    the CPU while idle (with no wallet, then with the 100,000: over 10 s, 5 s after the last
 *    block). Issue #44's goals: <= 0.1 s a block, <= 2% of a core idle, <= 0.5 KB of database
 *    and <= 0.3 KB of memory per wallet.
 */
import { Simulator } from "@chainquery/simulator"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { createHash } from "node:crypto"
import { median } from "./support/measured.ts"
import {
  BenchFailure,
  cpuSeconds,
  databaseSize,
  ethScan,
  type Postgres,
  postgres,
  procStatus,
  receiver,
  scannedTo,
  scanProgress,
  serve,
  type Service,
  tableSize,
  waitUntil,
  withDatabase
} from "./service.support.ts"

const streamCounts = [1, 10, 100] as const
const walletsPerStream = 1_000
/** Blocks followed before counting (the engine's record of recent blocks fills), then blocks counted. */
const warmupBlocks = 4
const countedBlocks = 12
/** Blocks counted after a pause of `idleGapMs` (cycles that found none came first), and the window of no block. */
const idleBlocks = 5
const idleGapMs = 1_500
const idleWindowMs = 4_000
/** Scenario 1 polls faster than the others: a block per cycle either way, so the count is the same. */
const fastInterval = "500ms"
const interval = "1s"
/** Scenario 2: the busy world, and the blocks advanced at once. */
const busyActivity = 5
const busyBlocks = 300
/** Scenarios 3 and 4. */
const bulkWallets = 100_000
const perRequest = 10_000
/** Scenario 4: blocks followed once the scan has every wallet (not measured), then blocks measured. */
const settleBlocks = 2
const steadyBlocks = 3
const samples = 5
/** How long PostgreSQL may take to count a session's writes (`pg_stat_user_tables`). */
const statsFlushMs = 11_000

/** The rows PostgreSQL wrote so far (inserted, updated, deleted): in the checkpoints' tables, and in all the scans' state (`watch_*`). */
const rowWrites = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const [row] = yield* sql<{ checkpoints: number; state: number }>`SELECT
      coalesce(sum(n_tup_ins + n_tup_upd + n_tup_del) FILTER (WHERE relname IN ('watch_wallets', 'watch_marks')), 0)::float8 AS checkpoints,
      coalesce(sum(n_tup_ins + n_tup_upd + n_tup_del), 0)::float8 AS state
    FROM pg_stat_user_tables WHERE relname LIKE 'watch\_%'`
  return row!
})

/** CPU while idle: measured over `idleMs`, `idleSettleMs` after the last thing that happened. */
const idleSettleMs = 5_000
const idleMs = 10_000

const events = ["nft.received", "nft.sent"]
const chains = ["eth"]

interface StreamCreated {
  readonly id: string
  readonly secret: string
}
interface WalletsAdded {
  readonly added: number
  readonly wallets: number
}

const createStream = (service: Service, url: string) => service.api<StreamCreated>("POST", "/v1/streams", { url, events, chains })
const addWallets = (service: Service, id: string, addresses: ReadonlyArray<string>) =>
  service.api<WalletsAdded>("POST", `/v1/streams/${id}/wallets`, { wallets: addresses.map((address) => `eth:${address}`) }).pipe(
    Effect.flatMap((added) =>
      added.added === addresses.length ? Effect.succeed(added) : Effect.fail(new BenchFailure({ message: `${added.added} of ${addresses.length} wallets were added` }))
    )
  )

/** `list` in pieces of at most `size`. */
const chunks = <A>(list: ReadonlyArray<A>, size: number): Array<ReadonlyArray<A>> =>
  Array.from({ length: Math.ceil(list.length / size) }, (_, index) => list.slice(index * size, (index + 1) * size))

/** Resident memory of the process: the median of `samples` readings 200 ms apart. */
const residentMemory = (pid: number) =>
  Effect.gen(function*() {
    const readings: Array<number> = []
    for (let i = 0; i < samples; i++) {
      if (i > 0) yield* Effect.sleep(200)
      readings.push(procStatus(pid, "VmRSS"))
    }
    return median(readings)
  })

/** The share of a core the process used over the next `millis`. */
const cpuShare = (pid: number, millis: number) =>
  Effect.gen(function*() {
    const before = cpuSeconds(pid)
    yield* Effect.sleep(millis)
    return (cpuSeconds(pid) - before) / (millis / 1000)
  })

type Sim = Simulator.Simulator["Service"]

/** Advances the world one block and waits for the scan's checkpoints of `wallets` wallets to reach it: the milliseconds it took. */
const followBlock = (sim: Sim, wallets: number) =>
  Effect.gen(function*() {
    const chain = sim.world.evm.chain("0x1")
    yield* sim.advance(1)
    const start = performance.now()
    yield* waitUntil(`the scan to reach block ${chain.head}`, scannedTo(wallets, () => chain.head), 60_000, 10)
    return performance.now() - start
  })

interface RequestsRow {
  readonly streams: number
  readonly wallets: number
  readonly perBlock: number
  readonly mean: number
  /** Requests per block for a block that comes after a cycle that found none (median). */
  readonly afterIdle: number
  /** Requests a second while no block comes. */
  readonly idlePerSecond: number
  readonly byOperation: Record<string, number>
  readonly setupMs: number
  readonly blockMs: number
  readonly warnings: number
}

/** Scenario 1 for `streams` streams. */
const requestsPerBlock = (pg: Postgres, streams: number) =>
  Effect.gen(function*() {
    const sim = yield* Simulator.Simulator
    const chain = sim.world.evm.chain("0x1")
    const url = yield* pg.database(`watcher_bench_requests_${streams}`)
    const hook = yield* receiver
    const service = yield* serve({ databaseUrl: url, sim, interval: fastInterval })
    const world = sim.world.evm.wallets
    const lists = Array.from({ length: streams }, (_, index) => {
      const start = (index * walletsPerStream) % world.length
      return world.slice(start, start + walletsPerStream)
    })
    const wallets = new Set(lists.flat()).size
    return yield* withDatabase(
      url,
      Effect.gen(function*() {
        const setupStart = performance.now()
        yield* Effect.forEach(lists, (list) => Effect.flatMap(createStream(service, hook.url), (stream) => addWallets(service, stream.id, list)), {
          concurrency: 4,
          discard: true
        })
        yield* waitUntil(`the scan to have ${wallets} wallets at the head`, scannedTo(wallets, () => chain.head), 120_000, 50)
        const setupMs = performance.now() - setupStart
        for (let i = 0; i < warmupBlocks; i++) yield* followBlock(sim, wallets)
        const counts: Array<number> = []
        const times: Array<number> = []
        const byOperation: Record<string, number> = {}
        for (let i = 0; i < countedBlocks; i++) {
          yield* sim.resetStats
          times.push(yield* followBlock(sim, wallets))
          const { requests } = yield* sim.stats
          counts.push(requests.total)
          for (const [operation, n] of Object.entries(requests.byOperation)) if (n > 0) byOperation[operation] = (byOperation[operation] ?? 0) + n
        }
        // Blocks that come after a cycle that found none (a chain slower than the interval), and no block at all.
        const afterIdle: Array<number> = []
        for (let i = 0; i < idleBlocks; i++) {
          yield* Effect.sleep(idleGapMs)
          yield* sim.resetStats
          yield* followBlock(sim, wallets)
          afterIdle.push((yield* sim.stats).requests.total)
        }
        yield* sim.resetStats
        yield* Effect.sleep(idleWindowMs)
        const idlePerSecond = (yield* sim.stats).requests.total / (idleWindowMs / 1000)
        return {
          streams,
          wallets,
          perBlock: median(counts),
          mean: counts.reduce((a, b) => a + b, 0) / counts.length,
          afterIdle: median(afterIdle),
          idlePerSecond,
          byOperation,
          setupMs,
          blockMs: median(times),
          warnings: service.warnings().length
        } satisfies RequestsRow
      })
    )
  }).pipe(Effect.scoped)

/** The outbox: events stored for the streams, and deliveries not delivered yet. */
const outbox = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const [row] = yield* sql<{ events: number; deliveries: number; undelivered: number }>`SELECT
      (SELECT count(*) FROM stream_events)::int AS events,
      (SELECT count(*) FROM deliveries)::int AS deliveries,
      (SELECT count(*) FROM deliveries WHERE status <> 'delivered')::int AS undelivered`
  return row!
})

/** Scenario 2. */
const throughput = (pg: Postgres) =>
  Effect.gen(function*() {
    const sim = yield* Simulator.Simulator
    const chain = sim.world.evm.chain("0x1")
    const url = yield* pg.database("watcher_bench_throughput")
    const hook = yield* receiver
    const service = yield* serve({ databaseUrl: url, sim, interval })
    const wallets = sim.world.evm.wallets
    return yield* withDatabase(
      url,
      Effect.gen(function*() {
        const stream = yield* createStream(service, hook.url)
        for (const list of chunks(wallets, perRequest)) yield* addWallets(service, stream.id, list)
        yield* waitUntil(`the scan to have ${wallets.length} wallets at the head`, scannedTo(wallets.length, () => chain.head), 120_000, 50)
        const transfersBefore = chain.transfers.length
        yield* sim.advance(busyBlocks)
        yield* sim.resetStats
        const transfers = chain.transfers.length - transfersBefore
        const start = performance.now()
        const cpuBefore = cpuSeconds(service.pid)
        yield* waitUntil(`the scan to reach block ${chain.head}`, scannedTo(wallets.length, () => chain.head), 120_000, 25)
        const scannedMs = performance.now() - start
        const scanCpu = cpuSeconds(service.pid) - cpuBefore
        const scanRequests = (yield* sim.stats).requests.total
        const stored = yield* outbox
        if (stored.events === 0) return yield* new BenchFailure({ message: `no event stored for ${transfers} transfers in ${busyBlocks} blocks` })
        yield* waitUntil(`${stored.events} events to be delivered`, Effect.map(outbox, (now) => now.undelivered === 0 && hook.events() >= now.events), 180_000, 25)
        const deliveredMs = hook.lastAt() - start
        return {
          transfers,
          events: hook.events(),
          stored: stored.events,
          requests: hook.requests(),
          deliveries: stored.deliveries,
          scannedMs,
          scanCpu,
          scanRequests,
          deliveredMs,
          warnings: service.warnings().length
        }
      })
    )
  }).pipe(Effect.scoped)

/** `count` addresses no one in the world has, the same every run. */
const syntheticAddresses = (count: number) =>
  Array.from({ length: count }, (_, index) => `0x${createHash("sha256").update(`watcher-service-bench ${index}`).digest("hex").slice(0, 40)}`)

/** Scenarios 3 and 4: one service, its memory and database idle with no wallet, then 100,000 added and watched. */
const bulk = (pg: Postgres, memory: "lean" | "fast") =>
  Effect.gen(function*() {
    const sim = yield* Simulator.Simulator
    const chain = sim.world.evm.chain("0x1")
    const url = yield* pg.database(`watcher_bench_bulk_${memory}`)
    const hook = yield* receiver
    const service = yield* serve({ databaseUrl: url, sim, interval, memory })
    return yield* withDatabase(
      url,
      Effect.gen(function*() {
        const stream = yield* createStream(service, hook.url)
        // Idle with its stream and no wallet, as it will be idle with them.
        yield* Effect.sleep(idleSettleMs)
        const idleCpu = yield* cpuShare(service.pid, idleMs)
        const rssBefore = yield* residentMemory(service.pid)
        const sizeBefore = yield* databaseSize
        const addresses = syntheticAddresses(bulkWallets)
        const requestMs: Array<number> = []
        for (const list of chunks(addresses, perRequest)) {
          const start = performance.now()
          yield* addWallets(service, stream.id, list)
          requestMs.push(performance.now() - start)
        }
        const takeStart = performance.now()
        yield* waitUntil(`the scan to have ${bulkWallets} wallets at the head`, scannedTo(bulkWallets, () => chain.head), 150_000, 100)
        const takenMs = performance.now() - takeStart
        // Blocks followed first, not measured: the wallets' first commits and announcements settle.
        for (let i = 0; i < settleBlocks; i++) yield* followBlock(sim, bulkWallets)
        // PostgreSQL counts a session's writes when it is idle, at most every 10 s: read after that.
        yield* Effect.sleep(statsFlushMs)
        const writesBefore = yield* rowWrites
        const blockMs: Array<number> = []
        const cpuBefore = cpuSeconds(service.pid)
        for (let i = 0; i < steadyBlocks; i++) blockMs.push(yield* followBlock(sim, bulkWallets))
        const blockCpu = (cpuSeconds(service.pid) - cpuBefore) / steadyBlocks
        // Idle: once the last block's work (its batch's delivery, the next cycles) is done.
        yield* Effect.sleep(idleSettleMs)
        const watchedCpu = yield* cpuShare(service.pid, idleMs)
        const writesAfter = yield* rowWrites
        const rssAfter = yield* residentMemory(service.pid)
        const progress = yield* scanProgress(ethScan)
        if (progress.wallets !== bulkWallets) return yield* new BenchFailure({ message: `the scan has ${progress.wallets} wallets, not ${bulkWallets}` })
        return {
          requestMs,
          takenMs,
          blockMs: median(blockMs),
          blockCpu,
          idleCpu,
          watchedCpu,
          rssBefore,
          rssAfter,
          peak: procStatus(service.pid, "VmHWM"),
          sizeBefore,
          sizeAfter: yield* databaseSize,
          walletsTable: yield* tableSize("stream_wallets"),
          checkpointsTable: (yield* tableSize("watch_wallets")) + (yield* tableSize("watch_marks")),
          checkpointWrites: (writesAfter.checkpoints - writesBefore.checkpoints) / steadyBlocks,
          stateWrites: (writesAfter.state - writesBefore.state) / steadyBlocks,
          warnings: service.warnings().length
        }
      })
    )
  }).pipe(Effect.scoped)

const started = Date.now()
const result = await Effect.runPromise(
  Effect.gen(function*() {
    const pg = yield* postgres
    const rows: Array<RequestsRow> = []
    yield* Effect.gen(function*() {
      for (const streams of streamCounts) rows.push(yield* requestsPerBlock(pg, streams))
    }).pipe(Effect.provide(Simulator.layer({ seed: "watcher-service", wallets: 10_000, indexing: false, chains: ["0x1"] })))
    const delivered = yield* throughput(pg).pipe(
      Effect.provide(Simulator.layer({ seed: "watcher-service-busy", wallets: 10_000, activityScale: busyActivity, indexing: false, chains: ["0x1"] }))
    )
    const bulkWorld = Simulator.layer({ seed: "watcher-service-bulk", indexing: false, chains: ["0x1"] })
    const bulked = yield* bulk(pg, "lean").pipe(Effect.provide(bulkWorld))
    const fast = yield* bulk(pg, "fast").pipe(Effect.provide(bulkWorld))
    return { kind: pg.kind, rows, delivered, bulked, fast }
  }).pipe(Effect.scoped)
)

const fmt = (n: number) => n.toLocaleString("en")
const one = (n: number) => n.toFixed(1)
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`
const operations: Record<string, string> = { getNFTTransfersByBlock: "A1", getWalletNFTTransfers: "A2", getBlock: "A6" }
const line = (cells: ReadonlyArray<string>, widths: ReadonlyArray<number>) =>
  console.log(`  ${cells.map((cell, index) => (index === 0 ? cell.padEnd(widths[0]!) : cell.padStart(widths[index]!))).join("")}`)
const { bulked, delivered, fast, rows } = result

console.log(`watcher serve: the service process on PostgreSQL (${result.kind}, a fresh database per scenario), eth only, against a simulator over HTTP`)
console.log(`  streams want nft.received and nft.sent on eth; webhooks go to a local receiver answering 200 at once`)
console.log("")
console.log(`  1. requests per block, streams of ${fmt(walletsPerStream)} wallets from a world of 10,000 (one block per cycle, --interval ${fastInterval};`)
console.log(`     parent hashes at the head: a block costs its header and its transfers, and one header more when the cycle before found a block too;`)
console.log(`     ${warmupBlocks} warm-up blocks, then the median of ${countedBlocks} blocks; A1 getNFTTransfersByBlock, A2 getWalletNFTTransfers, A6 getBlock)`)
const widths = [10, 18, 14, 12, 34, 18, 16] as const
line(["streams", "distinct wallets", "per block", "(mean)", "by operation (all counted blocks)", "block → scanned", "setup"], widths)
for (const row of rows) {
  const parts = Object.entries(row.byOperation).map(([op, n]) => `${one(n / countedBlocks)} ${operations[op] ?? op}`)
  line([fmt(row.streams), fmt(row.wallets), one(row.perBlock), `(${one(row.mean)})`, parts.join(" + "), `${fmt(Math.round(row.blockMs))} ms`, seconds(row.setupMs)], widths)
}
const first = rows[0]!
const last = rows.at(-1)!
const growth = last.perBlock / first.perBlock
console.log(
  `service: requests per block — ${rows.map((row) => `${fmt(row.streams)} stream${row.streams === 1 ? "" : "s"}: ${one(row.perBlock)}`).join(", ")} (100/1: ${growth.toFixed(2)}x)`
)
console.log(`  goal: the same for 1, 10 and 100 streams: ${growth <= 1.05 ? "goal met" : "NOT met"}`)
console.log(
  `  a block after a cycle that found none (median of ${idleBlocks}): ${rows.map((row) => one(row.afterIdle)).join(", ")} requests; no block: ${
    rows.map((row) => one(row.idlePerSecond)).join(", ")
  } requests a second (--interval ${fastInterval}; 1, 10, 100 streams)`
)
const worstAfterIdle = Math.max(...rows.map((row) => row.afterIdle))
console.log(`service: requests per new block after an idle cycle — ${one(worstAfterIdle)} (goal <= 2: ${worstAfterIdle <= 2 ? "goal met" : "NOT met"})`)
console.log("  (block → scanned: from the advance to the scan's checkpoints at the block, the wait for the next cycle included;")
console.log("   setup: creating the streams, adding their wallets and the scan taking them)")
console.log("")
console.log(`  2. events delivered, one stream of the 10,000 wallets of a busy world (activity x${busyActivity}), ${busyBlocks} blocks advanced at once`)
console.log(
  `     ${fmt(delivered.transfers)} transfers; ${fmt(delivered.events)} events received (${fmt(delivered.stored)} stored) in ${fmt(delivered.requests)} webhooks (${
    fmt(delivered.deliveries)
  } deliveries)`
)
console.log(
  `     the scan committed them after ${seconds(delivered.scannedMs)} (${fmt(delivered.scanRequests)} requests, ${
    delivered.scanCpu.toFixed(1)
  } s of service CPU); the last event was received after ${seconds(delivered.deliveredMs)}`
)
console.log(
  `service: events delivered per second — ${fmt(Math.round(delivered.events / (delivered.deliveredMs / 1000)))} (from the advance to the last event received; ${
    fmt(Math.round(delivered.events / ((delivered.deliveredMs - delivered.scannedMs) / 1000)))
  } once stored)`
)
console.log("")
const addTotal = bulked.requestMs.reduce((a, b) => a + b, 0)
console.log(`  3. adding ${fmt(bulkWallets)} wallets to one stream: ${bulkWallets / perRequest} requests of ${fmt(perRequest)} specs`)
console.log(`     per request: ${bulked.requestMs.map((ms) => fmt(Math.round(ms))).join(", ")} ms; the scan had them all at the head ${seconds(bulked.takenMs)} after the last`)
console.log(
  `service: time to add ${fmt(bulkWallets)} wallets — ${seconds(addTotal)} in all, ${fmt(Math.round(median(bulked.requestMs)))} ms per ${fmt(perRequest)} (median; mean ${
    fmt(Math.round(addTotal / bulked.requestMs.length))
  } ms)`
)
console.log(
  `     with --memory fast: ${seconds(fast.requestMs.reduce((a, b) => a + b, 0))} in all (per request: ${
    fast.requestMs.map((ms) => fmt(Math.round(ms))).join(", ")
  } ms); the scan had them all at the head ${seconds(fast.takenMs)} after the last`
)
console.log("")
const perWallet = (run: typeof bulked) => (run.rssAfter - run.rssBefore) / bulkWallets
const rssPerWallet = perWallet(bulked)
const dbPerWallet = (bulked.sizeAfter - bulked.sizeBefore) / bulkWallets
const kb = (bytes: number) => `${fmt(Math.round(bytes))} B (${(bytes / 1024).toFixed(2)} KB)`
console.log(`  4. memory and database, no wallet against ${fmt(bulkWallets)} wallets watched (scanned to the head, then ${settleBlocks} blocks followed and ${steadyBlocks} measured)`)
for (const [mode, run] of [["--memory lean (the default)", bulked], ["--memory fast", fast]] as const) {
  console.log(`     ${mode}: resident (VmRSS, median of ${samples}) ${mb(run.rssBefore)} → ${mb(run.rssAfter)}, ${kb(perWallet(run))} per wallet; peak (VmHWM) ${mb(run.peak)}`)
  console.log(
    `       a block with ${fmt(bulkWallets)} wallets: ${fmt(Math.round(run.blockMs))} ms advance → scanned (median), ${run.blockCpu.toFixed(2)} s of service CPU; ` +
      `CPU when idle: ${(run.idleCpu * 100).toFixed(0)}% of a core with no wallet, ${(run.watchedCpu * 100).toFixed(0)}% with ${fmt(bulkWallets)}`
  )
}
console.log(
  `     database: ${mb(bulked.sizeBefore)} → ${mb(bulked.sizeAfter)} (stream_wallets ${mb(bulked.walletsTable)}, the checkpoints: watch_wallets and watch_marks ${mb(bulked.checkpointsTable)}, with indexes)`
)
console.log(
  `     rows written per block (PostgreSQL's count of rows inserted, updated and deleted, ${steadyBlocks} blocks): the checkpoints ${
    one(bulked.checkpointWrites)
  }, all of the scan's state ${one(bulked.stateWrites)} (--memory fast: ${one(fast.checkpointWrites)}, ${one(fast.stateWrites)})`
)
console.log(`service: row versions per block at ${fmt(bulkWallets)} wallets — ${one(bulked.checkpointWrites)} for the checkpoints (goal <= 100: ${
  bulked.checkpointWrites <= 100 ? "goal met" : "NOT met"
})`)
console.log(`service: bytes per watched wallet — memory ${kb(rssPerWallet)} (--memory fast: ${kb(perWallet(fast))}), database ${kb(dbPerWallet)}`)
console.log(`  goal: <= 2 KB of memory per wallet: ${rssPerWallet <= 2048 ? "goal met" : "NOT met"}`)
const warnings = rows.reduce((n, row) => n + row.warnings, 0) + delivered.warnings + bulked.warnings + fast.warnings
if (warnings > 0) console.log(`  (the service logged ${fmt(warnings)} warnings or errors)`)
console.log(`  ran in ${((Date.now() - started) / 1000).toFixed(0)} s`)
