/**
 * Wallets taken with their history (issue #41), the real `chainquery-watcher serve` process on a
 * fresh PostgreSQL database per range (`DATABASE_URL`, else an embedded one), reading an
 * in-process simulator over HTTP (eth, no indexing lag), delivering to a local receiver that
 * answers at once. One stream watches ten busy wallets live; blocks come one a second; then the
 * 100 busiest wallets of the last 5,000 blocks are added to it with their history from 500 blocks
 * back, and, on a fresh database and process, from 5,000 back. Measured in one run, per range:
 *
 * - the serve process's peak resident memory (`VmHWM`) while it reads the history, against its
 *   resident memory before the wallets were added. Goal: the 5,000-block history's peak within
 *   1.5x of the 500-block one's, although it reads about ten times the events (the history is read
 *   a slice at a time);
 * - the live delivery latency: from a block's production (the simulator advanced) to its first
 *   event in a live batch at the receiver, the median and the 90th percentile over the blocks
 *   before the wallets were added (idle) and over those produced while the history was read.
 *   Goal: within 2x of idle (history batches interleave with live ones, none waits for it);
 * - the history's events, batches and time, and its events a second.
 */
import { Simulator } from "@chainquery/simulator"
import { Effect } from "effect"
import http from "node:http"
import { percentile } from "./support/measured.ts"
import { BenchFailure, type Postgres, postgres, procStatus, serve, waitUntil } from "./service.support.ts"

const ranges = [500, 5_000] as const
const historyWallets = 100
/** Blocks produced (one a second) before the history, whose latency is the idle one. */
const idleBlocks = 20
/** Wallets the stream watches live, the next busiest after the history's. */
const liveWallets = 10
const blockEveryMs = 1_000
const interval = "250ms"

/** A receiver that records, per block, when its first live event came, and counts the history's events and batches. */
const latencyReceiver = Effect.acquireRelease(
  Effect.callback<{
    readonly url: string
    readonly firstLive: Map<number, number>
    readonly history: { events: number; batches: number }
    readonly server: http.Server
  }, BenchFailure>((resume) => {
    const firstLive = new Map<number, number>()
    const history = { events: 0, batches: 0 }
    const server = http.createServer((request, response) => {
      const chunks: Array<Buffer> = []
      request.on("data", (chunk: Buffer) => chunks.push(chunk))
      request.on("end", () => {
        const at = performance.now()
        const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as {
          readonly phase: string
          readonly events: ReadonlyArray<{ readonly blockNumber?: string }>
        }
        if (body.phase === "history") {
          history.events += body.events.length
          history.batches++
        } else {
          for (const event of body.events) {
            const block = Number(event.blockNumber ?? -1)
            if (block >= 0 && !firstLive.has(block)) firstLive.set(block, at)
          }
        }
        response.writeHead(200).end()
      })
    })
    server.once("error", (error) => resume(Effect.fail(new BenchFailure({ message: `receiver: ${error.message}` }))))
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      resume(Effect.succeed({ url: `http://127.0.0.1:${port}/hook`, firstLive, history, server }))
    })
  }),
  ({ server }) =>
    Effect.callback<void>((resume) => {
      server.closeAllConnections()
      server.close(() => resume(Effect.void))
    })
)

interface Measured {
  readonly range: number
  readonly rssBefore: number
  readonly peak: number
  readonly historyEvents: number
  readonly historyBatches: number
  readonly seconds: number
  readonly idle: ReadonlyArray<number>
  readonly during: ReadonlyArray<number>
}

