/**
 * A compute-unit budget shared by every fiber of one client: each request spends its operation's
 * weight from a bucket refilled at `unitsPerSecond`; when the bucket is short the request waits.
 * It learns from the service: a 429 halves the rate and pauses everyone until `Retry-After`;
 * successes restore the rate step by step (additive increase, multiplicative decrease). Time comes
 * from Effect's `Clock`, so tests can drive it with `TestClock`.
 *
 * @since 0.1.0
 */
import { ComputeUnits } from "@chainquery/schema"
import { Clock, Duration, Effect } from "effect"

/**
 * Budget settings.
 *
 * @example
 * ```ts
 * import type { ComputeBudget } from "@chainquery/transport"
 *
 * const plan: ComputeBudget.BudgetOptions = { unitsPerSecond: 25, weights: { getBlock: 10 } }
 * ```
 * @since 0.1.0
 */
export interface BudgetOptions {
  /** Units per second; absent means no budget (429s still pause requests). */
  readonly unitsPerSecond?: number | undefined
  /** Units per operation id, over the defaults. */
  readonly weights?: Readonly<Record<string, number>> | undefined
}

/**
 * Default weights per operation id: `ComputeUnits.defaultWeights` of `@chainquery/schema`
 * (estimates: the service meters each endpoint, but its weights are not in the spec).
 *
 * @example
 * ```ts
 * import { ComputeBudget } from "@chainquery/transport"
 *
 * ComputeBudget.defaultWeights.getBlock // 10
 * ```
 * @since 0.1.0
 */
export const defaultWeights: Readonly<Record<string, number>> = ComputeUnits.defaultWeights

/**
 * A live budget.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { ComputeBudget } from "@chainquery/transport"
 *
 * const program = Effect.gen(function*() {
 *   const budget = yield* ComputeBudget.make({ unitsPerSecond: 25 })
 *   yield* budget.take("getBlock") // waits when the second's units are spent
 * })
 * ```
 * @since 0.1.0
 */
export interface ComputeBudget {
  /** Waits until the operation's weight is available (and any 429 pause is over), then spends it. */
  readonly take: (operation: string) => Effect.Effect<void>
  /** Tells the budget the service answered 429, asking to wait `retryAfter`. */
  readonly rateLimited: (retryAfter: Duration.Duration | undefined) => Effect.Effect<void>
  /** Tells the budget a request succeeded. */
  readonly succeeded: Effect.Effect<void>
  /** The current rate (units per second), after what was learned; `undefined` when unlimited. */
  readonly currentRate: Effect.Effect<number | undefined>
  /**
   * Whether there is nothing to count now: no rate, and no 429 ever asked for a pause. Then `take`
   * passes at once and `succeeded` does nothing, and a caller may skip both.
   */
  readonly unmetered: () => boolean
}

/**
 * Makes a budget.
 *
 * @example
 * ```ts
 * import { ComputeBudget } from "@chainquery/transport"
 *
 * const budget = ComputeBudget.make({ unitsPerSecond: 40, weights: { getDefiPositionsSummary: 50 } })
 * ```
 * @since 0.1.0
 */
export const make = (options: BudgetOptions = {}): Effect.Effect<ComputeBudget> =>
  Effect.sync(() => {
    const configured = options.unitsPerSecond !== undefined && options.unitsPerSecond > 0 ? options.unitsPerSecond : undefined
    const weights = { ...defaultWeights, ...options.weights }
    let rate = configured
    let tokens = configured ?? 0
    let updated: number | undefined
    let pausedUntil = 0

    const refill = (now: number) => {
      if (rate === undefined || configured === undefined) return
      if (updated === undefined || now > updated) {
        if (updated !== undefined) tokens = Math.min(configured, tokens + ((now - updated) / 1000) * rate)
        updated = now
      }
    }

    const takeNow = (operation: string): Effect.Effect<void> =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => {
        if (pausedUntil > now) return Effect.andThen(Effect.sleep(Duration.millis(pausedUntil - now)), take(operation))
        refill(now)
        if (rate === undefined) return Effect.void
        const weight = Math.min(weights[operation] ?? 5, configured ?? Number.POSITIVE_INFINITY)
        if (tokens >= weight) {
          tokens -= weight
          return Effect.void
        }
        const wait = Math.ceil(((weight - tokens) / rate) * 1000)
        return Effect.andThen(Effect.sleep(Duration.millis(wait)), take(operation))
      })

    // Unlimited and not paused by a 429 (the default): nothing to wait for, nothing to count.
    const unmetered = () => rate === undefined && pausedUntil === 0
    const take = (operation: string): Effect.Effect<void> => Effect.suspend(() => (unmetered() ? Effect.void : takeNow(operation)))

    const rateLimited = (retryAfter: Duration.Duration | undefined) =>
      Effect.map(Clock.currentTimeMillis, (now) => {
        refill(now)
        const pause = retryAfter === undefined ? 1000 : Duration.toMillis(retryAfter)
        pausedUntil = Math.max(pausedUntil, now + pause)
        if (rate !== undefined && configured !== undefined) {
          rate = Math.max(configured / 16, rate / 2)
          tokens = 0
          // Nothing accrues during the pause: after it, requests resume at the lowered rate.
          updated = pausedUntil
        }
      })

    const recovered = Effect.sync(() => {
      if (rate !== undefined && configured !== undefined && rate < configured) {
        rate = Math.min(configured, rate + configured / 20)
      }
    })
    const succeeded = Effect.suspend(() => (rate === undefined ? Effect.void : recovered))

    return { take, rateLimited, succeeded, currentRate: Effect.sync(() => rate), unmetered }
  })
