/**
 * The stores over a fresh, migrated PostgreSQL database whose `now()` is the test's clock: the
 * service decides in SQL whether a delivery is due (`next_attempt_at <= now()`), by times it wrote
 * from the Effect clock, so a test that moves a `TestClock` moves the database's `now()` with it
 * (`setClock`). Only the time is controlled: the database, the stores and the SQL are the real ones.
 *
 * How: the database's `search_path` puts a schema with a `now()` function (reading a one-row table)
 * before `pg_catalog`, so that the service's unqualified `now()` calls read the test's time.
 */
import { NodeCrypto } from "@effect/platform-node"
import { PgClient } from "@effect/sql-pg"
import { Clock, DateTime, Duration, Effect, Layer, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { TestClock } from "effect/testing"
import { databaseUrlFor, freshDatabaseName } from "../../../watch/test/support/postgres.js"
import { DeliveryStore } from "../../src/store/DeliveryStore.js"
import { defaultRetrySchedule, ServiceConfig } from "../../src/model/ServiceConfig.js"
import * as ServiceMigrations from "../../src/store/ServiceMigrations.js"
import { StreamStore } from "../../src/store/StreamStore.js"
import { plainSecrets } from "./storeFixtures.js"

/** The real clock, for the connection pool (its connections expire by it). */
const liveClock = Layer.succeed(Clock.Clock, Clock.Clock.defaultValue())

/** A fresh database whose `now()` is `test_clock.clock.at`, set by {@link setClock}. */
const clockedDatabase: Layer.Layer<PgClient.PgClient | SqlClient.SqlClient, unknown> = Layer.unwrap(
  Effect.gen(function*() {
    const name = yield* freshDatabaseName
    const url = Redacted.make(databaseUrlFor(name))
    yield* Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* sql.unsafe("CREATE SCHEMA test_clock")
      yield* sql.unsafe("CREATE TABLE test_clock.clock (at timestamptz NOT NULL)")
      yield* sql.unsafe("INSERT INTO test_clock.clock VALUES (pg_catalog.now())")
      yield* sql.unsafe("CREATE FUNCTION test_clock.now() RETURNS timestamptz LANGUAGE sql STABLE AS 'SELECT at FROM test_clock.clock'")
      yield* sql.unsafe(`ALTER DATABASE ${name} SET search_path = public, test_clock, pg_catalog`)
    }).pipe(Effect.provide(PgClient.layer({ url })))
    return PgClient.layer({ url })
  })
).pipe(Layer.provide(liveClock))

/** The delivery loop's settings in these tests: the defaults of `serve` unless told. */
export const config = (settings: Partial<ServiceConfig["Service"]> = {}): ServiceConfig["Service"] => ({
  apiToken: Redacted.make("a-long-random-token"),
  allowPrivateWebhooks: true,
  retrySchedule: defaultRetrySchedule,
  deliveryTimeout: Duration.seconds(20),
  minSuccessRate: 0.7,
  interval: Duration.seconds(15),
  heartbeat: Duration.seconds(300),
  ...settings
})

/** What the delivery loop needs, over a clocked database: the stores, the settings given and HMAC. */
export const loopLayer = (settings: Partial<ServiceConfig["Service"]> = {}) =>
  Layer.mergeAll(StreamStore.layer, DeliveryStore.layer, Layer.succeed(ServiceConfig, config(settings)), NodeCrypto.layerMac).pipe(
    Layer.provide(plainSecrets),
    Layer.provideMerge(Layer.effectDiscard(ServiceMigrations.run).pipe(Layer.provideMerge(clockedDatabase)))
  )

/** Sets the test's clock, and the database's `now()`, to `at`. */
export const setClock = (at: DateTime.Utc) =>
  Effect.gen(function*() {
    yield* TestClock.setTime(DateTime.toEpochMillis(at))
    const sql = yield* SqlClient.SqlClient
    yield* sql`UPDATE test_clock.clock SET at = ${DateTime.formatIso(at)}::timestamptz`
  })
