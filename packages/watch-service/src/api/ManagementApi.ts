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
import { described } from "../model/described.js"
import * as Scopes from "../model/Scopes.js"
import { version } from "./ApiVersion.js"
import { complete, typedQuery } from "./ApiDocument.js"
import { WebhookBatch } from "../delivery/WebhookBatch.js"
import type * as ConsoleSessions from "../store/ConsoleSessions.js"

/**
 * A bad request: `field` is where (`url`, `events[2]`, `wallets`), `message` what is wrong and
 * what is valid; `invalid` lists every bad wallet spec of a bulk request (its position from 0).
 *
 * @example
 * ```ts
 * import { ManagementApi } from "@chainquery/watch-service"
 *
 * new ManagementApi.BadRequest({ error: "bad_request", field: "limit", message: "Expected a value between 1 and 1000" })
 * ```
 * @since 0.2.0
 */
export class BadRequest extends Schema.Error<BadRequest>("BadRequest")({
  error: described(Schema.Literal("bad_request"), "Always `bad_request`."),
  field: described(Schema.String, "Where the request is wrong: a field (`url`, `events[2]`, `cursor`), or `body`, `path`, `query`."),
  message: described(Schema.String, "What is wrong, and what is valid."),
  invalid: Schema.optionalKey(described(
    Schema.Array(Schema.Struct({
      position: described(Schema.Int, "The bad spec's position in `wallets`, from 0."),
      spec: described(Schema.String, "The bad spec, as given."),
      reason: described(Schema.String, "Why it is refused.")
    })),
    "With `field: wallets`: every bad wallet spec of the request (none was stored)."
  ))
}, { httpApiStatus: 400, description: "The request is invalid: `field` says where, `message` what is valid." }) {}

/**
 * No bearer token, or not the service's.
 *
 * @example
 * ```ts
 * import { ManagementApi } from "@chainquery/watch-service"
 *
 * new ManagementApi.Unauthorized({ error: "unauthorized", message: "a bearer token is required" })
 * ```
 * @since 0.2.0
 */
export class Unauthorized extends Schema.Error<Unauthorized>("Unauthorized")({
  error: described(Schema.Literal("unauthorized"), "Always `unauthorized`."),
  message: described(Schema.String, "Why: no bearer token, or not the service's.")
}, { httpApiStatus: 401, description: "Missing or wrong bearer token." }) {}

/**
 * A change made through a console session without the session's CSRF token (`x-csrf-token`):
 * nothing was changed.
 *
 * @example
 * ```ts
 * import { ManagementApi } from "@chainquery/watch-service"
 *
 * new ManagementApi.Forbidden({ error: "forbidden", message: "a change through a console session needs its x-csrf-token" })
 * ```
 * @since 0.5.0
 */
export class Forbidden extends Schema.Error<Forbidden>("Forbidden")({
  error: described(Schema.Literal("forbidden"), "Always `forbidden`."),
  message: described(Schema.String, "Why: a change through a console session came without the session's CSRF token.")
}, { httpApiStatus: 403, description: "A change through a console session without its CSRF token; nothing was changed." }) {}

/**
 * No stream with that id.
 *
 * @example
 * ```ts
 * import { ManagementApi } from "@chainquery/watch-service"
 *
 * new ManagementApi.NotFound({ error: "not_found", message: "no stream str_1" })
 * ```
 * @since 0.2.0
 */
export class NotFound extends Schema.Error<NotFound>("NotFound")({
  error: described(Schema.Literal("not_found"), "Always `not_found`."),
  message: described(Schema.String, "Which stream was not found.")
}, { httpApiStatus: 404, description: "No stream with that id." }) {}

/**
 * The chain a request needs could not be read (adding the first wallets of a chain asks it for
 * its head); nothing was stored. Try again.
 *
 * @example
 * ```ts
 * import { ManagementApi } from "@chainquery/watch-service"
 *
 * new ManagementApi.Unavailable({ error: "unavailable", message: "cannot read the head of eth: …; nothing was stored, try again" })
 * ```
 * @since 0.3.0
 */
export class Unavailable extends Schema.Error<Unavailable>("Unavailable")({
  error: described(Schema.Literal("unavailable"), "Always `unavailable`."),
  message: described(Schema.String, "What could not be read; nothing was stored, try again.")
}, { httpApiStatus: 503, description: "A chain the request needs could not be read; nothing was stored." }) {}

/**
 * Who called (the API has one principal: the holder of the token).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { ManagementApi } from "@chainquery/watch-service"
 *
 * const who = Effect.gen(function*() {
 *   return (yield* ManagementApi.Caller).name
 * })
 * ```
 * @since 0.2.0
 */
export class Caller extends Context.Service<Caller, {
  readonly name: string
  /** The console session the request came with (none with a bearer token). */
  readonly session?: ConsoleSessions.Session | undefined
}>()("@chainquery/watcher/ManagementApi/Caller") {}

/**
 * The management API's bearer token (`Authorization: Bearer <--api-token>`), named `bearer` in
 * lower case as the OpenAPI examples write it: the docs page (Scalar) matches the scheme's name
 * exactly, and sends Basic credentials for `Bearer`. The header itself is read in any case.
 *
 * @example
 * ```ts
 * import { ManagementApi } from "@chainquery/watch-service"
 *
 * ManagementApi.bearerToken.scheme // "bearer"
 * ```
 * @since 0.5.0
 */
export const bearerToken = HttpApiSecurity.http({ scheme: "bearer" }).pipe(
  HttpApiSecurity.annotateMerge(OpenApi.annotations({
    description: "The service's API token (`--api-token` or `CHAINQUERY_API_TOKEN`), as `Authorization: Bearer <token>`."
  }))
)

/**
 * The header that carries a console session's CSRF token on every change (`POST`, `PATCH`, `DELETE`).
 *
 * @example
 * ```ts
 * import { ManagementApi } from "@chainquery/watch-service"
 *
 * ManagementApi.csrfHeader // "x-csrf-token"
 * ```
 * @since 0.5.0
 */
