/**
 * The management API of `chainquery-watcher serve`, as an `HttpApi` (so its OpenAPI document, at
 * `/openapi.json`, and its docs page, at `/docs`, are derived from it): streams, their wallets
 * and their deliveries, all behind a bearer token. Every bad request is a 400 whose body names
 * the field and what is valid; an unknown stream is a 404; a missing or wrong token a 401.
 *
 * @since 0.2.0
 */
import { WatchEvent } from "@chainquery/watch"
import { Context, Schema } from "effect"
import { HttpApi, HttpApiEndpoint, HttpApiGroup, HttpApiMiddleware, HttpApiSchema, HttpApiSecurity, OpenApi } from "effect/http-api"
import { version } from "../Version.js"

/**
 * A bad request: `field` is where (`url`, `events[2]`, `wallets`), `message` what is wrong and
 * what is valid; `invalid` lists every bad wallet spec of a bulk request (its position from 0).
 *
 * @example
 * ```ts
 * import { ManagementApi } from "@chainquery/watcher"
 *
 * new ManagementApi.BadRequest({ error: "bad_request", field: "limit", message: "Expected a value between 1 and 1000" })
 * ```
 * @since 0.2.0
 */
export class BadRequest extends Schema.Error<BadRequest>("BadRequest")({
  error: Schema.Literal("bad_request"),
  field: Schema.String,
  message: Schema.String,
  invalid: Schema.optionalKey(Schema.Array(Schema.Struct({ position: Schema.Int, spec: Schema.String, reason: Schema.String })))
}, { httpApiStatus: 400, description: "The request is invalid: `field` says where, `message` what is valid." }) {}

/**
 * No bearer token, or not the service's.
 *
 * @example
 * ```ts
 * import { ManagementApi } from "@chainquery/watcher"
 *
 * new ManagementApi.Unauthorized({ error: "unauthorized", message: "a bearer token is required" })
 * ```
 * @since 0.2.0
 */
export class Unauthorized extends Schema.Error<Unauthorized>("Unauthorized")({
  error: Schema.Literal("unauthorized"),
  message: Schema.String
}, { httpApiStatus: 401, description: "Missing or wrong bearer token." }) {}

/**
 * No stream with that id.
 *
 * @example
 * ```ts
 * import { ManagementApi } from "@chainquery/watcher"
 *
 * new ManagementApi.NotFound({ error: "not_found", message: "no stream str_1" })
 * ```
 * @since 0.2.0
 */
export class NotFound extends Schema.Error<NotFound>("NotFound")({
  error: Schema.Literal("not_found"),
  message: Schema.String
}, { httpApiStatus: 404, description: "No stream with that id." }) {}

/**
 * The chain a request needs could not be read (adding the first wallets of a chain asks it for
 * its head); nothing was stored. Try again.
 *
 * @example
 * ```ts
 * import { ManagementApi } from "@chainquery/watcher"
 *
 * new ManagementApi.Unavailable({ error: "unavailable", message: "cannot read the head of eth: …; nothing was stored, try again" })
 * ```
 * @since 0.3.0
 */
export class Unavailable extends Schema.Error<Unavailable>("Unavailable")({
  error: Schema.Literal("unavailable"),
  message: Schema.String
}, { httpApiStatus: 503, description: "A chain the request needs could not be read; nothing was stored." }) {}

/**
 * Who called (the API has one principal: the holder of the token).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { ManagementApi } from "@chainquery/watcher"
 *
 * const who = Effect.gen(function*() {
 *   return (yield* ManagementApi.Caller).name
 * })
 * ```
 * @since 0.2.0
 */
export class Caller extends Context.Service<Caller, { readonly name: string }>()("@chainquery/watcher/ManagementApi/Caller") {}

/**
 * The bearer-token check of every route.
 *
 * @example
 * ```ts
 * import { ManagementApi } from "@chainquery/watcher"
 *
 * const key = ManagementApi.Authorization.key
 * ```
 * @since 0.2.0
 */
export class Authorization extends HttpApiMiddleware.Service<Authorization, { provides: Caller }>()(
  "@chainquery/watcher/ManagementApi/Authorization",
  { security: { bearer: HttpApiSecurity.bearer }, error: Unauthorized }
) {}

/**
 * Turns the framework's request decoding failures into {@link BadRequest}s that name the field.
 *
 * @example
 * ```ts
 * import { ManagementApi } from "@chainquery/watcher"
 *
 * const key = ManagementApi.Validation.key
 * ```
 * @since 0.2.0
 */
export class Validation extends HttpApiMiddleware.Service<Validation>()("@chainquery/watcher/ManagementApi/Validation", {
  error: BadRequest
}) {}

/** Text without NUL characters (PostgreSQL stores none). */
const Text = Schema.String.check(
  Schema.makeFilter((text: string) => !text.includes("\u0000") || "Expected text without NUL characters (\\u0000)")
)

