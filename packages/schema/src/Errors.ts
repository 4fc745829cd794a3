/**
 * The error model shared by every chainquery package: one `Schema.TaggedError` class per way a
 * call can go wrong. Errors are values in the error channel; each operation's type lists the
 * ones it can really produce.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"

/**
 * A parameter was rejected before any request was sent. Names the field, the offending value
 * (rendered, truncated) and what would have been accepted.
 *
 * @example
 * ```ts
 * import { Errors } from "@chainquery/schema"
 *
 * const error = new Errors.InvalidInput({ field: "limit", value: "500", expected: "an integer from 1 to 100" })
 * error.message // "Invalid limit: expected an integer from 1 to 100, got 500"
 * ```
 * @since 0.1.0
 */
export class InvalidInput extends Schema.TaggedError<InvalidInput>()("InvalidInput", {
  field: Schema.String,
  value: Schema.String,
  expected: Schema.String
}) {
  override get message(): string {
    return `Invalid ${this.field}: expected ${this.expected}, got ${this.value}`
  }
}

/**
 * The service refused the API key (HTTP 401 or 403): it is missing, wrong or not allowed here.
 *
 * @example
 * ```ts
 * import { Errors } from "@chainquery/schema"
 *
 * new Errors.Unauthorized({ status: 401, message: "Invalid key" })
 * ```
 * @since 0.1.0
 */
export class Unauthorized extends Schema.TaggedError<Unauthorized>()("Unauthorized", {
  status: Schema.Number,
  message: Schema.String
}) {}

/**
 * The service's rate limit was hit (HTTP 429). `retryAfter` is the wait the service asked for,
 * from its `Retry-After` header, when it sent one.
 *
 * @example
 * ```ts
 * import { Duration, Option } from "effect"
 * import { Errors } from "@chainquery/schema"
 *
 * new Errors.RateLimited({ message: "Rate Limit exceeded", retryAfter: Option.some(Duration.seconds(2)) })
 * ```
 * @since 0.1.0
 */
export class RateLimited extends Schema.TaggedError<RateLimited>()("RateLimited", {
  message: Schema.String,
  retryAfter: Schema.Option(Schema.Duration)
}) {}

/**
 * The service rejected the request (HTTP 400); `message` is the service's own explanation.
 *
 * @example
 * ```ts
 * import { Errors } from "@chainquery/schema"
 *
 * new Errors.BadRequest({ message: "limit must not be less than 1" })
 * ```
 * @since 0.1.0
 */
export class BadRequest extends Schema.TaggedError<BadRequest>()("BadRequest", {
  message: Schema.String
}) {}

/**
 * The service has no such resource (HTTP 404), e.g. an unknown block.
 *
 * @example
 * ```ts
 * import { Errors } from "@chainquery/schema"
 *
 * new Errors.NotFound({ message: "Block not found" })
 * ```
 * @since 0.1.0
 */
export class NotFound extends Schema.TaggedError<NotFound>()("NotFound", {
  message: Schema.String
}) {}

/**
 * The service failed (HTTP 5xx, or any other status it should not send).
 *
 * @example
 * ```ts
 * import { Errors } from "@chainquery/schema"
 *
 * new Errors.ServerError({ status: 503, message: "Service Unavailable" })
 * ```
 * @since 0.1.0
 */
export class ServerError extends Schema.TaggedError<ServerError>()("ServerError", {
  status: Schema.Number,
  message: Schema.String
}) {}

/**
 * The exchange did not complete: the connection failed or was reset, a timeout struck, the
 * response body was larger than allowed, or a success answer's body was not JSON at all (cut
 * short or garbled on the way: `MalformedBody`). All but `BodyTooLarge` are retried by the
 * transport before they are returned.
 *
 * @example
 * ```ts
 * import { Errors } from "@chainquery/schema"
 *
 * new Errors.Transport({ reason: "Timeout", message: "no response within 10 seconds" })
 * new Errors.Transport({ reason: "MalformedBody", message: "the body of a 200 answer is not valid JSON (512 characters)" })
 * ```
 * @since 0.1.0
 */