export const csrfHeader = "x-csrf-token"

/**
 * The console's session cookie (`chainquery_session`, `HttpOnly`, `SameSite=Strict`), set by
 * `POST /v1/session`; a change made with it needs the session's CSRF token in `x-csrf-token`.
 *
 * @example
 * ```ts
 * import { ManagementApi } from "@chainquery/watch-service"
 *
 * ManagementApi.sessionCookie.key // "chainquery_session"
 * ```
 * @since 0.5.0
 */
export const sessionCookie = HttpApiSecurity.apiKey({ in: "cookie", key: "chainquery_session" }).pipe(
  HttpApiSecurity.annotateMerge(OpenApi.annotations({
    description: "A console session (`POST /v1/session`). Every change made with it (POST, PATCH, DELETE) needs the session's " +
      "`csrfToken` in the `x-csrf-token` header."
  }))
)

/**
 * The check of every route: a bearer token, or a console session.
 *
 * @example
 * ```ts
 * import { ManagementApi } from "@chainquery/watch-service"
 *
 * const key = ManagementApi.Authorization.key
 * ```
 * @since 0.2.0
 */
export class Authorization extends HttpApiMiddleware.Service<Authorization, { provides: Caller }>()(
  "@chainquery/watcher/ManagementApi/Authorization",
  { security: { bearer: bearerToken, session: sessionCookie }, error: [Unauthorized, Forbidden] }
) {}

/**
 * Turns the framework's request decoding failures into {@link BadRequest}s that name the field.
 *
 * @example
 * ```ts
 * import { ManagementApi } from "@chainquery/watch-service"
 *
 * const key = ManagementApi.Validation.key
 * ```
 * @since 0.2.0
 */
export class Validation extends HttpApiMiddleware.Service<Validation>()("@chainquery/watcher/ManagementApi/Validation", {
  error: BadRequest
}) {}

/** No NUL character (PostgreSQL stores none). */
const noNul = Schema.makeFilter((text: string) => !text.includes("\u0000") || "Expected text without NUL characters (\\u0000)")

/** Text without NUL characters. */
const Text = Schema.String.check(noNul)

/** Text without NUL characters, described (the description on the string: the document has no place for the check's). */
const textOf = (description: string) => Schema.String.annotate({ description }).check(noNul)

const between = (minimum: number, maximum: number) => Schema.Int.check(Schema.isBetween({ minimum, maximum }))

/** The most wallet specs one request may carry. */
export const maxWalletsPerRequest = 10_000

/**
 * The kinds a stream created without `events` receives: all but DeFi and holdings, which are read
 * per wallet (their requests grow with the wallets) and so only for the streams that ask.
 *
 * @example
 * ```ts
 * import { ManagementApi } from "@chainquery/watch-service"
 *
 * ManagementApi.defaultEvents.includes("nft.received") // true
 * ```
 * @since 0.5.0
 */
export const defaultEvents: ReadonlyArray<WatchEvent.Kind> = WatchEvent.kinds.filter((kind) => !kind.startsWith("defi.") && !kind.startsWith("holding."))

/**
 * The chains and Aptos networks a stream may receive, by the names the API takes (`Scopes.names`).
 *
 * @example
 * ```ts
 * import { ManagementApi } from "@chainquery/watch-service"
 *
 * ManagementApi.chainNames.includes("aptos-testnet") // true
 * ```
 * @since 0.5.0
 */
export const chainNames: ReadonlyArray<string> = Scopes.names

const Kind = Schema.Literals(WatchEvent.kinds as readonly [WatchEvent.Kind, ...Array<WatchEvent.Kind>])
const StreamId = Schema.String.check(Schema.isPattern(/^str_[0-9a-z]{21}$/))
const idParams = { id: described(StreamId, "The stream's id, as answered at its creation (`str_` and 21 characters).") }
const pageQuery = {
  cursor: Schema.optionalKey(textOf("The `nextCursor` of the page before; left out for the first page.")),
  limit: Schema.optionalKey(described(between(1, 1000), "The most items on the page, 1 to 1000 (100 when left out)."))
}

const settings = {
  url: textOf("Where the stream's webhooks are POSTed: an http(s) URL, on a public address unless the service allows private ones."),
  events: described(
    Schema.Array(Kind),
    "The event kinds the stream receives (at least one). Left out at creation: all but `defi.*` and `holding.*`, which are read per wallet."
  ),
  chains: described(
    Schema.Array(Text),
    "The chains and Aptos networks the stream receives (`eth`, `base`, `aptos`, `aptos-testnet`, …; at least one). Left out at creation: all."
  ),
  confirmations: described(
    between(0, 64),
    "How deep a block must be before its events are sent, 0 to 64 (0 when left out); reorganisations deeper than it are retracted. Fixed at creation."
  ),
  description: textOf("A note of yours about the stream, at most 500 characters (empty when left out).").check(Schema.isMaxLength(500))
}

/** The longest grace a rotated secret may have: 7 days, in seconds. */
export const maxGraceSeconds = 7 * 24 * 3600

/**
 * A content filter as a request gives it (on create and PATCH): `contracts`, `minValue`, or both.
 *
 * @example
 * ```ts
 * import type { ManagementApi } from "@chainquery/watch-service"
 *
 * const filters: ManagementApi.FiltersRequest = {
 *   contracts: ["0xbc4ca0eda7647a8ab7c2061c2e118a18a936f13d"],
 *   minValue: { eth: "1000000000000000000" }
 * }
 * ```
 * @since 0.5.0
 */
