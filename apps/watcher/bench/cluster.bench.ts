/**
 * `chainquery-watcher serve --cluster` against issue #14's goals: real `serve` processes (the built
 * `dist/bin.js`) on a fresh PostgreSQL database per scenario (`DATABASE_URL`, else an embedded
 * one), reading an in-process simulator over HTTP (eth only, no indexing lag). Measured in one run:
 *
 * 1. Deliveries per second with 1 and with 3 runners: 30 streams of 300 wallets each of a busy
 *    world, paused while blocks come one per cycle (each block a batch per stream with events),
 *    then resumed together, to a receiver that takes 50 ms per request; the webhooks received from
 *    the resumes to the half of them answered (while every runner still has streams to drain: the
 *    streams go to runners by a hash of their ids, so one runner may have a larger share and drain
 *    alone at the end), the same to the last one, and how busy the machine's cores were. The same world
 *    and blocks for both; each runner with 4, then 8 delivery slots (`--delivery-concurrency`),
 *    fewer than the streams, so that what one runner delivers at once is the bound (until the
 *    machine's cores are). Goal: 3 runners at least 2.5x one.
 * 2. 1,000,000 watched wallets (100 streams of 10,000 addresses no one in the world has) across 3
 *    runners, added through the API of each in turn: each runner's resident memory once the scan
 *    has them all at the head and followed blocks; requests per block (the median of the counted
 *    blocks). Then two runners stopped (SIGTERM): the one left holds everything, and its requests
 *    per block and memory are measured the same way. Goal: requests per block unchanged.
 */
import { Simulator } from "@chainquery/simulator"
import { Effect } from "effect"
import { createHash } from "node:crypto"
import { readFileSync } from "node:fs"
import { createServer } from "node:net"
import { median } from "./support/measured.ts"
import {
  BenchFailure,
  type Postgres,
  postgres,
  procStatus,
  scannedTo,
  serve,
  type Service,
  slowReceiver,
  waitUntil,
  withDatabase
} from "./service.support.ts"
import { SqlClient } from "effect/sql"

type Sim = Simulator.Simulator["Service"]

const events = ["nft.received", "nft.sent"]
const chains = ["eth"]
const interval = "1s"
/** Scenario 1. */
const deliveryStreams = 30
const walletsPerDeliveryStream = 300
const receiverDelayMs = 50
/**
 * Each runner's `--delivery-concurrency`, one run per value: fewer slots than streams, so that a
 * runner's slots bound what it delivers; with more, the 2 cores of this machine are the bound.
 */
const slotCounts = [4, 8] as const

/** The machine's busy and total CPU time so far (`/proc/stat`, clock ticks), for the share it was busy over a span. */
const machineTicks = (): { readonly busy: number; readonly total: number } => {
  const fields = readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/).slice(1).map(Number)
  const total = fields.reduce((a, b) => a + b, 0)
  return { busy: total - fields[3]! - (fields[4] ?? 0), total }
}
const pausedBlocks = 80
const busyActivity = 5
/** Scenario 2. */
const bigStreams = 100
const walletsPerBigStream = 10_000
const perRequest = 10_000
const warmupBlocks = 2
const countedBlocks = 4

/** A free TCP port on 127.0.0.1 (for a runner's address). */
const freePort = Effect.promise(() =>
  new Promise<number>((resolve, reject) => {
    const server = createServer().once("error", reject).listen(0, "127.0.0.1", () => {
      const address = server.address()
      server.close(() => resolve(typeof address === "object" && address !== null ? address.port : 0))
    })
  })
)

/** `runners` runners of one cluster on `databaseUrl` (all of them alone when 1: the single-runner service), each with `flags`. */
const startRunners = (databaseUrl: string, sim: Sim, runners: number, flags: ReadonlyArray<string> = []) =>
  Effect.forEach(Array.from({ length: runners }, (_, index) => index), () =>
    Effect.gen(function*() {
      const extraArgs = [...flags, ...(runners === 1 ? [] : ["--cluster", "--runner-address", `127.0.0.1:${yield* freePort}`])]
      return yield* serve({ databaseUrl, sim, interval, extraArgs })
    }), { concurrency: "unbounded" })

