/**
 * `chainquery-watcher serve` put together: the database (given, or embedded), the service's
 * migrations, the stores, the clients of the service it reads, the cluster (scanners, stream
 * deliveries, sweeper), the HTTP server, logs (pretty or JSON, on stderr) and, when asked, OTLP.
 * It runs until interrupted (SIGINT, SIGTERM), then stops in order: the HTTP server, the cluster,
 * the database.
 *
 * @since 0.2.0
 */
import { NodeCrypto } from "@effect/platform-node"
import { createHash } from "node:crypto"
import { PgClient } from "@effect/sql-pg"
import { Duration, Effect, Layer, Logger, Option, type Redacted } from "effect"
import { Sharding } from "effect/cluster"
import { FetchHttpClient } from "effect/http"
import { Otlp } from "effect/observability"
import { type ClientOptions, clientLayers } from "../internal/clients.js"
import * as DeliverySlots from "./DeliverySlots.js"
import { DeliveryStore } from "./DeliveryStore.js"
import * as EmbeddedDatabase from "./EmbeddedDatabase.js"
import type { HttpLimits } from "./HttpLimits.js"
import * as KeyRefusal from "./KeyRefusal.js"
import { Readiness } from "./Readiness.js"
import * as ServiceCluster from "./ServiceCluster.js"
import { ServiceConfig } from "./ServiceConfig.js"
import * as ServiceHttp from "./ServiceHttp.js"
import * as ServiceMigrations from "./ServiceMigrations.js"
import { StreamSecrets } from "./StreamSecrets.js"
import { StreamStore } from "./StreamStore.js"

/**
 * Everything `serve` is run with (the flags, checked).
 *
 * @example
 * ```ts
 * import type { ServiceMain } from "@chainquery/watcher"
 *
 * const local = (options: ServiceMain.ServeOptions) => options.host === "127.0.0.1"
 * ```
 * @since 0.2.0
 */
export interface ServeOptions extends ClientOptions {
  readonly host: string
  readonly port: number
  readonly apiToken: Redacted.Redacted<string>
  /** The PostgreSQL to use; `undefined`: an embedded one in `dataDir`. */
  readonly databaseUrl: Redacted.Redacted<string> | undefined
  readonly dataDir: string
  readonly allowPrivateWebhooks: boolean
  readonly retrySchedule: ReadonlyArray<Duration.Duration>
  readonly deliveryTimeout: Duration.Duration
  /** How many webhook requests this runner has in flight at once. */
  readonly deliveryConcurrency: number
  readonly minSuccessRate: number
  readonly interval: Duration.Duration
  /** A batch with no events goes out when none did for this long (`0`: never). */
  readonly heartbeat: Duration.Duration
  readonly logFormat: "pretty" | "json"
  readonly otlpUrl: string | undefined
  /** How this runner joins a cluster of runners on the same database; `undefined`: it runs alone. */
  readonly cluster: ServiceCluster.ClusterOptions | undefined
  /** The key the streams' secrets are encrypted with at rest (32 bytes); `undefined`: stored as they are. */
  readonly secretsKey: Redacted.Redacted<Uint8Array> | undefined
  /** The HTTP server's timeouts and its most connections at once. */
  readonly httpLimits: HttpLimits
}

/**
 * How a runner names itself in its requests' `User-Agent`: the first 12 hex digits of the SHA-256
 * of its address (`HOST:PORT`), so that the service it reads can tell runners apart without
 * learning their addresses.
 *
 * @example
 * ```ts
 * import { ServiceMain } from "@chainquery/watcher"
 *
 * ServiceMain.runnerTag({ host: "10.0.0.5", port: 34431 }) // 12 hex digits
 * ```
 * @since 0.4.0
 */
export const runnerTag = (address: { readonly host: string; readonly port: number }): string =>
  createHash("sha256").update(`${address.host}:${address.port}`).digest("hex").slice(0, 12)

/** The database: the one given, or an embedded one. */
const database = (options: ServeOptions) =>
  options.databaseUrl === undefined
    ? EmbeddedDatabase.layer(options.dataDir)
    : PgClient.layer({ url: options.databaseUrl })

/** Logs on stderr, pretty or one JSON object per line. */
const logs = (format: ServeOptions["logFormat"]) =>
  format === "json"
    ? Logger.layer([Logger.withConsoleError(Logger.formatJson)])
    : Layer.succeed(Logger.LogToStderr, true)

