/**
 * Validation of user input at the edge of every operation: a schema decodes the value or the
 * call fails with an `InvalidInput` that names the field, the value and what was expected, before
 * any request is sent.
 *
 * @since 0.1.0
 */
import { Effect, Exit, Schema } from "effect"
import { InvalidInput } from "./Errors.js"
import { renderValue } from "./internal/parse.js"

/**
 * What a schema accepts, in words: its `description` annotation, else the first line of the
 * decoding failure.
 */
const expectedOf = (schema: Schema.Top, fallback: string): string =>
  Schema.resolveAnnotations(schema)?.description ?? fallback.split("\n")[0] ?? fallback

/**
 * Decodes `value` with `schema`; on failure returns an `InvalidInput` naming `field`.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { EvmAddress, Input } from "@chainquery/schema"
 *
 * const program = Input.validate(EvmAddress.EvmAddress, "address", "0xnot-an-address")
 * // fails with InvalidInput { field: "address", expected: "0x followed by 40 hex digits ...", ... }
 * Effect.runPromiseExit(program)
 * ```
 * @since 0.1.0
 */
export const validate = <S extends Schema.Decoder<unknown>>(
  schema: S,
  field: string,
  value: unknown
): Effect.Effect<S["Type"], InvalidInput> => {
  const exit = decodeRemembered(schema, value)
  return Exit.isSuccess(exit) ? exit as Exit.Exit<S["Type"], never> : Effect.fail(invalid(schema, field, value, exit))
}

/** The `InvalidInput` of a failed decoding of `value` for `field`. */
const invalid = (schema: Schema.Top, field: string, value: unknown, exit: Exit.Failure<unknown, Schema.SchemaError>) => {
  const error = exit.cause.reasons.find((reason) => reason._tag === "Fail")
  const message = error && error._tag === "Fail" ? String(error.error.message) : "a valid value"
  return new InvalidInput({ field, value: renderValue(value), expected: expectedOf(schema, message) })
}

/** Most remembered decodings per schema; past it, the schema's memory starts again. */
const rememberedPerSchema = 512

const remembered = new WeakMap<Schema.Top, Map<string | number | boolean, Exit.Exit<unknown, Schema.SchemaError>>>()

/**
 * `Schema.decodeUnknownExit(schema)(value)`, remembered per schema for a string, number or
 * boolean: decoding is pure, and a caller asks the same of the same parameters again and again (a
 * wallet, a chain, a page size, page after page), so what a decoding costs is paid once.
 */
const decodeRemembered = (schema: Schema.Decoder<unknown>, value: unknown): Exit.Exit<unknown, Schema.SchemaError> => {
  if ((typeof value !== "string" && typeof value !== "number" && typeof value !== "boolean") || Object.is(value, -0)) {
    return Schema.decodeUnknownExit(schema)(value)
  }
  let decodings = remembered.get(schema)
  if (decodings === undefined) remembered.set(schema, decodings = new Map())
  let exit = decodings.get(value)
  if (exit === undefined) {
    exit = Schema.decodeUnknownExit(schema)(value)
    if (decodings.size >= rememberedPerSchema) decodings.clear()
    decodings.set(value, exit)
  }
  return exit
}

/**
 * Like {@link validate} for an optional parameter: `undefined` stays `undefined`.
 *
 * @example
 * ```ts
 * import { Input, Paging } from "@chainquery/schema"
 *
 * const limit = Input.validateOptional(Paging.Limit, "limit", undefined) // succeeds with undefined
 * ```
 * @since 0.1.0
 */
export const validateOptional = <S extends Schema.Decoder<unknown>>(
  schema: S,
  field: string,
  value: unknown
): Effect.Effect<S["Type"] | undefined, InvalidInput> =>
  value === undefined ? Effect.succeed(undefined) : validate(schema, field, value)

