/**
 * The management API's handlers (see `ManagementApi`), over the stream and delivery stores: each
 * request is checked whole (URL, event kinds, chains, every wallet spec, cursors) before anything
 * is stored, and a bad one is a 400 naming the field and what is valid.
 *
 * @since 0.2.0
 */
import type { EvmClient } from "@chainquery/evm-client"
import { Baseline, WalletSpec, type WatchedWallet, WatchEvent } from "@chainquery/watch"
import { DateTime, Effect, Option, Redacted } from "effect"
import { SecureRandom } from "effect/crypto"
import { HttpApiBuilder } from "effect/http-api"
import { SqlClient, type SqlError } from "effect/sql"
import { checkUrl } from "../delivery/AddressPolicy.js"
import type { Range } from "../store/Coverage.js"
import { type Delivery, DeliveryStore, type ReplayFrom } from "../store/DeliveryStore.js"
import * as HistoryStore from "../store/HistoryStore.js"
import * as Resend from "../store/Resend.js"
import * as Activity from "../store/Activity.js"
import * as DeliveryWorker from "../delivery/DeliveryWorker.js"
import {
  Api,
  BadRequest,
  defaultEvents,
  maxWalletsPerRequest,
  NotFound,
  type RangeView,
  type ReplayRequest,
  type StreamView,
  type TestResult,
  Unavailable
} from "./ManagementApi.js"
import * as FilterSettings from "./FilterSettings.js"
import * as TestEvent from "../delivery/TestEvent.js"
import * as Scopes from "../model/Scopes.js"
import * as Statistics from "../store/Statistics.js"
import { ServiceConfig } from "../model/ServiceConfig.js"
import { DeliveryWake } from "../delivery/DeliveryWake.js"
import { readWalletCursor, type Settings, type Status, type Stream, StreamStore } from "../store/StreamStore.js"
import { newSecret } from "../delivery/WebhookSignature.js"
import * as WalletAdmission from "../store/WalletAdmission.js"
import * as HistoryStarts from "./HistoryStarts.js"

const badRequest = (field: string, message: string) => new BadRequest({ error: "bad_request", field, message })
const notFound = (id: string) => new NotFound({ error: "not_found", message: `no stream ${id}` })

/** A stream as answered, at `now` (whether a rotation is in grace). */
const viewOf = (stream: Stream, now: DateTime.Utc): StreamView => ({
  id: stream.id,
  url: stream.url,
  description: stream.description,
  events: stream.events ?? WatchEvent.kinds,
  chains: (stream.scopes ?? Scopes.all).map(Scopes.nameOf),
  confirmations: stream.confirmations,
  status: stream.status,
  statusReason: stream.statusReason,
  createdAt: DateTime.formatIso(stream.createdAt),
  updatedAt: DateTime.formatIso(stream.updatedAt),
  filters: FilterSettings.view(stream.filters),
  secretRotation: stream.rotation === null ? null : {
    rotatedAt: DateTime.formatIso(stream.rotation.rotatedAt),
    graceUntil: iso(stream.rotation.previousUntil),
    inGrace: stream.rotation.previousUntil !== null && DateTime.isLessThan(now, stream.rotation.previousUntil)
  }
})

/** A stream as answered now. */
const view = (stream: Stream): Effect.Effect<StreamView> => Effect.map(DateTime.now, (now) => viewOf(stream, now))

/** A test event's outcome as answered. */
const testView = (outcome: TestEvent.Outcome): TestResult => ({
  deliveryId: outcome.deliveryId,
  sentAt: DateTime.formatIso(outcome.sentAt),
  durationMs: Math.round(outcome.durationMillis),
  delivered: outcome.delivered,
  status: outcome.status,
  error: outcome.error
})

/** Why a stream is held after its receiver did not take the test event of `verify`. */
const unverified = (outcome: TestEvent.Outcome): string =>
  `the receiver did not take the test event (verify): ${outcome.error ?? "no 2xx"}; resume the stream with verify: true once it answers 2xx`

/**
 * Why a stream is held while its receiver is being verified; should the runner die meanwhile, it
 * says what to do.
 */
const holding = "verifying: a test event is on its way to the receiver (if this stays, resume the stream with verify: true)"

/** The default grace of a rotated secret: 24 hours. */
const defaultGraceSeconds = 24 * 3600

const iso = (value: DateTime.Utc | null): string | null => value === null ? null : DateTime.formatIso(value)

const rangeView = (range: Range): RangeView => ({ chain: Scopes.nameOf(range.scope), from: String(range.from), to: String(range.to) })

