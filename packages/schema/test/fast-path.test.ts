/**
 * The fast path (`Decode.decoder`, the compiled record decoders) against the schema, which stays
 * the source of truth:
 * - on every record of every real page in test/fixtures, the compiled decoder gives exactly the
 *   schema's value (same types, same prototypes), and the page decodes the same both ways;
 * - on bad records, a page reports the same rejected records (index, path, message, raw) both
 *   ways, and the messages are the ones listed here (those the decoder gave before the fast
 *   integer, timestamp and DateTime readers);
 * - the readers behind it agree with their plain definitions: `integerText` with
 *   `/^-?\d+$/` + `BigInt`, `isoEpochMillis` with `Date`, `utcFromEpochMillis` with
 *   `DateTime.makeUnsafe`.
 */
import { describe, expect, it } from "@effect/vitest"
import { Arbitrary, DateTime, Equal, Exit, Result, Schema } from "effect"
import { Decode, EvmPage, NftTransfer } from "../src/index.js"
import { compile } from "../src/internal/fast.js"
import { integerText } from "../src/internal/integer.js"
import { isoEpochMillis } from "../src/internal/isoDate.js"
import { direct, sameShape, utcFromEpochMillis } from "../src/internal/utc.js"
import { loadFixtures } from "./support/fixtures.js"
import { recordSchemaOf, successSchemaOf } from "./support/successSchemas.js"

const successes = loadFixtures().filter((fixture) => fixture.status === 200)
const keyOf = (fixture: { readonly operation: string; readonly file: string }) => `${fixture.operation}/${fixture.file}`

/**
 * The compiled decoder agrees with the schema on `input`: the same value, or no value where the
 * schema fails. A schema with no compiled decoder (A5's owners) always takes the schema's path.
 */
const expectAgreement = (schema: Schema.Codec<any, any>, input: unknown) => {
  const quick = compile(schema)?.(input)
  const exit = Schema.decodeUnknownExit(schema)(input)
  if (Exit.isFailure(exit)) expect(quick).toBeUndefined()
  else if (quick !== undefined) {
    expect(quick).toStrictEqual(exit.value)
    expect(Equal.equals(quick, exit.value)).toBe(true)
  }
}

describe("the fast path on the real responses", () => {
  const pages = successes.filter((fixture) => recordSchemaOf(keyOf(fixture)) !== undefined)

  it.each(pages.map((f) => [keyOf(f), f] as const))("%s: every record decodes as the schema decodes it", (key, fixture) => {
    const record = recordSchemaOf(key)!
    const records = (fixture.body as { readonly result: ReadonlyArray<unknown> }).result
    expect(records.length).toBeGreaterThan(0)
    for (const raw of records) expectAgreement(record, raw)
  })

  it.each(successes.map((f) => [keyOf(f), f] as const))("%s: the page decodes the same both ways", (key, fixture) => {
    const schema = successSchemaOf(key)
    const slow = Schema.decodeUnknownResult(schema)(fixture.body)
    expect(Result.isSuccess(slow)).toBe(true)
    expect(Decode.decoder(schema)(fixture.body)).toStrictEqual(slow)
  })
})

const capture = successes.find((f) => keyOf(f) === "A2/docs-howto-wallet-0xd8da-2023-07.json")!.body as {
  readonly result: ReadonlyArray<Record<string, unknown>>
}
const good = capture.result[0]!
const long = "32861001645432232115677216693187330961962340035243999304845689030250465478890"
const integer = "an integer (a number or a numeric string)"
const timestamp = "an ISO 8601 date-time"
const accepted = undefined

