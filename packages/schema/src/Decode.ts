/**
 * Decoding response bodies quickly. Every record and envelope schema of this package carries a
 * compiled fast path (the same parse functions as its schema, assembled into one plain function);
 * `decoder` runs it and falls back to the schema itself when the body does not fit, so errors are
 * exactly the schema's. Use it where throughput matters (clients, streams); `Schema.decode*` gives
 * the same values.
 *
 * @since 0.1.0
 */
import { Result, Schema } from "effect"
import { compile } from "./internal/fast.js"

/**
 * A decoder for `schema`: the fast path when it applies, the schema's own decoding otherwise.
 *
 * @example
 * ```ts
 * import { Result } from "effect"
 * import { Decode, EvmPage } from "@chainquery/schema"
 *
 * const decodePage = Decode.decoder(EvmPage.TransfersPage)
 * const page = decodePage(JSON.parse('{"page":0,"page_size":100,"cursor":"","result":[]}'))
 * Result.isSuccess(page) // true
 * ```
 * @since 0.1.0
 */
export const decoder = <S extends Schema.Decoder<unknown>>(
  schema: S
): (input: unknown) => Result.Result<S["Type"], Schema.SchemaError> => {
  const fast = compile(schema)
  const slow = Schema.decodeUnknownResult(schema)
  if (fast === undefined) return slow
  return (input) => {
    const value = fast(input)
    return value === undefined ? slow(input) : Result.succeed(value as S["Type"])
  }
}
