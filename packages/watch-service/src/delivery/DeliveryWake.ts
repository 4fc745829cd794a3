/**
 * Waking a stream's delivery, declared where it is implemented: the service (`DeliveryWake`)
 * that the scanners, the API and the sweeper call, and its implementation on `effect/cluster`:
 * each stream's delivery is an entity (`StreamDelivery`, keyed by stream id) whose one message,
 * `Wake`, drains the stream's due webhooks (`DeliveryWorker.deliverDue`) in the runner's slots.
 *
 * @since 0.5.0
 */
import { Cause, Context, Duration, Effect, Layer, Metric } from "effect"
import { ClusterSchema, Entity, type Sharding } from "effect/cluster"
import { Rpc } from "effect/rpc"
import { DeliverySlots } from "./DeliverySlots.js"
import { deliverDue } from "./DeliveryWorker.js"

/**
 * Wakes a stream's delivery (after events were queued for it, or it was resumed or replayed):
 * in the running service, a message to the stream's cluster entity ({@link wakeLayer}).
 *
 * @example
 * ```ts
 * import { Effect, Layer } from "effect"
 * import { DeliveryWake } from "@chainquery/watch-service"
 *
 * const nobody = Layer.succeed(DeliveryWake.DeliveryWake, { wake: () => Effect.void })
 * ```
 * @since 0.2.0
 */
export class DeliveryWake extends Context.Service<DeliveryWake, {
  readonly wake: (streamId: string) => Effect.Effect<void>
}>()("@chainquery/watcher/DeliveryWake") {}

/**
 * Delivers the stream's due webhooks (the entity's id is the stream id). Not persisted: a wake
 * lost in a crash costs nothing, the sweeper wakes the stream again.
 *
 * @example
 * ```ts
 * import { DeliveryWake } from "@chainquery/watch-service"
 *
 * const rpc = DeliveryWake.Wake
 * ```
 * @since 0.2.0
 */
export const Wake = Rpc.make("Wake").annotate(ClusterSchema.InterruptOnTermination, true)

/**
 * The entity of a stream's delivery.
 *
 * @example
 * ```ts
 * import { DeliveryWake } from "@chainquery/watch-service"
 *
 * const type = DeliveryWake.StreamDelivery.type // "StreamDelivery"
 * ```
 * @since 0.2.0
 */
export const StreamDelivery = Entity.make("StreamDelivery", [Wake])

/**
 * The entity's behaviour: a wake drains the stream's due deliveries (messages to one stream run
 * one at a time), in the runner's delivery slots.
 *
 * @example
 * ```ts
 * import { DeliveryWake } from "@chainquery/watch-service"
 *
 * const behaviour = DeliveryWake.entityLayer
 * ```
 * @since 0.5.0
 */
export const entityLayer = StreamDelivery.toLayer(
  Effect.gen(function*() {
    const address = yield* Entity.CurrentAddress
    const streamId = address.entityId
    // The runner's slots: every stream it delivers shares them.
    const slots = yield* DeliverySlots
    return StreamDelivery.of({
      Wake: () =>
        deliverDue(streamId).pipe(
          Effect.provideService(DeliverySlots, slots),
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
 * How long a wake is tried: a stream whose runner died cannot be reached until its shard moves,
 * and the sweeper wakes it again every interval anyway.
 */
const wakeTimeout = Duration.seconds(10)

/**
 * Wakes a stream's entity, without waiting for it (the message goes in a fiber of its own, tried
 * for at most 10 seconds): what the scanners, the API and the sweeper use, none of which may wait
 * for a runner that died to be replaced.
 *
 * @example
 * ```ts
 * import { DeliveryWake } from "@chainquery/watch-service"
 *
 * const wake = DeliveryWake.wakeLayer
 * ```
 * @since 0.2.0
 */
export const wakeLayer: Layer.Layer<DeliveryWake, never, Sharding.Sharding> = Layer.effect(
  DeliveryWake,
  Effect.gen(function*() {
    const client = yield* StreamDelivery.client
    const scope = yield* Effect.scope
    return {
      wake: (streamId: string) =>
        client(streamId).Wake(undefined, { discard: true }).pipe(
          Effect.timeout(wakeTimeout),
          Effect.catchCause((cause) => Effect.logWarning(`stream ${streamId}: could not be woken (${Cause.pretty(cause)}); the sweeper will`)),
          Effect.forkIn(scope),
          Effect.asVoid
        )
    }
  })
)
