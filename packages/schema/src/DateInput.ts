/**
 * Dates given as filters (`fromDate`, `toDate`): an ISO 8601 string, a `Date` or a `DateTime`,
 * and for the trades operation (A4) also unix seconds. The decoded value is a `DateTime.Utc`; it is
 * sent as an ISO string (`2021-01-01T00:00:00.000Z`). An ISO string without a zone is read as UTC.
 *
 * @since 0.1.0
 */
import { DateTime, Schema } from "effect"
import { isoEpochMillis } from "./internal/isoDate.js"
import { parseWith } from "./internal/parse.js"
import { utcFromEpochMillis } from "./internal/utc.js"

/**
 * Parses an ISO 8601 date or date-time to a `DateTime.Utc`; a string without a zone is UTC.
 * Returns `undefined` for anything else (including impossible dates such as February 30).
 *
 * @example
 * ```ts
 * import { DateInput } from "@chainquery/schema"
 *
 * DateInput.parseIso("2023-07-17T21:27:59") // DateTime.Utc 2023-07-17T21:27:59.000Z
 * DateInput.parseIso("yesterday") // undefined
 * ```
 * @since 0.1.0
 */
export const parseIso = (input: string): DateTime.Utc | undefined => {
  const epoch = isoEpochMillis(input)
  return epoch === undefined ? undefined : utcFromEpochMillis(epoch)
}

/** The last whole second a `Date` can hold. */
const lastSecond = 8_640_000_000_000

const fromValue = (seconds: boolean) => (input: unknown): DateTime.Utc | undefined => {
  if (typeof input === "string") return parseIso(input)
  if (input instanceof Date) return Number.isNaN(input.getTime()) ? undefined : DateTime.makeUnsafe(input)
  if (DateTime.isDateTime(input)) return DateTime.toUtc(input)
  // Up to the last instant a `Date` can hold (8.64e15 ms): beyond it there is no date to make.
  if (seconds && typeof input === "number" && Number.isSafeInteger(input) && input >= 0 && input <= lastSecond) {
    return DateTime.makeUnsafe(input * 1000)
  }
  return undefined
}

const make = (seconds: boolean, description: string): Schema.Codec<DateTime.Utc, unknown> =>
  Schema.Unknown.pipe(
    Schema.decodeTo(Schema.DateTimeUtc, {
      decode: parseWith(description, fromValue(seconds)),
      encode: parseWith(description, (date: DateTime.Utc) => DateTime.formatIso(date))
    }),
    Schema.annotate({ description })
  )

/**
 * An ISO 8601 string, a `Date` or a `DateTime`, decoded to `DateTime.Utc`.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { DateInput } from "@chainquery/schema"
 *
 * Schema.decodeUnknownSync(DateInput.DateInput)(new Date("2021-01-01T00:00:00Z"))
 * ```
 * @since 0.1.0
 */
export const DateInput = make(false, "a date: an ISO 8601 string, a Date or a DateTime")

/**
 * Like {@link DateInput}, also accepting unix seconds (a non-negative integer), as the trades
 * operation (A4) does.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { DateInput } from "@chainquery/schema"
 *
 * Schema.decodeUnknownSync(DateInput.DateInputOrSeconds)(1689629279)
 * ```
 * @since 0.1.0
 */
export const DateInputOrSeconds = make(true, "a date: an ISO 8601 string, a Date, a DateTime or unix seconds")