export const FiltersRequest = Schema.Struct({
  contracts: Schema.optionalKey(described(
    Schema.Array(Text),
    "Only the events of these contracts, 1 to 1,000: EVM contract addresses (`0x` and 40 hex digits: an NFT's or a trade's `collection`, " +
      "a holding's, a DeFi position's `positionAddress`) and Aptos collection ids (64 hex digits: a token's `collectionId`). Left out: any contract."
  )),
  minValue: Schema.optionalKey(described(
    Schema.Record(Schema.String, Text),
    "Per EVM chain by name, the least `price` of a `trade.bought` or `trade.sold` it receives, in the smallest unit of the trade's `priceToken` " +
      "(a decimal string: `{ \"eth\": \"1000000000000000000\" }`); trades on other chains, and other kinds, are not held to it. Left out: any value."
  ))
}).annotate({
  examples: [{ contracts: ["0xbc4ca0eda7647a8ab7c2061c2e118a18a936f13d"], minValue: { eth: "1000000000000000000" } }]
})

/**
 * @since 0.5.0
 */
export type FiltersRequest = typeof FiltersRequest.Type

/**
 * A content filter as answered: `null` fields let everything through.
 *
 * @example
 * ```ts
 * import type { ManagementApi } from "@chainquery/watch-service"
 *
 * const filters: ManagementApi.FiltersView = { contracts: null, minValue: { eth: "1000000000000000000" } }
 * ```
 * @since 0.5.0
 */
export const FiltersView = Schema.Struct({
  contracts: described(Schema.NullOr(Schema.Array(Schema.String)), "The contracts whose events the stream receives (lower case); `null`: any."),
  minValue: described(Schema.NullOr(Schema.Record(Schema.String, Schema.String)), "Per chain by name, the least price of a trade it receives; `null`: any.")
})

/**
 * @since 0.5.0
 */
export type FiltersView = typeof FiltersView.Type

/**
 * What came of a test event (`POST …/test`, or `verify: true`): the receiver's answer and how
 * long it took.
 *
 * @example
 * ```ts
 * import type { ManagementApi } from "@chainquery/watch-service"
 *
 * const passed = (result: ManagementApi.TestResult) => result.delivered
 * ```
 * @since 0.5.0
 */
export const TestResult = Schema.Struct({
  deliveryId: described(Schema.String, "The test event's `webhook-id` (and `deliveryId`): `msg_` and 21 characters."),
  sentAt: described(Schema.String, "When it was sent (ISO 8601, UTC)."),
  durationMs: described(Schema.Int, "How long the receiver took to answer, in milliseconds (0 when it was not sent)."),
  delivered: described(Schema.Boolean, "Whether the receiver answered 2xx."),
  status: described(Schema.NullOr(Schema.Int), "The receiver's HTTP status; `null` when it did not answer."),
  error: described(Schema.NullOr(Schema.String), "What went wrong (a status and the start of the body, a timeout, a connection error, a refused URL); `null` when nothing did.")
}).annotate({
  examples: [
    { deliveryId: "msg_0mwxp89sc0123456789abcd", sentAt: "2026-11-29T12:00:00.000Z", durationMs: 42, delivered: false, status: 500, error: "HTTP 500: down for maintenance" }
  ]
})

/**
 * @since 0.5.0
 */
export type TestResult = typeof TestResult.Type

/** The descriptions of a stream's fields as answered. */
const streamFields = {
  id: described(Schema.String, "The stream's id: `str_`, then 21 characters; streams sort by creation."),
  url: described(Schema.String, "Where the stream's webhooks are POSTed."),
  description: described(Schema.String, "The note given at creation or update (empty when none)."),
  events: described(Schema.Array(Kind), "The event kinds the stream receives."),
  chains: described(Schema.Array(Schema.String), "The chains and Aptos networks the stream receives, by name."),
  confirmations: described(between(0, 64), "How deep a block must be before its events are sent, 0 to 64."),
  status: described(
    Schema.Literals(["active", "paused", "error"]),
    "`active`: delivering; `paused`: held by `POST …/pause`; `error`: held by the service (a 410 Gone, or a success rate under the minimum) until resumed."
  ),
  statusReason: described(Schema.NullOr(Schema.String), "Why the stream is in `error`; `null` otherwise."),
  createdAt: described(Schema.String, "When the stream was created (ISO 8601, UTC)."),
  updatedAt: described(Schema.String, "When the stream last changed (ISO 8601, UTC)."),
  filters: described(Schema.NullOr(FiltersView), "The stream's content filter; `null`: none (every event of its wallets, kinds and chains)."),
  secretRotation: described(
    Schema.NullOr(Schema.Struct({
      rotatedAt: described(Schema.String, "When the secret was last rotated (ISO 8601, UTC)."),
      graceUntil: described(Schema.NullOr(Schema.String), "Until when the secret before it signs too (ISO 8601, UTC); `null`: it stopped at the rotation."),
      inGrace: described(Schema.Boolean, "Whether requests are signed with both now: the new secret and the one before.")
    })),
    "The stream's last secret rotation (never a secret); `null` when it was never rotated."
  )
}

/**
 * A stream as answered: `events` and `chains` list what it receives (every kind and chain when it
 * was created without them).
 *
 * @example
 * ```ts
 * import type { ManagementApi } from "@chainquery/watch-service"
 *
 * const active = (stream: ManagementApi.StreamView) => stream.status === "active"
 * ```
 * @since 0.2.0
 */
export const StreamView = Schema.Struct(streamFields)

/**
 * @since 0.2.0
 */
export type StreamView = typeof StreamView.Type

/**
 * A range of one chain's blocks (Aptos: ledger versions), both ends included.
 *
 * @example
 * ```ts
 * import type { ManagementApi } from "@chainquery/watch-service"
 *
 * const range: ManagementApi.RangeView = { chain: "eth", from: "101", to: "120" }
 * ```
 * @since 0.3.0
 */
export const RangeView = Schema.Struct({
  chain: described(Schema.String, "The chain or Aptos network, by name."),
  from: described(Schema.String, "The first block (Aptos: ledger version) of the range, a decimal string."),
  to: described(Schema.String, "The last block (Aptos: ledger version) of the range, included, a decimal string.")
})

/**
 * @since 0.3.0
 */
export type RangeView = typeof RangeView.Type

