/**
 * Block to receiver (issue #44), the method published for others to reproduce: the real
 * `chainquery-watcher serve` process (the built `dist/bin.js`) on a fresh PostgreSQL database per
 * scenario (`DATABASE_URL`, else an embedded one), reading an in-process simulator over HTTP (eth,
 * a busy world of 10,000 wallets, no indexing lag), `--interval 1s`, its streams wanting
 * `nft.received` and `nft.sent`, delivering to a local receiver. Every event is stamped four times:
 *
 * - t0: its block produced (the simulator advanced, on its clock: this process's `Date.now()`);
 * - t1: the scan committed it (its outbox row's time, taken in the commit's transaction);
 * - t2: its webhook sent (the successful attempt's time less the time it took);
 * - t3: the receiver had it (the request read, before the answer).
 *
 * A run is void unless produced = delivered + missing and missing = 0: the events the simulator's
 * ground truth owes each stream (a `nft.sent` for a watched sender, a `nft.received` for a watched
 * recipient), block by block, against the distinct events received, with none unexpected.
 *
 * Scenarios: 1 and 100 streams, 1,000 wallets (the world's busiest) and 100,000 (the world's
 * 10,000 and 90,000 addresses no one has), dealt round robin to the streams; a receiver answering
 * at once, then one answering in 50 ms. Each: blocks produced about one a second, 0.7 to 1.3 s
 * apart so that they land at every moment of the service's cycle (3 not counted, then 30
 * measured), then 300 blocks at once (events per second: from the advance to the last event
 * received). Printed: p50, p99 and max of t3 - t0 and of each leg.
 */
import { Simulator } from "@chainquery/simulator"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { createHash } from "node:crypto"
import { balance, balanced, type Ledger, owedFor, receivedFor, type StampingReceiver, stampingReceiver } from "./support/ledger.ts"
import { percentile } from "./support/measured.ts"
import { BenchFailure, type Postgres, postgres, scannedTo, serve, waitUntil, withDatabase } from "./service.support.ts"

const streamCounts = [1, 100] as const
const walletCounts = [1_000, 100_000] as const
const receiverDelays = [0, 50] as const
const interval = "1s"
const blockEveryMs = 1_000
const warmupBlocks = 3
const steadyBlocks = 30
const burstBlocks = 300
const perRequest = 10_000
/** How long the last events may take to arrive once a phase's blocks are produced. */
const drainMs = 180_000

type Sim = Simulator.Simulator["Service"]

/** `count` addresses no one in the world has, the same every run. */
const idleAddresses = (count: number) =>
  Array.from({ length: count }, (_, index) => `0x${createHash("sha256").update(`watcher-delivery-bench ${index}`).digest("hex").slice(0, 40)}`)

/** The watched addresses: the busiest of the world first, then idle ones to make up `count`. */
const addressesFor = (sim: Sim, count: number): ReadonlyArray<string> => {
  const chain = sim.world.evm.chain("0x1")
  const busiest = [...chain.transfersByWallet].toSorted((a, b) => b[1].length - a[1].length).map(([address]) => address.toLowerCase())
  return count <= busiest.length ? busiest.slice(0, count) : [...busiest, ...idleAddresses(count - busiest.length)]
}

/** Percentiles of one leg, in milliseconds. */
interface Spread {
  readonly p50: number
  readonly p99: number
  readonly max: number
}
const spread = (values: ReadonlyArray<number>): Spread => ({ p50: percentile(values, 0.5), p99: percentile(values, 0.99), max: percentile(values, 1) })

interface Phase {
  readonly name: "steady" | "burst"
  readonly ledger: Ledger
  readonly repeats: number
  readonly total: Spread
  readonly scan: Spread
  readonly queue: Spread
  readonly send: Spread
  /** Events received per second, from the first block produced to the last event received. */
  readonly perSecond: number
  /** Events with all four stamps (the attempts of a stream are trimmed to its last 1,000). */
  readonly stamped: number
}

