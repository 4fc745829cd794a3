/**
 * When and how a failed request is tried again. Retried: transport failures (network, timeout,
 * a success answer whose body is not JSON at all), 408, 429, 500, 502, 503 and 504. Never
 * retried: 400, 401, 403, 404, a redirect, a JSON body that does not decode, an oversized body. The delay grows exponentially with jitter up to a cap, and is at least the
 * `Retry-After` the service asked for (within a bound).
 *
 * @since 0.1.0
 */
import type { Errors } from "@chainquery/schema"
import { Duration, Effect, Option, Schedule } from "effect"

/**
 * The knobs of the default retry policy.
 *
 * @example
 * ```ts
 * import type { RetryPolicy } from "@chainquery/transport"
 *
 * const patient: RetryPolicy.RetryOptions = { times: 5, base: "500 millis", cap: "10 seconds" }
 * ```
 * @since 0.1.0
 */
export interface RetryOptions {
  /** Retries after the first attempt. Default 3. */
  readonly times?: number | undefined
  /** Delay before the first retry, doubled each time. Default 250 ms. */
  readonly base?: Duration.Input | undefined
  /** Largest backoff delay. Default 4 s. */
  readonly cap?: Duration.Input | undefined
  /** Longest `Retry-After` honoured; a longer one fails with `RateLimited` at once. Default 30 s. */
  readonly maxRetryAfter?: Duration.Input | undefined
}

/**
 * The default knobs: 3 retries, 250 ms doubling, capped at 4 s, `Retry-After` honoured up to 30 s.
 *
 * @example
 * ```ts
 * import { RetryPolicy } from "@chainquery/transport"
 *
 * RetryPolicy.defaults.times // 3
 * ```
 * @since 0.1.0
 */
export const defaults = {
  times: 3,
  base: Duration.millis(250),
  cap: Duration.seconds(4),
  maxRetryAfter: Duration.seconds(30)
} as const

/** Errors a request can fail with before decoding. */
type AttemptError = Errors.RequestError | Errors.NotFound

const retryableStatuses = new Set([408, 429, 500, 502, 503, 504])

/**
 * Whether an error is worth another attempt.
 *
 * @example
 * ```ts
 * import { Errors } from "@chainquery/schema"
 * import { RetryPolicy } from "@chainquery/transport"
 *
 * RetryPolicy.isRetryable(new Errors.ServerError({ status: 503, message: "" })) // true
 * RetryPolicy.isRetryable(new Errors.BadRequest({ message: "limit" })) // false
 * ```
 * @since 0.1.0
 */
export const isRetryable = (error: AttemptError): boolean => {
  switch (error._tag) {
    case "Transport":
      return error.reason !== "BodyTooLarge"
    case "RateLimited":
      return true
    case "ServerError":
      return retryableStatuses.has(error.status)
    default:
      return false
  }
}

/**
 * Parses a `Retry-After` header: delay-seconds or an HTTP date in any of its three forms, read as
 * GMT (relative to `now`, in ms). Anything else is `Option.none()`.
 *
 * @example
 * ```ts
 * import { RetryPolicy } from "@chainquery/transport"
 *
 * RetryPolicy.parseRetryAfter("2", 0) // Option.some(Duration.seconds(2))
 * RetryPolicy.parseRetryAfter("Wed, 21 Oct 2015 07:28:00 GMT", Date.parse("Wed, 21 Oct 2015 07:27:50 GMT"))
 * // Option.some(Duration.seconds(10))
 * ```
 * @since 0.1.0
 */
export const parseRetryAfter = (header: string | undefined, now: number): Option.Option<Duration.Duration> => {
  if (header === undefined) return Option.none()
  const text = header.trim()
  if (/^\d+(\.\d+)?$/.test(text)) return Option.some(Duration.millis(Math.round(Number(text) * 1000)))
  const date = httpDate(text, now)
  return date === undefined ? Option.none() : Option.some(Duration.millis(Math.max(0, date - now)))
}

const months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

/** IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), the obsolete RFC 850 form (`Sunday, 06-Nov-94 08:49:37 GMT`). */
const zoned =
  /^[A-Z][a-z]{2,8}, (?<day>\d{2})[ -](?<month>[A-Z][a-z]{2})[ -](?<year>\d{2}|\d{4}) (?<hour>\d{2}):(?<minute>\d{2}):(?<second>\d{2}) GMT$/
/** asctime (`Sun Nov  6 08:49:37 1994`), in GMT as RFC 9110 says. */
const asctime = /^[A-Z][a-z]{2} (?<month>[A-Z][a-z]{2}) (?<day>[ \d]\d) (?<hour>\d{2}):(?<minute>\d{2}):(?<second>\d{2}) (?<year>\d{4})$/

/**
 * The milliseconds of an HTTP date (RFC 9110, 5.6.7) in any of its three forms, read as GMT;
 * `undefined` for anything else (a lenient `Date.parse` reads "3." or "-5" as dates of 2001).
 * `now` places a two-digit year; a leap second (`:60`) is the second after `:59`.
 */
const httpDate = (text: string, now: number): number | undefined => {
  const date = (zoned.exec(text) ?? asctime.exec(text))?.groups
  if (date === undefined) return undefined
  const month = months.indexOf(date["month"]!)
  const year = date["year"]!.length === 2 ? twoDigitYear(Number(date["year"]), now) : Number(date["year"])
  const leap = date["second"] === "60" ? 1 : 0
  const fields = [year, month, Number(date["day"]), Number(date["hour"]), Number(date["minute"]), Number(date["second"]) - leap] as const
  const millis = Date.UTC(...fields)
  // Out-of-range fields (31 Feb, 24:00, :61) roll over in Date.UTC: such a date is not a date.
  const back = new Date(millis)
  const read = [back.getUTCFullYear(), back.getUTCMonth(), back.getUTCDate(), back.getUTCHours(), back.getUTCMinutes(), back.getUTCSeconds()]
  return month !== -1 && read.every((value, index) => value === fields[index]) ? millis + leap * 1000 : undefined
}