/** A block number, or an Aptos ledger version, as a decimal string. */
const BlockText = Schema.String.check(Schema.isPattern(/^(0|[1-9][0-9]{0,29})$/, { message: "Expected a block number: decimal digits, no sign, no leading zero" }))

/**
 * What `POST …/replay` takes: exactly one of `fromEventId`, `fromTime`, `fromSequence` (with
 * `toSequence`, default `fromSequence`) or `blocks`.
 *
 * @example
 * ```ts
 * import type { ManagementApi } from "@chainquery/watch-service"
 *
 * const lost: ManagementApi.ReplayRequest = { fromSequence: 3, toSequence: 7 }
 * const byBlocks: ManagementApi.ReplayRequest = { blocks: [{ chain: "eth", from: "18000125", to: "18000126" }] }
 * ```
 * @since 0.2.0
 */
export const ReplayRequest = Schema.Struct({
  fromEventId: Schema.optionalKey(textOf("An event id the stream received: every event from it (included) on is sent again, in new batches.")),
  fromTime: Schema.optionalKey(textOf("An ISO 8601 time: every event the stream received from then on is sent again, in new batches.")),
  fromSequence: Schema.optionalKey(
    described(Schema.Int.check(Schema.isGreaterThanOrEqualTo(1)), "The first sequence of the batches to send again as they were (a `Gap`'s `missingSequences.from`).")
  ),
  toSequence: Schema.optionalKey(
    described(Schema.Int.check(Schema.isGreaterThanOrEqualTo(1)), "The last sequence to send again, included (default `fromSequence`); at most the last batch sent.")
  ),
  blocks: Schema.optionalKey(described(
    Schema.Array(Schema.Struct({
      chain: described(Schema.String, "The chain or Aptos network, by name (as `chains` names them)."),
      from: described(BlockText, "The first block (Aptos: ledger version), a decimal string."),
      to: described(BlockText, "The last block, included, a decimal string; at most the last block delivered.")
    })),
    "Per chain (each once), blocks whose batches to send again as they were (a `Gap`'s `missingBlocks`)."
  ))
})

/**
 * @since 0.2.0
 */
export type ReplayRequest = typeof ReplayRequest.Type

/**
 * A webhook request as answered: its id (the `webhook-id` of every attempt), its place in the
 * stream's order, its events and its attempts.
 *
 * @example
 * ```ts
 * import type { ManagementApi } from "@chainquery/watch-service"
 *
 * const late = (delivery: ManagementApi.DeliveryView) => delivery.status === "pending" && delivery.attempts > 0
 * ```
 * @since 0.2.0
 */
export const DeliveryView = Schema.Struct({
  id: described(Schema.String, "The delivery's id: the `webhook-id` header of each of its attempts (`msg_` and 21 characters)."),
  sequence: described(Schema.Int, "The batch's place in the stream's order: 1, 2, 3, … with no gap."),
  status: described(
    Schema.Literals(["pending", "delivered", "failed"]),
    "`pending`: not answered 2xx yet (retried on the schedule); `delivered`: answered 2xx; `failed`: given up (kept, replayable)."
  ),
  events: described(Schema.Int, "How many events the batch carries (at most 500)."),
  replay: described(Schema.Boolean, "Whether the batch was asked for with `POST …/replay` by `fromEventId` or `fromTime` (events sent before, again; no coverage)."),
  resends: described(
    Schema.Int,
    "How many times the batch was sent again as it was (`POST …/replay` by `fromSequence` or `blocks`): each time it went `pending` again, its body flagged `replay`."
  ),
  heartbeat: described(Schema.Boolean, "Whether the batch was sent because the stream was quiet for `--heartbeat` (no events)."),
  coverage: described(Schema.Array(RangeView), "Per chain, the blocks the batch accounts for."),
  replaces: described(Schema.Array(RangeView), "After a reorganisation, the range earlier batches covered that this one states again."),
  attempts: described(Schema.Int, "How many times the batch was sent."),
  createdAt: described(Schema.String, "When the batch was made (ISO 8601, UTC)."),
  nextAttemptAt: described(Schema.NullOr(Schema.String), "When a pending batch is sent next (ISO 8601, UTC); `null` otherwise."),
  deliveredAt: described(Schema.NullOr(Schema.String), "When the receiver answered 2xx (ISO 8601, UTC); `null` before."),
  lastStatus: described(Schema.NullOr(Schema.Int), "The HTTP status of the last attempt; `null` when none answered."),
  lastError: described(Schema.NullOr(Schema.String), "What went wrong at the last attempt (a status and the start of the body, a timeout, a connection error); `null` when none.")
})

/**
 * @since 0.2.0
 */
export type DeliveryView = typeof DeliveryView.Type

/**
 * One attempt of a delivery: when, what the receiver answered (or what went wrong), and how long
 * the request took.
 *
 * @example
 * ```ts
 * import type { ManagementApi } from "@chainquery/watch-service"
 *
 * const slow = (attempt: ManagementApi.AttemptView) => (attempt.durationMs ?? 0) > 5_000
 * ```
 * @since 0.5.0
 */
export const AttemptView = Schema.Struct({
  at: described(Schema.String, "When the attempt was recorded (ISO 8601, UTC)."),
  delivered: described(Schema.Boolean, "Whether the receiver answered 2xx."),
  status: described(Schema.NullOr(Schema.Int), "The HTTP status the receiver answered; `null` when none (a timeout, a connection error)."),
  error: described(Schema.NullOr(Schema.String), "What went wrong (a status and the start of the body, a timeout, a connection error); `null` when delivered."),
  durationMs: described(Schema.NullOr(Schema.Int), "How long the request took, from its signing to the answer, in milliseconds; `null` for attempts of a service before 0.5.")
})

/**
 * @since 0.5.0
 */
export type AttemptView = typeof AttemptView.Type

