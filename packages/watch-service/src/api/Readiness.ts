/**
 * Whether the service is ready (`/readyz`): its migrations ran, its cluster holds its shards, and
 * the data service did not refuse its API key.
 *
 * @since 0.2.0
 */
import { Context, Effect, Layer } from "effect"

/**
 * The service's readiness check.
 *
 * @example
 * ```ts
 * import { Effect, Layer } from "effect"
 * import { Readiness } from "@chainquery/watch-service"
 *
 * const always = Layer.succeed(Readiness.Readiness, { ready: Effect.succeed(true) })
 * ```
 * @since 0.2.0
 */
export class Readiness extends Context.Service<Readiness, {
  readonly ready: Effect.Effect<boolean>
  /** Why it is not ready, when there is something to say (`/readyz` gives it as `reason`). */
  readonly reason?: Effect.Effect<string | undefined> | undefined
}>()("@chainquery/watcher/Readiness") {
  /** Ready as soon as it is built: for a service whose layers are all built once it answers. */
  static readonly always: Layer.Layer<Readiness> = Layer.succeed(Readiness, { ready: Effect.succeed(true) })
}
