/**
 * How many webhook requests one runner has in flight at once (`--delivery-concurrency`): each
 * attempt takes a slot for as long as its receiver takes to answer, so a runner's sockets and
 * memory stay bounded however many streams it delivers, and more runners deliver to more streams
 * at once. A stream's batches still go one at a time, in order.
 *
 * @since 0.4.0
 */
import { Context, Effect, Layer, Semaphore } from "effect"

/**
 * The runner's delivery slots: `withSlot` runs an attempt once a slot is free.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { DeliverySlots } from "@chainquery/watch-service"
 *
 * const attempt = Effect.flatMap(DeliverySlots.DeliverySlots, (slots) => slots.withSlot(Effect.log("sending")))
 * ```
 * @since 0.4.0
 */
export class DeliverySlots extends Context.Service<DeliverySlots, {
  /** How many there are. */
  readonly size: number
  readonly withSlot: <A, E, R>(attempt: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
}>()("@chainquery/watcher/DeliverySlots") {}

/**
 * `size` delivery slots for this runner.
 *
 * @example
 * ```ts
 * import { DeliverySlots } from "@chainquery/watch-service"
 *
 * const slots = DeliverySlots.layer(32)
 * ```
 * @since 0.4.0
 */
export const layer = (size: number): Layer.Layer<DeliverySlots> =>
  Layer.effect(DeliverySlots, Effect.map(Semaphore.make(size), (semaphore) => ({ size, withSlot: semaphore.withPermits(1) })))

/**
 * Runs `attempt` in a slot of the context's `DeliverySlots`, or at once when there is none (a
 * library user's own delivery loop).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { DeliverySlots } from "@chainquery/watch-service"
 *
 * const attempt = DeliverySlots.inSlot(Effect.log("sending"))
 * ```
 * @since 0.4.0
 */
export const inSlot = <A, E, R>(attempt: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.flatMap(Effect.serviceOption(DeliverySlots), (slots) => slots._tag === "Some" ? slots.value.withSlot(attempt) : attempt)
