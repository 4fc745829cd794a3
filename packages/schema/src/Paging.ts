/**
 * The paging parameters shared by the listings: `limit` (page size, 1 to 100), `order`
 * (`ASC`/`DESC`), `offset` (family B) and the opaque `cursor`.
 *
 * @since 0.1.0
 */
import { Schema, SchemaGetter } from "effect"

/**
 * The largest page the service serves; a larger `limit` is a 400.
 *
 * @example
 * ```ts
 * import { Paging } from "@chainquery/schema"
 *
 * Paging.maxLimit // 100
 * ```
 * @since 0.1.0
 */
export const maxLimit = 100

/**
 * A page size: an integer from 1 to 100.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { Paging } from "@chainquery/schema"
 *
 * Schema.decodeUnknownSync(Paging.Limit)(100) // 100
 * ```
 * @since 0.1.0
 */
export const Limit = Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: maxLimit })).annotate({
  description: `an integer from 1 to ${maxLimit}`
})

/**
 * A number of results to skip (family B): a non-negative integer.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { Paging } from "@chainquery/schema"
 *
 * Schema.decodeUnknownSync(Paging.Offset)(200) // 200
 * ```
 * @since 0.1.0
 */
export const Offset = Schema.Int.check(Schema.isGreaterThanOrEqualTo(0)).annotate({
  description: "a non-negative integer"
})

/**
 * Sort order: `ASC` or `DESC` (lower case is accepted and upper-cased).
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { Paging } from "@chainquery/schema"
 *
 * Schema.decodeUnknownSync(Paging.Order)("desc") // "DESC"
 * ```
 * @since 0.1.0
 */
export const Order: Schema.Codec<"ASC" | "DESC", string> = Schema.Literals(["ASC", "DESC", "asc", "desc"]).pipe(
  Schema.decodeTo(Schema.Literals(["ASC", "DESC"]), {
    decode: SchemaGetter.transform((order: "ASC" | "DESC" | "asc" | "desc") => order.toUpperCase() as "ASC" | "DESC"),
    encode: SchemaGetter.passthrough()
  }),
  Schema.annotate({ description: "ASC or DESC" })
)

/**
 * An opaque cursor returned by a previous page: a non-empty string.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { Paging } from "@chainquery/schema"
 *
 * Schema.decodeUnknownSync(Paging.Cursor)("eyJhbGciOi...")
 * ```
 * @since 0.1.0
 */
export const Cursor = Schema.String.check(Schema.isNonEmpty()).annotate({
  description: "a cursor from a previous page (a non-empty string)"
})