/**
 * A delivery with its attempts (newest first) and its body, as it is sent (a batch sent again says `replay`).
 *
 * @example
 * ```ts
 * import type { ManagementApi } from "@chainquery/watch-service"
 *
 * const events = (detail: ManagementApi.DeliveryDetail) => JSON.parse(detail.body).events
 * ```
 * @since 0.5.0
 */
export const DeliveryDetail = Schema.Struct({
  delivery: described(DeliveryView, "The delivery, as the list shows it."),
  attempts: described(
    Schema.Array(AttemptView),
    "Its attempts, newest first (a stream keeps its last 1,000 or so; older ones are gone)."
  ),
  body: described(
    Schema.String,
    "The batch's JSON exactly as it is sent now (the bytes the signature covers), rebuilt from what is stored; sent again (a resend), it says `replay: true`."
  )
}).annotate({ identifier: "DeliveryDetail" })

/**
 * @since 0.5.0
 */
export type DeliveryDetail = typeof DeliveryDetail.Type

/**
 * A stream's last hour, a minute at a time: what was delivered, what failed, and how old the
 * coverage its receiver has was at the end of the minute.
 *
 * @example
 * ```ts
 * import type { ManagementApi } from "@chainquery/watch-service"
 *
 * const busiest = (activity: ManagementApi.ActivityView) => Math.max(...activity.minutes.map((minute) => minute.delivered))
 * ```
 * @since 0.5.0
 */
export const ActivityView = Schema.Struct({
  minutes: described(
    Schema.Array(Schema.Struct({
      at: described(Schema.String, "The minute's start (ISO 8601, UTC)."),
      delivered: described(Schema.Int, "How many batches the receiver answered 2xx in the minute."),
      events: described(Schema.Int, "How many events those batches carried."),
      failedAttempts: described(Schema.Int, "How many attempts failed in the minute (each retry counts)."),
      coverageLagSeconds: described(
        Schema.NullOr(Schema.Number),
        "At the minute's end, how long before it the last batch with coverage the receiver had taken was made: how far behind the " +
          "stream's scans its receiver was, in time (heartbeats keep it within `--heartbeat` on a quiet stream); `null` before the first."
      )
    })),
    "The last 60 minutes, oldest first, the current minute last."
  )
}).annotate({ identifier: "ActivityView" })

/**
 * @since 0.5.0
 */
export type ActivityView = typeof ActivityView.Type

/**
 * A stream's delivery statistics over its last 100 attempts, and what its receiver has: the last
 * sequence it took and, per chain, the blocks it is covered from and to (`null`: no batch yet).
 *
 * @example
 * ```ts
 * import type { ManagementApi } from "@chainquery/watch-service"
 *
 * const healthy = (stats: ManagementApi.StatsView) => (stats.successRate ?? 1) >= 0.7
 * ```
 * @since 0.2.0
 */
export const StatsView = Schema.Struct({
  lastDeliveredSequence: described(Schema.NullOr(Schema.Int), "The `sequence` of the last batch the receiver answered 2xx; `null` before the first."),
  coverage: described(
    Schema.Array(Schema.Struct({
      chain: described(Schema.String, "The chain or Aptos network, by name."),
      coveredFrom: described(Schema.String, "The first block (Aptos: ledger version) the stream covers on it, a decimal string."),
      coveredTo: described(
        Schema.NullOr(Schema.String),
        "The last block of the last batch delivered: the receiver has every event up to it unless a batch `failed` (then replay it); `null` before the first."
      ),
      batchedTo: described(
        Schema.String,
        "The last block the stream's batches were made to (how far its scan went for it): `batchedTo - coveredTo` is how far its receiver is behind."
      ),
      head: described(
        Schema.NullOr(Schema.String),
        "The chain's head as the service's scans last found it (the newest block the data service had indexed): `head - coveredTo` is how far the " +
          "receiver is behind the chain (the stream's `confirmations` included). `null` until a scan found it, and for Aptos networks (their scans read no head)."
      ),
      headAt: described(Schema.NullOr(Schema.String), "When the scans first found that head (ISO 8601, UTC): a head that stays old, a chain that stalled or no scan running; `null` with `head`.")
    })),
    "Per chain, what the receiver has."
  ),
  attempts: described(Schema.Int, "How many attempts the statistics count (the last 100 at most, since the last resume)."),
  successRate: described(Schema.NullOr(Schema.Number), "The share of those attempts answered 2xx, 0 to 1; `null` when none."),
  pending: described(Schema.Int, "How many batches wait to be delivered."),
  failed: described(Schema.Int, "How many batches were given up (replay them with `POST …/replay`)."),
  oldestPendingAgeSeconds: described(Schema.NullOr(Schema.Number), "How long the oldest pending batch has waited, in seconds; `null` when none waits."),
  lastError: described(Schema.NullOr(Schema.String), "What went wrong at the last failed attempt; `null` when none."),
  lastErrorAt: described(Schema.NullOr(Schema.String), "When the last failed attempt was (ISO 8601, UTC); `null` when none."),
  filteredEvents: described(Schema.Int, "How many events of its wallets the stream's content filter kept out since it was created (covered, not sent)."),
  history: described(
    Schema.Array(Schema.Struct({
      wallet: described(Schema.String, "The wallet, as a spec of one chain."),
      from: described(Schema.String, "The first block of its history."),
      to: described(Schema.String, "The last: the block before it is covered from."),
      through: described(Schema.String, "Up to which block its history was put in batches (`from` - 1 before the first)."),
      events: described(Schema.Int, "How many events of its history were put in batches so far."),
      done: described(Schema.Boolean, "Whether all of it was (`through` = `to`).")
    })),
    "The wallets taken with their history, those still being read first (at most 1,000), each with its progress."
  )
})

/**
 * @since 0.2.0
 */
export type StatsView = typeof StatsView.Type

const Wallets = Schema.Struct({
  wallets: described(
    Schema.Array(Text),
    "Wallet specs, 1 to 10,000: `eth:0x…`, `polygon,base:0x…` (several chains), `aptos:0x…`. One bad spec rejects the request."
  )
})

