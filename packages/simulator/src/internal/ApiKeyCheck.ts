/**
 * The API key check, shared by the HttpApi's security middleware and the fast path: a request is
 * let in when the key it gives (X-API-Key, else `Authorization: Bearer`) is the simulator's key, or
 * when its bearer token is. Both schemes are declared by the HttpApi, which tries each; the key is
 * read from the request headers themselves, so that a wrong key says "Invalid key" whichever
 * scheme is tried last.
 *
 * @internal
 */
import { ApiKey, ErrorBody } from "@chainquery/schema"
import { Effect, Layer } from "effect"
import { HttpServerRequest } from "effect/http"

/** Request headers as node:http and the Effect request both give them. */
type Headers = Readonly<Record<string, string | ReadonlyArray<string> | undefined>>

const bearerOf = (headers: Headers): string | undefined => {
  const authorization = headers["authorization"]
  return /^Bearer\s+(.+)$/i.exec(typeof authorization === "string" ? authorization : "")?.[1]
}

const headerKeyOf = (headers: Headers): string | undefined => {
  const key = headers["x-api-key"]
  return typeof key === "string" ? key : undefined
}

/** Whether the request headers carry `apiKey` (the rule above). */
export const keyAccepted = (headers: Headers, apiKey: string): boolean => {
  const bearer = bearerOf(headers)
  return (headerKeyOf(headers) ?? bearer) === apiKey || bearer === apiKey
}

/** The 401 body for headers that {@link keyAccepted} refused. */
const unauthorized = (headers: Headers) => {
  const given = headerKeyOf(headers) ?? bearerOf(headers)
  return new ErrorBody.UnauthorizedBody({
    message: given === undefined || given === "" ? "API KEY missing from x-api-key header" : "Invalid key"
  })
}

/** The `ApiKeyAuth` middleware of the HttpApi, accepting `apiKey`. */
export const authLayer = (apiKey: string) => {
  const check = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
    Effect.gen(function*() {
      const { headers } = yield* HttpServerRequest.HttpServerRequest
      return keyAccepted(headers, apiKey) ? yield* effect : yield* Effect.fail(unauthorized(headers))
    })
  return Layer.succeed(ApiKey.ApiKeyAuth, {
    apiKey: (effect) => check(effect),
    bearer: (effect) => check(effect)
  })
}
