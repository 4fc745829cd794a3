/**
 * The service on `effect/cluster`: each scope's scanner is a cluster singleton
 * (`scanner/<scope>`), each stream's delivery is an entity (`StreamDelivery`, keyed by stream id)
 * that delivers the stream's due webhooks one at a time whenever it is woken, and a singleton
 * sweeper wakes the streams whose deliveries are due (retries, and whatever a restart left). The
 * cluster's state lives in the same PostgreSQL. One runner runs it all (`SingleRunner`), or
 * several share it (`NodeClusterSocket`, runners reaching each other over TCP): the singletons
 * and entities spread over the runners and move to the others when one stops or dies.
 *
 * @since 0.2.0
 */
import type { EvmClient } from "@chainquery/evm-client"
import { NodeClusterSocket } from "@effect/platform-node"
import { Cause, Data, Duration, Effect, Layer, Option, Schedule } from "effect"
import { EntityId, RunnerAddress, Sharding, ShardId, ShardingConfig, SingleRunner, Singleton } from "effect/cluster"
import { Digest } from "effect/crypto"
import { SqlClient } from "effect/sql"
import { lookup } from "node:dns/promises"
import { isIP } from "node:net"
import { DeliverySlots } from "../delivery/DeliverySlots.js"
import { DeliveryStore } from "../store/DeliveryStore.js"
import type { KeyRefusal } from "../scan/KeyRefusal.js"
import * as HistoryScan from "../scan/HistoryScan.js"
import * as Scanner from "../scan/Scanner.js"
import { ScanSignals } from "../scan/ScanSignals.js"
import * as HistoryStore from "../store/HistoryStore.js"
import * as Scopes from "../model/Scopes.js"
import { ServiceConfig } from "../model/ServiceConfig.js"
import { DeliveryWake, entityLayer, wakeLayer } from "../delivery/DeliveryWake.js"
import * as Heartbeats from "../delivery/Heartbeats.js"
import { recordBacklog, recordHistory, recordProgress, reportProcessMemory } from "../delivery/ServiceMetrics.js"
import type { StreamStore } from "../store/StreamStore.js"

export {
  /**
   * The entity of a stream's delivery (declared with the wake, in `DeliveryWake`).
   *
   * @since 0.2.0
   */
  StreamDelivery,
  /**
   * The entity's one message (see `DeliveryWake`).
   *
   * @since 0.2.0
   */
  Wake,
  /**
   * The wake, a message to the stream's entity (see `DeliveryWake`).
   *
   * @since 0.2.0
   */
  wakeLayer
} from "../delivery/DeliveryWake.js"

/** Every interval: wakes the active streams with a delivery due, and makes the heartbeats due. */
const sweeper = Singleton.make(
  "delivery-sweeper",
  Effect.gen(function*() {
    const store = yield* DeliveryStore
    const waker = yield* DeliveryWake
    const config = yield* ServiceConfig
    while (true) {
      yield* store.due.pipe(
        Effect.flatMap((ids) => Effect.forEach(ids, waker.wake, { discard: true })),
        Effect.catchCause((cause) => Effect.logWarning(`delivery sweeper: ${Cause.pretty(cause)}`))
      )
      // After the due deliveries are woken: a round of heartbeats never delays a retry.
      yield* Heartbeats.makeDue(config.heartbeat).pipe(
        Effect.flatMap((ids) => Effect.forEach(ids, waker.wake, { discard: true })),
        Effect.catchCause((cause) => Effect.logWarning(`heartbeats: ${Cause.pretty(cause)}`))
      )
      yield* Effect.sleep(config.interval)
    }
  })
)

/**
 * On every runner: its own memory (read when the metrics are), and every interval the outbox's
 * backlog and the receivers' progress, read from the database, so that each runner's `/metrics`
 * tells the same, wherever the streams are delivered.
 */
const gauges = Layer.effectDiscard(
  Effect.gen(function*() {
    const store = yield* DeliveryStore
    const config = yield* ServiceConfig
    yield* reportProcessMemory
    yield* Effect.flatMap(store.backlog, recordBacklog).pipe(
      Effect.andThen(Effect.flatMap(store.progress, recordProgress)),
      Effect.andThen(Effect.flatMap(HistoryStore.allOpen, (open) => recordHistory(open.map((job) => ({ ...job, left: job.upTo - job.through }))))),
      Effect.catchCause((cause) => Effect.logWarning(`service metrics: ${Cause.pretty(cause)}`)),
      Effect.repeat(Schedule.spaced(config.interval)),
      Effect.forkScoped
    )
  })
)

