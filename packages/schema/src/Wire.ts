/**
 * The codecs of response fields: liberal when decoding, exact when encoding. The real service is
 * looser than service.md (numbers or numeric strings, booleans or "true"/"false", timestamps with
 * or without a zone, nulls, missing fields), so every codec here accepts each form that has been
 * seen and normalises it to one rich type; encoding always gives the service.md wire type.
 *
 * @since 0.1.0
 */
import { DateTime, Option, Schema, SchemaGetter } from "effect"
import { compile, withFast } from "./internal/fast.js"
import { integerText } from "./internal/integer.js"
import { isoEpochMillis } from "./internal/isoDate.js"
import { parseWith } from "./internal/parse.js"
import { utcFromEpochMillis } from "./internal/utc.js"

const decimalPattern = /^-?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?$/

const toBigInt = (input: unknown): bigint | undefined => {
  if (typeof input === "string") return integerText(input)
  if (typeof input === "number") return Number.isSafeInteger(input) ? BigInt(input) : undefined
  if (typeof input === "bigint") return input
  return undefined
}

const minSafeBigInt = BigInt(Number.MIN_SAFE_INTEGER)
const maxSafeBigInt = BigInt(Number.MAX_SAFE_INTEGER)

const toSafeBigInt = (input: unknown): bigint | undefined => {
  const value = toBigInt(input)
  return value !== undefined && value >= minSafeBigInt && value <= maxSafeBigInt ? value : undefined
}

const toNumber = (input: unknown): number | undefined => {
  if (typeof input === "number") return Number.isFinite(input) ? input : undefined
  if (typeof input === "string" && decimalPattern.test(input)) {
    const value = Number(input)
    return Number.isFinite(value) ? value : undefined
  }
  return undefined
}

const toInteger = (input: unknown): number | undefined => {
  const value = toNumber(input)
  return value !== undefined && Number.isSafeInteger(value) ? value : undefined
}

const toBoolean = (input: unknown): boolean | undefined => {
  if (typeof input === "boolean") return input
  if (input === "true" || input === 1 || input === "1") return true
  if (input === "false" || input === 0 || input === "0") return false
  return undefined
}

/**
 * A codec from any JSON value: `parse` decides what is accepted (and is also the fast path's
 * decoder), `encode` writes the exact wire form.
 */
const liberal = <T, E>(
  target: Schema.Codec<T, T>,
  expected: string,
  parse: (input: unknown) => T | undefined,
  encode: (value: T) => E
): Schema.Codec<T, E> =>
  withFast(
    Schema.Unknown.pipe(
      Schema.decodeTo(target, { decode: parseWith(expected, parse), encode: SchemaGetter.transform(encode) })
    ),
    parse
  ) as unknown as Schema.Codec<T, E>

const identity = <A>(value: A): A => value

/**
 * An integer amount or block number: a numeric string or a safe integer on the wire, a `bigint`
 * when decoded, a decimal string when encoded.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { Wire } from "@chainquery/schema"
 *
 * Schema.decodeUnknownSync(Wire.BigIntString)(17715655) // 17715655n
 * Schema.encodeSync(Wire.BigIntString)(1n) // "1"
 * ```
 * @since 0.1.0
 */
export const BigIntString: Schema.Codec<bigint, string> = liberal(Schema.BigInt, "an integer (a number or a numeric string)", toBigInt, (value: bigint) => value.toString())

/**
 * An integer that service.md gives as a string but the service often sends as a number
 * (`transaction_index`, `log_index`): decoded to `number`, encoded as a string.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { Wire } from "@chainquery/schema"
 *
 * Schema.decodeUnknownSync(Wire.IntString)("80") // 80
 * ```
 * @since 0.1.0
 */
export const IntString: Schema.Codec<number, string> = liberal(Schema.Int, "an integer (a number or a numeric string)", toInteger, (value: number) => String(value))

/**
 * An integer that service.md gives as a number (`page`, `page_size`, `total`, `decimals`):
 * numeric strings are accepted too; encoded as a number.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { Wire } from "@chainquery/schema"
 *
 * Schema.decodeUnknownSync(Wire.IntNumber)("100") // 100
 * ```
 * @since 0.1.0
 */
export const IntNumber: Schema.Codec<number, number> = liberal(Schema.Int, "an integer (a number or a numeric string)", toInteger, identity<number>)

/**
 * An integer block number that service.md gives as a JSON number (A6 `number`, internal
 * transactions' `block_number`): decoded to `bigint`, encoded as a number. Only safe integers
 * (|n| <= 2^53-1) are accepted, as no larger one survives being written as a JSON number.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { Wire } from "@chainquery/schema"
 *
 * Schema.decodeUnknownSync(Wire.BigIntNumber)("15416422") // 15416422n
 * Schema.encodeSync(Wire.BigIntNumber)(15416422n) // 15416422
 * ```
 * @since 0.1.0
 */