/** Waits until every runner of `runners` holds some of the cluster's shards (its own PostgreSQL session's locks). */
const spread = (runners: number) =>
  waitUntil(`the shards to spread over ${runners} runners`, Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<{ holders: number }>`
      SELECT count(DISTINCT pid)::int AS holders FROM pg_locks
      WHERE locktype = 'advisory' AND granted AND objsubid = 2
        AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`
    return (rows[0]?.holders ?? 0) >= runners
  }), 120_000, 200)

interface Created {
  readonly id: string
}

const createStream = (service: Service, url: string) => service.api<Created>("POST", "/v1/streams", { url, events, chains })
const addWallets = (service: Service, id: string, addresses: ReadonlyArray<string>) =>
  service.api<{ readonly added: number }>("POST", `/v1/streams/${id}/wallets`, { wallets: addresses.map((address) => `eth:${address}`) }).pipe(
    Effect.flatMap((added) =>
      added.added === addresses.length ? Effect.void : Effect.fail(new BenchFailure({ message: `${added.added} of ${addresses.length} wallets were added` }))
    )
  )

/** Deliveries not delivered yet. */
const undelivered = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const [row] = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM deliveries WHERE status <> 'delivered'`
  return row!.n
})

/** Advances the world one block and waits for the scan's checkpoints of `wallets` wallets to reach it. */
const followBlock = (sim: Sim, wallets: number, timeoutMs = 600_000) =>
  Effect.gen(function*() {
    const chain = sim.world.evm.chain("0x1")
    yield* sim.advance(1)
    yield* waitUntil(`the scan to reach block ${chain.head}`, scannedTo(wallets, () => chain.head), timeoutMs, 10)
  })

/** Scenario 1 with `runners` runners. */
const deliveries = (pg: Postgres, runners: number, slots: number) =>
  Effect.gen(function*() {
    const sim = yield* Simulator.Simulator
    const chain = sim.world.evm.chain("0x1")
    const url = yield* pg.database(`watcher_bench_cluster_deliveries_${runners}_${slots}`)
    const hook = yield* slowReceiver(receiverDelayMs)
    const services = yield* startRunners(url, sim, runners, ["--delivery-concurrency", String(slots)])
    return yield* withDatabase(
      url,
      Effect.gen(function*() {
        if (runners > 1) yield* spread(runners)
        const world = sim.world.evm.wallets
        const streams: Array<string> = []
        for (let index = 0; index < deliveryStreams; index++) {
          const service = services[index % runners]!
          const stream = yield* createStream(service, hook.url)
          yield* service.api("POST", `/v1/streams/${stream.id}/pause`)
          yield* addWallets(service, stream.id, world.slice(index * walletsPerDeliveryStream, (index + 1) * walletsPerDeliveryStream))
          streams.push(stream.id)
        }
        const wallets = deliveryStreams * walletsPerDeliveryStream
        yield* waitUntil(`the scan to have ${wallets} wallets at the head`, scannedTo(wallets, () => chain.head), 120_000, 50)
        for (let i = 0; i < pausedBlocks; i++) yield* followBlock(sim, wallets)
        const pending = yield* undelivered
        if (pending < deliveryStreams) return yield* new BenchFailure({ message: `only ${pending} deliveries pending after ${pausedBlocks} blocks` })
        const requestsBefore = hook.requests()
        const ticksBefore = machineTicks()
        const start = performance.now()
        yield* Effect.forEach(streams, (id, index) => services[index % runners]!.api("POST", `/v1/streams/${id}/resume`), { concurrency: 10, discard: true })
        yield* waitUntil(`${pending} deliveries to be delivered`, Effect.map(undelivered, (n) => n === 0), 300_000, 25)
        const seconds = (hook.lastAt() - start) / 1000
        const requests = hook.requests() - requestsBefore
        // While every runner still has streams to drain: the time to the half of the batches.
        const halfSeconds = (hook.answeredAt()[requestsBefore + Math.ceil(requests / 2) - 1]! - start) / 1000
        const ticksAfter = machineTicks()
        const busy = (ticksAfter.busy - ticksBefore.busy) / (ticksAfter.total - ticksBefore.total)
        return { runners, slots, pending, requests, seconds, busy, perSecond: Math.ceil(requests / 2) / halfSeconds, drainPerSecond: requests / seconds, warnings: services.reduce((n, s) => n + s.warnings().length, 0) }
      })
    )
  }).pipe(Effect.scoped)

/** `count` addresses no one in the world has, the same every run. */
const syntheticAddresses = (count: number) =>
  Array.from({ length: count }, (_, index) => `0x${createHash("sha256").update(`watcher-cluster-bench ${index}`).digest("hex").slice(0, 40)}`)

/** Requests per block: the median over `countedBlocks` blocks, after `warmupBlocks`. */
const requestsPerBlock = (sim: Sim, wallets: number) =>
  Effect.gen(function*() {
    for (let i = 0; i < warmupBlocks; i++) yield* followBlock(sim, wallets)
    const counts: Array<number> = []
    for (let i = 0; i < countedBlocks; i++) {
      yield* sim.resetStats
      yield* followBlock(sim, wallets)
      counts.push((yield* sim.stats).requests.total)
    }
    return median(counts)
  })

/** Scenario 2. */
const million = (pg: Postgres) =>
  Effect.gen(function*() {
    const sim = yield* Simulator.Simulator
    const chain = sim.world.evm.chain("0x1")
    const url = yield* pg.database("watcher_bench_cluster_million")
    const hook = yield* slowReceiver(0)
    const services = yield* startRunners(url, sim, 3)
    return yield* withDatabase(
      url,
      Effect.gen(function*() {
        yield* spread(3)
        const wallets = bigStreams * walletsPerBigStream
        const addresses = syntheticAddresses(wallets)
        const addStart = performance.now()
        for (let index = 0; index < bigStreams; index++) {
          const service = services[index % 3]!
          const stream = yield* createStream(service, hook.url)
          const mine = addresses.slice(index * walletsPerBigStream, (index + 1) * walletsPerBigStream)
          for (let at = 0; at < mine.length; at += perRequest) yield* addWallets(service, stream.id, mine.slice(at, at + perRequest))
        }
        const addSeconds = (performance.now() - addStart) / 1000
        console.log(`     (${fmt(wallets)} wallets added in ${addSeconds.toFixed(0)} s; waiting for the scan to have them all at the head)`)
        const takeStart = performance.now()
        yield* waitUntil(`the scan to have ${wallets} wallets at the head`, scannedTo(wallets, () => chain.head), 3_600_000, 2_000)
        const takenSeconds = (performance.now() - takeStart) / 1000
        const threePerBlock = yield* requestsPerBlock(sim, wallets)
        const threeMemory = services.map((service) => procStatus(service.pid, "VmRSS"))
        // Two runners leave: the one left takes everything over.
        yield* services[1]!.stop
        yield* services[2]!.stop
        yield* spread(1)
        const onePerBlock = yield* requestsPerBlock(sim, wallets)
        const oneMemory = procStatus(services[0]!.pid, "VmRSS")
        return { wallets, addSeconds, takenSeconds, threePerBlock, threeMemory, onePerBlock, oneMemory, warnings: services.reduce((n, s) => n + s.warnings().length, 0) }
      })
    )
  }).pipe(Effect.scoped)

/** The world of scenario 1, the same for each run of it. */
const busyWorld = () => Simulator.layer({ seed: "watcher-cluster-busy", wallets: 10_000, activityScale: busyActivity, indexing: false, chains: ["0x1"] })

const fmt = (n: number) => n.toLocaleString("en")
const mb = (bytes: number) => `${fmt(Math.round(bytes / 1024 / 1024))} MB`

/** Scenario 1's figures for one slot count, printed as soon as both runs are done. */
const printDeliveries = (one: Effect.Success<ReturnType<typeof deliveries>>, three: Effect.Success<ReturnType<typeof deliveries>>) => {
  const slots = one.slots
  console.log(`     --delivery-concurrency ${slots} per runner:`)
  for (const run of [one, three]) {
    console.log(
      `       ${run.runners} runner${run.runners === 1 ? "" : "s"}: ${fmt(run.requests)} webhooks in ${run.seconds.toFixed(2)} s (${fmt(Math.round(run.drainPerSecond))} per second to the end), ` +
        `the first half at ${fmt(Math.round(run.perSecond))} per second; the machine's 2 cores ${Math.round(run.busy * 100)}% busy`
    )
  }
  const ratio = three.perSecond / one.perSecond
  const ceiling = Math.min(deliveryStreams, slots) * (1000 / receiverDelayMs)
  console.log(
    `service: deliveries per second, ${slots} slots per runner — 1 runner: ${fmt(Math.round(one.perSecond))}, 3 runners: ${fmt(Math.round(three.perSecond))} (3/1: ${
      ratio.toFixed(2)
    }x; to the end of the backlog: ${(three.drainPerSecond / one.drainPerSecond).toFixed(2)}x)`
  )
  console.log(`  goal: 3 runners at least 2.5x one: ${ratio >= 2.5 ? "goal met" : "NOT met"}`)
  console.log(
    `  (one runner's ceiling, ${slots} requests at once to a receiver taking ${receiverDelayMs} ms: ${fmt(ceiling)} per second; it reached ${Math.round((one.perSecond / ceiling) * 100)}%)`
  )
}