export class Transport extends Schema.TaggedError<Transport>()("Transport", {
  reason: Schema.Literals(["Network", "Timeout", "BodyTooLarge", "MalformedBody"]),
  message: Schema.String
}) {}

/**
 * The service answered with a redirect (HTTP 3xx), or the HTTP client followed one and the answer
 * came from another origin. Redirects are never followed: the API key goes only to the configured
 * base URL. `location` is the target's origin and path (never its query), `"(none)"` when the
 * answer named no target; `followed` is true when the HTTP client had already followed it.
 *
 * @example
 * ```ts
 * import { Errors } from "@chainquery/schema"
 *
 * const error = new Errors.Redirected({ status: 302, location: "https://elsewhere.example/api", followed: false })
 * error.message // "the service redirected the request (HTTP 302) to https://elsewhere.example/api; ..."
 * ```
 * @since 0.1.0
 */
export class Redirected extends Schema.TaggedError<Redirected>()("Redirected", {
  status: Schema.Number,
  location: Schema.String,
  followed: Schema.Boolean
}) {
  override get message(): string {
    return this.followed
      ? `the HTTP client followed a redirect to ${this.location} (HTTP ${this.status} there); its answer is refused: redirects must not be followed, the API key goes only to the configured base URL`
      : `the service redirected the request (HTTP ${this.status}) to ${this.location}; redirects are not followed: the API key goes only to the configured base URL`
  }
}

/**
 * A client's options were refused when it was made, before any request: `field` names the
 * option, `value` what was given (never a secret) and `expected` what is accepted. For instance
 * a `baseUrl` with `http:` to a host that is not loopback, which would send the API key in
 * clear text.
 *
 * @example
 * ```ts
 * import { Errors } from "@chainquery/schema"
 *
 * const error = new Errors.InvalidConfig({
 *   field: "baseUrl",
 *   value: "http://api.example.com",
 *   expected: "an https: URL (http: only to a loopback host, or with allowInsecureHttp: true)"
 * })
 * error.message // "Invalid baseUrl option: expected an https: URL (...), got http://api.example.com"
 * ```
 * @since 0.1.0
 */
export class InvalidConfig extends Schema.TaggedError<InvalidConfig>()("InvalidConfig", {
  field: Schema.String,
  value: Schema.String,
  expected: Schema.String
}) {
  override get message(): string {
    return `Invalid ${this.field} option: expected ${this.expected}, got ${this.value}`
  }
}

/**
 * A response arrived as JSON but could not be read as the operation's response: a field of the
 * wrong type, or a page that is not a page. `path` points at the offending field. Not retried:
 * it is the service's answer (a body that is not JSON at all is `Transport` `MalformedBody`).
 *
 * @example
 * ```ts
 * import { Errors } from "@chainquery/schema"
 *
 * new Errors.ResponseDecode({ path: "result[3].block_number", message: "Expected a numeric string" })
 * ```
 * @since 0.1.0
 */
export class ResponseDecode extends Schema.TaggedError<ResponseDecode>()("ResponseDecode", {
  path: Schema.String,
  message: Schema.String
}) {}

/**
 * Every error a chainquery call can fail with.
 *
 * @example
 * ```ts
 * import type { Errors } from "@chainquery/schema"
 *
 * const describe = (error: Errors.ChainqueryError): string => `${error._tag}: ${error.message}`
 * ```
 * @since 0.1.0
 */
export type ChainqueryError =
  | InvalidInput
  | Unauthorized
  | RateLimited
  | BadRequest
  | NotFound
  | ServerError
  | Redirected
  | Transport
  | ResponseDecode

/**
 * The errors any request that reached the network can fail with, whatever the operation.
 *
 * @example
 * ```ts
 * import type { Errors } from "@chainquery/schema"
 *
 * type PageError = Errors.RequestError | Errors.InvalidInput
 * ```
 * @since 0.1.0
 */
export type RequestError = Unauthorized | RateLimited | BadRequest | ServerError | Redirected | Transport | ResponseDecode
