/**
 * The error bodies the service sends, as seen on the wire (`wire-notes.md`). Family A answers
 * `{"message": "..."}`; family B's 400 is `{"statusCode": 400, "message": [...], "error": "Bad
 * Request"}` (`statusCode` may be a string, `message` a string). These are wire shapes; clients
 * turn them into the typed errors of `Errors`.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"

/**
 * `{"message": "..."}`, the body of family A's errors and of 401/404/429 of both families. The
 * classes below give each status its own schema (same wire shape), so that a server can tell
 * which status to answer with.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { ErrorBody } from "@chainquery/schema"
 *
 * Schema.decodeUnknownSync(ErrorBody.MessageBody)({ message: "limit must not be less than 1" })
 * ```
 * @since 0.1.0
 */
export const MessageBody = Schema.Struct({ message: Schema.String })

/**
 * Family B's 400 body.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { ErrorBody } from "@chainquery/schema"
 *
 * Schema.decodeUnknownSync(ErrorBody.LedgerBadRequestBody)({
 *   statusCode: "400", message: ["creator_address must be 66 characters"], error: "Bad Request"
 * })
 * ```
 * @since 0.1.0
 */
export class LedgerBadRequestBody extends Schema.Class<LedgerBadRequestBody>("LedgerBadRequestBody")({
  statusCode: Schema.Union([Schema.Number, Schema.String]),
  message: Schema.Union([Schema.Array(Schema.String), Schema.String]),
  error: Schema.String
}, { httpApiStatus: 400 }) {}

/**
 * The service's message from any error body: a `message` string, the messages of a list joined,
 * or the text itself when the body is not JSON. Empty when there is nothing to say.
 *
 * @example
 * ```ts
 * import { ErrorBody } from "@chainquery/schema"
 *
 * ErrorBody.messageOf({ message: ["a", "b"] }) // "a; b"
 * ErrorBody.messageOf("Rate Limit exceeded") // "Rate Limit exceeded"
 * ```
 * @since 0.1.0
 */
export const messageOf = (body: unknown): string => {
  if (typeof body === "string") return body.trim().slice(0, 1000)
  if (typeof body === "object" && body !== null && "message" in body) {
    const message = (body as { readonly message: unknown }).message
    if (typeof message === "string") return message.slice(0, 1000)
    if (Array.isArray(message)) return message.map(String).join("; ").slice(0, 1000)
  }
  return ""
}

/**
 * 400 of family A: the service's explanation.
 *
 * @example
 * ```ts
 * import { ErrorBody } from "@chainquery/schema"
 *
 * const schema = ErrorBody.EvmBadRequestBody
 * ```
 * @since 0.1.0
 */
export class EvmBadRequestBody extends Schema.Class<EvmBadRequestBody>("EvmBadRequestBody")(MessageBody.fields, { httpApiStatus: 400 }) {}

/**
 * 401: a missing or invalid API key.
 *
 * @example
 * ```ts
 * import { ErrorBody } from "@chainquery/schema"
 *
 * const schema = ErrorBody.UnauthorizedBody
 * ```
 * @since 0.1.0
 */
export class UnauthorizedBody extends Schema.Class<UnauthorizedBody>("UnauthorizedBody")(MessageBody.fields, { httpApiStatus: 401 }) {}

/**
 * 404: e.g. an unknown block on A6.
 *
 * @example
 * ```ts
 * import { ErrorBody } from "@chainquery/schema"
 *
 * const schema = ErrorBody.NotFoundBody
 * ```
 * @since 0.1.0
 */
export class NotFoundBody extends Schema.Class<NotFoundBody>("NotFoundBody")(MessageBody.fields, { httpApiStatus: 404 }) {}

/**
 * 429: the rate limit; the wait is in the `Retry-After` header.
 *
 * @example
 * ```ts
 * import { ErrorBody } from "@chainquery/schema"
 *
 * const schema = ErrorBody.RateLimitedBody
 * ```
 * @since 0.1.0
 */
export class RateLimitedBody extends Schema.Class<RateLimitedBody>("RateLimitedBody")(MessageBody.fields, { httpApiStatus: 429 }) {}