/**
 * Validates every element of a list, naming the failing element by its index
 * (`field[2]`). An empty list fails when `nonEmpty` is set.
 *
 * @example
 * ```ts
 * import { AptosAddress, Input } from "@chainquery/schema"
 *
 * const owners = Input.validateAll(AptosAddress.AptosAddress, "ownerAddresses", ["0x1", "0x2"], { nonEmpty: true })
 * ```
 * @since 0.1.0
 */
export const validateAll = <S extends Schema.Decoder<unknown>>(
  schema: S,
  field: string,
  values: unknown,
  options?: { readonly nonEmpty?: boolean | undefined }
): Effect.Effect<ReadonlyArray<S["Type"]>, InvalidInput> => checked((check) => check.all(schema, field, values, options))

/**
 * Validation inside {@link checked}: each method returns the decoded value, or ends the
 * preparation with the `InvalidInput` that names the field.
 *
 * @example
 * ```ts
 * import { EvmAddress, Input, Paging } from "@chainquery/schema"
 *
 * const prepared = Input.checked((check) => ({
 *   address: check.value(EvmAddress.EvmAddress, "address", "0xd8da6bf26964af9d7eed9e03e53415d37aa96045"),
 *   limit: check.optional(Paging.Limit, "limit", undefined)
 * }))
 * ```
 * @since 0.2.0
 */
export interface Check {
  /** Like {@link validate}. */
  readonly value: <S extends Schema.Decoder<unknown>>(schema: S, field: string, value: unknown) => S["Type"]
  /** Like {@link validateOptional}. */
  readonly optional: <S extends Schema.Decoder<unknown>>(schema: S, field: string, value: unknown) => S["Type"] | undefined
  /** Like {@link validateAll}. */
  readonly all: <S extends Schema.Decoder<unknown>>(
    schema: S,
    field: string,
    values: unknown,
    options?: { readonly nonEmpty?: boolean | undefined }
  ) => ReadonlyArray<S["Type"]>
  /** Ends the preparation with `error`. */
  readonly fail: (error: InvalidInput) => never
}

/** What a failed check throws, to be caught by `checked` only. */
class Stop {
  constructor(readonly error: InvalidInput) {}
}

const check: Check = {
  value: (schema, field, value) => {
    const exit = decodeRemembered(schema, value)
    if (Exit.isSuccess(exit)) return exit.value
    throw new Stop(invalid(schema, field, value, exit))
  },
  optional: (schema, field, value) => value === undefined ? undefined : check.value(schema, field, value),
  all: (schema, field, values, options) => {
    if (!Array.isArray(values)) throw new Stop(new InvalidInput({ field, value: renderValue(values), expected: "a list" }))
    if (options?.nonEmpty === true && values.length === 0) {
      throw new Stop(new InvalidInput({ field, value: "[]", expected: "a list with at least one element" }))
    }
    // Every index, holes included (`map` would skip them and let a hole through unchecked).
    const decoded: Array<unknown> = []
    for (let index = 0; index < values.length; index++) decoded.push(check.value(schema, `${field}[${index}]`, values[index]))
    return decoded
  },
  fail: (error) => {
    throw new Stop(error)
  }
}

/**
 * Runs `build` with a {@link Check} and returns what it built, or the first `InvalidInput` a
 * check met, at once: the synchronous form of a chain of {@link validate}s, for the parameters of
 * a call (an `Exit` is an `Effect`, and one that costs nothing to run).
 *
 * @example
 * ```ts
 * import { EvmAddress, Input } from "@chainquery/schema"
 * import { Exit } from "effect"
 *
 * const exit = Input.checked((check) => check.value(EvmAddress.EvmAddress, "address", "0xnot-an-address"))
 * Exit.isFailure(exit) // true: an InvalidInput naming "address"
 * ```
 * @since 0.2.0
 */
export const checked = <A>(build: (check: Check) => A): Exit.Exit<A, InvalidInput> => {
  try {
    return Exit.succeed(build(check))
  } catch (thrown) {
    if (thrown instanceof Stop) return Exit.fail(thrown.error)
    throw thrown
  }
}