/**
 * The year of a two-digit RFC 850 year: in the century of `now`, unless that is more than 50
 * years ahead, then the most recent past year with those digits (RFC 9110, 5.6.7).
 */
const twoDigitYear = (digits: number, now: number): number => {
  const current = new Date(now).getUTCFullYear()
  const year = current - (current % 100) + digits
  return year > current + 50 ? year - 100 : year
}

/**
 * The delay the service asked for, if the error carries one.
 *
 * @example
 * ```ts
 * import { Errors } from "@chainquery/schema"
 * import { Duration, Option } from "effect"
 * import { RetryPolicy } from "@chainquery/transport"
 *
 * RetryPolicy.retryAfterOf(new Errors.RateLimited({ message: "", retryAfter: Option.some(Duration.seconds(3)) }))
 * ```
 * @since 0.1.0
 */
export const retryAfterOf = (error: unknown): Option.Option<Duration.Duration> =>
  typeof error === "object" && error !== null && (error as { _tag?: unknown })._tag === "RateLimited"
    ? (error as Errors.RateLimited).retryAfter
    : Option.none()

/**
 * The default retry schedule: exponential backoff with jitter, capped, and never shorter than a
 * `Retry-After` (bounded by `maxRetryAfter`). Use with `Effect.retry({ schedule, times, while })`.
 *
 * @example
 * ```ts
 * import { RetryPolicy } from "@chainquery/transport"
 *
 * const schedule = RetryPolicy.schedule({ base: "100 millis", cap: "2 seconds" })
 * ```
 * @since 0.1.0
 */
export const schedule = (options: RetryOptions = {}): Schedule.Schedule<Duration.Duration, unknown> => {
  const cap = Duration.fromInputUnsafe(options.cap ?? defaults.cap)
  const maxRetryAfter = Duration.fromInputUnsafe(options.maxRetryAfter ?? defaults.maxRetryAfter)
  return Schedule.exponential(options.base ?? defaults.base).pipe(
    Schedule.modifyDelay(({ duration }) => Effect.succeed(Duration.min(duration, cap))),
    Schedule.jittered,
    Schedule.modifyDelay(({ duration, input }) =>
      Effect.succeed(Option.match(retryAfterOf(input), {
        onNone: () => duration,
        onSome: (asked) => Duration.max(duration, Duration.min(asked, maxRetryAfter))
      }))
    )
  ) as Schedule.Schedule<Duration.Duration, unknown>
}

/**
 * A retry policy: the knobs of the default schedule, or a `Schedule` of your own (its input is the
 * failed attempt's error). Which errors are retried does not change.
 *
 * @example
 * ```ts
 * import { Schedule } from "effect"
 * import type { RetryPolicy } from "@chainquery/transport"
 *
 * const none: RetryPolicy.RetryPolicy = { times: 0 }
 * const custom: RetryPolicy.RetryPolicy = { schedule: Schedule.spaced("1 second"), times: 2 }
 * ```
 * @since 0.1.0
 */
export type RetryPolicy = RetryOptions | {
  readonly schedule: Schedule.Schedule<unknown, unknown>
  readonly times?: number | undefined
  readonly maxRetryAfter?: Duration.Input | undefined
}

/**
 * Retries `effect` per `policy`, only for retryable errors. A `Retry-After` longer than
 * `maxRetryAfter` is not waited for: the `RateLimited` error is returned at once. `retrying`, if
 * given, wraps what runs once a first failure is to be retried (the waits and the later attempts),
 * e.g. to bound them by a deadline: the first attempt runs as it is.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { RetryPolicy } from "@chainquery/transport"
 *
 * const attempt: Effect.Effect<string> = Effect.succeed("ok")
 * const withRetries = RetryPolicy.retry(attempt, { times: 2 })
 * const withinAMinute = RetryPolicy.retry(attempt, { times: 2 }, Effect.timeout("1 minute"))
 * ```
 * @since 0.1.0
 */
export const retry = <A, E extends AttemptError, R, E2 = E>(
  effect: Effect.Effect<A, E, R>,
  policy: RetryPolicy = {},
  retrying?: (retries: Effect.Effect<A, E, R>) => Effect.Effect<A, E2, R>
): Effect.Effect<A, E | E2, R> => {
  const times = policy.times ?? defaults.times
  if (times <= 0) return effect as Effect.Effect<A, E | E2, R>
  // The first attempt runs bare (nothing to build or parse on the common, successful path). After
  // a failure worth retrying, the schedule starts with that failure as its first input, exactly as
  // `Effect.retry` around the whole effect would.
  return Effect.catch(effect, (first): Effect.Effect<A, E | E2, R> => {
    const maxRetryAfter = Duration.fromInputUnsafe(policy.maxRetryAfter ?? defaults.maxRetryAfter)
    const worthIt = (error: E) =>
      isRetryable(error) &&
      Option.match(retryAfterOf(error), {
        onNone: () => true,
        onSome: (asked) => Duration.isLessThanOrEqualTo(asked, maxRetryAfter)
      })
    if (!worthIt(first)) return Effect.fail(first)
    let replayed = false
    const again = Effect.suspend(() => {
      if (replayed) return effect
      replayed = true
      return Effect.fail(first)
    })
    const retries = Effect.retry(again, {
      schedule: "schedule" in policy ? policy.schedule : schedule(policy),
      times,
      while: worthIt
    })
    return retrying === undefined ? retries : retrying(retries)
  })
}