export const BigIntNumber: Schema.Codec<bigint, number> = liberal(
  Schema.BigInt.check(Schema.isBetweenBigInt({ minimum: minSafeBigInt, maximum: maxSafeBigInt })),
  "a safe integer (a number or a numeric string)",
  toSafeBigInt,
  (value: bigint) => Number(value)
)

/**
 * A decimal quantity (prices in USD, APYs): a number or a numeric string, decoded to `number`,
 * encoded as a number.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { Wire } from "@chainquery/schema"
 *
 * Schema.decodeUnknownSync(Wire.FloatNumber)("1000000.5") // 1000000.5
 * ```
 * @since 0.1.0
 */
export const FloatNumber: Schema.Codec<number, number> = liberal(Schema.Finite, "a number (or a numeric string)", toNumber, identity<number>)

/**
 * A decimal quantity that service.md gives as a string (`total_unclaimed_usd_value` of a DeFi
 * summary): a number or a numeric string, decoded to `number`, encoded as a string.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { Wire } from "@chainquery/schema"
 *
 * Schema.encodeSync(Wire.FloatString)(12.5) // "12.5"
 * ```
 * @since 0.1.0
 */
export const FloatString: Schema.Codec<number, string> = liberal(Schema.Finite, "a number (or a numeric string)", toNumber, (value: number) => String(value))

/**
 * A page cursor: a string, or `""`/`null`/missing when there is no further page. Decoded to an
 * `Option`; `None` is encoded as `noMore` (`""` for family A, `null` for family B, as each is
 * seen on the wire).
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { Wire } from "@chainquery/schema"
 *
 * Schema.decodeUnknownSync(Wire.Cursor(""))("") // Option.none()
 * ```
 * @since 0.1.0
 */
export const Cursor = <const NoMore extends "" | null>(noMore: NoMore) =>
  withFast(
    Schema.optional(Schema.NullOr(Schema.String)).pipe(
      Schema.decodeTo(Schema.Option(Schema.String.check(Schema.isNonEmpty())), {
        decode: SchemaGetter.transformOptional((input: Option.Option<string | null | undefined>) =>
          Option.some(Option.filter(Option.flatMapNullishOr(input, (cursor) => cursor), (cursor) => cursor !== ""))
        ),
        encode: SchemaGetter.transform((cursor: Option.Option<string>) => Option.getOrElse(cursor, () => noMore))
      })
    ),
    (input) =>
      input === null || input === undefined || input === ""
        ? Option.none()
        : typeof input === "string"
        ? Option.some(input)
        : undefined
  ) as unknown as Schema.Codec<Option.Option<string>, string | NoMore>

/**
 * A flag that service.md gives as a string holding true or false; real responses send JSON
 * booleans. Decoded to `boolean`, encoded as `"true"`/`"false"`.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { Wire } from "@chainquery/schema"
 *
 * Schema.decodeUnknownSync(Wire.BooleanString)(false) // false
 * Schema.encodeSync(Wire.BooleanString)(true) // "true"
 * ```
 * @since 0.1.0
 */
export const BooleanString: Schema.Codec<boolean, "true" | "false"> = liberal(Schema.Boolean, "a boolean (true/false, or a string holding one)", toBoolean, (value: boolean): "true" | "false" => (value ? "true" : "false"))

/**
 * A flag that service.md gives as a JSON boolean (A6/A7 `is_*`); strings are accepted too.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { Wire } from "@chainquery/schema"
 *
 * Schema.decodeUnknownSync(Wire.BooleanValue)("true") // true
 * ```
 * @since 0.1.0
 */
export const BooleanValue: Schema.Codec<boolean, boolean> = liberal(Schema.Boolean, "a boolean (true/false, or a string holding one)", toBoolean, identity<boolean>)

/**
 * A flag the service sends as the number `1` or `0` (`verified` of NFT transfers); JSON booleans
 * and strings holding either form are accepted too. Decoded to `boolean`, encoded as `1`/`0`.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { Wire } from "@chainquery/schema"
 *
 * Schema.decodeUnknownSync(Wire.BooleanNumber)(1) // true
 * Schema.encodeSync(Wire.BooleanNumber)(false) // 0
 * ```
 * @since 0.1.0
 */
export const BooleanNumber: Schema.Codec<boolean, 0 | 1> = liberal(Schema.Boolean, "a flag (1/0, true/false, or a string holding one)", toBoolean, (value: boolean): 0 | 1 => (value ? 1 : 0))

/**
 * How a timestamp is written on the wire:
 * - `naive`: `2023-07-17T21:27:59.000`, no zone (family A transfers and trades, per service.md);
 * - `millis`: `2023-07-17T21:27:59.000Z` (family A owners and blocks);
 * - `micros`: `2022-10-25T14:21:23.000000Z` (family B).
 *
 * @example
 * ```ts
 * import type { Wire } from "@chainquery/schema"
 *
 * const style: Wire.TimestampStyle = "micros"
 * ```
 * @since 0.1.0
 */
