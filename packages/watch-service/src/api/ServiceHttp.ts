/**
 * The service's HTTP server: the management API (and its OpenAPI document at `/openapi.json`, its
 * docs page at `/docs`, where `/` leads), `/metrics` in Prometheus text, `/healthz` (the process answers) and
 * `/readyz` (see `Readiness`). Request bodies are capped (413 beyond), slow and idle connections
 * are closed and their number capped (see `HttpLimits`), unknown routes are a 404
 * with a JSON body, and the first line on stdout is `listening on http://HOST:PORT`.
 *
 * @since 0.2.0
 */
// Named here so that the declarations of the routes (whose handlers need the EVM client) can name it.
import type { EvmClient as _EvmClient } from "@chainquery/evm-client"
import { NodeHttpServer } from "@effect/platform-node"
import { ByteSize, Cause, Effect, Layer } from "effect"
import { HttpRouter, HttpServer, HttpServerError, HttpServerRequest, HttpServerResponse } from "effect/http"
import { HttpApiBuilder, HttpApiScalar } from "effect/http-api"
import { PrometheusMetrics } from "effect/observability"
import { authorization, validation } from "./ApiMiddleware.js"
import { handlers } from "./ApiHandlers.js"
import * as SessionHandlers from "./SessionHandlers.js"
import { answerWhileStarting } from "./HttpStarting.js"
import { createLimitedServer, defaults, type HttpLimits } from "./HttpLimits.js"
import { Api } from "./ManagementApi.js"
import { Readiness } from "./Readiness.js"

/** The largest request body: 10,000 wallet specs with room to spare. */
export const maxBodyBytes = 4 * 1024 * 1024

const json = (status: number, error: string, message: string) => HttpServerResponse.jsonUnsafe({ error, message }, { status })

/** The framework's own 404 and 413 (empty by default) with a JSON body like the API's errors. */
const frameworkErrors = HttpRouter.middleware(
  (effect) =>
    Effect.catchCause(effect, (cause) => {
      const error = Cause.squash(cause)
      if (HttpServerError.isHttpServerError(error)) {
        if (error.reason._tag === "RequestParseError" && error.reason.reason === "BodyTooLarge") {
          return Effect.succeed(json(413, "payload_too_large", `the request body is over ${maxBodyBytes} bytes`))
        }
        if (error.reason._tag === "RouteNotFound") return Effect.succeed(json(404, "not_found", "no such route (the routes are listed at /openapi.json)"))
      }
      // A request interrupted (its client hung up, or the server is stopping) is nobody's fault.
      if (Cause.hasInterruptsOnly(cause)) return Effect.failCause(cause)
      // Anything else is the service's fault (a 500): logged, so that an operator sees it.
      return Effect.andThen(Effect.logError(`a request failed: ${Cause.pretty(cause)}`), Effect.failCause(cause))
    }),
  { global: true }
)

/** The root leads to the docs page: someone who opens the service's address in a browser finds the API there. */
const root = HttpRouter.add("GET", "/", Effect.succeed(HttpServerResponse.redirect("/docs", { status: 302 })))

const probes = Layer.mergeAll(
  HttpRouter.add("GET", "/healthz", Effect.succeed(HttpServerResponse.jsonUnsafe({ status: "ok" }))),
  HttpRouter.add(
    "GET",
    "/readyz",
    Effect.gen(function*() {
      const readiness = yield* Readiness
      const ready = yield* readiness.ready
      if (ready) return HttpServerResponse.jsonUnsafe({ ready }, { status: 200 })
      const reason = readiness.reason === undefined ? undefined : yield* readiness.reason
      return HttpServerResponse.jsonUnsafe(reason === undefined ? { ready } : { ready, reason }, { status: 503 })
    })
  )
)

/**
 * Every route of the service.
 *
 * @example
 * ```ts
 * import { ServiceHttp } from "@chainquery/watch-service"
 *
 * const routes = ServiceHttp.routes
 * ```
 * @since 0.2.0
 */
export const routes = Layer.mergeAll(
  HttpApiBuilder.layer(Api, { openapiPath: "/openapi.json" }).pipe(
    Layer.provide([handlers, SessionHandlers.handlers]),
    Layer.provide([authorization, validation])
  ),
  HttpApiScalar.layer(Api, { path: "/docs", scalar: { withDefaultFonts: false, authentication: { preferredSecurityScheme: "bearer" } } }),
  PrometheusMetrics.layerHttp({ path: "/metrics" }),
  probes,
  root,
  frameworkErrors
)

/**
 * Routes served beside the API, on its port: a layer that adds them to the `HttpRouter` (such as
 * `@chainquery/console`'s `ConsoleRoutes.layer`).
 *
 * @example
 * ```ts
 * import { Effect, Layer } from "effect"
 * import { HttpRouter, HttpServerResponse } from "effect/http"
 * import type { ServiceHttp } from "@chainquery/watch-service"
 *
 * const hello: ServiceHttp.Routes = HttpRouter.add("GET", "/hello", Effect.succeed(HttpServerResponse.text("hello")))
 * ```
 * @since 0.5.0
 */
export type Routes = Layer.Layer<never, never, HttpRouter.HttpRouter>

/**
 * The routes served on `host:port` (`0`: a free port), printing `listening on http://HOST:PORT`,
 * within `limits` (the timeouts and the most connections; `HttpLimits.defaults` unless given),
 * with `routes` beside the API's when given.
 *
 * @example
 * ```ts
 * import { ServiceHttp } from "@chainquery/watch-service"
 *
 * const server = ServiceHttp.serve({ host: "127.0.0.1", port: 0 })
 * ```
 * @since 0.2.0
 */
export const serve = (options: {
  readonly host: string
  readonly port: number
  readonly limits?: HttpLimits | undefined
  readonly routes?: Routes | undefined
}) =>
  // The line is written once the routes answer: built after the router is serving (its handler on
  // the server), so a tool that reads it and calls at once is not answered "starting".
  Layer.effectDiscard(Effect.gen(function*() {
    const { address } = yield* HttpServer.HttpServer
    const where = address._tag === "UnixPathAddress"
      ? address.path
      : `http://${options.host.includes(":") ? `[${options.host}]` : options.host}:${address.port}`
    // Straight to stdout (logs go to stderr): tools read this line to find the service.
    yield* Effect.sync(() => process.stdout.write(`listening on ${where}\n`))
    yield* Effect.logInfo(`serving the management API, /metrics, /healthz and /readyz on ${where}`)
  })).pipe(
    Layer.provide(
      HttpRouter.serve(options.routes === undefined ? routes : Layer.mergeAll(routes, options.routes), { disableListenLog: true, disableLogger: true }).pipe(
        Layer.provide(Layer.succeed(HttpServerRequest.MaxBodySize, ByteSize.bytes(maxBodyBytes)))
      )
    ),
    Layer.provideMerge(NodeHttpServer.layer(() => answerWhileStarting(createLimitedServer(options.limits ?? defaults)), { port: options.port, host: options.host }))
  )
