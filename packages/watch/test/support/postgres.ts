/**
 * A fresh PostgreSQL database per use, on the server of the test run (see `postgresSetup.ts`):
 * created with a random name, reached through `@effect/sql-pg`, and dropped when the layer is
 * released, so test files never see each other's tables.
 */
import { PgClient } from "@effect/sql-pg"
import { Clock, Effect, Layer, Redacted } from "effect"
import type { SqlClient } from "effect/sql"
import { randomBytes } from "node:crypto"
import { inject } from "vitest"

declare module "vitest" {
  export interface ProvidedContext {
    /** The URL of the PostgreSQL server of this run (its `postgres` database), see `postgresSetup.ts`. */
    readonly databaseUrl: DatabaseUrl
  }
}

/** A PostgreSQL URL, `postgres://user:password@host:port/database`. */
export type DatabaseUrl = string

/** The URL of the run's server with another database. */
export const databaseUrlFor = (database: string): string => {
  const url = new URL(inject("databaseUrl"))
  url.pathname = `/${database}`
  return url.toString()
}

/** A client of the run's server's `postgres` database, for CREATE and DROP DATABASE. */
const admin = Layer.unwrap(Effect.sync(() => PgClient.layer({ url: Redacted.make(inject("databaseUrl")) })))

/** The strategy clause of CREATE DATABASE, read from the server once per test file. */
let strategy: string | undefined

/**
 * PostgreSQL 15 and later copy the template through the WAL by default; copying its files is
 * faster for a template this small (a DATABASE_URL of an older server knows one way only).
 */
const strategyOf = (sql: PgClient.PgClient) =>
  strategy !== undefined ? Effect.succeed(strategy) : sql<{ version: number }>`SELECT current_setting('server_version_num')::int AS version`.pipe(
    Effect.map(([server]) => (server?.version ?? 0) >= 150_000 ? " STRATEGY = FILE_COPY" : ""),
    Effect.tap((clause) => Effect.sync(() => { strategy = clause }))
  )

/** Creates a database with a fresh name; drops it (closing what is still connected) when the scope closes. */
export const freshDatabaseName = Effect.acquireRelease(
  Effect.gen(function*() {
    const sql = yield* PgClient.PgClient
    const name = `chainquery_test_${randomBytes(6).toString("hex")}`
    yield* sql.unsafe(`CREATE DATABASE ${name}${yield* strategyOf(sql)}`)
    return name
  }).pipe(Effect.provide(admin)),
  (name) => Effect.ignore(Effect.provide(Effect.flatMap(PgClient.PgClient, (sql) => sql.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)), admin))
)

/**
 * The real clock, for the connection pool: its connections expire by it, and a test that moves a
 * `TestClock` years ahead would otherwise expire them under a running query.
 */
const liveClock = Layer.succeed(Clock.Clock, Clock.Clock.defaultValue())

/** A `SqlClient` (and `PgClient`) on a fresh database, dropped when the layer is released. */
export const freshDatabase: Layer.Layer<PgClient.PgClient | SqlClient.SqlClient, unknown> = Layer.unwrap(
  Effect.map(freshDatabaseName, (name) => PgClient.layer({ url: Redacted.make(databaseUrlFor(name)) }))
).pipe(Layer.provide(liveClock))
