/**
 * Durations given as text on a command line (`--block-time 2s`, `--interval 1.5 minutes`): one
 * grammar and one wording of its errors for every CLI of the project.
 *
 * Accepted: a non-negative decimal number, optional whitespace, then a unit, case-insensitive:
 * `ms`, `millis`, `millisecond(s)`; `s`, `sec(s)`, `second(s)`; `m`, `min(s)`, `minute(s)`; `h`,
 * `hour(s)`. A bare number is seconds. Leading and trailing whitespace is ignored. Examples:
 * `10s`, `500ms`, `2m`, `1h`, `1.5 seconds`, `30`.
 *
 * @since 0.1.0
 */
import { Duration, Result, Schema } from "effect"
import { InvalidInput } from "./Errors.js"
import { parseWith, renderValue } from "./internal/parse.js"

/**
 * What a duration looks like, in words: the `expected` of an `InvalidInput` for text that is not a
 * duration.
 *
 * @example
 * ```ts
 * import { DurationInput } from "@chainquery/schema"
 *
 * DurationInput.expected // "a duration such as 10s, 500ms, 2m or 1h"
 * ```
 * @since 0.1.0
 */
export const expected = "a duration such as 10s, 500ms, 2m or 1h"

const pattern = /^(\d+(?:\.\d+)?)\s*(ms|millis|milliseconds?|s|secs?|seconds?|m|mins?|minutes?|h|hours?)?$/i

/** Nanoseconds in one unit as written (lower case; absent means seconds). */
const nanosPer = (unit: string | undefined): bigint => {
  if (unit === undefined) return 1_000_000_000n
  if (unit === "ms" || unit.startsWith("milli")) return 1_000_000n
  if (unit.startsWith("h")) return 3_600_000_000_000n
  if (unit.startsWith("m")) return 60_000_000_000n
  return 1_000_000_000n
}

/**
 * Parses duration text such as `10s`, `500ms`, `2m`, `1h` or `1.5 seconds` (a bare number is
 * seconds) to a `Duration`, exactly (decimals are not rounded as floats; below a nanosecond they
 * round half up). Returns `undefined` for anything else: a negative value, an unknown unit, a
 * missing number, empty text.
 *
 * @example
 * ```ts
 * import { DurationInput } from "@chainquery/schema"
 *
 * DurationInput.parse("1.5 seconds") // Duration of 1500 millis
 * DurationInput.parse("1h") // Duration of 1 hour
 * DurationInput.parse("5x") // undefined
 * ```
 * @since 0.1.0
 */
export const parse = (text: string): Duration.Duration | undefined => {
  const match = pattern.exec(text.trim())
  if (match === null || match[1] === undefined) return undefined
  // Exact decimal arithmetic in nanoseconds, rounded half up: `1.1h` is 3 960 000 ms, not a float.
  const [whole = "0", fraction = ""] = match[1].split(".")
  const scale = 10n ** BigInt(fraction.length)
  const nanos = (BigInt(whole + fraction) * nanosPer(match[2]?.toLowerCase()) * 2n + scale) / (2n * scale)
  const millis = nanos / 1_000_000n
  return nanos % 1_000_000n === 0n && millis <= BigInt(Number.MAX_SAFE_INTEGER)
    ? Duration.millis(Number(millis))
    : Duration.nanos(nanos)
}

/** A finite, non-negative duration as exact milliseconds text (`1500ms`, `0.000001ms`), which {@link parse} reads back. */
const render = (duration: Duration.Duration): string | undefined => {
  if (!Duration.isFinite(duration) || Duration.isNegative(duration)) return undefined
  const nanos = Duration.toNanosUnsafe(duration)
  const whole = nanos / 1_000_000n
  const fraction = (nanos % 1_000_000n).toString().padStart(6, "0").replace(/0+$/, "")
  return fraction === "" ? `${whole}ms` : `${whole}.${fraction}ms`
}

