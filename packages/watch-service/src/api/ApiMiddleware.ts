/**
 * The management API's two middlewares: the bearer-token check (the token compared in constant
 * time, through SHA-256 digests so that not even its length shows), and the translation of the
 * framework's decoding failures into 400s that name the field (`events[2]`, `limit`) and say
 * what is valid.
 *
 * @since 0.2.0
 */
import { Effect, Layer, Redacted, SchemaIssue } from "effect"
import { HttpApiMiddleware } from "effect/http-api"
import { createHash, timingSafeEqual } from "node:crypto"
import { Authorization, BadRequest, Caller, Unauthorized, Validation } from "./ManagementApi.js"
import { ServiceConfig } from "../model/ServiceConfig.js"

const digest = (text: string): Buffer => createHash("sha256").update(text, "utf8").digest()

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
  timingSafeEqual(digest(Redacted.value(given)), digest(Redacted.value(expected)))

/**
 * The bearer-token check, against the service's `--api-token`.
 *
 * @example
 * ```ts
 * import { ApiMiddleware } from "@chainquery/watch-service"
 *
 * const auth = ApiMiddleware.authorization
 * ```
 * @since 0.2.0
 */
export const authorization: Layer.Layer<Authorization, never, ServiceConfig> = Layer.effect(
  Authorization,
  Effect.gen(function*() {
    const { apiToken } = yield* ServiceConfig
    return {
      bearer: (effect, { credential }) =>
        Redacted.value(credential) !== "" && sameToken(credential, apiToken)
          ? Effect.provideService(effect, Caller, { name: "operator" })
          : Effect.fail(new Unauthorized({
            error: "unauthorized",
            message: Redacted.value(credential) === ""
              ? "a bearer token is required: Authorization: Bearer <the service's --api-token>"
              : "the bearer token is not the service's --api-token"
          }))
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
