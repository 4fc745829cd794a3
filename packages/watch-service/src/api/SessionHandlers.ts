/**
 * The handlers of the console's sign-in (`ManagementApi.Sessions`): the API token, compared in
 * constant time, exchanged for a session (`ConsoleSessions`) whose id goes into an `HttpOnly`,
 * `SameSite=Strict` cookie (`Secure` when the request came over HTTPS, as a proxy in front says
 * with `X-Forwarded-Proto` or `Forwarded`); a session the browser still held ends. Sign-out ends
 * the session and expires the cookie.
 *
 * @since 0.5.0
 */
import { DateTime, Duration, Effect, Redacted } from "effect"
import { HttpServerRequest } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { sameToken } from "./ApiMiddleware.js"
import { Api, Caller, sessionCookie, type SessionView, Unauthorized } from "./ManagementApi.js"
import * as ConsoleSessions from "../store/ConsoleSessions.js"
import { ServiceConfig } from "../model/ServiceConfig.js"

/** Whether a proxy in front says the request came over HTTPS (`X-Forwarded-Proto`, or `Forwarded: proto=https`). */
const overHttps = (request: HttpServerRequest.HttpServerRequest): boolean =>
  request.headers["x-forwarded-proto"]?.split(",")[0]?.trim().toLowerCase() === "https" ||
  /(?:^|[;,\s])proto=(?:"?)https(?:"?)(?:[;,\s]|$)/i.test(request.headers["forwarded"]?.split(",")[0] ?? "")

/** The session cookie's attributes, when it is set and when it is expired. */
const cookieAttributes = { httpOnly: true, sameSite: "strict", path: "/" } as const

const viewOf = (session: ConsoleSessions.Session | undefined): typeof SessionView.Type =>
  session === undefined
    ? { via: "bearer", csrfToken: null, expiresAt: null }
    : { via: "session", csrfToken: session.csrfToken, expiresAt: DateTime.formatIso(session.expiresAt) }

/**
 * The `session` group's handlers: `signIn`, `current` and `signOut`.
 *
 * @example
 * ```ts
 * import { SessionHandlers } from "@chainquery/watch-service"
 *
 * const layer = SessionHandlers.handlers
 * ```
 * @since 0.5.0
 */
export const handlers = HttpApiBuilder.group(Api, "session", (handle) =>
  Effect.gen(function*() {
    const { apiToken } = yield* ServiceConfig
    return handle
      .handle("signIn", ({ payload }) =>
        Effect.gen(function*() {
          if (!sameToken(payload.token, apiToken)) {
            return yield* Effect.fail(new Unauthorized({ error: "unauthorized", message: "the token is not the service's --api-token" }))
          }
          const request = yield* HttpServerRequest.HttpServerRequest
          // A session the browser still held ends: one browser, one session.
          const before = request.cookies[sessionCookie.key]
          if (before !== undefined && before !== "") yield* Effect.orDie(ConsoleSessions.end(apiToken, Redacted.make(before)))
          const session = yield* Effect.orDie(ConsoleSessions.open(apiToken))
          yield* HttpApiBuilder.securitySetCookie(sessionCookie, session.id, {
            ...cookieAttributes,
            secure: overHttps(request),
            maxAge: ConsoleSessions.lifetime
          })
          return viewOf(session)
        }))
      .handle("current", () => Effect.gen(function*() {
        return viewOf((yield* Caller).session)
      }))
      .handle("signOut", () =>
        Effect.gen(function*() {
          const caller = yield* Caller
          if (caller.session !== undefined) yield* Effect.orDie(ConsoleSessions.end(apiToken, caller.session.id))
          // Expired, with the attributes it was set with (no `Secure`: a cookie is cleared whatever the scheme).
          yield* HttpApiBuilder.securitySetCookie(sessionCookie, "", { ...cookieAttributes, secure: false, maxAge: Duration.zero, expires: new Date(0) })
        }))
  }))

