/**
 * `./run soak-memory`: `chainquery-watcher serve` and the CLI watcher side by side for a long
 * while against a simulator making a block every 500 ms (an hour by default: 7,200 blocks, about
 * a day of Ethereum), printing every few minutes each process's resident memory and its live
 * heap (the V8 heap still used after a full collection, asked over the inspector it was started
 * with), then the slope per hour after warm-up and the growth of the live heap between the end
 * of warm-up and the end. Goal: at most 2% for each. Exits 0 when it is met, 1 when not, 2 on a bad
 * flag, 3 when the run could not be measured (a process exited, calls of the mix failed).
 *
 * The mix runs every path of `serve` that keeps state:
 * - a stream of 500 busy wallets delivering to a receiver that answers at once;
 * - a stream of 100 of them whose receiver answers 503 for 3 minutes in every 10 (retries, the
 *   success rate putting the stream in `error` (`--min-success-rate 95`), resumed here every 30 s),
 *   replayed every 10 minutes;
 * - a stream of 20 wallets with no activity, kept alive by heartbeats (`--heartbeat 20s`);
 * - a stream whose 50 wallets turn over every minute (25 removed, 25 others added);
 * - a stream created every minute with 30 wallets and deleted two minutes later;
 * - a reorganisation of 1 to 3 blocks every 90 s.
 * The CLI watches 200 of the busy wallets (`--format json`, its output read and counted).
 *
 *   ./run soak-memory -- [--duration 1h] [--warmup 15m] [--sample-every 5m] [--block-time 500ms]
 *                        [--max-growth 2] [--snapshots DIR]
 *
 * `--snapshots DIR` also writes a heap snapshot of each process at the start, at the end of warm-up
 * and at the end (Chrome DevTools' format: load the last two, "Comparison" view) to find what grew.
 * A snapshot costs memory of its own (resident pages V8 keeps, and about 3.5 MiB of live heap after
 * the first, seen on `serve`), hence the one at the start; the goal is judged on runs without them.
 */
import { Simulator } from "@chainquery/simulator"
import { DurationInput } from "@chainquery/schema"
import { NodeRuntime } from "@effect/platform-node"
import { Cause, Duration, Effect, Exit, Result } from "effect"
import { createHash } from "node:crypto"
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import os from "node:os"
import path from "node:path"
import { parseArgs } from "node:util"
import * as Inspector from "./support/inspector.ts"
import { BenchFailure, cli, freePort, node, postgres, procStatus, type Service, serve, slowReceiver } from "./service.support.ts"

const usage = `usage: ./run soak-memory -- [--duration 1h] [--warmup 15m] [--sample-every 5m] [--block-time 500ms]
                            [--max-growth 2] [--snapshots DIR]
  --duration D      how long the services run (at least 2m; default 1h)
  --warmup D        not judged: the heap fills first (less than --duration; default a quarter of it, at most 15m)
  --sample-every D  how often memory is read (at least 10s; default 5m, or a sixth of --duration when shorter)
  --block-time D    the simulator's block time (at least 100ms; default 500ms)
  --max-growth P    the live heap's largest growth allowed after warm-up, in percent (default 2)
  --snapshots DIR   write heap snapshots of both processes at the start, the end of warm-up and the end into DIR
exits 0 when the goal is met, 1 when not, 2 on a bad flag, 3 when the run could not be measured`

const badFlag = (message: string): never => {
  console.error(`soak-memory: ${message}\n${usage}`)
  process.exit(2)
}

const flags = (() => {
  try {
    return parseArgs({
      options: {
        duration: { type: "string" },
        warmup: { type: "string" },
        "sample-every": { type: "string" },
        "block-time": { type: "string" },
        "max-growth": { type: "string" },
        snapshots: { type: "string" },
        help: { type: "boolean", short: "h" }
      },
      strict: true,
      allowPositionals: false
    }).values
  } catch (error) {
    return badFlag(error instanceof Error ? error.message : String(error))
  }
})()
if (flags.help === true) {
  console.log(usage)
  process.exit(0)
}