/** One field of a real transfer replaced, and what the decoder says of it (`accepted`, or what it expected). */
const badFields: ReadonlyArray<readonly [field: string, value: unknown, expected: string | undefined]> = [
  ["token_id", "12a", integer], ["token_id", "0x10", integer], ["token_id", " 12", integer], ["token_id", "12 ", integer],
  ["token_id", "+1", integer], ["token_id", "", integer], ["token_id", "-", integer], ["token_id", 1.5, integer],
  ["token_id", null, integer], ["token_id", "1e3", integer], ["token_id", `${long.slice(0, 40)}x${long.slice(41)}`, integer],
  ["token_id", `-${long}`, accepted], ["token_id", ` ${long}`, integer], ["token_id", `${long} `, integer],
  ["token_id", `0x${long.slice(2)}`, integer], ["token_id", `0b1${long.slice(3)}`, integer], ["token_id", `+${long}`, integer],
  ["token_id", `-0x${long}`, integer], ["token_id", "1_000", integer], ["token_id", "\u0661\u0662", integer],
  ["token_id", 2 ** 53, integer], ["token_id", "-0", accepted], ["token_id", "007", accepted],
  ["token_id", "1234567890123456", accepted], ["token_id", "123456789012345", accepted],
  ["token_id", "-123456789012345", accepted], ["token_id", 42, accepted],
  ["value", "1.0", integer], ["value", true, integer], ["amount", "-1", accepted], ["amount", "1023", accepted],
  ["amount", "1024", accepted], ["block_number", "", integer], ["block_number", "00017", accepted],
  ["block_timestamp", "2023-02-30T00:00:00", timestamp], ["block_timestamp", "2024-02-29T00:00:00", accepted],
  ["block_timestamp", "2023-07-17T24:00:00", timestamp], ["block_timestamp", "yesterday", timestamp],
  ["block_timestamp", "1969-12-31T23:59:59Z", timestamp], ["block_timestamp", "2023-07-17T21:27:59.000+02:00", accepted],
  ["block_timestamp", "2023-07-17T21:27:59.123456Z", accepted], ["block_timestamp", "2023-07-17T21:27:59.1234567Z", accepted],
  ["block_timestamp", 1689629279000, timestamp], ["block_timestamp", "10000-01-01T00:00:00Z", timestamp],
  ["block_timestamp", "2023-07-17", accepted], ["block_timestamp", "2023-07-17T21:27", accepted],
  ["block_timestamp", "2023-07-17T21:27:5a.000Z", timestamp], ["block_timestamp", "2023-7-17T21:27:59.000Z", timestamp],
  ["block_timestamp", "0099-12-31T23:59:59Z", timestamp],
  ["transaction_index", "x", integer], ["transaction_index", 1.5, integer], ["transaction_index", "12", accepted],
  ["log_index", null, integer], ["possible_spam", "yes", "a boolean (true/false, or a string holding one)"],
  ["possible_spam", "true", accepted], ["verified", 2, "a flag (1/0, true/false, or a string holding one)"],
  ["verified", null, accepted], ["from_address", 5, "string"], ["operator", 7, "string | null | undefined"],
  ["contract_type", undefined, accepted], ["verified_collection", "0", accepted]
]

/** Records that are not transfers at all, with the path and message reported. */
const badRecords: ReadonlyArray<readonly [raw: unknown, path: string, message: string]> = [
  [null, "", "Expected object"], [[], "", "Expected object"], ["x", "", "Expected object"], [5, "", "Expected object"],
  [{}, "token_address", "Missing key"]
]

/** A page of the capture with `records` between two good transfers. */
const page = (records: ReadonlyArray<unknown>) => ({ ...capture, result: [good, ...records, good] })

describe("the fast path on bad records", () => {
  const decodeFast = Decode.decoder(EvmPage.TransfersPage)
  const decodeSlow = Schema.decodeUnknownResult(EvmPage.TransfersPage)

  it.each(badFields.map(([field, value, expected]) => [field, String(value), value, expected] as const))(
    "%s = %s",
    (field, _, value, expected) => {
      const raw = { ...good, [field]: value }
      expectAgreement(NftTransfer.NftTransfer, raw)
      const slow = decodeSlow(page([raw]))
      expect(decodeFast(page([raw]))).toStrictEqual(slow)
      const { rejected, result } = Result.getOrThrow(slow)
      if (expected === accepted) {
        expect(rejected).toEqual([])
        expect(result.length).toBe(3)
      } else {
        expect(rejected).toStrictEqual([{ index: 1, path: field, message: `Expected ${expected}`, raw }])
        expect(result.length).toBe(2)
      }
    }
  )

  it.each(badRecords.map(([raw, path, message]) => [JSON.stringify(raw), raw, path, message] as const))(
    "a record %s",
    (_, raw, path, message) => {
      expectAgreement(NftTransfer.NftTransfer, raw)
      const slow = decodeSlow(page([raw]))
      expect(decodeFast(page([raw]))).toStrictEqual(slow)
      expect(Result.getOrThrow(slow).rejected).toStrictEqual([{ index: 1, path, message, raw }])
    }
  )

  it("a page of many bad records reports each where it is", () => {
    const raws = badFields.filter(([, , expected]) => expected !== accepted).map(([field, value]) => ({ ...good, [field]: value }))
    const slow = decodeSlow(page(raws))
    expect(decodeFast(page(raws))).toStrictEqual(slow)
    expect(Result.getOrThrow(slow).rejected.map((r) => r.index)).toEqual(raws.map((_, i) => i + 1))
  })
})