const deliveryView = (delivery: Delivery) => ({
  id: delivery.id,
  sequence: delivery.sequence,
  status: delivery.status,
  events: delivery.events,
  replay: delivery.replay,
  resends: delivery.resends,
  heartbeat: delivery.heartbeat,
  coverage: delivery.coverage.map(rangeView),
  replaces: delivery.replaces.map(rangeView),
  attempts: delivery.attempts,
  createdAt: DateTime.formatIso(delivery.createdAt),
  nextAttemptAt: iso(delivery.nextAttemptAt),
  deliveredAt: iso(delivery.deliveredAt),
  lastStatus: delivery.lastStatus,
  lastError: delivery.lastError
})


/** The scopes of `chains` (deduplicated), or the first unknown name as a 400. */
const scopesOf = (chains: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const scopes: Array<Scopes.Scope> = []
    for (const [index, name] of chains.entries()) {
      const scope = Scopes.fromName(name)
      if (scope === undefined) return yield* badRequest(`chains[${index}]`, `unknown chain "${name}"; valid: ${Scopes.validNames}`)
      if (!scopes.includes(scope)) scopes.push(scope)
    }
    if (scopes.length === 0) return yield* badRequest("chains", `give at least one chain, or leave chains out for all: ${Scopes.validNames}`)
    return scopes
  })

/** The event kinds, deduplicated; an empty list is a 400. */
const kindsOf = (events: ReadonlyArray<WatchEvent.Kind>) =>
  events.length === 0
    ? Effect.fail(badRequest("events", `give at least one event kind, or leave events out for all: ${WatchEvent.kinds.join(", ")}`))
    : Effect.succeed([...new Set(events)])

/** The wallets of a bulk request, or every bad spec (its position and why) as one 400. */
const walletsOf = (specs: ReadonlyArray<string>, stream: Stream) => Effect.map(specsOf(specs, stream), ({ wallets }) => wallets)

/** The wallets of a bulk request with each one's position in it (a spec of several chains is several wallets), or every bad spec as one 400. */
const specsOf = (specs: ReadonlyArray<string>, stream: Stream) =>
  Effect.gen(function*() {
    if (specs.length === 0) return yield* badRequest("wallets", `give at least one wallet spec: ${WalletSpec.syntax}`)
    if (specs.length > maxWalletsPerRequest) {
      return yield* badRequest("wallets", `at most ${maxWalletsPerRequest} wallet specs per request (this one has ${specs.length}); send the rest in further requests`)
    }
    const wallets: Array<WatchedWallet.WatchedWallet> = []
    const positions: Array<number> = []
    const invalid: Array<{ position: number; spec: string; reason: string }> = []
    for (const [position, spec] of specs.entries()) {
      const parsed = yield* Effect.result(WalletSpec.parse(spec))
      if (parsed._tag === "Failure") {
        invalid.push({ position, spec, reason: parsed.failure.reason })
        continue
      }
      const outside = parsed.success.find((wallet) => stream.scopes !== null && !stream.scopes.includes(Scopes.scopeOfWallet(wallet)))
      if (outside !== undefined) {
        const reason = `the stream receives events of ${stream.scopes!.map(Scopes.nameOf).join(", ")} only, not of ${Scopes.nameOf(Scopes.scopeOfWallet(outside))}`
        invalid.push({ position, spec, reason })
        continue
      }
      wallets.push(...parsed.success)
      positions.push(...parsed.success.map(() => position))
    }
    if (invalid.length > 0) {
      return yield* new BadRequest({
        error: "bad_request",
        field: "wallets",
        message: `${invalid.length} of ${specs.length} wallet specs are invalid, so none was stored (syntax: ${WalletSpec.syntax})`,
        invalid
      })
    }
    return { wallets, positions }
  })

/** A page size: 100 unless given. */
const limitOf = (limit: number | undefined): number => limit ?? 100

/** What a replay asks for: events from an id or a time, a range of sequences, or blocks per scope. */
type ReplayAsked =
  | { readonly _tag: "Events"; readonly from: ReplayFrom }
  | { readonly _tag: "Sequences"; readonly from: bigint; readonly to: bigint }
  | { readonly _tag: "Blocks"; readonly ranges: ReadonlyArray<Range> }