interface Row {
  readonly streams: number
  readonly wallets: number
  readonly delayMs: number
  readonly phases: ReadonlyArray<Phase>
}

/** When each stream's events were committed (t1), by `stream id` key, for events made since `since` (epoch ms). */
const committedAt = (since: number) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<{ stream_id: string; event_id: string; at: number }>`
      SELECT stream_id, event_id, (extract(epoch FROM created_at) * 1000)::float8 AS at FROM stream_events
      WHERE created_at >= to_timestamp(${since / 1000})`
    const at = new Map<string, number>()
    for (const row of rows) {
      const key = `${row.stream_id} ${row.event_id}`
      if (!at.has(key)) at.set(key, row.at)
    }
    return at
  })

/** When each delivery's successful request was sent (t2), by delivery id, for attempts since `since`. */
const sentAt = (since: number) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<{ delivery_id: string; at: number }>`
      SELECT delivery_id, (extract(epoch FROM at) * 1000)::float8 - coalesce(duration_ms, 0) AS at FROM delivery_attempts
      WHERE ok AND at >= to_timestamp(${since / 1000})`
    return new Map(rows.map((row) => [row.delivery_id, row.at] as const))
  })

/**
 * One phase: `produce` makes the blocks (giving each block's t0); then waits until the ledger of
 * those blocks balances (or `drainMs` passed: the run is void) and reads t1 and t2.
 */
const phase = (
  name: Phase["name"],
  sim: Sim,
  receiver: StampingReceiver,
  streamOf: ReadonlyMap<string, string>,
  produce: Effect.Effect<ReadonlyMap<number, number>>
) =>
  Effect.gen(function*() {
    const chain = sim.world.evm.chain("0x1")
    const from = chain.head + 1
    const started = Date.now()
    const repeatsBefore = receiver.repeats
    const producedAt = yield* produce
    const to = chain.head
    const owed = owedFor(chain.transfers, from, to, streamOf)
    const ledger = () => balance(owed, receivedFor(receiver.events.values(), from, to))
    yield* waitUntil(`the events of blocks ${from}..${to} delivered`, Effect.sync(() => balanced(ledger())), drainMs, 50).pipe(
      Effect.catchTag("BenchFailure", () => Effect.void)
    )
    const committed = yield* committedAt(started - 1_000)
    // The service records an attempt once its answer came: the receiver may have the last events first.
    const carried = new Set([...receiver.events.values()].filter((event) => event.block >= from && event.block <= to).map((event) => event.delivery))
    let sent = yield* sentAt(started - 1_000)
    for (let tries = 0; tries < 100 && [...carried].some((id) => !sent.has(id)); tries++) {
      yield* Effect.sleep(100)
      sent = yield* sentAt(started - 1_000)
    }
    const legs = { total: [] as Array<number>, scan: [] as Array<number>, queue: [] as Array<number>, send: [] as Array<number> }
    let stamped = 0
    let last = 0
    let count = 0
    for (const event of receiver.events.values()) {
      if (event.block < from || event.block > to) continue
      const t0 = producedAt.get(event.block)!
      const t1 = committed.get(`${event.stream} ${event.id}`)
      const t2 = sent.get(event.delivery)
      const t3 = event.at
      count++
      if (t3 > last) last = t3
      legs.total.push(t3 - t0)
      if (t1 === undefined || t2 === undefined) continue
      stamped++
      legs.scan.push(t1 - t0)
      legs.queue.push(t2 - t1)
      legs.send.push(t3 - t2)
    }
    const first = Math.min(...producedAt.values())
    return {
      name,
      ledger: ledger(),
      repeats: receiver.repeats - repeatsBefore,
      total: spread(legs.total),
      scan: spread(legs.scan),
      queue: spread(legs.queue),
      send: spread(legs.send),
      perSecond: count / ((last - first) / 1000),
      stamped
    } satisfies Phase
  })