/**
 * Duration text (see {@link parse}) decoded to a `Duration`; encodes a finite, non-negative
 * `Duration` back as exact milliseconds (`1500ms`).
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { DurationInput } from "@chainquery/schema"
 *
 * Schema.decodeUnknownSync(DurationInput.DurationInput)("2m") // Duration of 2 minutes
 * ```
 * @since 0.1.0
 */
export const DurationInput: Schema.Codec<Duration.Duration, string> = Schema.String.pipe(
  Schema.decodeTo(Schema.Duration, {
    decode: parseWith(expected, parse),
    encode: parseWith("a finite, non-negative duration", render)
  }),
  Schema.annotate({ description: expected })
)

/** The `expected` of a duration below the minimum: `at least 100ms`. */
const atLeast = (minimum: Duration.Duration): string => `at least ${Duration.format(minimum)}`

/**
 * Parses the duration text given for `field` (e.g. `"--interval"`), and checks it is at least
 * `minimum` when one is given. Fails with an `InvalidInput` naming the field and the text: its
 * `expected` is {@link expected} when the text is not a duration, `at least 100ms` when it is
 * shorter than a minimum of 100 ms.
 *
 * @example
 * ```ts
 * import { Result } from "effect"
 * import { DurationInput } from "@chainquery/schema"
 *
 * const interval = DurationInput.validate("--interval", "50ms", { minimum: "100 millis" })
 * if (Result.isFailure(interval)) interval.failure.expected // "at least 100ms"
 * ```
 * @since 0.1.0
 */
export const validate = (
  field: string,
  text: string,
  options?: { readonly minimum?: Duration.Input | undefined }
): Result.Result<Duration.Duration, InvalidInput> => {
  const duration = parse(text)
  if (duration === undefined) return Result.fail(new InvalidInput({ field, value: renderValue(text), expected }))
  if (options?.minimum !== undefined) {
    const minimum = Duration.fromInputUnsafe(options.minimum)
    if (Duration.isLessThan(duration, minimum)) {
      return Result.fail(new InvalidInput({ field, value: renderValue(text), expected: atLeast(minimum) }))
    }
  }
  return Result.succeed(duration)
}

/**
 * Words a failure of {@link validate} for a command-line flag, the same way in every CLI:
 * `--block-time: expected a duration such as 10s, 500ms, 2m or 1h, got "5x"` when the text is not
 * a duration, `--interval must be at least 100ms, got "50ms"` when it is too short.
 *
 * @example
 * ```ts
 * import { Result } from "effect"
 * import { DurationInput } from "@chainquery/schema"
 *
 * const blockTime = DurationInput.validate("--block-time", "5x")
 * if (Result.isFailure(blockTime)) {
 *   console.error(DurationInput.flagMessage(blockTime.failure))
 *   // --block-time: expected a duration such as 10s, 500ms, 2m or 1h, got "5x"
 * }
 * ```
 * @since 0.1.0
 */
export const flagMessage = (error: InvalidInput): string =>
  error.expected === expected
    ? `${error.field}: expected ${error.expected}, got ${error.value}`
    : `${error.field} must be ${error.expected}, got ${error.value}`

/**
 * {@link validate} for a command-line flag, throwing an `Error` worded by {@link flagMessage}: the
 * shape a CLI parser that reports thrown errors (such as `Flag.mapTryCatch` of `effect/cli`) wants.
 *
 * @example
 * ```ts
 * import { DurationInput } from "@chainquery/schema"
 *
 * DurationInput.parseFlagUnsafe("--interval", "30s", { minimum: "100 millis" }) // Duration of 30 seconds
 * DurationInput.parseFlagUnsafe("--interval", "soon") // throws Error: --interval: expected a duration such as ...
 * ```
 * @since 0.1.0
 */
export const parseFlagUnsafe = (
  flag: string,
  text: string,
  options?: { readonly minimum?: Duration.Input | undefined }
): Duration.Duration => {
  const result = validate(flag, text, options)
  if (Result.isFailure(result)) throw new Error(flagMessage(result.failure))
  return result.success
}
