/**
 * The management API's two middlewares: the check of the caller (a bearer token compared in constant
 * time, through SHA-256 digests so that not even its length shows, or a console session), and the translation of the
 * framework's decoding failures into 400s that name the field (`events[2]`, `limit`) and say
 * what is valid.
 *
 * @since 0.2.0
 */
import { Effect, Layer, Option, Redacted, SchemaIssue } from "effect"
import { HttpServerRequest } from "effect/http"
import { HttpApiMiddleware } from "effect/http-api"
import { SqlClient } from "effect/sql"
import { Authorization, BadRequest, Caller, csrfHeader, Forbidden, Unauthorized, Validation } from "./ManagementApi.js"
import * as ConsoleSessions from "../store/ConsoleSessions.js"
import { ServiceConfig } from "../model/ServiceConfig.js"
import { sameSecret } from "../model/secrets.js"

/**
 * Whether `given` is `expected`, in time that depends on neither.
 *
 * @example
 * ```ts
 * import { Redacted } from "effect"
 * import { ApiMiddleware } from "@chainquery/watch-service"
 *
 * ApiMiddleware.sameToken(Redacted.make("a"), Redacted.make("a")) // true
 * ```
 * @since 0.2.0
 */
export const sameToken = (given: Redacted.Redacted<string>, expected: Redacted.Redacted<string>): boolean =>
  sameSecret(Redacted.value(given), Redacted.value(expected))

/** The methods that change nothing (a console session needs no CSRF token for them). */
const safeMethods = new Set(["GET", "HEAD", "OPTIONS"])

/** The bearer credential of an `Authorization` header, if it has one. */
const bearerOf = (header: string | undefined): string =>
  header === undefined ? "" : /^bearer\s+(.*)$/i.exec(header.trim())?.[1]?.trim() ?? ""

const refused = (bearer: string) =>
  new Unauthorized({
    error: "unauthorized",
    message: bearer === ""
      ? "a bearer token is required: Authorization: Bearer <the service's --api-token> (or a console session)"
      : "the bearer token is not the service's --api-token"
  })

/**
 * The check of every route, against the service's `--api-token`: a bearer token, or else a
 * console session's cookie (`ConsoleSessions`), whose changes must carry the session's CSRF
 * token (403 without it). A request with a bearer token is judged by it alone.
 *
 * @example
 * ```ts
 * import { ApiMiddleware } from "@chainquery/watch-service"
 *
 * const auth = ApiMiddleware.authorization
 * ```
 * @since 0.2.0
 */
export const authorization: Layer.Layer<Authorization, never, ServiceConfig | SqlClient.SqlClient> = Layer.effect(
  Authorization,
  Effect.gen(function*() {
    const { apiToken } = yield* ServiceConfig
    const sql = yield* SqlClient.SqlClient
    return {
      bearer: (effect, { credential }) =>
        Redacted.value(credential) !== "" && sameToken(credential, apiToken)
          ? Effect.provideService(effect, Caller, { name: "operator" })
          : Effect.fail(refused(Redacted.value(credential))),
      session: (effect, { credential }) =>
        Effect.gen(function*() {
          const request = yield* HttpServerRequest.HttpServerRequest
          const bearer = bearerOf(request.headers["authorization"])
          if (bearer !== "" || Redacted.value(credential) === "") return yield* Effect.fail(refused(bearer))
          const session = yield* ConsoleSessions.find(apiToken, credential).pipe(Effect.provideService(SqlClient.SqlClient, sql), Effect.orDie)
          if (Option.isNone(session)) {
            return yield* Effect.fail(new Unauthorized({ error: "unauthorized", message: "the console session has ended (signed out or expired): sign in again" }))
          }
          if (!safeMethods.has(request.method) && !ConsoleSessions.isCsrfTokenOf(session.value, request.headers[csrfHeader])) {
            return yield* Effect.fail(new Forbidden({
              error: "forbidden",
              message: `a change through a console session needs the session's CSRF token in ${csrfHeader}; nothing was changed`
            }))
          }
          return yield* Effect.provideService(effect, Caller, { name: "operator", session: session.value })
        })
    }
  })
)

const formatter = SchemaIssue.makeFormatterStandardSchemaV1()

/** A path as a field name: `events[2]`, `wallets`, `options.limit`. */
const fieldOf = (path: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }>, fallback: string): string => {
  const keys = path.map((segment) => typeof segment === "object" ? segment.key : segment)
  if (keys.length === 0) return fallback
  return keys.reduce<string>((field, key, index) =>
    typeof key === "number" ? `${field}[${key}]` : index === 0 ? String(key) : `${field}.${String(key)}`, "")
}

/**
 * Request decoding failures as 400s naming the field: the first problem's path and message, and
 * how many more there are. A failure to encode an answer stays a 500.
 *
 * @example
 * ```ts
 * import { ApiMiddleware } from "@chainquery/watch-service"
 *
 * const validation = ApiMiddleware.validation
 * ```
 * @since 0.2.0
 */
export const validation: Layer.Layer<Validation> = HttpApiMiddleware.layerSchemaErrorTransform(Validation, (error) => {
  if (error.kind === "Body" || error.kind === "ResponseHeaders") return Effect.fail(error)
  const issues = formatter(error.cause.issue).issues
  const first = issues[0]
  const where = error.kind === "Payload" ? "body" : error.kind === "Params" ? "path" : error.kind.toLowerCase()
  const field = fieldOf((first?.path ?? []) as ReadonlyArray<PropertyKey | { readonly key: PropertyKey }>, where)
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more problem${issues.length > 2 ? "s" : ""})` : ""
  const message = first?.message === "Expected no excess property"
    ? `${field} is not a field of this request${more}`
    : `${first?.message ?? "invalid request"}${more}`
  return Effect.fail(new BadRequest({ error: "bad_request", field, message }))
})
