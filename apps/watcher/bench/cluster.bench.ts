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
 * 2. Issue #44's 10,000,000 wallets in 1,000 streams, scaled down ten times in wallets: 1,000
 *    streams of 1,000 addresses no one in the world has (1,000,000), across 3 runners, added
 *    through the API of each in turn. Measured at 250,000 and at 1,000,000 wallets, once the scan
 *    has them all at the head and followed blocks: each runner's resident memory and CPU per block,
 *    requests per block (the median of the counted blocks). Then two runners stopped (SIGTERM):
 *    the one left holds everything, and its requests per block, memory and CPU per block are
 *    measured the same way. Printed with the figures at 10,000,000 extrapolated, a straight line
 *    through the two measured (the scanning runner's memory and CPU per block). Goal: requests per
 *    block unchanged.
 */
import { Simulator } from "@chainquery/simulator"
import { Effect } from "effect"
import { createHash } from "node:crypto"
import { readFileSync } from "node:fs"
import { createServer } from "node:net"
import { median } from "./support/measured.ts"
import {
  BenchFailure,
  cpuSeconds,
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
/** Scenario 2: the streams, their wallets, and after how many streams the first measure is taken. */
const bigStreams = 1_000
const walletsPerBigStream = 1_000
const firstMeasureAfter = 250
const perRequest = 1_000
/** Issue #44's scale, extrapolated to. */
const targetWallets = 10_000_000
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

/**
 * Requests per block (the median over `countedBlocks` blocks, after `warmupBlocks`), and each
 * runner's CPU per block over the counted blocks and resident memory after them.
 */
const perBlock = (sim: Sim, wallets: number, runners: ReadonlyArray<Service>) =>
  Effect.gen(function*() {
    for (let i = 0; i < warmupBlocks; i++) yield* followBlock(sim, wallets)
    const counts: Array<number> = []
    const cpuBefore = runners.map((runner) => cpuSeconds(runner.pid))
    for (let i = 0; i < countedBlocks; i++) {
      yield* sim.resetStats
      yield* followBlock(sim, wallets)
      counts.push((yield* sim.stats).requests.total)
    }
    return {
      wallets,
      requests: median(counts),
      cpu: runners.map((runner, index) => (cpuSeconds(runner.pid) - cpuBefore[index]!) / countedBlocks),
      memory: runners.map((runner) => procStatus(runner.pid, "VmRSS"))
    }
  })

/** What `perBlock` measured. */
type Measured = Effect.Success<ReturnType<typeof perBlock>>

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
        const before = services.map((service) => procStatus(service.pid, "VmRSS"))
        const measured: Array<Measured> = []
        let addSeconds = 0
        let takenSeconds = 0
        // Added stream after stream, measured once `firstMeasureAfter` have their wallets, then once all have.
        for (const [from, to] of [[0, firstMeasureAfter], [firstMeasureAfter, bigStreams]] as const) {
          const addStart = performance.now()
          for (let index = from; index < to; index++) {
            const service = services[index % 3]!
            const stream = yield* createStream(service, hook.url)
            const mine = addresses.slice(index * walletsPerBigStream, (index + 1) * walletsPerBigStream)
            for (let at = 0; at < mine.length; at += perRequest) yield* addWallets(service, stream.id, mine.slice(at, at + perRequest))
          }
          addSeconds += (performance.now() - addStart) / 1000
          const added = to * walletsPerBigStream
          console.log(`     (${fmt(added)} wallets added in ${addSeconds.toFixed(0)} s so far; waiting for the scan to have them all at the head)`)
          const takeStart = performance.now()
          yield* waitUntil(`the scan to have ${added} wallets at the head`, scannedTo(added, () => chain.head), 3_600_000, 2_000)
          takenSeconds += (performance.now() - takeStart) / 1000
          measured.push(yield* perBlock(sim, added, services))
        }
        // Two runners leave: the one left takes everything over.
        yield* services[1]!.stop
        yield* services[2]!.stop
        yield* spread(1)
        const alone = yield* perBlock(sim, wallets, [services[0]!])
        return { wallets, before, addSeconds, takenSeconds, measured, alone, warnings: services.reduce((n, s) => n + s.warnings().length, 0) }
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

const seconds = (cpu: number) => `${cpu.toFixed(3)} s`

/** The value at `target` of the straight line through (x1, y1) and (x2, y2). */
const extrapolated = (x1: number, y1: number, x2: number, y2: number, target: number) => y2 + ((y2 - y1) / (x2 - x1)) * (target - x2)

/** Scenario 2's figures. */
const printMillion = (big: Effect.Success<ReturnType<typeof million>>) => {
  const [first, all] = big.measured as [Measured, Measured]
  // The runner that scans eth: the one that spent the most CPU on the blocks.
  const scanning = all.cpu.indexOf(Math.max(...all.cpu))
  console.log(
    `  2. issue #44's ${fmt(targetWallets)} wallets in ${fmt(bigStreams)} streams, scaled down ten times: ${bigStreams} streams of ${fmt(walletsPerBigStream)} wallets on 3 runners,`
  )
  console.log(`     added through the runners' APIs in ${big.addSeconds.toFixed(0)} s (requests of ${fmt(perRequest)}); the scan had them at the head ${big.takenSeconds.toFixed(0)} s after the last requests`)
  console.log(`     resident memory (VmRSS) before any wallet: ${big.before.map(mb).join(", ")}`)
  for (const at of big.measured) {
    console.log(
      `     at ${fmt(at.wallets)} wallets: requests per block ${at.requests.toFixed(1)}; resident ${at.memory.map(mb).join(", ")}; CPU per block ${at.cpu.map(seconds).join(", ")}`
    )
  }
  console.log(`     1 runner left (two stopped), ${fmt(big.alone.wallets)} wallets: requests per block ${big.alone.requests.toFixed(1)}; resident ${mb(big.alone.memory[0]!)}; CPU per block ${seconds(big.alone.cpu[0]!)}`)
  const perWallet = (all.memory[scanning]! - big.before[scanning]!) / all.wallets
  const memoryAt = extrapolated(first.wallets, first.memory[scanning]!, all.wallets, all.memory[scanning]!, targetWallets)
  const cpuAt = extrapolated(first.wallets, first.cpu[scanning]!, all.wallets, all.cpu[scanning]!, targetWallets)
  console.log(
    `service: the scanning runner (runner ${scanning + 1}) at ${fmt(all.wallets)} wallets — ${mb(all.memory[scanning]!)} resident (${fmt(Math.round(perWallet))} B per wallet), ${
      seconds(all.cpu[scanning]!)
    } of CPU per block`
  )
  console.log(
    `service: extrapolated to ${fmt(targetWallets)} wallets (a straight line through ${fmt(first.wallets)} and ${fmt(all.wallets)}) — ${mb(memoryAt)} resident, ${
      seconds(Math.max(0, cpuAt))
    } of CPU per block, ${all.requests.toFixed(1)} requests per block (they do not grow with wallets)`
  )
  console.log(
    `service: requests per block at ${fmt(big.wallets)} wallets — 3 runners: ${all.requests.toFixed(1)}, 1 runner: ${big.alone.requests.toFixed(1)} (median of ${countedBlocks} blocks)`
  )
  console.log(`  goal: unchanged from one runner: ${all.requests === big.alone.requests && first.requests === all.requests ? "goal met" : "NOT met"}`)
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
