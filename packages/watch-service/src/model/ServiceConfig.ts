/**
 * The settings of a running service that its parts share: the API token, whether webhooks may go
 * to private addresses, the delivery retry schedule and timeout, the minimum success rate, and
 * the engine's polling interval.
 *
 * @since 0.2.0
 */
import { Context, Duration, type Redacted } from "effect"

/**
 * The default delivery backoff: 10 s, 1 min, 10 min, 1 h, 6 h, 24 h; then a batch is `failed`.
 *
 * @example
 * ```ts
 * import { ServiceConfig } from "@chainquery/watch-service"
 *
 * ServiceConfig.defaultRetrySchedule.length // 6
 * ```
 * @since 0.2.0
 */
export const defaultRetrySchedule: ReadonlyArray<Duration.Duration> = ["10 seconds", "1 minute", "10 minutes", "1 hour", "6 hours", "24 hours"].map(
  (text) => Duration.fromInputUnsafe(text as Duration.Input)
)

/**
 * The service's settings.
 *
 * @example
 * ```ts
 * import { Duration, Layer, Redacted } from "effect"
 * import { ServiceConfig } from "@chainquery/watch-service"
 *
 * const config = Layer.succeed(ServiceConfig.ServiceConfig, {
 *   apiToken: Redacted.make("a-long-random-token"),
 *   allowPrivateWebhooks: false,
 *   retrySchedule: ServiceConfig.defaultRetrySchedule,
 *   deliveryTimeout: Duration.seconds(10),
 *   minSuccessRate: 0.7,
 *   interval: Duration.seconds(15),
 *   heartbeat: Duration.minutes(5)
 * })
 * ```
 * @since 0.2.0
 */
export class ServiceConfig extends Context.Service<ServiceConfig, {
  readonly apiToken: Redacted.Redacted<string>
  readonly allowPrivateWebhooks: boolean
  readonly retrySchedule: ReadonlyArray<Duration.Duration>
  readonly deliveryTimeout: Duration.Duration
  /** Under this success rate over a stream's last 100 attempts, the stream is put in error (0 turns it off). */
  readonly minSuccessRate: number
  readonly interval: Duration.Duration
  /** A stream that made no batch for this long gets one with no events and its coverage (0: never). */
  readonly heartbeat: Duration.Duration
}>()("@chainquery/watcher/ServiceConfig") {}