/** Scenario 2's figures. */
const printMillion = (big: Effect.Success<ReturnType<typeof million>>) => {
  console.log(`  2. ${fmt(big.wallets)} wallets watched, ${bigStreams} streams of ${fmt(walletsPerBigStream)}, added through the 3 runners' APIs in ${big.addSeconds.toFixed(0)} s;`)
  console.log(`     the scan had them all at the head ${big.takenSeconds.toFixed(0)} s after the last`)
  console.log(`     3 runners, resident memory (VmRSS): ${big.threeMemory.map(mb).join(", ")}; 1 runner left (two stopped): ${mb(big.oneMemory)}`)
  console.log(
    `service: requests per block at ${fmt(big.wallets)} wallets — 3 runners: ${big.threePerBlock.toFixed(1)}, 1 runner: ${big.onePerBlock.toFixed(1)} (median of ${countedBlocks} blocks)`
  )
  console.log(`  goal: unchanged from one runner: ${big.threePerBlock === big.onePerBlock ? "goal met" : "NOT met"}`)
  if (big.warnings > 0) console.log(`  (the runners logged ${fmt(big.warnings)} warnings or errors)`)
}

/** Which scenarios run: `CLUSTER_BENCH=deliveries` or `million` for one of them (the million takes tens of minutes); both by default. */
const scenarios = new Set((process.env["CLUSTER_BENCH"] ?? "deliveries,million").split(",").map((name) => name.trim()))

