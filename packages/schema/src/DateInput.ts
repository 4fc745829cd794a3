/**
 * Dates given as filters (`fromDate`, `toDate`): an ISO 8601 string, a `Date` or a `DateTime`,
 * and for the trades operation (A4) also unix seconds. The decoded value is a `DateTime.Utc`; it is
 * sent as an ISO string (`2021-01-01T00:00:00.000Z`). An ISO string without a zone is read as UTC.
 *
 * @since 0.1.0
 */
import { DateTime, Schema } from "effect"
import { parseWith } from "./internal/parse.js"

const isoPattern =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?(Z|([+-])(\d{2}):?(\d{2}))?$/i

const monthDays = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]

const daysInMonth = (year: number, month: number): number =>
  month === 2 && year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : monthDays[month - 1]!

const part = (text: string | undefined): number => (text === undefined ? 0 : Number(text))

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
  const epoch = commonForm(input) ?? anyForm(input)
  return epoch === undefined ? undefined : DateTime.makeUnsafe(epoch)
}

/** Two ASCII digits at `at` as a number, or NaN. */
const digits2 = (text: string, at: number): number => {
  const a = text.charCodeAt(at) - 48, b = text.charCodeAt(at + 1) - 48
  return a >= 0 && a <= 9 && b >= 0 && b <= 9 ? a * 10 + b : NaN
}

const validEpoch = (
  year: number, month: number, day: number, hour: number, minute: number, second: number, millis: number
): number | undefined =>
  month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(year, month) && hour <= 23 && minute <= 59 &&
    second <= 59
    ? year < 100
      // Date.UTC reads years 0-99 as 1900-1999; build in 2000 (a leap year) and set the year.
      ? new Date(Date.UTC(2000, month - 1, day, hour, minute, second, millis)).setUTCFullYear(year)
      : Date.UTC(year, month - 1, day, hour, minute, second, millis)
    : undefined

/**
 * The form the service sends, `YYYY-MM-DDTHH:MM:SS`, optionally with `.sss` (or six digits) and
 * `Z`, read by position; `undefined` for any other form (which `anyForm` then reads).
 */
const commonForm = (text: string): number | undefined => {
  const length = text.length
  const zoned = text.charCodeAt(length - 1) === 90 // "Z"
  const body = zoned ? length - 1 : length
  if (body !== 19 && body !== 23 && body !== 26) return undefined
  if (text[4] !== "-" || text[7] !== "-" || text[10] !== "T" || text[13] !== ":" || text[16] !== ":") return undefined
  const year = digits2(text, 0) * 100 + digits2(text, 2)
  let millis = 0
  if (body > 19) {
    if (text[19] !== ".") return undefined
    const third = text.charCodeAt(22) - 48
    if (!(third >= 0 && third <= 9)) return undefined
    millis = digits2(text, 20) * 10 + third
    if (body === 26 && Number.isNaN(digits2(text, 23) + digits2(text, 24))) return undefined
  }
  const epoch = validEpoch(
    year, digits2(text, 5), digits2(text, 8), digits2(text, 11), digits2(text, 14), digits2(text, 17), millis
  )
  return epoch !== undefined && !Number.isNaN(epoch) ? epoch : undefined
}

/** Every other ISO 8601 form: date only, minutes only, any fraction, a numeric offset. */
const anyForm = (input: string): number | undefined => {
  const match = isoPattern.exec(input)
  if (match === null) return undefined
  const fraction = match[7]
  const millis = fraction === undefined ? 0 : Number(fraction.length >= 3 ? fraction.slice(0, 3) : fraction.padEnd(3, "0"))
  const epoch = validEpoch(
    part(match[1]), part(match[2]), part(match[3]), part(match[4]), part(match[5]), part(match[6]), millis
  )
  const sign = match[9]
  if (epoch === undefined || sign === undefined) return epoch
  const offsetHours = part(match[10]), offsetMinutes = part(match[11])
  if (offsetHours > 23 || offsetMinutes > 59) return undefined
  const offset = (offsetHours * 60 + offsetMinutes) * 60_000
  return sign === "+" ? epoch - offset : epoch + offset
}

const fromValue = (seconds: boolean) => (input: unknown): DateTime.Utc | undefined => {
  if (typeof input === "string") return parseIso(input)
  if (input instanceof Date) return Number.isNaN(input.getTime()) ? undefined : DateTime.makeUnsafe(input)
  if (DateTime.isDateTime(input)) return DateTime.toUtc(input)
  if (seconds && typeof input === "number" && Number.isSafeInteger(input) && input >= 0) {
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