/** One range on a fresh database and process. */
const measure = (pg: Postgres, sim: Simulator.Simulator["Service"], range: number, live: ReadonlyArray<string>, busiest: ReadonlyArray<string>) =>
  Effect.scoped(Effect.gen(function*() {
    const databaseUrl = yield* pg.database(`history_${range}`)
    const service = yield* serve({ databaseUrl, sim, interval })
    const receiver = yield* latencyReceiver
    const stream = yield* service.api<{ id: string }>("POST", "/v1/streams", { url: receiver.url, events: ["nft.received", "nft.sent"], chains: ["eth"] })
    yield* service.api("POST", `/v1/streams/${stream.id}/wallets`, { wallets: live.map((address) => `eth:${address}`) })
    const producedAt = new Map<number, number>()
    const produce = Effect.gen(function*() {
      yield* sim.advance(1)
      producedAt.set(sim.world.evm.chain("0x1").head, performance.now())
      yield* Effect.sleep(blockEveryMs)
    })
    // Idle: live only (the first two blocks let the scan settle, not counted).
    yield* Effect.sleep(5_000)
    const idleFrom = sim.world.evm.chain("0x1").head + 3
    for (let block = 0; block < idleBlocks + 2; block++) yield* produce
    const idleTo = sim.world.evm.chain("0x1").head
    const rssBefore = procStatus(service.pid, "VmRSS")
    // The history of the 100 busiest, from `range` blocks back; blocks keep coming until it is done.
    const from = sim.world.evm.chain("0x1").head - range + 1
    const started = performance.now()
    yield* service.api("POST", `/v1/streams/${stream.id}/wallets`, { wallets: busiest.map((address) => `eth:${address}`), from: String(from) })
    const duringFrom = sim.world.evm.chain("0x1").head + 1
    let done = false
    while (!done) {
      yield* produce
      const stats = yield* service.api<{ history: ReadonlyArray<{ done: boolean }> }>("GET", `/v1/streams/${stream.id}/stats`)
      done = stats.history.length === busiest.length && stats.history.every((h) => h.done)
      if (performance.now() - started > 20 * 60_000) return yield* new BenchFailure({ message: `the ${range}-block history did not end within 20 minutes` })
    }
    const duringTo = sim.world.evm.chain("0x1").head
    // Its last batches delivered.
    yield* waitUntil("the history delivered", Effect.sync(() => receiver.history.batches > 0), 60_000)
    yield* Effect.sleep(3_000)
    const seconds = (performance.now() - started) / 1000
    const peak = procStatus(service.pid, "VmHWM")
    const latencies = (lowest: number, highest: number) =>
      [...producedAt].flatMap(([block, at]) => {
        const first = receiver.firstLive.get(block)
        return block >= lowest && block <= highest && first !== undefined ? [first - at] : []
      })
    const warnings = service.warnings()
    if (warnings.length > 0) return yield* new BenchFailure({ message: `the service warned:\n${warnings.slice(0, 5).join("\n")}` })
    return {
      range,
      rssBefore,
      peak,
      historyEvents: receiver.history.events,
      historyBatches: receiver.history.batches,
      seconds,
      idle: latencies(idleFrom, idleTo),
      during: latencies(duringFrom, duringTo)
    } satisfies Measured
  }))

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`
const ms = (value: number) => `${Math.round(value)} ms`
const line = (label: string, cells: ReadonlyArray<string>) => console.log(`  ${label.padEnd(30)}${cells.map((cell) => cell.padStart(14)).join("")}`)

const measured = await Effect.runPromise(
  Effect.gen(function*() {
    const sim = yield* Simulator.Simulator
    const chain = sim.world.evm.chain("0x1")
    const head = chain.head
    const byActivity = [...chain.transfersByWallet]
      .map(([address, transfers]) => [address, transfers.filter((index) => chain.transfers[index]!.block > head - ranges[1]).length] as const)
      .toSorted((a, b) => b[1] - a[1])
      .map(([address]) => address)
    const busiest = byActivity.slice(0, historyWallets)
    const live = byActivity.slice(historyWallets, historyWallets + liveWallets)
    const pg = yield* postgres
    const results: Array<Measured> = []
    for (const range of ranges) results.push(yield* measure(pg, sim, range, live, busiest))
    return { results, kind: pg.kind }
  }).pipe(
    Effect.scoped,
    Effect.provide(Simulator.layer({ seed: "watcher-history", history: ranges[1] + 300, indexing: false, chains: ["0x1"] }))
  )
).catch((error: unknown) => {
  console.error(`history bench: ${error instanceof Error ? error.message : String(error)}`)
  process.exit(1)
})

console.log(
  `watcher serve: ${historyWallets} busy eth wallets added with their history to a stream watching ${liveWallets} live (PostgreSQL: ${measured.kind}), a block a second`
)
line("", ["history events", "batches", "seconds", "events / s", "RSS before", "peak RSS"])
for (const m of measured.results) {
  line(`from ${m.range.toLocaleString("en")} blocks back`, [
    m.historyEvents.toLocaleString("en"),
    m.historyBatches.toLocaleString("en"),
    m.seconds.toFixed(1),
    Math.round(m.historyEvents / m.seconds).toLocaleString("en"),
    mb(m.rssBefore),
    mb(m.peak)
  ])
}
const [short, long] = measured.results as [Measured, Measured]
console.log(`  peak memory, ${long.range.toLocaleString("en")} blocks / ${short.range.toLocaleString("en")}: ${(long.peak / short.peak).toFixed(2)}x (goal <= 1.5x)`)
console.log("  live latency, block produced to its first live event received:")
line("", ["blocks", "median", "p90"])
for (const m of measured.results) {
  line(`  ${m.range.toLocaleString("en")}: idle`, [String(m.idle.length), ms(percentile(m.idle, 0.5)), ms(percentile(m.idle, 0.9))])
  line(`  ${m.range.toLocaleString("en")}: during the history`, [String(m.during.length), ms(percentile(m.during, 0.5)), ms(percentile(m.during, 0.9))])
  console.log(`    median during / idle: ${(percentile(m.during, 0.5) / percentile(m.idle, 0.5)).toFixed(2)}x (goal <= 2x)`)
}