/** One scanner singleton per scope, and one history reader, looking at the runner's `ScanSignals`. */
const scanners = Layer.mergeAll(
  Layer.empty,
  ...Scopes.all.map((scope) => Singleton.make(`scanner/${scope}`, Scanner.run(scope))),
  ...Scopes.all.map((scope) => Singleton.make(`history/${scope}`, HistoryScan.run(scope)))
).pipe(Layer.provide(ScanSignals.layer))

/**
 * How a runner joins a cluster: the address the others reach it at (and the one it listens on,
 * when not that), how long a runner that stopped answering keeps its shards, how often the locks
 * are renewed, and how the others are told alive (`ping` over the runners' connections, or `k8s`:
 * the pod's readiness).
 *
 * @example
 * ```ts
 * import { Duration } from "effect"
 * import type { ServiceCluster } from "@chainquery/watch-service"
 *
 * const runner: ServiceCluster.ClusterOptions = {
 *   runnerAddress: { host: "10.0.0.5", port: 34431 },
 *   listenAddress: undefined,
 *   shardLockExpiration: Duration.seconds(30),
 *   shardLockRefresh: Duration.seconds(10),
 *   health: { _tag: "ping" }
 * }
 * ```
 * @since 0.4.0
 */
export interface ClusterOptions {
  readonly runnerAddress: { readonly host: string; readonly port: number }
  /** Where the runner listens for the others; `undefined`: at {@link ClusterOptions.runnerAddress}. */
  readonly listenAddress: { readonly host: string; readonly port: number } | undefined
  readonly shardLockExpiration: Duration.Duration
  readonly shardLockRefresh: Duration.Duration
  readonly health:
    | { readonly _tag: "ping" }
    | { readonly _tag: "k8s"; readonly namespace: string; readonly labelSelector: string | undefined }
}

/**
 * Whether this runner serves: the cluster is up and, for a single runner, it holds the shards
 * (what `/readyz` reports with the migrations done). A runner of a cluster serves the API as soon
 * as it runs, whichever shards it holds.
 *
 * @example
 * ```ts
 * import { ServiceCluster } from "@chainquery/watch-service"
 *
 * const ready = ServiceCluster.isReady(false)
 * ```
 * @since 0.2.0
 */
export const isReady = (clustered: boolean): Effect.Effect<boolean, never, Sharding.Sharding> =>
  Effect.gen(function*() {
    const sharding = yield* Sharding.Sharding
    if (yield* sharding.isShutdown) return false
    return clustered || sharding.hasShardId(ShardId.make("default", sharding.getShardId(EntityId.make("readiness"), "default").id))
  })

/**
 * Settings of every runner: every one pinned (the library's defaults, then ours), so that no
 * environment variable the cluster would read (`SHARDS_PER_GROUP`, `HOST`, ...) makes one runner
 * disagree with the others; messages to entities are looked for every second.
 */
const common = { ...ShardingConfig.defaults, entityMessagePollInterval: Duration.seconds(1) }

/** The name of a single runner (it listens nowhere: the address only names it). */
const singleAddress = RunnerAddress.make("localhost", 34431)

/**
 * A runner started without `--cluster` on a database that runners of a cluster serve: it would
 * take a share of their shards without reaching them.
 *
 * @example
 * ```ts
 * import { ServiceCluster } from "@chainquery/watch-service"
 *
 * const error = new ServiceCluster.ClusterDatabase({ runners: ["10.0.0.5:34431"] })
 * ```
 * @since 0.4.0
 */
export class ClusterDatabase extends Data.TaggedError("ClusterDatabase")<{ readonly runners: ReadonlyArray<string> }> {
  override get message(): string {
    return `runners of a cluster serve this database (${this.runners.join(", ")}): start this one with --cluster as well, or give it a database of its own ` +
      "(runners that were killed count for a minute)"
  }
}

/** Fails with {@link ClusterDatabase} when a runner other than a single one heartbeated in the last minute. */
const refuseClusterDatabase = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const [table] = yield* sql<{ found: boolean }>`SELECT to_regclass('cluster_runners') IS NOT NULL AS found`
  if (table?.found !== true) return
  const rows = yield* sql<{ address: string }>`
    SELECT address FROM cluster_runners
    WHERE address <> ${`${singleAddress.host}:${singleAddress.port}`} AND last_heartbeat > now() - interval '1 minute'`
  if (rows.length > 0) return yield* new ClusterDatabase({ runners: rows.map((row) => row.address) })
})