/** Wallets to add, each a spec, or a spec with where its history starts; and where the others' start. */
const AddWallets = Schema.Struct({
  wallets: described(
    Schema.Array(Schema.Union([
      Text,
      Schema.Struct({
        wallet: textOf("A wallet spec, as above."),
        from: textOf("Where this wallet's history starts: a block number, or an ISO 8601 date (its first block at or after it).")
      })
    ])),
    "Wallet specs, 1 to 10,000: `eth:0x…`, `polygon,base:0x…` (several chains), `aptos:0x…`; or `{ wallet, from }` for one taken with its history " +
      "from `from`. One bad spec rejects the request."
  ),
  from: Schema.optionalKey(described(
    Schema.Union([Text, Schema.Record(Schema.String, Text)]),
    "Where the history of the wallets without a `from` of their own starts: a block number or an ISO 8601 date for every chain, or " +
      "one per chain by name (`{ \"eth\": \"19000000\", \"base\": \"2026-11-01\" }`). Left out: no history, the wallets start live."
  ))
})

/** Summary and description of an operation in the OpenAPI document; with its `query`, numeric parameters typed as their values. */
const operation = (summary: string, description: string, query?: Schema.Struct.Fields) =>
  OpenApi.annotations({ summary, description, transform: query === undefined ? undefined : typedQuery(query) })

const deliveriesQuery = {
  ...pageQuery,
  status: Schema.optionalKey(described(Schema.Literals(["pending", "delivered", "failed"]), "Only the deliveries of this status.")),
  order: Schema.optionalKey(described(
    Schema.Literals(["oldest", "newest"]),
    "`oldest` (when left out): in sequence order; `newest`: the newest first. Give the same on every page."
  ))
}

const walletsQuery = {
  ...pageQuery,
  search: Schema.optionalKey(textOf("Only the wallets whose address contains this text, in any case (at most 100 characters).").check(Schema.isMaxLength(100)))
}

const deliveryParams = {
  ...idParams,
  deliveryId: described(Schema.String.check(Schema.isPattern(/^msg_[0-9a-z]{21}$/)), "The delivery's id (`msg_` and 21 characters).")
}

const nextCursor = described(Schema.NullOr(Schema.String), "The cursor of the next page (give it as `cursor`); `null` on the last page.")

const verifyField = described(
  Schema.Boolean,
  "`true`: send the receiver a test event first; the stream is `active` only once it answered 2xx (in `error`, saying why, otherwise)."
)

const testAnswer = described(TestResult, "With `verify: true`: what came of the test event.")

/** A stream as answered by a change that may have verified its receiver. */
const StreamAnswer = Schema.Struct({ ...StreamView.fields, test: Schema.optionalKey(testAnswer) })