export type TimestampStyle = "naive" | "millis" | "micros"

const formatTimestamp = (style: TimestampStyle) => (value: DateTime.Utc): string => {
  const iso = DateTime.formatIso(value)
  if (style === "millis") return iso
  if (style === "naive") return iso.slice(0, -1)
  return `${iso.slice(0, -1)}000Z`
}

/** Timestamps the service could ever send: years 1970 to 9999. */
const maxWireMillis = 253402300800000

const inWireMillis = (millis: number): boolean => millis >= 0 && millis < maxWireMillis

const inWireRange = (value: DateTime.Utc): boolean => inWireMillis(DateTime.toEpochMillis(value))

const toTimestamp = (input: unknown): DateTime.Utc | undefined => {
  const millis = typeof input === "string" ? isoEpochMillis(input) : undefined
  return millis !== undefined && inWireMillis(millis) ? utcFromEpochMillis(millis) : undefined
}

const WireDateTime = Schema.DateTimeUtc.check(
  Schema.makeFilter(inWireRange, { expected: "a date between 1970 and 9999" })
)

/**
 * A timestamp: any ISO 8601 date-time (with or without a zone; none means UTC) decodes to a
 * `DateTime.Utc`; encoding writes the given {@link TimestampStyle}.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { Wire } from "@chainquery/schema"
 *
 * const BlockTimestamp = Wire.Timestamp("naive")
 * Schema.decodeUnknownSync(BlockTimestamp)("2023-07-17T21:27:59.000Z") // DateTime.Utc
 * ```
 * @since 0.1.0
 */
export const Timestamp = (style: TimestampStyle): Schema.Codec<DateTime.Utc, string> =>
  liberal(WireDateTime, "an ISO 8601 date-time", toTimestamp, formatTimestamp(style))

/**
 * Text that holds JSON (`metadata`, `token_properties`). Kept as the raw string so that invalid
 * JSON never fails a page; an object sent in its place is serialised. Parse it with
 * {@link parseJsonText}.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { Wire } from "@chainquery/schema"
 *
 * Schema.decodeUnknownSync(Wire.JsonText)({ HP: "10" }) // '{"HP":"10"}'
 * ```
 * @since 0.1.0
 */
export const JsonText: Schema.Codec<string, string> = liberal(
  Schema.String,
  "a string (or an object) holding JSON",
  (input: unknown) =>
    typeof input === "string"
      ? input
      : typeof input === "object" && input !== null
      ? JSON.stringify(input)
      : undefined,
  identity<string>
)

/**
 * Parses JSON text from a response field; `undefined` when it is not valid JSON.
 *
 * @example
 * ```ts
 * import { Wire } from "@chainquery/schema"
 *
 * Wire.parseJsonText('{"name":"Punk"}') // { name: "Punk" }
 * Wire.parseJsonText("{not json") // undefined
 * ```
 * @since 0.1.0
 */
export const parseJsonText = (text: string): unknown => {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

/**
 * A field that may be `null` or missing in real responses: decoded to an `Option`, encoded with
 * `null` for `None`.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { Wire } from "@chainquery/schema"
 *
 * const Record = Schema.Struct({ operator: Wire.nullable(Schema.String) })
 * Schema.decodeUnknownSync(Record)({}) // { operator: Option.none() }
 * ```
 * @since 0.1.0
 */
export const nullable = <S extends Schema.Top>(schema: S) => {
  const inner = compile(schema)
  const codec = Schema.OptionFromOptionalNullOr(schema, { onNoneEncoding: null })
  return inner === undefined ? codec : withFast(codec, (input) => {
    if (input === null || input === undefined) return Option.none()
    const value = inner(input)
    return value === undefined ? undefined : Option.some(value)
  })
}

/**
 * A list that may be `null` or missing: decoded to an array (empty when absent), encoded as-is.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { Wire } from "@chainquery/schema"
 *
 * Schema.decodeUnknownSync(Schema.Struct({ logs: Wire.list(Schema.String) }))({ logs: null }) // { logs: [] }
 * ```
 * @since 0.1.0
 */
export const list = <S extends Schema.Top>(item: S) => {
  const array = Schema.Array(item)
  const inner = compile(array)
  const codec = Schema.optional(Schema.NullOr(array)).pipe(
    Schema.decodeTo(Schema.Array(Schema.toType(item)), {
      decode: SchemaGetter.transformOptional((input: Option.Option<ReadonlyArray<S["Type"]> | null | undefined>) =>
        Option.some(Option.getOrNull(input) ?? [])
      ),
      encode: SchemaGetter.passthroughSupertype()
    })
  )
  return inner === undefined
    ? codec
    : withFast(codec, (input) => (input === null || input === undefined ? [] : inner(input)))
}
