/**
 * The service's settings, as `@chainquery/watcher` has exported them since 0.2.0:
 * `@chainquery/watch-service`'s `ServiceConfig`, and `DeliveryWake`, which the package now declares
 * with its implementation (its own module `DeliveryWake`).
 *
 * @since 0.2.0
 */
import { DeliveryWake as Wake, ServiceConfig as Config } from "@chainquery/watch-service"

/**
 * The retry schedule of `--retry-schedule`'s default (see `@chainquery/watch-service`).
 *
 * @example
 * ```ts
 * import { ServiceConfig } from "@chainquery/watcher"
 *
 * ServiceConfig.defaultRetrySchedule.length // 6
 * ```
 * @since 0.2.0
 */
export const defaultRetrySchedule = Config.defaultRetrySchedule

/**
 * The settings every part of the service reads (see `@chainquery/watch-service`).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { ServiceConfig } from "@chainquery/watcher"
 *
 * const interval = Effect.map(ServiceConfig.ServiceConfig, (config) => config.interval)
 * ```
 * @since 0.2.0
 */
export const ServiceConfig = Config.ServiceConfig

/**
 * @since 0.2.0
 */
export type ServiceConfig = Config.ServiceConfig

/**
 * Wakes a stream's delivery (see `DeliveryWake` in `@chainquery/watch-service`).
 *
 * @example
 * ```ts
 * import { Effect, Layer } from "effect"
 * import { ServiceConfig } from "@chainquery/watcher"
 *
 * const nobody = Layer.succeed(ServiceConfig.DeliveryWake, { wake: () => Effect.void })
 * ```
 * @since 0.2.0
 */
export const DeliveryWake = Wake.DeliveryWake

/**
 * @since 0.2.0
 */
export type DeliveryWake = Wake.DeliveryWake
