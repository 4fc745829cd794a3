/**
 * `chainquery-watcher serve` put together: the database (given, or embedded), the service's
 * migrations, the stores, the cluster (scanners, stream deliveries, sweeper), the HTTP server, logs
 * (pretty or JSON, on stderr) and, when asked, OTLP. The clients of the service it reads (the EVM
 * client, and the Aptos clients, read when provided) come from the caller, configured as it likes.
 * It runs until interrupted (SIGINT, SIGTERM), then stops in order: the HTTP server, the cluster,
 * the database.
 *
 * @since 0.2.0
 */
import { NodeCrypto } from "@effect/platform-node"
import { createHash } from "node:crypto"
import type { EvmClient } from "@chainquery/evm-client"
import { PgClient } from "@effect/sql-pg"
import { Duration, Effect, Layer, Logger, Option, type Redacted } from "effect"
import { Sharding } from "effect/cluster"
import { FetchHttpClient } from "effect/http"
import { Otlp } from "effect/observability"
import * as DeliverySlots from "../delivery/DeliverySlots.js"
import { DeliveryStore } from "../store/DeliveryStore.js"
import * as EmbeddedDatabase from "../store/EmbeddedDatabase.js"
import type { HttpLimits } from "../api/HttpLimits.js"
import * as KeyRefusal from "../scan/KeyRefusal.js"
import { Readiness } from "../api/Readiness.js"
import * as ServiceCluster from "./ServiceCluster.js"
import { ServiceConfig } from "../model/ServiceConfig.js"
import * as ServiceHttp from "../api/ServiceHttp.js"
import * as ServiceMigrations from "../store/ServiceMigrations.js"
import { StreamSecrets } from "../store/StreamSecrets.js"
import { StreamStore } from "../store/StreamStore.js"

/**
 * Everything `serve` is run with (the flags, checked).
 *
 * @example
 * ```ts
 * import type { ServiceMain } from "@chainquery/watch-service"
 *
 * const local = (options: ServiceMain.ServeOptions) => options.host === "127.0.0.1"
 * ```
 * @since 0.2.0
 */
export interface ServeOptions {
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
  /** More routes served beside the API, on its port (`@chainquery/console`'s console); none when absent. */
  readonly routes?: ServiceHttp.Routes | undefined
}

/**
 * How a runner names itself in its requests' `User-Agent`: the first 12 hex digits of the SHA-256
 * of its address (`HOST:PORT`), so that the service it reads can tell runners apart without
 * learning their addresses.
 *
 * @example
 * ```ts
 * import { ServiceMain } from "@chainquery/watch-service"
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
 * The whole service as one layer: built, it serves; released, it stops. `clients` are the clients
 * of the service it reads: the EVM client, and the Aptos clients of the networks to watch (read
 * when provided), built once and shared by the scanners, the API and the key's probe.
 *
 * @example
 * ```ts
 * import { EvmClient } from "@chainquery/evm-client"
 * import { Layer, Redacted } from "effect"
 * import { ServiceMain } from "@chainquery/watch-service"
 *
 * declare const options: ServiceMain.ServeOptions
 * const clients = EvmClient.layer({ apiKey: Redacted.make(process.env["MORALIS_API_KEY"] ?? "") })
 * const running = Layer.launch(ServiceMain.layer(options, clients))
 * ```
 * @since 0.2.0
 */
export const layer = <E>(options: ServeOptions, clients: Layer.Layer<EvmClient.EvmClient, E>) => {
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
  const cluster = ServiceCluster.layer(options.cluster).pipe(
    Layer.provide(clients),
    Layer.provide(DeliverySlots.layer(options.deliveryConcurrency)),
    Layer.provide(keyRefusal),
    Layer.provideMerge(stores),
    Layer.provideMerge(config)
  )
  // The key checked once at start, in the background (a refused one makes /readyz say so).
  const keyProbe = Layer.effectDiscard(Effect.forkScoped(KeyRefusal.probe)).pipe(Layer.provide(Layer.mergeAll(keyRefusal, clients)))
  return ServiceHttp.serve({ host: options.host, port: options.port, limits: options.httpLimits, routes: options.routes }).pipe(
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
 * import type { EvmClient } from "@chainquery/evm-client"
 * import type { Layer } from "effect"
 * import { ServiceMain } from "@chainquery/watch-service"
 *
 * declare const options: ServiceMain.ServeOptions
 * declare const clients: Layer.Layer<EvmClient.EvmClient>
 * const forever = ServiceMain.run(options, clients)
 * ```
 * @since 0.2.0
 */
export const run = <E>(options: ServeOptions, clients: Layer.Layer<EvmClient.EvmClient, E>): Effect.Effect<never, unknown> =>
  Layer.launch(layer(options, clients))