const durationFlag = (name: string, text: string | undefined, fallback: Duration.Duration, minimum: Duration.Input): Duration.Duration => {
  if (text === undefined) return fallback
  const result = DurationInput.validate(`--${name}`, text, { minimum })
  return Result.isFailure(result) ? badFlag(DurationInput.flagMessage(result.failure)) : result.success
}

const duration = durationFlag("duration", flags.duration, Duration.hours(1), "2 minutes")
const warmup = durationFlag("warmup", flags.warmup, Duration.min(Duration.divideUnsafe(duration, 4), Duration.minutes(15)), "0 millis")
if (!Duration.isLessThan(warmup, duration)) badFlag(`--warmup must be less than --duration (${Duration.format(duration)}), got ${JSON.stringify(flags.warmup)}`)
const sampleEvery = durationFlag("sample-every", flags["sample-every"], Duration.min(Duration.minutes(5), Duration.divideUnsafe(duration, 6)), "10 seconds")
const blockTime = durationFlag("block-time", flags["block-time"], Duration.millis(500), "100 millis")
const maxGrowth = flags["max-growth"] === undefined ? 2 : /^\d+(\.\d+)?$/.test(flags["max-growth"]) ? Number(flags["max-growth"]) : -1
if (maxGrowth < 0) badFlag(`--max-growth must be a percentage >= 0, got ${JSON.stringify(flags["max-growth"])}`)
const snapshots = flags.snapshots === undefined ? undefined : path.resolve(flags.snapshots)

const busyWallets = 500
const failingWallets = 100
const quietWallets = 20
const turningWallets = 50
const shortLivedWallets = 30
const cliWallets = 200
const pool = 2_000

/** A measured process: its pid and inspector. */
interface Measured {
  readonly name: string
  readonly pid: number
  readonly inspector: Inspector.Inspector
}

interface Sample {
  readonly minute: number
  readonly rss: ReadonlyArray<number>
  readonly heap: ReadonlyArray<number>
}

const mib = (bytes: number) => (bytes / 1024 / 1024).toFixed(1)
const minutes = (millis: number) => millis / 60_000

/** A call to a process's inspector; a failure (the process gone, no answer) fails the run. */
const inspecting = <A>(what: string, call: () => Promise<A>) =>
  Effect.tryPromise({ try: call, catch: (cause) => new BenchFailure({ message: `${what}: ${cause instanceof Error ? cause.message : String(cause)}` }) })

/**
 * The live heap: the least of five readings 2 s apart. A reading may catch work in flight (a batch
 * being built, a cycle's answers, a connection's last result): 0.9 MiB more than the readings
 * before and after it was once seen on the CLI with three readings a second apart.
 */
const liveHeap = (process: Measured) =>
  Effect.gen(function*() {
    const readings: Array<number> = []
    for (let i = 0; i < 5; i++) {
      if (i > 0) yield* Effect.sleep(2000)
      readings.push(yield* inspecting(`the live heap of ${process.name}`, () => process.inspector.liveHeap()))
    }
    return Math.min(...readings)
  })

/** The inspector of the process started with `--inspect=127.0.0.1:${port}`, closed with the scope. */
const inspectorOn = (name: string, port: number) =>
  Effect.acquireRelease(inspecting(`the inspector of ${name}`, () => Inspector.connect(port)), (inspector) => Effect.sync(() => inspector.close()))

/** The slope of `values` over `at` (least squares), per unit of `at`. */
const slope = (at: ReadonlyArray<number>, values: ReadonlyArray<number>) => {
  const n = at.length
  const meanAt = at.reduce((a, b) => a + b, 0) / n
  const meanValue = values.reduce((a, b) => a + b, 0) / n
  const covariance = at.reduce((sum, x, i) => sum + (x - meanAt) * (values[i]! - meanValue), 0)
  const variance = at.reduce((sum, x) => sum + (x - meanAt) ** 2, 0)
  return variance === 0 ? 0 : covariance / variance
}

/** Addresses no one in the simulator's world uses: a stream of them only ever gets heartbeats. */
const quietAddresses = Array.from({ length: quietWallets }, (_, i) => `0x${createHash("sha256").update(`quiet-${i}`).digest("hex").slice(0, 40)}`)

/** A wallet on eth, as the API takes it. */
const spec = (address: string) => `eth:${address}`