/**
 * The gap before the `i`-th block: `blockEveryMs` on average, spread over plus or minus 30% by a
 * fixed sequence (the golden ratio's multiples), so that blocks land at every moment of the
 * service's cycle rather than at one (a block a second against a cycle a second would keep one
 * phase for the whole run, and measure it alone).
 */
const gapBefore = (i: number) => Math.round(blockEveryMs * (0.7 + 0.6 * ((i * 0.6180339887) % 1)))

/** Blocks produced about one a second (see `gapBefore`): each block's t0. */
const oneASecond = (sim: Sim, blocks: number) =>
  Effect.gen(function*() {
    const at = new Map<number, number>()
    for (let i = 0; i < blocks; i++) {
      if (i > 0) yield* Effect.sleep(gapBefore(i))
      yield* sim.advance(1)
      at.set(sim.world.evm.chain("0x1").head, Date.now())
    }
    return at as ReadonlyMap<number, number>
  })

/** Blocks produced at once: they share their t0. */
const atOnce = (sim: Sim, blocks: number) =>
  Effect.gen(function*() {
    const from = sim.world.evm.chain("0x1").head + 1
    yield* sim.advance(blocks)
    const now = Date.now()
    return new Map(Array.from({ length: blocks }, (_, index) => [from + index, now] as const)) as ReadonlyMap<number, number>
  })

/** One scenario: a fresh database and service, `streams` streams sharing `wallets` wallets. */
const scenario = (pg: Postgres, streams: number, wallets: number) =>
  Effect.gen(function*() {
    const sim = yield* Simulator.Simulator
    const chain = sim.world.evm.chain("0x1")
    const url = yield* pg.database(`watcher_bench_delivery_${streams}_${wallets}`)
    const receiver = yield* stampingReceiver
    const service = yield* serve({ databaseUrl: url, sim, interval })
    return yield* withDatabase(
      url,
      Effect.gen(function*() {
        const addresses = addressesFor(sim, wallets)
        const ids = yield* Effect.forEach(
          Array.from({ length: streams }),
          () => service.api<{ id: string }>("POST", "/v1/streams", { url: receiver.url, events: ["nft.received", "nft.sent"], chains: ["eth"] }),
          { concurrency: 4 }
        )
        const streamOf = new Map(addresses.map((address, index) => [address, ids[index % streams]!.id] as const))
        const lists = ids.map((stream, index) => ({ id: stream.id, addresses: addresses.filter((_, at) => at % streams === index) }))
        yield* Effect.forEach(
          lists.flatMap(({ addresses: list, id }) =>
            Array.from({ length: Math.ceil(list.length / perRequest) }, (_, at) => ({ id, part: list.slice(at * perRequest, (at + 1) * perRequest) }))
          ),
          ({ id, part }) => service.api("POST", `/v1/streams/${id}/wallets`, { wallets: part.map((address) => `eth:${address}`) }),
          { concurrency: 4, discard: true }
        )
        yield* waitUntil(`the scan to have ${wallets} wallets at the head`, scannedTo(wallets, () => chain.head), 300_000, 100)
        yield* oneASecond(sim, warmupBlocks)
        const rows: Array<Row> = []
        for (const delayMs of receiverDelays) {
          receiver.delayMs = delayMs
          const steady = yield* phase("steady", sim, receiver, streamOf, oneASecond(sim, steadyBlocks))
          const burst = yield* phase("burst", sim, receiver, streamOf, atOnce(sim, burstBlocks))
          rows.push({ streams, wallets, delayMs, phases: [steady, burst] })
          // The next phase starts from a quiet service.
          yield* oneASecond(sim, 2)
        }
        const warnings = service.warnings()
        if (warnings.length > 0) yield* Effect.logWarning(`the service logged ${warnings.length} warnings, the first: ${warnings[0]}`)
        return rows
      })
    )
  }).pipe(Effect.scoped)