/**
 * The streams group: every route, behind {@link Authorization}.
 *
 * @example
 * ```ts
 * import { ManagementApi } from "@chainquery/watch-service"
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
        description: Schema.optionalKey(settings.description),
        filters: Schema.optionalKey(described(FiltersRequest, "A content filter: only the events of these contracts, only trades of this value.")),
        verify: Schema.optionalKey(verifyField)
      }),
      success: Schema.Struct({
        ...StreamView.fields,
        secret: described(
          Schema.String,
          "The stream's signing secret (`whsec_` and base64), shown this once: check each webhook's `webhook-signature` with it."
        ),
        test: Schema.optionalKey(testAnswer)
      }).pipe(HttpApiSchema.status(201)),
      // Only when the stream is deleted while its receiver is being verified.
      error: NotFound
    }).annotateMerge(operation(
      "Create a stream",
      "A stream of wallet events pushed to `url`. Its webhooks start with its first wallets (`POST /v1/streams/{id}/wallets`). " +
        "The answer carries the signing secret, shown this once. With `verify: true`, a test event is sent first: the stream is `active` " +
        "only if the receiver answered 2xx, `error` (saying why) otherwise."
    )),
    HttpApiEndpoint.get("list", "/v1/streams", {
      query: pageQuery,
      success: Schema.Struct({ streams: described(Schema.Array(StreamView), "The streams of the page, in creation order."), nextCursor })
    }).annotateMerge(operation("List the streams", "The streams in creation order, a page at a time (`limit` up to 1000, 100 by default).", pageQuery)),
    HttpApiEndpoint.get("get", "/v1/streams/:id", { params: idParams, success: StreamView, error: NotFound }).annotateMerge(
      operation("Read a stream", "The stream's settings and status (not its secret).")
    ),
    HttpApiEndpoint.patch("update", "/v1/streams/:id", {
      params: idParams,
      payload: Schema.Struct({
        url: Schema.optionalKey(settings.url),
        events: Schema.optionalKey(settings.events),
        chains: Schema.optionalKey(settings.chains),
        confirmations: Schema.optionalKey(settings.confirmations),
        description: Schema.optionalKey(settings.description),
        filters: Schema.optionalKey(described(
          Schema.NullOr(FiltersRequest),
          "The content filter, replaced whole (`null` or `{}`: none); it applies from the next block committed on, and the stream's next batch states it (`filters`)."
        )),
        verify: Schema.optionalKey(verifyField)
      }),
      success: StreamAnswer,
      error: NotFound
    }).annotateMerge(operation(
      "Change a stream",
      "Changes the fields given, as at creation; `confirmations` cannot change (create a new stream for another depth). With `verify: true`, " +
        "a test event goes to the (new) URL: 2xx makes a stream in `error` `active` again (a paused one stays paused); any other outcome puts it in `error`, saying why."
    )),
    HttpApiEndpoint.delete("remove", "/v1/streams/:id", { params: idParams, success: HttpApiSchema.NoContent, error: NotFound }).annotateMerge(
      operation("Delete a stream", "Deletes the stream with its wallets, events and deliveries.")
    ),
    HttpApiEndpoint.post("pause", "/v1/streams/:id/pause", { params: idParams, success: StreamView, error: NotFound }).annotateMerge(
      operation("Pause a stream", "Stops delivering; the stream's events are kept and go out, in order, once it is resumed.")
    ),
    HttpApiEndpoint.post("resume", "/v1/streams/:id/resume", {
      params: idParams,
      // No body at all (or `null`) is the same as `{}`.
      payload: [Schema.Struct({ verify: Schema.optionalKey(verifyField) }).annotate({ examples: [{ verify: true }] }), Schema.Null],
      success: StreamAnswer,
      error: NotFound
    }).annotateMerge(
      operation(
        "Resume a stream",
        "Delivers again a paused stream, or one in `error`, from what was held, in order; the success rate then counts the attempts after the resume only. " +
          "With `verify: true`, only once the receiver answered a test event 2xx (otherwise the stream is in `error`, saying why)."
      )
    ),
    HttpApiEndpoint.post("test", "/v1/streams/:id/test", { params: idParams, success: TestResult, error: NotFound }).annotateMerge(operation(
      "Send a test event",
      "Sends the stream's receiver, at once, a signed batch with no events marked `test: true` (sequence 0, outside the stream's order: its " +
        "sequence, coverage and state do not move), and answers what came of it. Whatever the stream's status."
    )),
    HttpApiEndpoint.post("rotateSecret", "/v1/streams/:id/secret", {
      params: idParams,
      // No body at all (or `null`) is the same as `{}`.
      payload: [Schema.Struct({
        graceSeconds: Schema.optionalKey(described(
          between(0, maxGraceSeconds),
          "How long the secret before signs too, next to the new one, in seconds: 0 to 604800 (7 days); 86400 (24 hours) when left out."
        ))
      }).annotate({ examples: [{ graceSeconds: 3600 }] }), Schema.Null],
      success: Schema.Struct({
        ...StreamView.fields,
        secret: described(Schema.String, "The stream's new signing secret (`whsec_` and base64), shown this once.")
      }),
      error: NotFound
    }).annotateMerge(operation(
      "Rotate a stream's secret",
      "Makes a new signing secret, answered this once. For `graceSeconds`, every request carries two signatures (`v1,<new> v1,<old>` in " +
        "`webhook-signature`): a receiver verifies with either, and moves to the new one in its time; then the old one stops. A secret still in " +
        "grace from an earlier rotation stops at once."
    )),
    HttpApiEndpoint.post("addWallets", "/v1/streams/:id/wallets", {
      params: idParams,
      payload: AddWallets,
      success: Schema.Struct({
        added: described(Schema.Int, "How many wallets were new to the stream."),
        wallets: described(Schema.Int, "How many wallets the stream has now."),
        coverage: described(
          Schema.Array(Schema.Struct({
            wallet: described(Schema.String, "The wallet, as a spec of one chain."),
            coveredFrom: described(
              Schema.NullOr(Schema.String),
              "The block (Aptos: ledger version) the wallet is covered from, a decimal string: its events from there on are the stream's (live)."
            ),
            history: described(
              Schema.NullOr(Schema.Struct({
                from: described(Schema.String, "The first block of the wallet's history."),
                to: described(Schema.String, "Its last: the block before `coveredFrom`.")
              })),
              "The wallet's history, sent in `phase: history` batches between the live ones; `null` when none was asked (or `from` is not before `coveredFrom`)."
            )
          })),
          "Per wallet given, where its history starts and ends, and where its live events start."
        )
      }),
      error: [NotFound, Unavailable]
    }).annotateMerge(operation(
      "Add wallets",
      "Adds up to 10,000 wallet specs; one bad spec rejects the request, listing each bad one's position and reason. Adding the first " +
        "wallets of a chain reads its head: if it cannot be read, 503 and nothing is stored. With `from` (per request, per chain or per " +
        "wallet), each wallet is taken with its history from there: its past events come in `phase: history` batches, interleaved with the " +
        "live ones in the stream's sequence, up to the block before it is covered from, with no gap and no repeat. A `from` after the " +
        "chain's head, a date before its first block, an unknown chain, a date on Aptos (give a ledger version): 400 naming the field, nothing stored."
    )),
    HttpApiEndpoint.post("removeWallets", "/v1/streams/:id/wallets/remove", {
      params: idParams,
      payload: Wallets,
      success: Schema.Struct({
        removed: described(Schema.Int, "How many of the wallets the stream had."),
        wallets: described(Schema.Int, "How many wallets the stream has now.")
      }),
      error: NotFound
    }).annotateMerge(operation("Remove wallets", "Removes wallet specs the same way; their events stop at once for this stream.")),
    HttpApiEndpoint.get("listWallets", "/v1/streams/:id/wallets", {
      params: idParams,
      query: walletsQuery,
      success: Schema.Struct({ wallets: described(Schema.Array(Schema.String), "The wallets of the page, as specs of one chain."), nextCursor }),
      error: NotFound
    }).annotateMerge(operation(
      "List a stream's wallets",
      "The stream's wallets by chain and address, a page at a time; with `search`, those whose address contains it.",
      walletsQuery
    )),
    HttpApiEndpoint.get("listDeliveries", "/v1/streams/:id/deliveries", {
      params: idParams,
      query: deliveriesQuery,
      success: Schema.Struct({ deliveries: described(Schema.Array(DeliveryView), "The deliveries of the page, in the order asked."), nextCursor }),
      error: NotFound
    }).annotateMerge(operation(
      "List a stream's deliveries",
      "The stream's webhook batches with their attempts and last error: `pending`, `delivered` or `failed`; in sequence order, or the " +
        "newest first with `order=newest`.",
      deliveriesQuery
    )),
    HttpApiEndpoint.get("getDelivery", "/v1/streams/:id/deliveries/:deliveryId", { params: deliveryParams, success: DeliveryDetail, error: NotFound })
      .annotateMerge(operation(
        "Read a delivery",
        "A delivery with each of its attempts (when, the status or error, how long it took) and its body exactly as sent."
      )),
    HttpApiEndpoint.get("activity", "/v1/streams/:id/activity", { params: idParams, success: ActivityView, error: NotFound }).annotateMerge(operation(
      "A stream's last hour",
      "Per minute over the last hour: batches delivered, their events, failed attempts, and how far behind its scans the receiver was (in seconds)."
    )),
    HttpApiEndpoint.post("replay", "/v1/streams/:id/replay", {
      params: idParams,
      payload: ReplayRequest,
      success: Schema.Struct({
        deliveries: described(Schema.Int, "How many batches were made (events) or sent again (sequences, blocks)."),
        events: described(Schema.Int, "How many events they carry.")
      }).pipe(HttpApiSchema.status(202)),
      error: NotFound
    }).annotateMerge(operation(
      "Replay events, or send batches again",
      "Give exactly one of: `fromEventId` or `fromTime`: every event from there on, again, in new batches (`replay: true`, no coverage); " +
        "`fromSequence` (and `toSequence`): the batches of those sequences sent again as they were (same id, sequence, coverage and events, " +
        "flagged `replay`), which lets a receiver fill the gap it reported; `blocks`: the same for the batches that carried those blocks of each " +
        "chain. A batch still pending is left as it is; a range beyond what was sent is a 400."
    )),
    HttpApiEndpoint.get("stats", "/v1/streams/:id/stats", { params: idParams, success: StatsView, error: NotFound }).annotateMerge(operation(
      "A stream's statistics",
      "The success rate of the last 100 attempts, pending and failed counts, the oldest pending age, the last error, and what the receiver has: " +
        "`lastDeliveredSequence` and, per chain, `coverage`."
    ))
  )
  .middleware(Validation)
  .middleware(Authorization)
  .annotateMerge(OpenApi.annotations({ title: "Streams", description: "Streams of wallet events, their wallets and their deliveries." })) {}

/**
 * A sign-in: the service's API token, given once for a console session.
 *
 * @example
 * ```ts
 * import { Redacted } from "effect"
 * import { ManagementApi } from "@chainquery/watch-service"
 *
 * const payload: typeof ManagementApi.SignIn.Type = { token: Redacted.make("the token") }
 * ```
 * @since 0.5.0
 */