/** One runner on its own: it listens nowhere, and holds every shard. */
const singleRunner = Layer.unwrap(Effect.as(
  refuseClusterDatabase,
  SingleRunner.layer({ runnerStorage: "sql", shardingConfig: { ...common, runnerAddress: Option.some(singleAddress) } }).pipe(
    Layer.provide(Digest.layerWebCrypto)
  )
))

/**
 * A runner of a cluster: it listens for the others on TCP, registers in the database, and takes
 * its share of the shards. The others are checked alive every lock refresh, so that a runner that
 * died hands its work over without waiting for its locks to expire when the others can tell.
 */
const clusterRunner = (options: ClusterOptions) =>
  Layer.effectDiscard(logRunnerListen(options.listenAddress ?? options.runnerAddress)).pipe(Layer.provideMerge(socketRunner(options)))

/** An address as written on the command line: `host:port`, an IPv6 host in brackets. */
const hostPort = (address: { readonly host: string; readonly port: number }): string =>
  `${address.host.includes(":") ? `[${address.host}]` : address.host}:${address.port}`

/**
 * One line at start-up: where the runners' port listens (a host name as it resolves here, as the
 * socket resolves it); a warning instead when a host name resolves to a loopback address (no
 * other machine can reach it).
 */
const logRunnerListen = (address: { readonly host: string; readonly port: number }) =>
  Effect.gen(function*() {
    const resolved = isIP(address.host) === 0
      ? yield* Effect.promise(() => lookup(address.host).then((found) => found.address, () => undefined))
      : address.host
    const where = `${hostPort(address)}${resolved === undefined || resolved === address.host ? "" : ` (${resolved})`}`
    // A name (this host's, by default) that resolves to loopback here was not meant so; an address written as such was.
    const loopback = resolved !== undefined && resolved !== address.host && address.host !== "localhost" &&
      (resolved.startsWith("127.") || resolved === "::1")
    if (loopback) {
      yield* Effect.logWarning(
        `the runners' port listens on ${where}, a loopback address: other machines' runners cannot reach this one; ` +
          "give --runner-address (where they reach it) or --runner-listen-address"
      )
    } else {
      yield* Effect.logInfo(`the runners' port listens on ${where} (not authenticated: keep it on a private network)`)
    }
  })

/** The runner's socket, its storage and its health checks. */
const socketRunner = (options: ClusterOptions) =>
  NodeClusterSocket.layer({
    storage: "sql",
    runnerHealth: options.health._tag,
    ...(options.health._tag === "k8s"
      ? { runnerHealthK8s: { namespace: options.health.namespace, labelSelector: options.health.labelSelector } }
      : {}),
    shardingConfig: {
      ...common,
      runnerAddress: Option.some(RunnerAddress.make(options.runnerAddress.host, options.runnerAddress.port)),
      runnerListenAddress: options.listenAddress === undefined
        ? Option.none()
        : Option.some(RunnerAddress.make(options.listenAddress.host, options.listenAddress.port)),
      shardLockExpiration: options.shardLockExpiration,
      shardLockRefreshInterval: options.shardLockRefresh,
      runnerHealthCheckInterval: options.shardLockRefresh,
      refreshAssignmentsInterval: Duration.min(Duration.seconds(3), options.shardLockRefresh)
    }
  })

/**
 * The cluster over the context's PostgreSQL (`SqlClient`): its own tables (`cluster_*`), the
 * stream entities, the scanners, the sweeper and the service's gauges. `undefined`: one runner
 * that holds everything; else a runner of the cluster of every runner on that database.
 *
 * @example
 * ```ts
 * import { ServiceCluster } from "@chainquery/watch-service"
 *
 * const alone = ServiceCluster.layer(undefined)
 * ```
 * @since 0.2.0
 */
export const layer = (cluster: ClusterOptions | undefined): Layer.Layer<
  Sharding.Sharding | DeliveryWake,
  unknown,
  SqlClient.SqlClient | StreamStore | DeliveryStore | ServiceConfig | DeliverySlots | KeyRefusal | EvmClient.EvmClient
> =>
{
  const runner: Layer.Layer<Sharding.Sharding, unknown, SqlClient.SqlClient> = cluster === undefined ? singleRunner : clusterRunner(cluster)
  return Layer.mergeAll(entityLayer, sweeper, scanners, gauges).pipe(Layer.provideMerge(wakeLayer), Layer.provideMerge(runner))
}
