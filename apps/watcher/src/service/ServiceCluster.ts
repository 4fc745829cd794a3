/**
 * The service on `effect/cluster`: each scope's scanner is a cluster singleton
 * (`scanner/<scope>`), each stream's delivery is an entity (`StreamDelivery`, keyed by stream id)
 * that delivers the stream's due webhooks one at a time whenever it is woken, and a singleton
 * sweeper wakes the streams whose deliveries are due (retries, and whatever a restart left). The
 * cluster's state lives in the same PostgreSQL; a single runner runs it all (`SingleRunner`), and
 * nothing here assumes there is only one.
 *
 * @since 0.2.0
 */
import type { EvmClient } from "@chainquery/evm-client"
import { Cause, Effect, Layer, Metric, Option } from "effect"
import { ClusterSchema, Entity, EntityId, RunnerAddress, Sharding, ShardId, SingleRunner, Singleton } from "effect/cluster"
import { Digest, type Mac } from "effect/crypto"
import { Rpc } from "effect/rpc"
import type { SqlClient } from "effect/sql"
import { DeliveryStore } from "./DeliveryStore.js"
import { deliverDue } from "./DeliveryWorker.js"
import * as Scanner from "./Scanner.js"
import * as Scopes from "./Scopes.js"
import { DeliveryWake, ServiceConfig } from "./ServiceConfig.js"
import * as Heartbeats from "./Heartbeats.js"
import { recordBacklog, recordProgress } from "./ServiceMetrics.js"
import type { StreamStore } from "./StreamStore.js"

/**
 * Delivers the stream's due webhooks (the entity's id is the stream id). Not persisted: a wake
 * lost in a crash costs nothing, the sweeper wakes the stream again.
 *
 * @example
 * ```ts
 * import { ServiceCluster } from "@chainquery/watcher"
 *
 * const rpc = ServiceCluster.Wake
 * ```
 * @since 0.2.0
 */
export const Wake = Rpc.make("Wake").annotate(ClusterSchema.InterruptOnTermination, true)

/**
 * The entity of a stream's delivery.
 *
 * @example
 * ```ts
 * import { ServiceCluster } from "@chainquery/watcher"
 *
 * const type = ServiceCluster.StreamDelivery.type // "StreamDelivery"
 * ```
 * @since 0.2.0
 */
export const StreamDelivery = Entity.make("StreamDelivery", [Wake])

/** The entity's behaviour: a wake drains the stream's due deliveries (messages to one stream run one at a time). */
const deliveries = StreamDelivery.toLayer(
  Effect.gen(function*() {
    const address = yield* Entity.CurrentAddress
    const streamId = address.entityId
    return StreamDelivery.of({
      Wake: () =>
        deliverDue(streamId).pipe(
          Effect.catchCause((cause) =>
            Cause.hasInterruptsOnly(cause) ? Effect.interrupt : Effect.logError(`stream ${streamId}: delivery failed (${Cause.pretty(cause)}); the sweeper tries again`)
          ),
          // Whoever woke it (a scan, the sweeper, the API), its metrics are the service's.
          Effect.provideService(Metric.CurrentMetricAttributes, {})
        )
    })
  }),
  { maxIdleTime: "1 minute", disableFatalDefects: true }
)

/**
 * Wakes a stream's entity, without waiting for it: what the scanners, the API and the sweeper use.
 *
 * @example
 * ```ts
 * import { ServiceCluster } from "@chainquery/watcher"
 *
 * const wake = ServiceCluster.wakeLayer
 * ```
 * @since 0.2.0
 */
export const wakeLayer: Layer.Layer<DeliveryWake, never, Sharding.Sharding> = Layer.effect(
  DeliveryWake,
  Effect.gen(function*() {
    const client = yield* StreamDelivery.client
    return {
      wake: (streamId: string) =>
        client(streamId).Wake(undefined, { discard: true }).pipe(
          Effect.catchCause((cause) => Effect.logWarning(`stream ${streamId}: could not be woken (${Cause.pretty(cause)}); the sweeper will`))
        )
    }
  })
)

/**
 * Every interval: wakes the active streams with a delivery due, makes the heartbeats due, and
 * records the outbox's backlog and the receivers' progress.
 */
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
      yield* Effect.flatMap(store.backlog, recordBacklog).pipe(
        Effect.andThen(Effect.flatMap(store.progress, recordProgress)),
        Effect.catchCause((cause) => Effect.logWarning(`delivery sweeper: ${Cause.pretty(cause)}`))
      )
      yield* Effect.sleep(config.interval)
    }
  })
)

/** One scanner singleton per scope. */
const scanners = Layer.mergeAll(Layer.empty, ...Scopes.all.map((scope) => Singleton.make(`scanner/${scope}`, Scanner.run(scope))))

/**
 * Whether the cluster is up and this runner holds the shards (what `/readyz` reports with the
 * migrations done).
 *
 * @example
 * ```ts
 * import { ServiceCluster } from "@chainquery/watcher"
 *
 * const ready = ServiceCluster.isReady
 * ```
 * @since 0.2.0
 */
export const isReady: Effect.Effect<boolean, never, Sharding.Sharding> = Effect.gen(function*() {
  const sharding = yield* Sharding.Sharding
  if (yield* sharding.isShutdown) return false
  return sharding.hasShardId(ShardId.make("default", sharding.getShardId(EntityId.make("readiness"), "default").id))
})

/**
 * The cluster in one runner, over the context's PostgreSQL (`SqlClient`): its own tables
 * (`cluster_*`), the stream entities, the scanners and the sweeper.
 *
 * @example
 * ```ts
 * import { ServiceCluster } from "@chainquery/watcher"
 *
 * const cluster = ServiceCluster.layer
 * ```
 * @since 0.2.0
 */
export const layer: Layer.Layer<
  Sharding.Sharding | DeliveryWake,
  unknown,
  SqlClient.SqlClient | StreamStore | DeliveryStore | ServiceConfig | EvmClient.EvmClient | Mac.Mac
> = Layer.mergeAll(deliveries, sweeper, scanners).pipe(
  Layer.provideMerge(wakeLayer),
  Layer.provideMerge(
    SingleRunner.layer({
      runnerStorage: "sql",
      shardingConfig: {
        // Given, so that no HOST or PORT in the environment changes it (the cluster reads both);
        // a single runner listens nowhere: the address only names it.
        runnerAddress: Option.some(RunnerAddress.make("localhost", 34431)),
        entityMessagePollInterval: "1 second"
      }
    }).pipe(Layer.provide(Digest.layerWebCrypto))
  )
)