interface StreamCreated {
  readonly id: string
}
interface StreamView {
  readonly id: string
  readonly status: string
}

const program = Effect.gen(function*() {
  const started = Date.now()
  const elapsed = () => Date.now() - started
  const sim = yield* Simulator.Simulator
  const world = sim.world.evm.wallets
  const busy = world.slice(0, busyWallets)

  const server = yield* postgres
  const database = yield* server.database("soak_memory")
  // The failing receiver answers 503 from the 5th to the 8th minute of every 10.
  const failingNow = () => elapsed() % 600_000 >= 300_000 && elapsed() % 600_000 < 480_000
  const steady = yield* slowReceiver(0)
  const failing = yield* slowReceiver(0, () => (failingNow() ? 503 : 200))

  const servePort = yield* freePort
  const service: Service = yield* serve({
    databaseUrl: database,
    sim: { evmUrl: sim.evmUrl, ledgerUrl: sim.ledgerUrl, apiKey: sim.apiKey },
    interval: "500ms",
    nodeArgs: [`--inspect=127.0.0.1:${servePort}`],
    // A stream whose last 100 attempts succeeded less than 95% goes in `error`: the failing
    // receiver's outage (about 6 failed attempts) puts its stream there, and the mix resumes it.
    extraArgs: ["--heartbeat", "20s", "--retry-schedule", "1s,5s,15s,30s,1m,2m,5m", "--min-success-rate", "95"]
  })

  const dir = yield* Effect.acquireRelease(
    Effect.sync(() => mkdtempSync(path.join(os.tmpdir(), "watcher-soak-memory-"))),
    (made) => Effect.sync(() => rmSync(made, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 }))
  )
  const walletsFile = path.join(dir, "wallets.txt")
  writeFileSync(walletsFile, busy.slice(0, cliWallets).map(spec).join("\n") + "\n")
  const cliPort = yield* freePort
  const watcher = yield* node(
    [`--inspect=127.0.0.1:${cliPort}`, cli, "--wallets-file", walletsFile, "--interval", "500ms", "--format", "json", "--state", path.join(dir, "watcher.db"), "--evm-base-url", sim.evmUrl],
    { MORALIS_API_KEY: sim.apiKey }
  )
  let cliEvents = 0
  watcher.stdout!.setEncoding("utf8")
  watcher.stdout!.on("data", (chunk: string) => (cliEvents += chunk.split("\n").length - 1))
  watcher.stderr!.resume()
  /** Fails once either measured process exits: the run cannot go on without it. */
  const processExited = Effect.raceFirst(
    Effect.map(service.exited, (how) => `serve exited (${how}) during the run`),
    Effect.callback<string>((resume) => {
      watcher.once("exit", (code, signal) => resume(Effect.succeed(`the CLI watcher exited (${code ?? signal}) during the run`)))
    })
  ).pipe(Effect.flatMap((message) => Effect.fail(new BenchFailure({ message }))))

  const measured: ReadonlyArray<Measured> = [
    { name: "serve", pid: service.pid, inspector: yield* inspectorOn("serve", servePort) },
    { name: "CLI watcher", pid: watcher.pid!, inspector: yield* inspectorOn("the CLI watcher", cliPort) }
  ]

  const create = (url: string) => Effect.map(service.api<StreamCreated>("POST", "/v1/streams", { url, chains: ["eth"] }), (stream) => stream.id)
  const add = (id: string, addresses: ReadonlyArray<string>) => service.api("POST", `/v1/streams/${id}/wallets`, { wallets: addresses.map(spec) })
  const remove = (id: string, addresses: ReadonlyArray<string>) => service.api("POST", `/v1/streams/${id}/wallets/remove`, { wallets: addresses.map(spec) })

  const busyStream = yield* create(steady.url)
  yield* add(busyStream, busy)
  const failingStream = yield* create(failing.url)
  yield* add(failingStream, busy.slice(0, failingWallets))
  const quietStream = yield* create(steady.url)
  yield* add(quietStream, quietAddresses)
  const turningStream = yield* create(steady.url)
  const turningPool = world.slice(busyWallets, pool)
  yield* add(turningStream, turningPool.slice(0, turningWallets))

  // The mix, each in its own fiber; an API call that fails is counted, not fatal (printed at the end).
  const troubles: Array<string> = []
  const repeat = (millis: number, task: (round: number) => Effect.Effect<unknown, BenchFailure>) =>
    Effect.forkScoped(Effect.gen(function*() {
      for (let round = 1;; round++) {
        yield* Effect.sleep(millis)
        yield* task(round).pipe(Effect.catch((failure) => Effect.sync(() => troubles.push(`${minutes(elapsed()).toFixed(1)} min: ${failure.message}`))))
      }
    }))
  const shortLived: Array<string> = []
  yield* repeat(60_000, (round) =>
    Effect.gen(function*() {
      const outgoing = turningPool.slice(((round - 1) * 25) % turningPool.length).slice(0, 25)
      const incoming = turningPool.slice((turningWallets + (round - 1) * 25) % turningPool.length).slice(0, 25)
      yield* remove(turningStream, outgoing)
      yield* add(turningStream, incoming)
      const id = yield* create(steady.url)
      shortLived.push(id)
      yield* add(id, turningPool.slice((round * 7) % (turningPool.length - shortLivedWallets)).slice(0, shortLivedWallets))
      if (shortLived.length > 2) yield* service.api("DELETE", `/v1/streams/${shortLived.shift()!}`)
    }))
  yield* repeat(90_000, (round) => Effect.asVoid(sim.reorg("0x1", 1 + (round % 3))))
  let resumes = 0
  yield* repeat(30_000, () =>
    Effect.gen(function*() {
      const { streams } = yield* service.api<{ readonly streams: ReadonlyArray<StreamView> }>("GET", "/v1/streams?limit=1000")
      for (const stream of streams) {
        if (stream.status !== "error") continue
        yield* service.api("POST", `/v1/streams/${stream.id}/resume`)
        resumes++
      }
    }))
  let replays = 0
  yield* repeat(600_000, () =>
    Effect.andThen(
      service.api("POST", `/v1/streams/${failingStream}/replay`, { fromTime: new Date(Date.now() - 120_000).toISOString() }),
      Effect.sync(() => replays++)
    ))

  console.log(
    `soak-memory: serve and the CLI watcher for ${Duration.format(duration)}, a block every ${Duration.format(blockTime)}, ` +
      `memory read every ${Duration.format(sampleEvery)}, judged after ${Duration.format(warmup)} of warm-up (PostgreSQL: ${server.kind})` +
      (snapshots === undefined ? "" : `; heap snapshots in ${snapshots} (they take memory of their own: judge a run without them)`)
  )
  console.log(`  ${"minute".padStart(6)}${measured.map((process) => `${`${process.name} rss`.padStart(18)}${`${process.name} heap`.padStart(18)}`).join("")}${"blocks".padStart(9)}${"webhooks".padStart(10)}${"events".padStart(9)}${"cli events".padStart(12)}`)

  const firstBlock = sim.world.evm.chain("0x1").head
  const samples: Array<Sample> = []
  const take = Effect.gen(function*() {
    const heap: Array<number> = []
    const rss: Array<number> = []
    for (const process of measured) {
      heap.push(yield* liveHeap(process))
      rss.push(procStatus(process.pid, "VmRSS"))
    }
    const sample = { minute: minutes(elapsed()), rss, heap }
    samples.push(sample)
    console.log(
      `  ${sample.minute.toFixed(1).padStart(6)}${measured.map((_, i) => `${`${mib(rss[i]!)} MiB`.padStart(18)}${`${mib(heap[i]!)} MiB`.padStart(18)}`).join("")}` +
        `${String(sim.world.evm.chain("0x1").head - firstBlock).padStart(9)}${String(steady.requests() + failing.requests()).padStart(10)}` +
        `${String(steady.events() + failing.events()).padStart(9)}${String(cliEvents).padStart(12)}`
    )
    return sample
  })
  const snapshot = (label: string) =>
    snapshots === undefined ? Effect.void : inspecting(`a heap snapshot into ${snapshots}`, async () => {
      mkdirSync(snapshots, { recursive: true })
      for (const process of measured) await process.inspector.snapshot(path.join(snapshots, `${process.name.replace(/\W+/g, "-")}-${label}.heapsnapshot`))
    })

  // Read at 0, every --sample-every, at the end of warm-up and at the end.
  const end = Duration.toMillis(duration)
  const warmedAt = Duration.toMillis(warmup)
  const every = Duration.toMillis(sampleEvery)
  const times = [...new Set([...Array.from({ length: Math.floor(end / every) + 1 }, (_, i) => i * every), warmedAt, end])].toSorted((a, b) => a - b)
  // A first snapshot before the first reading: the live heap is a few MiB larger after the first
  // one (the profiler's own), which must not count as growth.
  let warmed: Sample | undefined
  const sampling = Effect.gen(function*() {
    yield* snapshot("start")
    for (const at of times) {
      yield* Effect.sleep(Math.max(0, at - elapsed()))
      const sample = yield* take
      if (at === warmedAt) {
        warmed = sample
        yield* snapshot("warm")
      }
    }
    yield* snapshot("end")
  })
  yield* Effect.raceFirst(sampling, processExited)
  const last = samples.at(-1)!
  const judged = samples.filter((sample) => sample.minute >= warmed!.minute)

  console.log("")
  console.log(`  after warm-up (minute ${warmed!.minute.toFixed(1)} to ${last.minute.toFixed(1)}):`)
  let met = true
  measured.forEach((process, i) => {
    const growth = (last.heap[i]! - warmed!.heap[i]!) / warmed!.heap[i]! * 100
    const at = judged.map((sample) => sample.minute / 60)
    const heapSlope = slope(at, judged.map((sample) => sample.heap[i]!))
    const rssSlope = slope(at, judged.map((sample) => sample.rss[i]!))
    const ok = growth <= maxGrowth
    met &&= ok
    console.log(
      `  ${process.name.padEnd(12)} live heap ${mib(warmed!.heap[i]!)} -> ${mib(last.heap[i]!)} MiB: ${growth >= 0 ? "+" : ""}${growth.toFixed(2)}% ` +
        `(goal <= ${maxGrowth}%: ${ok ? "met" : "NOT met"}); slope ${mib(heapSlope)} MiB/h live heap, ${mib(rssSlope)} MiB/h resident`
    )
  })
  console.log(
    `  ${steady.requests() + failing.requests()} webhooks (${failing.requests()} to the failing receiver), ${resumes} streams resumed from error, ` +
      `${replays} replays, ${cliEvents} events printed by the CLI, ${sim.world.evm.chain("0x1").head - firstBlock} blocks`
  )
  const warnings = service.warnings()
  console.log(`  serve logged ${warnings.length} warnings or errors${warnings.length > 0 ? `, the last: ${warnings.at(-1)!.slice(0, 300)}` : ""}`)
  console.log(`  ran in ${minutes(Date.now() - started).toFixed(1)} min`)
  if (troubles.length > 0) {
    return yield* new BenchFailure({ message: `${troubles.length} calls of the mix failed, so it did not run as planned:\n  ${troubles.slice(0, 10).join("\n  ")}` })
  }
  return met
})

// Exit codes: 0 the goal met, 1 not met, 2 a bad flag (above), 3 the run could not be measured
// (a process exited, the mix failed). Ctrl-C or SIGTERM stops the processes and drops the database.
NodeRuntime.runMain(
  Effect.scoped(program).pipe(
    Effect.provide(Simulator.layer({ seed: "watcher-soak-memory", wallets: pool, activityScale: 2, blockTime, indexing: false, chains: ["0x1"] }))
  ),
  {
    disableErrorReporting: true,
    teardown: (exit, onExit) => {
      if (Exit.isSuccess(exit)) return onExit(exit.value ? 0 : 1)
      const failure = exit.cause.reasons.find(Cause.isFailReason)
      if (failure === undefined && exit.cause.reasons.every(Cause.isInterruptReason)) {
        console.error("soak-memory: stopped")
        return onExit(130)
      }
      console.error(`soak-memory: ${failure === undefined ? Cause.pretty(exit.cause) : failure.error instanceof BenchFailure ? failure.error.message : String(failure.error)}`)
      onExit(3)
    }
  }
)
