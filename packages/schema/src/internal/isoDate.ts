/**
 * Reading ISO 8601 dates and date-times to epoch milliseconds (a string without a zone is UTC).
 * The form the service sends is read by position and the instant computed with integer
 * arithmetic (proleptic Gregorian calendar, as `Date.UTC`, years 0 to 9999); other forms go
 * through a regular expression.
 *
 * @internal
 */

const isoPattern =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?(Z|([+-])(\d{2}):?(\d{2}))?$/i

const monthDays = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]

const daysInMonth = (year: number, month: number): number =>
  month === 2 && year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : monthDays[month - 1]!

const part = (text: string | undefined): number => (text === undefined ? 0 : Number(text))

/**
 * Days from 1970-01-01 to the given date (month 1 to 12), in the proleptic Gregorian calendar;
 * exact for every year `Date` can hold. Counts in 400-year eras that start on March 1st, so the
 * leap day is the last day of its year.
 */
const daysFromCivil = (year: number, month: number, day: number): number => {
  const y = month <= 2 ? year - 1 : year
  const era = Math.floor(y / 400)
  const yearOfEra = y - era * 400
  const dayOfYear = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + day - 1
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear
  return era * 146097 + dayOfEra - 719468
}

/** Two ASCII digits at `at` as a number, or NaN. */
const digits2 = (text: string, at: number): number => {
  const a = text.charCodeAt(at) - 48, b = text.charCodeAt(at + 1) - 48
  return a >= 0 && a <= 9 && b >= 0 && b <= 9 ? a * 10 + b : NaN
}

/** The instant of a calendar date and time in UTC, or `undefined` when it does not exist. */
const validEpoch = (
  year: number, month: number, day: number, hour: number, minute: number, second: number, millis: number
): number | undefined =>
  month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(year, month) && hour <= 23 && minute <= 59 &&
    second <= 59
    ? daysFromCivil(year, month, day) * 86_400_000 + ((hour * 60 + minute) * 60 + second) * 1000 + millis
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
  if (
    text.charCodeAt(4) !== 45 || text.charCodeAt(7) !== 45 || text.charCodeAt(10) !== 84 || // "-", "-", "T"
    text.charCodeAt(13) !== 58 || text.charCodeAt(16) !== 58 // ":", ":"
  ) return undefined
  const year = digits2(text, 0) * 100 + digits2(text, 2)
  let millis = 0
  if (body > 19) {
    if (text.charCodeAt(19) !== 46) return undefined // "."
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

/**
 * The instant an ISO 8601 date or date-time names, in milliseconds since 1970 (a string without
 * a zone is UTC); `undefined` for anything else, including impossible dates such as February 30.
 *
 * @example
 * isoEpochMillis("2023-07-17T21:27:59.000") // 1689629279000
 * isoEpochMillis("2023-02-30") // undefined
 */
export const isoEpochMillis = (input: string): number | undefined => commonForm(input) ?? anyForm(input)
