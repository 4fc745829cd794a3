/**
 * Records of a page that could not be decoded. A page never fails because one record is odd:
 * the good records are returned and each odd one is reported here, with where and why it failed
 * and the record as it came.
 *
 * @since 0.1.0
 */
import { Exit, Schema, SchemaGetter } from "effect"
import { compile, withFast } from "./internal/fast.js"
import * as IssuePath from "./IssuePath.js"

/**
 * One record that did not decode: its position in the page's `result`, the path of the bad
 * field inside it, the decoder's message and the raw record.
 *
 * @example
 * ```ts
 * import type { Rejected } from "@chainquery/schema"
 *
 * const report = (r: Rejected.RejectedRecord) => `result[${r.index}].${r.path}: ${r.message}`
 * ```
 * @since 0.1.0
 */
export const RejectedRecord = Schema.Struct({
  index: Schema.Int,
  path: Schema.String,
  message: Schema.String,
  raw: Schema.Unknown
})

/**
 * @example
 * ```ts
 * import type { Rejected } from "@chainquery/schema"
 *
 * const none: ReadonlyArray<Rejected.RejectedRecord> = []
 * ```
 * @since 0.1.0
 */
export type RejectedRecord = typeof RejectedRecord.Type

/**
 * The decoded form of a page's records: the good ones and the rejected ones.
 *
 * @example
 * ```ts
 * import type { Rejected } from "@chainquery/schema"
 *
 * const count = (records: Rejected.Partitioned<unknown>) => records.result.length + records.rejected.length
 * ```
 * @since 0.1.0
 */
export interface Partitioned<A> {
  readonly result: ReadonlyArray<A>
  readonly rejected: ReadonlyArray<RejectedRecord>
}

/**
 * Decodes each element of a list on its own, keeping the good ones and reporting the others;
 * encoding writes the good records back followed by the raw rejected ones.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { Rejected } from "@chainquery/schema"
 *
 * const decode = Rejected.partition(Schema.Struct({ id: Schema.Number }))
 * decode([{ id: 1 }, { id: "x" }]) // { result: [{ id: 1 }], rejected: [{ index: 1, path: "id", ... }] }
 * ```
 * @since 0.1.0
 */
export const partition = <S extends Schema.Codec<any, any>>(record: S) => {
  const decode = Schema.decodeUnknownExit(record)
  const fast = compile(record)
  return (raw: ReadonlyArray<unknown>): Partitioned<S["Type"]> => {
    const result: Array<S["Type"]> = []
    const rejected: Array<RejectedRecord> = []
    for (let index = 0; index < raw.length; index++) {
      const quick = fast?.(raw[index])
      if (quick !== undefined) {
        result.push(quick)
        continue
      }
      const exit = decode(raw[index])
      if (Exit.isSuccess(exit)) {
        result.push(exit.value)
        continue
      }
      const failure = exit.cause.reasons.find((reason) => reason._tag === "Fail")
      const error = failure?._tag === "Fail" ? failure.error : undefined
      rejected.push({
        index,
        path: error ? IssuePath.format(IssuePath.of(error.issue)) : "",
        message: error ? error.message.split("\n")[0] ?? error.message : "could not be decoded",
        raw: raw[index]
      })
    }
    return { result, rejected }
  }
}

/**
 * Turns a wire envelope whose `result` is a list of raw records into one whose `result` holds
 * the decoded records and whose `rejected` lists the ones that failed.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { Rejected } from "@chainquery/schema"
 *
 * const Page = Rejected.envelope({ cursor: Schema.String }, Schema.Struct({ id: Schema.Number }))
 * ```
 * @since 0.1.0
 */
export const envelope = <Fields extends Schema.Struct.Fields, S extends Schema.Codec<any, any>>(
  fields: Fields,
  record: S
): Schema.Codec<
  Schema.Struct<Fields>["Type"] & Partitioned<S["Type"]>,
  Schema.Struct<Fields>["Encoded"] & { readonly result: ReadonlyArray<S["Encoded"]> }
> => {
  const split = partition(record)
  const encodeRecord = Schema.encodeSync(record)
  const Wire = Schema.Struct({ ...fields, result: Schema.Array(Schema.Unknown) })
  const Decoded = Schema.Struct({
    ...fields,
    result: Schema.Array(Schema.toType(record)),
    rejected: Schema.Array(RejectedRecord)
  })
  const decode = (wire: any): any => ({ ...wire, ...split(wire.result) })
  const encode = (page: any): any => {
    const { rejected, result, ...rest } = page as Partitioned<S["Type"]>
    return { ...rest, result: [...result.map((r) => encodeRecord(r)), ...rejected.map((r) => r.raw)] }
  }
  const schema = Wire.pipe(
    Schema.decodeTo(Schema.toType(Decoded), {
      decode: SchemaGetter.transform(decode),
      encode: SchemaGetter.transform(encode)
    })
  )
  const fastFields = compile(Schema.Struct(fields))
  return (fastFields === undefined ? schema : withFast(schema, (input) => {
    const page = fastFields(input) as Record<string, unknown> | undefined
    const raw = (input as { readonly result?: unknown } | undefined)?.result
    return page === undefined || !Array.isArray(raw) ? undefined : { ...page, ...split(raw) }
  })) as any
}