const started = Date.now()
const result = await Effect.runPromise(
  Effect.gen(function*() {
    const pg = yield* postgres
    const rows: Array<Row> = []
    for (const wallets of walletCounts) {
      for (const streams of streamCounts) rows.push(...(yield* scenario(pg, streams, wallets)))
    }
    return { kind: pg.kind, rows }
  }).pipe(
    Effect.scoped,
    Effect.provide(Simulator.layer({ seed: "watcher-delivery", wallets: 10_000, activityScale: 5, indexing: false, chains: ["0x1"] }))
  )
).catch((error: unknown) => {
  console.error(error instanceof BenchFailure ? error.message : error)
  process.exit(1)
})

const fmt = (n: number) => n.toLocaleString("en")
const ms = (n: number) => (Number.isNaN(n) ? "-" : fmt(Math.round(n)))
const legOf = (s: Spread) => `${ms(s.p50)}/${ms(s.p99)}/${ms(s.max)}`
const widths = [9, 9, 10, 8, 10, 20, 20, 18, 16, 11, 12] as const
const line = (cells: ReadonlyArray<string>) =>
  console.log(`  ${cells.map((cell, index) => (index < 4 ? cell.padEnd(widths[index]!) : cell.padStart(widths[index]!))).join("")}`)

console.log(`watcher serve: block to receiver on PostgreSQL (${result.kind}, a fresh database per scenario), eth, --interval ${interval}`)
console.log(`  a busy world (activity x5) of 10,000 wallets; ${steadyBlocks} blocks 0.7 to 1.3 s apart after ${warmupBlocks} not counted (steady), then ${burstBlocks} at once (burst)`)
console.log(`  t0 block produced, t1 committed by the scan, t2 webhook sent, t3 received; milliseconds p50/p99/max per event`)
line(["streams", "wallets", "receiver", "phase", "events", "t3 - t0", "scan t1 - t0", "queue t2 - t1", "send t3 - t2", "events/s", "ledger"])
let void_ = 0
for (const row of result.rows) {
  for (const p of row.phases) {
    const ok = balanced(p.ledger)
    if (!ok) void_++
    line([
      fmt(row.streams),
      fmt(row.wallets),
      row.delayMs === 0 ? "at once" : `${row.delayMs} ms`,
      p.name,
      fmt(p.ledger.delivered),
      legOf(p.total),
      legOf(p.scan),
      legOf(p.queue),
      legOf(p.send),
      p.name === "burst" ? fmt(Math.round(p.perSecond)) : "-",
      ok ? "balanced" : `VOID: produced ${p.ledger.produced}, delivered ${p.ledger.delivered}, missing ${p.ledger.missing}, unexpected ${p.ledger.unexpected}`
    ])
  }
}
const repeats = result.rows.reduce((n, row) => n + row.phases.reduce((m, p) => m + p.repeats, 0), 0)
const unstamped = result.rows.reduce((n, row) => n + row.phases.reduce((m, p) => m + p.ledger.delivered - p.stamped, 0), 0)
if (repeats > 0) console.log(`  (${fmt(repeats)} events were delivered again: counted once)`)
if (unstamped > 0) console.log(`  (${fmt(unstamped)} events lacked t1 or t2: their legs are not in the percentiles)`)
const goal = result.rows.find((row) => row.streams === 100 && row.wallets === 100_000 && row.delayMs === 0)?.phases.find((p) => p.name === "steady")
if (goal !== undefined) {
  console.log(`delivery: p99 block to receiver, 100 streams, 100,000 wallets, receiver at once — ${ms(goal.total.p99)} ms`)
  console.log(`  goal: <= 1,500 ms: ${goal.total.p99 <= 1_500 ? "goal met" : "NOT met"}`)
}
const fastest = Math.max(...result.rows.flatMap((row) => row.phases.filter((p) => p.name === "burst" && row.delayMs === 0).map((p) => p.perSecond)))
console.log(`delivery: events per second, ${burstBlocks} blocks at once, receiver at once — at most ${fmt(Math.round(fastest))}`)
console.log(`  ran in ${((Date.now() - started) / 1000).toFixed(0)} s`)
if (void_ > 0) {
  console.log(`${void_} run(s) VOID: the ledger did not balance`)
  process.exit(1)
}