export const SignIn = Schema.Struct({
  // Described on the string: the document shows the encoded side.
  token: Schema.RedactedFromValue(described(Schema.String, "The service's API token (`--api-token`)."))
})

/**
 * How a request is signed in: with a console session (its CSRF token and end) or a bearer token.
 *
 * @example
 * ```ts
 * import { ManagementApi } from "@chainquery/watch-service"
 *
 * const view: typeof ManagementApi.SessionView.Type = { via: "bearer", csrfToken: null, expiresAt: null }
 * ```
 * @since 0.5.0
 */
export const SessionView = Schema.Struct({
  via: described(Schema.Literals(["session", "bearer"]), "`session`: a console session's cookie; `bearer`: `Authorization: Bearer`."),
  csrfToken: described(Schema.NullOr(Schema.String), "The session's CSRF token, to send as `x-csrf-token` with every change; `null` with a bearer token."),
  expiresAt: described(Schema.NullOr(Schema.String), "When the session ends (ISO 8601); `null` with a bearer token.")
}).annotate({ identifier: "SessionView" })

/**
 * The console's sign-in and sign-out: the API token exchanged for a session cookie.
 *
 * @example
 * ```ts
 * import { ManagementApi } from "@chainquery/watch-service"
 *
 * const name = ManagementApi.Sessions.identifier // "session"
 * ```
 * @since 0.5.0
 */
export class Sessions extends HttpApiGroup.make("session")
  .add(
    HttpApiEndpoint.post("signIn", "/v1/session", { payload: SignIn, success: SessionView, error: Unauthorized }).annotateMerge(operation(
      "Sign in (the console)",
      "Exchanges the API token for a console session: an `HttpOnly`, `SameSite=Strict` cookie for 12 hours, and the session's " +
        "`csrfToken`, which every change made with the cookie must carry as `x-csrf-token`. The token itself is kept nowhere."
    )),
    HttpApiEndpoint.get("current", "/v1/session", { success: SessionView }).middleware(Authorization).annotateMerge(operation(
      "How this request is signed in",
      "With a console session: its CSRF token and end (a console reloaded reads it here); with a bearer token, `via: bearer`."
    )),
    HttpApiEndpoint.delete("signOut", "/v1/session", { success: HttpApiSchema.NoContent }).middleware(Authorization).annotateMerge(operation(
      "Sign out (the console)",
      "Ends the console session: its cookie opens nothing from then on, on every runner."
    ))
  )
  .middleware(Validation)
  .annotateMerge(OpenApi.annotations({ title: "Session", description: "The console's sign-in: the API token for a session cookie." })) {}

/**
 * The whole management API.
 *
 * @example
 * ```ts
 * import { OpenApi } from "effect/http-api"
 * import { ManagementApi } from "@chainquery/watch-service"
 *
 * const document = OpenApi.fromApi(ManagementApi.Api)
 * ```
 * @since 0.2.0
 */
export class Api extends HttpApi.make("chainquery-watcher")
  .add(Streams)
  .add(Sessions)
  .annotate(HttpApi.ParseOptions, { onExcessProperty: "error", errors: "all" })
  // The batch the service sends is described in the document too (under `webhooks`, by `complete`).
  .annotate(HttpApi.AdditionalSchemas, [WebhookBatch])
  .annotateMerge(OpenApi.annotations({
    title: "chainquery-watcher serve",
    version,
    description: "Streams of wallet events pushed to your webhooks, signed per Standard Webhooks. Every route but `/healthz`, " +
      "`/readyz`, `/metrics`, `/openapi.json` and `/docs` needs `Authorization: Bearer <--api-token>` (or the console's session cookie); every bad request is a 400 naming " +
      "the `field`, and stores nothing. What the service sends to each stream's URL is under `webhooks`.",
    transform: complete
  })) {}