/** A replay's request, checked: exactly one way to say what, each valid; or a 400 naming the field. */
const replayAsked = (payload: ReplayRequest) =>
  Effect.gen(function*() {
    if (payload.toSequence !== undefined && payload.fromSequence === undefined) {
      return yield* badRequest("toSequence", "toSequence goes with fromSequence (the first sequence to send again)")
    }
    const ways = (["fromEventId", "fromTime", "fromSequence", "blocks"] as const).filter((key) => payload[key] !== undefined)
    if (ways.length !== 1) {
      return yield* badRequest(
        ways[1] ?? "fromEventId",
        "give exactly one of fromEventId (an event id the stream received), fromTime (an ISO 8601 time), fromSequence (with toSequence) or blocks"
      )
    }
    if (payload.fromSequence !== undefined) {
      const to = payload.toSequence ?? payload.fromSequence
      if (to < payload.fromSequence) return yield* badRequest("toSequence", `toSequence ${to} is before fromSequence ${payload.fromSequence}: give a range in order`)
      return { _tag: "Sequences", from: BigInt(payload.fromSequence), to: BigInt(to) } satisfies ReplayAsked
    }
    if (payload.blocks !== undefined) {
      if (payload.blocks.length === 0) return yield* badRequest("blocks", "give at least one range: { chain, from, to }")
      const ranges: Array<Range> = []
      for (const [index, range] of payload.blocks.entries()) {
        const scope = Scopes.fromName(range.chain)
        if (scope === undefined) return yield* badRequest(`blocks[${index}].chain`, `unknown chain "${range.chain}"; valid: ${Scopes.validNames}`)
        if (ranges.some((earlier) => earlier.scope === scope)) return yield* badRequest(`blocks[${index}].chain`, `${range.chain} is named twice: give one range per chain`)
        if (BigInt(range.to) < BigInt(range.from)) return yield* badRequest(`blocks[${index}].to`, `to ${range.to} is before from ${range.from}: give a range in order`)
        ranges.push({ scope, from: BigInt(range.from), to: BigInt(range.to) })
      }
      return { _tag: "Blocks", ranges } satisfies ReplayAsked
    }
    if (payload.fromTime !== undefined) {
      const time = Option.filter(DateTime.make(payload.fromTime), (at) => {
        const year = DateTime.toParts(at).year
        return year >= 1970 && year <= 9999
      })
      if (Option.isNone(time)) {
        return yield* badRequest("fromTime", `"${payload.fromTime}" is not a time from 1970 to 9999: give an ISO 8601 time such as 2026-11-26T12:00:00Z`)
      }
      return { _tag: "Events", from: { time: DateTime.toUtc(time.value) } } satisfies ReplayAsked
    }
    return { _tag: "Events", from: { eventId: payload.fromEventId! } } satisfies ReplayAsked
  })

/**
 * The handlers of the streams group; they need the stores, the config, a `DeliveryWake`, the
 * `SqlClient` and the chains' clients (adding the first wallets of a chain reads its head).
 *
 * @example
 * ```ts
 * import { HttpApiBuilder } from "effect/http-api"
 * import { Layer } from "effect"
 * import { ApiHandlers, ManagementApi } from "@chainquery/watch-service"
 *
 * const routes = HttpApiBuilder.layer(ManagementApi.Api).pipe(Layer.provide(ApiHandlers.layer))
 * ```
 * @since 0.2.0
 */
