/**
 * Building blocks for liberal decoders: a getter that parses with a plain function and reports a
 * schema issue (with a human `expected`) when the function returns `undefined`.
 *
 * @internal
 */
import { Effect, SchemaGetter, SchemaIssue } from "effect"

/**
 * A decoding getter from a partial function: `undefined` means "not acceptable" and becomes an
 * `InvalidValue` issue that says what was expected.
 */
export const parseWith = <T, E>(expected: string, parse: (input: E) => T | undefined): SchemaGetter.Getter<T, E> =>
  SchemaGetter.transformEffect((input: E, options) => {
    const value = parse(input)
    return value === undefined
      ? Effect.fail(new SchemaIssue.InvalidValue({ expected }, input, options))
      : Effect.succeed(value)
  })

/** Renders any input value for an error message: short, single line, never huge. */
export const renderValue = (value: unknown): string => {
  let text: string
  if (typeof value === "string") text = JSON.stringify(value)
  else if (typeof value === "bigint") text = `${value}n`
  else if (typeof value === "number") text = String(value)
  else if (value instanceof Date) text = Number.isNaN(value.getTime()) ? "Invalid Date" : `Date(${value.toISOString()})`
  else if (value === undefined) text = "undefined"
  else {
    try {
      text = JSON.stringify(value, (_, v) => (typeof v === "bigint" ? `${v}n` : v)) ?? String(value)
    } catch {
      text = String(value)
    }
  }
  return text.length > 120 ? `${text.slice(0, 117)}...` : text
}