const reference = (text: string): bigint | undefined => (/^-?\d+$/.test(text) ? BigInt(text) : undefined)
const matching = (pattern: RegExp) => Arbitrary.schema(Schema.String.check(Schema.isPattern(pattern)))
const integerBetween = (minimum: number, maximum: number) =>
  Arbitrary.schema(Schema.Int.check(Schema.isBetween({ minimum, maximum })))

describe("integerText", () => {
  it.prop("is /^-?\\d+$/ then BigInt, on integer-like text", [matching(/^[-+ 0-9xob_.e]{0,90}$/)], ([text]) => {
    expect(integerText(text)).toBe(reference(text))
  })

  it.prop("is /^-?\\d+$/ then BigInt, on digits of any length", [matching(/^-?[0-9]{1,90}$/)], ([text]) => {
    expect(integerText(text)).toBe(reference(text))
  })

  it.prop("is /^-?\\d+$/ then BigInt, on any text", [Arbitrary.schema(Schema.String)], ([text]) => {
    expect(integerText(text)).toBe(reference(text))
  })

  it("reads the edges of the short and long forms", () => {
    for (const text of ["0", "-0", "1023", "1024", "999999999999999", "9999999999999999", "-999999999999999", "0".repeat(40)]) {
      expect(integerText(text)).toBe(reference(text))
    }
  })
})

const firstMillis = Date.parse("0000-01-01T00:00:00Z")
const lastMillis = Date.UTC(9999, 11, 31, 23, 59, 59, 999)

/** The instant of a calendar date by `Date`, or `undefined` when the date does not exist. */
const dateOf = (year: number, month: number, day: number): number | undefined => {
  const date = new Date(0)
  date.setUTCFullYear(year, month - 1, day)
  return date.getUTCMonth() === month - 1 ? date.getTime() : undefined
}

describe("isoEpochMillis", () => {
  it.prop("reads the service's forms as Date does, years 0 to 9999", [integerBetween(firstMillis, lastMillis)], ([millis]) => {
    const iso = new Date(millis).toISOString()
    expect(isoEpochMillis(iso)).toBe(millis)
    expect(isoEpochMillis(iso.slice(0, -1))).toBe(millis)
    expect(isoEpochMillis(`${iso.slice(0, -1)}000Z`)).toBe(millis)
    expect(isoEpochMillis(`${iso.slice(0, 19)}+00:00`)).toBe(millis - (millis % 1000 + 1000) % 1000)
  })

  it.prop(
    "knows which dates exist, as Date does",
    [integerBetween(0, 9999), integerBetween(1, 12), integerBetween(1, 31)],
    ([year, month, day]) => {
      const text = `${String(year).padStart(4, "0")}-${String(month).padStart(2, "0")}-${String(day).padStart(2, "0")}`
      expect(isoEpochMillis(`${text}T00:00:00`)).toBe(dateOf(year, month, day))
      expect(isoEpochMillis(text)).toBe(dateOf(year, month, day))
    }
  )
})

describe("utcFromEpochMillis", () => {
  it("builds its values directly: Effect's DateTime.Utc still has the shape it copies", () => {
    expect(utcFromEpochMillis).toBe(direct)
  })

  it.prop("gives what DateTime.makeUnsafe gives", [integerBetween(firstMillis, lastMillis)], ([millis]) => {
    const value = utcFromEpochMillis(millis)
    const expected = DateTime.makeUnsafe(millis)
    expect(sameShape(value, expected)).toBe(true)
    expect(value).toStrictEqual(expected)
    expect(Equal.equals(value, expected)).toBe(true)
    expect(DateTime.formatIso(value)).toBe(DateTime.formatIso(expected))
  })
})