export const handlers = HttpApiBuilder.group(Api, "streams", (handle) =>
  Effect.gen(function*() {
    const streams = yield* StreamStore
    const deliveries = yield* DeliveryStore
    const config = yield* ServiceConfig
    const waker = yield* DeliveryWake
    const random = yield* SecureRandom.SecureRandom
    const sql = yield* SqlClient.SqlClient
    const context = yield* Effect.context<EvmClient.EvmClient>()
    /** The statistics after a bulk addition, refreshed in the background (see `Statistics.refresher`). */
    const refreshStatistics = yield* Statistics.refresher
    /** Where the engine would start `wallets` of `scope`: read from the chain, so a failure is a 503. */
    const startOf = (stream: Stream, scope: Scopes.Scope, wallets: ReadonlyArray<WatchedWallet.WatchedWallet>) =>
      Baseline.start(wallets, { confirmations: stream.confirmations }).pipe(
        Effect.map((starts) => starts.get(scope) ?? 0n),
        Effect.mapError((error) =>
          new Unavailable({ error: "unavailable", message: `cannot read the head of ${Scopes.nameOf(scope)}: ${error.message}; nothing was stored, try again` })
        ),
        Effect.provide(context)
      )
    /** Batches sent again, in one transaction; a refusal is a 400 naming the field. */
    const resent = (made: Effect.Effect<Resend.Resent, Resend.ResendRefused | SqlError.SqlError, SqlClient.SqlClient>) =>
      sql.withTransaction(made).pipe(
        Effect.provideService(SqlClient.SqlClient, sql),
        Effect.catchTag("ResendRefused", (refused) => Effect.fail(badRequest(refused.field, refused.message))),
        Effect.catchTag("SqlError", Effect.die)
      )
    const existing = (id: string) => Effect.flatMap(Effect.orDie(streams.get(id)), Option.match({ onNone: () => Effect.fail(notFound(id)), onSome: Effect.succeed }))
    /** A test event to the stream's receiver. */
    const sendTest = (stream: Stream) =>
      TestEvent.send(stream).pipe(Effect.provideService(StreamStore, streams), Effect.provideService(ServiceConfig, config))
    /**
     * `verify: true`: the stream, found as `observed`, is held (`error`, verifying) while a
     * test event goes to its receiver; then, on a 2xx, it is `passed` (and its delivery woken when
     * active), otherwise in `error` saying why. A pause or a resume between the stream being read
     * and held, or while the test goes, wins (the test is still answered). Interrupted (the
     * client gone, the runner stopping), the stream goes back to its status and reason as observed.
     */
    const verified = (observed: Stream, passed: Status) =>
      Effect.gen(function*() {
        const id = observed.id
        const held = yield* Effect.orDie(streams.setStatus(id, "error", holding, observed.status))
        const current = Option.isSome(held) ? held : yield* Effect.orDie(streams.get(id))
        if (Option.isNone(current)) return yield* notFound(id)
        const outcome = yield* sendTest(current.value).pipe(
          Effect.onInterrupt(() => Option.isSome(held) ? Effect.ignore(streams.setStatus(id, observed.status, observed.statusReason, "error")) : Effect.void)
        )
        const settled = Option.isNone(held)
          ? Option.none()
          : outcome.delivered
          ? yield* Effect.orDie(streams.setStatus(id, passed, null, "error"))
          : yield* Effect.orDie(streams.setStatus(id, "error", unverified(outcome), "error"))
        const stream = Option.isSome(settled) ? settled : yield* Effect.orDie(streams.get(id))
        if (Option.isNone(stream)) return yield* notFound(id)
        if (stream.value.status === "active") {
          yield* Effect.orDie(deliveries.wake(id))
          yield* waker.wake(id)
        }
        return { ...(yield* view(stream.value)), test: testView(outcome) }
      })
    const checkedUrl = (url: string) =>
      checkUrl(url, { allowPrivate: config.allowPrivateWebhooks }).pipe(
        Effect.mapError((error) => badRequest("url", `${error.url} is refused: ${error.reason}`)),
        Effect.map((parsed) => parsed.href)
      )

    return handle
      .handle("create", ({ payload }) =>
        Effect.gen(function*() {
          const settings: Settings = {
            url: yield* checkedUrl(payload.url),
            description: payload.description ?? "",
            events: payload.events === undefined ? defaultEvents : yield* kindsOf(payload.events),
            scopes: payload.chains === undefined ? null : yield* scopesOf(payload.chains),
            confirmations: payload.confirmations ?? 0
          }
          const filters = payload.filters === undefined ? null : yield* FilterSettings.parse(payload.filters, settings.scopes)
          const secret = yield* Effect.provideService(newSecret, SecureRandom.SecureRandom, random)
          const stream = yield* Effect.orDie(streams.create({ ...settings, filters }, secret))
          if (payload.verify === true) return { ...(yield* verified(stream, "active")), secret: Redacted.value(secret) }
          return { ...(yield* view(stream)), secret: Redacted.value(secret) }
        }))
      .handle("list", ({ query }) =>
        Effect.gen(function*() {
          if (query.cursor !== undefined && !/^str_[0-9a-z]{21}$/.test(query.cursor)) {
            return yield* badRequest("cursor", "not a cursor of this list: give the nextCursor of the previous page")
          }
          const page = yield* Effect.orDie(streams.list({ cursor: query.cursor, limit: limitOf(query.limit) }))
          const now = yield* DateTime.now
          return { streams: page.items.map((stream) => viewOf(stream, now)), nextCursor: page.nextCursor }
        }))
      .handle("get", ({ params }) => Effect.flatMap(existing(params.id), view))
      .handle("update", ({ params, payload }) =>
        Effect.gen(function*() {
          const current = yield* existing(params.id)
          if (payload.confirmations !== undefined && payload.confirmations !== current.confirmations) {
            return yield* badRequest(
              "confirmations",
              `cannot be changed (${current.confirmations} for this stream): its events come from the scan of that depth; create a new stream with the new value`
            )
          }
          const change: { -readonly [K in keyof Settings]?: Settings[K] } = {}
          if (payload.url !== undefined) change.url = yield* checkedUrl(payload.url)
          if (payload.description !== undefined) change.description = payload.description
          if (payload.events !== undefined) change.events = yield* kindsOf(payload.events)
          if (payload.chains !== undefined) change.scopes = yield* scopesOf(payload.chains)
          if (payload.filters !== undefined) {
            change.filters = yield* FilterSettings.parse(payload.filters, change.scopes === undefined ? current.scopes : change.scopes)
          }
          const updated = yield* Effect.orDie(streams.update(params.id, change))
          if (Option.isNone(updated)) return yield* notFound(params.id)
          if (payload.verify === true) {
            return yield* verified(updated.value, updated.value.status === "paused" ? "paused" : "active")
          }
          return yield* view(updated.value)
        }))
      .handle("remove", ({ params }) =>
        Effect.flatMap(Effect.orDie(streams.remove(params.id)), (removed) => removed ? Effect.void : Effect.fail(notFound(params.id))))
      .handle("pause", ({ params }) =>
        Effect.flatMap(
          Effect.orDie(streams.setStatus(params.id, "paused", null)),
          Option.match({ onNone: () => Effect.fail(notFound(params.id)), onSome: view })
        ))
      .handle("resume", ({ params, payload }) =>
        Effect.gen(function*() {
          if (payload?.verify === true) return yield* verified(yield* existing(params.id), "active")
          const resumed = yield* Effect.orDie(streams.setStatus(params.id, "active", null))
          if (Option.isNone(resumed)) return yield* notFound(params.id)
          yield* Effect.orDie(deliveries.wake(params.id))
          yield* waker.wake(params.id)
          return yield* view(resumed.value)
        }))
      .handle("test", ({ params }) => Effect.map(Effect.flatMap(existing(params.id), sendTest), testView))
      .handle("rotateSecret", ({ params, payload }) =>
        Effect.gen(function*() {
          const secret = yield* Effect.provideService(newSecret, SecureRandom.SecureRandom, random)
          const rotated = yield* Effect.orDie(streams.rotateSecret(params.id, secret, payload?.graceSeconds ?? defaultGraceSeconds))
          if (Option.isNone(rotated)) return yield* notFound(params.id)
          return { ...(yield* view(rotated.value)), secret: Redacted.value(secret) }
        }))
      .handle("addWallets", ({ params, payload }) =>
        Effect.gen(function*() {
          const stream = yield* existing(params.id)
          const { positions, wallets } = yield* specsOf(payload.wallets.map((entry) => typeof entry === "string" ? entry : entry.wallet), stream)
          const historyFrom = yield* HistoryStarts.resolve(payload, wallets, positions, (scope, of) => startOf(stream, scope, of)).pipe(
            Effect.provide(context)
          )
          const stored = yield* WalletAdmission.admit(stream, wallets, (scope, of) => startOf(stream, scope, of), historyFrom).pipe(
            Effect.catchTag("StreamGone", (gone) => Effect.fail(notFound(gone.id))),
            Effect.provideService(SqlClient.SqlClient, sql),
            Effect.provideService(StreamStore, streams)
          )
          // The answer does not wait for it: the scans' next reads do not come sooner.
          yield* refreshStatistics(stored.added)
          return {
            added: stored.added,
            wallets: yield* Effect.orDie(streams.walletCount(params.id)),
            coverage: wallets.map((wallet, index) => {
              const history = stored.history[index]
              return {
                wallet: WalletSpec.toSpec(wallet),
                coveredFrom: stored.coveredFrom[index]?.toString() ?? null,
                history: history === undefined ? null : { from: String(history.from), to: String(history.to) }
              }
            })
          }
        }))
      .handle("removeWallets", ({ params, payload }) =>
        Effect.gen(function*() {
          const stream = yield* existing(params.id)
          const wallets = yield* walletsOf(payload.wallets, { ...stream, scopes: null })
          const removed = yield* Effect.orDie(streams.removeWallets(params.id, wallets))
          return { removed, wallets: yield* Effect.orDie(streams.walletCount(params.id)) }
        }))
      .handle("listWallets", ({ params, query }) =>
        Effect.gen(function*() {
          const cursor = query.cursor === undefined ? undefined : readWalletCursor(query.cursor)
          if (query.cursor !== undefined && cursor === undefined) {
            return yield* badRequest("cursor", "not a cursor of this list: give the nextCursor of the previous page")
          }
          yield* existing(params.id)
          const page = yield* Effect.orDie(streams.listWallets(params.id, { cursor, limit: limitOf(query.limit), search: query.search }))
          return { wallets: page.items.map(WalletSpec.toSpec), nextCursor: page.nextCursor }
        }))
      .handle("listDeliveries", ({ params, query }) =>
        Effect.gen(function*() {
          if (query.cursor !== undefined && !/^[1-9][0-9]{0,15}$/.test(query.cursor)) {
            return yield* badRequest("cursor", "not a cursor of this list: give the nextCursor of the previous page")
          }
          yield* existing(params.id)
          const after = query.cursor === undefined ? undefined : Number(query.cursor)
          const page = yield* Effect.orDie(deliveries.list(params.id, { status: query.status, after, limit: limitOf(query.limit), order: query.order }))
          return { deliveries: page.items.map(deliveryView), nextCursor: page.nextCursor }
        }))
      .handle("getDelivery", ({ params }) =>
        Effect.gen(function*() {
          yield* existing(params.id)
          const found = yield* Effect.orDie(deliveries.find(params.id, params.deliveryId))
          if (Option.isNone(found)) {
            return yield* Effect.fail(new NotFound({ error: "not_found", message: `no delivery ${params.deliveryId} of stream ${params.id}` }))
          }
          const { attempts, bodies, delivery } = found.value
          return {
            delivery: deliveryView(delivery),
            attempts: attempts.map((attempt) => ({ ...attempt, at: DateTime.formatIso(attempt.at) })),
            body: DeliveryWorker.body({ ...delivery, streamId: params.id, deliveryId: delivery.id, events: bodies })
          }
        }))
      .handle("activity", ({ params }) =>
        Effect.gen(function*() {
          yield* existing(params.id)
          const minutes = yield* Effect.orDie(Effect.provideService(Activity.lastHour(params.id), SqlClient.SqlClient, sql))
          return { minutes: minutes.map((minute) => ({ ...minute, at: DateTime.formatIso(minute.at) })) }
        }))
      .handle("replay", ({ params, payload }) =>
        Effect.gen(function*() {
          const asked = yield* replayAsked(payload)
          yield* existing(params.id)
          const replayed = asked._tag === "Sequences"
            ? yield* resent(Resend.sequences(params.id, asked))
            : asked._tag === "Blocks"
            ? yield* resent(Resend.blocks(params.id, asked.ranges, (index) => `blocks[${index}]`))
            : yield* Effect.orDie(deliveries.replay(params.id, asked.from)).pipe(
              Effect.flatMap(Option.match({
                onNone: () => Effect.fail(badRequest("fromEventId", `the stream received no event ${payload.fromEventId}`)),
                onSome: Effect.succeed
              }))
            )
          yield* waker.wake(params.id)
          return replayed
        }))
      .handle("stats", ({ params }) =>
        Effect.gen(function*() {
          yield* existing(params.id)
          const stats = yield* Effect.orDie(deliveries.stats(params.id))
          const coverage = stats.coverage.map((c) => ({
            chain: Scopes.nameOf(c.scope),
            coveredFrom: String(c.coveredFrom),
            coveredTo: c.coveredTo === null ? null : String(c.coveredTo),
            batchedTo: String(c.batchedTo ?? c.coveredTo ?? c.coveredFrom - 1n),
            head: c.head == null ? null : String(c.head),
            headAt: iso(c.headAt ?? null)
          }))
          const history = (yield* Effect.orDie(Effect.provideService(HistoryStore.ofStream(params.id, 1_000), SqlClient.SqlClient, sql))).map((job) => ({
            wallet: WalletSpec.toSpec(Scopes.walletOfScope(job.scope, job.address)),
            from: String(job.fromBlock),
            to: String(job.upTo),
            through: String(job.through),
            events: job.events,
            done: job.done
          }))
          return { ...stats, coverage, lastErrorAt: iso(stats.lastErrorAt), history }
        }))
  }))

/**
 * Same as {@link handlers}.
 *
 * @example
 * ```ts
 * import { ApiHandlers } from "@chainquery/watch-service"
 *
 * const live = ApiHandlers.layer
 * ```
 * @since 0.2.0
 */
export const layer = handlers
