/**
 * A typed client of the management API, for Effect programs: derived from the same `HttpApi` the
 * service serves (`ManagementApi.Api`, with `HttpApiClient`), so a request that does not fit the
 * API does not compile, and every answer and error is decoded. Each route is a method of
 * `client.streams` named as in the OpenAPI document (`create`, `addWallets`, `listDeliveries`,
 * `replay`, …); its errors are the API's (`ManagementApi.BadRequest`, `Unauthorized`, `NotFound`,
 * `Unavailable`), beside the HTTP client's (`HttpClientError`) and a `SchemaError` for an answer
 * that is not the API's. The API token is sent as `Authorization: Bearer …` and stays `Redacted`
 * in your program.
 *
 * @since 0.5.0
 */
import { Context, Effect, Layer, type Redacted } from "effect"
import { HttpClient, HttpClientRequest } from "effect/http"
import { HttpApiClient } from "effect/http-api"
import { Api, csrfHeader } from "./ManagementApi.js"

/**
 * Where the service is, and its API token (`--api-token`).
 *
 * @example
 * ```ts
 * import { Redacted } from "effect"
 * import type { ManagementClient } from "@chainquery/watch-service"
 *
 * const options: ManagementClient.Options = {
 *   baseUrl: "http://127.0.0.1:8080",
 *   apiToken: Redacted.make(process.env["CHAINQUERY_API_TOKEN"] ?? "")
 * }
 * ```
 * @since 0.5.0
 */
export interface Options {
  readonly baseUrl: string | URL
  readonly apiToken: Redacted.Redacted<string>
}

/**
 * A client of the service at `options.baseUrl`, over the `HttpClient` in context (for example
 * `FetchHttpClient.layer`, or `NodeHttpClient.layerUndici`).
 *
 * @example
 * ```ts
 * import { Effect, Redacted } from "effect"
 * import { FetchHttpClient } from "effect/http"
 * import { ManagementApi, ManagementClient } from "@chainquery/watch-service"
 *
 * const program = Effect.gen(function*() {
 *   const client = yield* ManagementClient.make({ baseUrl: "http://127.0.0.1:8080", apiToken: Redacted.make("token") })
 *   const stream = yield* client.streams.create({ payload: { url: "https://example.com/hook", chains: ["eth"] } })
 *   yield* client.streams.addWallets({ params: { id: stream.id }, payload: { wallets: ["eth:0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed"] } })
 *   const { deliveries } = yield* client.streams.listDeliveries({ params: { id: stream.id }, query: {} })
 *   return deliveries.length
 * }).pipe(
 *   Effect.catchIf((error) => error instanceof ManagementApi.NotFound, () => Effect.succeed(0)),
 *   Effect.provide(FetchHttpClient.layer)
 * )
 * ```
 * @since 0.5.0
 */
export const make = (options: Options) =>
  HttpApiClient.make(Api, {
    baseUrl: options.baseUrl,
    transformClient: HttpClient.mapRequest(HttpClientRequest.bearerToken(options.apiToken))
  })

/**
 * A client for a page of the service's own origin signed in with a console session (`POST
 * /v1/session`): the browser sends the session's `HttpOnly` cookie, and each request carries the
 * session's `csrfToken` as `x-csrf-token` (no API token is held). This is what the console uses.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { FetchHttpClient } from "effect/http"
 * import { ManagementClient } from "@chainquery/watch-service"
 *
 * const streams = Effect.gen(function*() {
 *   const client = yield* ManagementClient.makeForSession({ baseUrl: "http://127.0.0.1:8080", csrfToken: "the session's csrfToken" })
 *   return yield* client.streams.list({ query: {} })
 * }).pipe(Effect.provide(FetchHttpClient.layer))
 * ```
 * @since 0.5.0
 */
export const makeForSession = (options: { readonly baseUrl: string | URL; readonly csrfToken: string }) =>
  HttpApiClient.make(Api, {
    baseUrl: options.baseUrl,
    transformClient: HttpClient.mapRequest(HttpClientRequest.setHeader(csrfHeader, options.csrfToken))
  })

/**
 * The client's type: `client.streams.<route>(request)`.
 *
 * @example
 * ```ts
 * import type { ManagementClient } from "@chainquery/watch-service"
 *
 * declare const client: ManagementClient.Client
 * const streams = client.streams.list({ query: { limit: 10 } })
 * ```
 * @since 0.5.0
 */
export type Client = Effect.Success<ReturnType<typeof make>>

/**
 * The client as a service, for programs that take it from their context.
 *
 * @example
 * ```ts
 * import { Effect, Layer, Redacted } from "effect"
 * import { FetchHttpClient } from "effect/http"
 * import { ManagementClient } from "@chainquery/watch-service"
 *
 * const paused = Effect.gen(function*() {
 *   const client = yield* ManagementClient.ManagementClient
 *   return yield* client.streams.pause({ params: { id: "str_0mwxp89sc8710d9595292" } })
 * })
 * const live = ManagementClient.layer({ baseUrl: "http://127.0.0.1:8080", apiToken: Redacted.make("token") }).pipe(
 *   Layer.provide(FetchHttpClient.layer)
 * )
 * const runnable = Effect.provide(paused, live)
 * ```
 * @since 0.5.0
 */
export class ManagementClient extends Context.Service<ManagementClient, Client>()("@chainquery/watch-service/ManagementClient") {}

/**
 * The {@link ManagementClient} service of the service at `options.baseUrl`.
 *
 * @example
 * ```ts
 * import { Layer, Redacted } from "effect"
 * import { FetchHttpClient } from "effect/http"
 * import { ManagementClient } from "@chainquery/watch-service"
 *
 * const live = ManagementClient.layer({ baseUrl: "http://127.0.0.1:8080", apiToken: Redacted.make("token") }).pipe(
 *   Layer.provide(FetchHttpClient.layer)
 * )
 * ```
 * @since 0.5.0
 */
export const layer = (options: Options): Layer.Layer<ManagementClient, never, HttpClient.HttpClient> =>
  Layer.effect(ManagementClient, make(options))