const between = (minimum: number, maximum: number) => Schema.Int.check(Schema.isBetween({ minimum, maximum }))

/** The most wallet specs one request may carry. */
export const maxWalletsPerRequest = 10_000

const Kind = Schema.Literals(WatchEvent.kinds as readonly [WatchEvent.Kind, ...Array<WatchEvent.Kind>])
const StreamId = Schema.String.check(Schema.isPattern(/^str_[0-9a-z]{21}$/))
const idParams = { id: StreamId }
const pageQuery = { cursor: Schema.optionalKey(Text), limit: Schema.optionalKey(between(1, 1000)) }

const settings = {
  url: Text,
  events: Schema.Array(Kind),
  chains: Schema.Array(Text),
  confirmations: between(0, 64),
  description: Text.check(Schema.isMaxLength(500))
}

/**
 * A stream as answered: `events` and `chains` list what it receives (every kind and chain when it
 * was created without them).
 *
 * @example
 * ```ts
 * import type { ManagementApi } from "@chainquery/watcher"
 *
 * const active = (stream: ManagementApi.StreamView) => stream.status === "active"
 * ```
 * @since 0.2.0
 */
export const StreamView = Schema.Struct({
  id: Schema.String,
  url: Schema.String,
  description: Schema.String,
  events: Schema.Array(Kind),
  chains: Schema.Array(Schema.String),
  confirmations: Schema.Int,
  status: Schema.Literals(["active", "paused", "error"]),
  statusReason: Schema.NullOr(Schema.String),
  createdAt: Schema.String,
  updatedAt: Schema.String
})

/**
 * @since 0.2.0
 */
export type StreamView = typeof StreamView.Type

/**
 * A range of one chain's blocks (Aptos: ledger versions), both ends included.
 *
 * @example
 * ```ts
 * import type { ManagementApi } from "@chainquery/watcher"
 *
 * const range: ManagementApi.RangeView = { chain: "eth", from: "101", to: "120" }
 * ```
 * @since 0.3.0
 */
export const RangeView = Schema.Struct({ chain: Schema.String, from: Schema.String, to: Schema.String })

/**
 * @since 0.3.0
 */
export type RangeView = typeof RangeView.Type

/**
 * A webhook request as answered: its id (the `webhook-id` of every attempt), its place in the
 * stream's order, its events and its attempts.
 *
 * @example
 * ```ts
 * import type { ManagementApi } from "@chainquery/watcher"
 *
 * const late = (delivery: ManagementApi.DeliveryView) => delivery.status === "pending" && delivery.attempts > 0
 * ```
 * @since 0.2.0
 */
export const DeliveryView = Schema.Struct({
  id: Schema.String,
  sequence: Schema.Int,
  status: Schema.Literals(["pending", "delivered", "failed"]),
  events: Schema.Int,
  replay: Schema.Boolean,
  heartbeat: Schema.Boolean,
  coverage: Schema.Array(RangeView),
  replaces: Schema.Array(RangeView),
  attempts: Schema.Int,
  createdAt: Schema.String,
  nextAttemptAt: Schema.NullOr(Schema.String),
  deliveredAt: Schema.NullOr(Schema.String),
  lastStatus: Schema.NullOr(Schema.Int),
  lastError: Schema.NullOr(Schema.String)
})

/**
 * @since 0.2.0
 */
export type DeliveryView = typeof DeliveryView.Type

/**
 * A stream's delivery statistics over its last 100 attempts, and what its receiver has: the last
 * sequence it took and, per chain, the blocks it is covered from and to (`null`: no batch yet).
 *
 * @example
 * ```ts
 * import type { ManagementApi } from "@chainquery/watcher"
 *
 * const healthy = (stats: ManagementApi.StatsView) => (stats.successRate ?? 1) >= 0.7
 * ```
 * @since 0.2.0
 */
export const StatsView = Schema.Struct({
  lastDeliveredSequence: Schema.NullOr(Schema.Int),
  coverage: Schema.Array(Schema.Struct({ chain: Schema.String, coveredFrom: Schema.String, coveredTo: Schema.NullOr(Schema.String) })),
  attempts: Schema.Int,
  successRate: Schema.NullOr(Schema.Number),
  pending: Schema.Int,
  failed: Schema.Int,
  oldestPendingAgeSeconds: Schema.NullOr(Schema.Number),
  lastError: Schema.NullOr(Schema.String),
  lastErrorAt: Schema.NullOr(Schema.String)
})

/**
 * @since 0.2.0
 */
export type StatsView = typeof StatsView.Type

const Wallets = Schema.Struct({ wallets: Schema.Array(Text) })