const started = Date.now()
await Effect.runPromise(
  Effect.gen(function*() {
    const pg = yield* postgres
    console.log(`watcher serve --cluster: runners (serve processes) on one PostgreSQL (${pg.kind}, a fresh database per scenario), eth only, against a simulator over HTTP`)
    console.log("")
    if (scenarios.has("deliveries")) {
      console.log(
        `  1. deliveries: ${deliveryStreams} streams of ${walletsPerDeliveryStream} wallets (busy world, activity x${busyActivity}), paused for ${pausedBlocks} blocks, then resumed;`
      )
      console.log(`     a receiver that takes ${receiverDelayMs} ms per request; a stream's batches go one at a time, in order`)
      for (const slots of slotCounts) {
        const one = yield* deliveries(pg, 1, slots).pipe(Effect.provide(busyWorld()))
        const three = yield* deliveries(pg, 3, slots).pipe(Effect.provide(busyWorld()))
        printDeliveries(one, three)
        if (one.warnings + three.warnings > 0) console.log(`  (the runners logged ${fmt(one.warnings + three.warnings)} warnings or errors)`)
      }
      console.log(
        `  (all ${deliveryStreams} streams at once: ${fmt(deliveryStreams * (1000 / receiverDelayMs))} per second, the most any number of runners can do, a stream's batches going one at a time)`
      )
      console.log("")
    }
    if (scenarios.has("million")) {
      const big = yield* million(pg).pipe(Effect.provide(Simulator.layer({ seed: "watcher-cluster-million", indexing: false, chains: ["0x1"] })))
      printMillion(big)
    }
  }).pipe(Effect.scoped)
)
console.log(`  ran in ${((Date.now() - started) / 1000).toFixed(0)} s`)