/** Traces, metrics and logs over OTLP when a collector is given (logs to stderr as well). */
const telemetry = (options: ServeOptions) =>
  options.otlpUrl === undefined
    ? logs(options.logFormat)
    : Otlp.layerJson({ baseUrl: options.otlpUrl, resource: { serviceName: "chainquery-watcher" } }).pipe(
      Layer.provide(FetchHttpClient.layer),
      Layer.provide(logs(options.logFormat))
    )

/** The streams' secrets made ready (see `StreamSecrets.prepare`), saying how many it encrypted. */
const secretsPrepared = Effect.gen(function*() {
  const secrets = yield* StreamSecrets
  const sealed = yield* secrets.prepare
  if (sealed > 0) yield* Effect.logInfo(`encrypted ${sealed} stream secret${sealed === 1 ? "" : "s"} at rest`)
})

/**
 * The whole service as one layer: built, it serves; released, it stops.
 *
 * @example
 * ```ts
 * import { Layer } from "effect"
 * import { ServiceMain } from "@chainquery/watcher"
 *
 * declare const options: ServiceMain.ServeOptions
 * const running = Layer.launch(ServiceMain.layer(options))
 * ```
 * @since 0.2.0
 */
export const layer = (options: ServeOptions) => {
  const config = Layer.succeed(ServiceConfig, {
    apiToken: options.apiToken,
    allowPrivateWebhooks: options.allowPrivateWebhooks,
    retrySchedule: options.retrySchedule,
    deliveryTimeout: options.deliveryTimeout,
    minSuccessRate: options.minSuccessRate,
    interval: options.interval,
    heartbeat: options.heartbeat
  })
  const migrated = Layer.effectDiscard(ServiceMigrations.run).pipe(Layer.provideMerge(database(options)))
  // The key is checked against the database's, and its plain secrets encrypted, before anything reads them.
  const secrets = Layer.effectDiscard(secretsPrepared).pipe(
    Layer.provideMerge(StreamSecrets.layer(options.secretsKey)),
    Layer.provide(Layer.merge(NodeCrypto.layerAead, NodeCrypto.layerSecureRandom)),
    Layer.provideMerge(migrated)
  )
  const stores = Layer.mergeAll(StreamStore.layer, DeliveryStore.layer).pipe(Layer.provideMerge(secrets))
  // One record of a refused API key, shared by the scanners and `/readyz`.
  const keyRefusal = KeyRefusal.KeyRefusal.layer
  const readiness = Layer.effect(
    Readiness,
    Effect.gen(function*() {
      const sharding = yield* Sharding.Sharding
      const keys = yield* KeyRefusal.KeyRefusal
      const refusal = Effect.map(keys.reason, Option.getOrUndefined)
      const running = Effect.provideService(ServiceCluster.isReady(options.cluster !== undefined), Sharding.Sharding, sharding)
      return {
        ready: Effect.flatMap(refusal, (refused) => refused === undefined ? running : Effect.succeed(false)),
        reason: Effect.map(refusal, (refused) => refused === undefined ? undefined : KeyRefusal.notReady(refused))
      }
    })
  ).pipe(Layer.provide(keyRefusal))
  // A runner of a cluster says which in its requests' User-Agent (by a digest of its address, which
  // stays private): the service it reads can tell them apart.
  const runner = options.cluster?.runnerAddress
  const clients = clientLayers(
    runner === undefined ? options : { ...options, userAgent: `(runner ${runnerTag(runner)})` },
    { mainnet: true, testnet: true }
  )
  const cluster = ServiceCluster.layer(options.cluster).pipe(
    Layer.provide(clients),
    Layer.provide(NodeCrypto.layerMac),
    Layer.provide(DeliverySlots.layer(options.deliveryConcurrency)),
    Layer.provide(keyRefusal),
    Layer.provideMerge(stores),
    Layer.provideMerge(config)
  )
  // The key checked once at start, in the background (a refused one makes /readyz say so).
  const keyProbe = Layer.effectDiscard(Effect.forkScoped(KeyRefusal.probe)).pipe(Layer.provide(Layer.mergeAll(keyRefusal, clients)))
  return ServiceHttp.serve({ host: options.host, port: options.port, limits: options.httpLimits }).pipe(
    Layer.provide(Layer.mergeAll(readiness, keyProbe, NodeCrypto.layerSecureRandom, clients)),
    Layer.provide(cluster),
    Layer.provide(telemetry(options))
  )
}

/**
 * Runs the service until it is interrupted.
 *
 * @example
 * ```ts
 * import { ServiceMain } from "@chainquery/watcher"
 *
 * declare const options: ServiceMain.ServeOptions
 * const forever = ServiceMain.run(options)
 * ```
 * @since 0.2.0
 */
export const run = (options: ServeOptions): Effect.Effect<never, unknown> => Layer.launch(layer(options))