/**
 * The streams group: every route, behind {@link Authorization}.
 *
 * @example
 * ```ts
 * import { ManagementApi } from "@chainquery/watcher"
 *
 * const name = ManagementApi.Streams.identifier // "streams"
 * ```
 * @since 0.2.0
 */
export class Streams extends HttpApiGroup.make("streams")
  .add(
    HttpApiEndpoint.post("create", "/v1/streams", {
      payload: Schema.Struct({
        url: settings.url,
        events: Schema.optionalKey(settings.events),
        chains: Schema.optionalKey(settings.chains),
        confirmations: Schema.optionalKey(settings.confirmations),
        description: Schema.optionalKey(settings.description)
      }),
      success: Schema.Struct({ ...StreamView.fields, secret: Schema.String }).pipe(HttpApiSchema.status(201))
    }),
    HttpApiEndpoint.get("list", "/v1/streams", {
      query: pageQuery,
      success: Schema.Struct({ streams: Schema.Array(StreamView), nextCursor: Schema.NullOr(Schema.String) })
    }),
    HttpApiEndpoint.get("get", "/v1/streams/:id", { params: idParams, success: StreamView, error: NotFound }),
    HttpApiEndpoint.patch("update", "/v1/streams/:id", {
      params: idParams,
      payload: Schema.Struct({
        url: Schema.optionalKey(settings.url),
        events: Schema.optionalKey(settings.events),
        chains: Schema.optionalKey(settings.chains),
        confirmations: Schema.optionalKey(settings.confirmations),
        description: Schema.optionalKey(settings.description)
      }),
      success: StreamView,
      error: NotFound
    }),
    HttpApiEndpoint.delete("remove", "/v1/streams/:id", { params: idParams, success: HttpApiSchema.NoContent, error: NotFound }),
    HttpApiEndpoint.post("pause", "/v1/streams/:id/pause", { params: idParams, success: StreamView, error: NotFound }),
    HttpApiEndpoint.post("resume", "/v1/streams/:id/resume", { params: idParams, success: StreamView, error: NotFound }),
    HttpApiEndpoint.post("addWallets", "/v1/streams/:id/wallets", {
      params: idParams,
      payload: Wallets,
      success: Schema.Struct({
        added: Schema.Int,
        wallets: Schema.Int,
        coverage: Schema.Array(Schema.Struct({ wallet: Schema.String, coveredFrom: Schema.NullOr(Schema.String) }))
      }),
      error: [NotFound, Unavailable]
    }),
    HttpApiEndpoint.post("removeWallets", "/v1/streams/:id/wallets/remove", {
      params: idParams,
      payload: Wallets,
      success: Schema.Struct({ removed: Schema.Int, wallets: Schema.Int }),
      error: NotFound
    }),
    HttpApiEndpoint.get("listWallets", "/v1/streams/:id/wallets", {
      params: idParams,
      query: pageQuery,
      success: Schema.Struct({ wallets: Schema.Array(Schema.String), nextCursor: Schema.NullOr(Schema.String) }),
      error: NotFound
    }),
    HttpApiEndpoint.get("listDeliveries", "/v1/streams/:id/deliveries", {
      params: idParams,
      query: { ...pageQuery, status: Schema.optionalKey(Schema.Literals(["pending", "delivered", "failed"])) },
      success: Schema.Struct({ deliveries: Schema.Array(DeliveryView), nextCursor: Schema.NullOr(Schema.String) }),
      error: NotFound
    }),
    HttpApiEndpoint.post("replay", "/v1/streams/:id/replay", {
      params: idParams,
      payload: Schema.Struct({ fromEventId: Schema.optionalKey(Text), fromTime: Schema.optionalKey(Text) }),
      success: Schema.Struct({ deliveries: Schema.Int, events: Schema.Int }).pipe(HttpApiSchema.status(202)),
      error: NotFound
    }),
    HttpApiEndpoint.get("stats", "/v1/streams/:id/stats", { params: idParams, success: StatsView, error: NotFound })
  )
  .middleware(Validation)
  .middleware(Authorization)
  .annotateMerge(OpenApi.annotations({ title: "Streams", description: "Streams of wallet events, their wallets and their deliveries." })) {}

/**
 * The whole management API.
 *
 * @example
 * ```ts
 * import { OpenApi } from "effect/http-api"
 * import { ManagementApi } from "@chainquery/watcher"
 *
 * const document = OpenApi.fromApi(ManagementApi.Api)
 * ```
 * @since 0.2.0
 */
export class Api extends HttpApi.make("chainquery-watcher")
  .add(Streams)
  .annotate(HttpApi.ParseOptions, { onExcessProperty: "error", errors: "all" })
  .annotateMerge(OpenApi.annotations({
    title: "chainquery-watcher serve",
    version,
    description: "Streams of wallet events pushed to your webhooks, signed per Standard Webhooks."
  })) {}
