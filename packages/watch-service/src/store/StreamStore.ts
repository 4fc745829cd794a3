/**
 * The streams of the service and their wallets, in PostgreSQL (see `ServiceMigrations`): what the
 * management API creates, lists, changes and deletes, and what the scanners read to know which
 * wallets to watch. Every write is one statement (a bulk one for wallets), so a request is stored
 * whole or not at all.
 *
 * @since 0.2.0
 */
import { Context, DateTime, Effect, Layer, Option, type Redacted } from "effect"
import { SqlClient, type SqlError, type Statement } from "effect/sql"
import { randomBytes } from "node:crypto"
import { type WatchedWallet, WatchEvent } from "@chainquery/watch"
import { all as allScopes, type Scope, scopeOfWallet, walletOfScope } from "../model/Scopes.js"
import * as StreamFilters from "../model/StreamFilters.js"
import { addressBytes, addressBytesOf, addressText } from "./sqlAddress.js"
import { millis, utcOf } from "./sqlTime.js"
import { type SecretsKeyError, StreamSecrets } from "./StreamSecrets.js"

/**
 * A stream's status: delivering (`active`), stopped by its owner (`paused`) or by the service
 * after its receiver failed (`error`, with the reason). Events are kept in all three.
 *
 * @example
 * ```ts
 * import type { StreamStore } from "@chainquery/watch-service"
 *
 * const delivering = (status: StreamStore.Status) => status === "active"
 * ```
 * @since 0.2.0
 */
export type Status = "active" | "paused" | "error"

/**
 * A stream as stored, without its secret. `events` and `scopes` are `null` for all.
 *
 * @example
 * ```ts
 * import type { StreamStore } from "@chainquery/watch-service"
 *
 * const wantsNfts = (stream: StreamStore.Stream) => stream.events === null || stream.events.includes("nft.received")
 * ```
 * @since 0.2.0
 */
export interface Stream {
  readonly id: string
  readonly url: string
  readonly description: string
  readonly events: ReadonlyArray<WatchEvent.Kind> | null
  readonly scopes: ReadonlyArray<Scope> | null
  readonly confirmations: number
  readonly status: Status
  readonly statusReason: string | null
  readonly createdAt: DateTime.Utc
  readonly updatedAt: DateTime.Utc
  /** Its content filter (since 0.5.0); `null`: none. */
  readonly filters: StreamFilters.Filters | null
  /**
   * Its last secret rotation (since 0.5.0): when, and until when the secret before it still signs
   * next to the new one (`null`: it stopped at once); `null` when the secret was never rotated.
   */
  readonly rotation: { readonly rotatedAt: DateTime.Utc; readonly previousUntil: DateTime.Utc | null } | null
}

/**
 * What a stream is created with, or changed to (every field of a change is optional).
 *
 * @example
 * ```ts
 * import type { StreamStore } from "@chainquery/watch-service"
 *
 * const settings: StreamStore.Settings = { url: "https://example.com/hook", description: "", events: null, scopes: ["0x1"], confirmations: 0 }
 * ```
 * @since 0.2.0
 */
export interface Settings {
  readonly url: string
  readonly description: string
  readonly events: ReadonlyArray<WatchEvent.Kind> | null
  readonly scopes: ReadonlyArray<Scope> | null
  readonly confirmations: number
  /** Its content filter (since 0.5.0); left out at creation: none; in a change, `null` removes it. */
  readonly filters?: StreamFilters.Filters | null | undefined
}

/**
 * One page of a list, and the cursor of the next (`null` on the last page).
 *
 * @example
 * ```ts
 * import type { StreamStore } from "@chainquery/watch-service"
 *
 * const more = (page: StreamStore.Page<unknown>) => page.nextCursor !== null
 * ```
 * @since 0.2.0
 */
export interface Page<A> {
  readonly items: ReadonlyArray<A>
  readonly nextCursor: string | null
}

interface StreamRow {
  readonly id: string
  readonly url: string
  readonly description: string
  readonly event_kinds: ReadonlyArray<string> | null
  readonly scopes: ReadonlyArray<string> | null
  readonly confirmations: number
  readonly status: Status
  readonly status_reason: string | null
  readonly created_at: string
  readonly updated_at: string
  readonly filters: Parameters<typeof StreamFilters.fromJson>[0]
  readonly rotated_at: string | null
  readonly previous_secret_until: string | null
}


const columns = `id, url, description, event_kinds, scopes, confirmations, status, status_reason, ${millis("created_at")}, ${millis("updated_at")}, ` +
  `filters, ${millis("rotated_at")}, ${millis("previous_secret_until")}`

const kindSet = new Set<string>(WatchEvent.kinds)

const streamOf = (row: StreamRow): Stream => ({
  id: row.id,
  url: row.url,
  description: row.description,
  events: row.event_kinds === null ? null : row.event_kinds.filter((kind): kind is WatchEvent.Kind => kindSet.has(kind)),
  scopes: row.scopes,
  confirmations: row.confirmations,
  status: row.status,
  statusReason: row.status_reason,
  createdAt: utcOf(row.created_at),
  updatedAt: utcOf(row.updated_at),
  filters: StreamFilters.fromJson(row.filters),
  rotation: row.rotated_at === null
    ? null
    : { rotatedAt: utcOf(row.rotated_at), previousUntil: row.previous_secret_until === null ? null : utcOf(row.previous_secret_until) }
})

/** A filter as a JSON parameter (`NULL` for none). */
const filtersParameter = (filters: StreamFilters.Filters | null | undefined): string | null => {
  const kept = StreamFilters.normalise(filters ?? null)
  return kept === null ? null : JSON.stringify(StreamFilters.toJson(kept))
}

/** The stream of the first row, if any. */
const one = (rows: ReadonlyArray<StreamRow>): Option.Option<Stream> => Option.map(Option.fromUndefinedOr(rows[0]), streamOf)

/** A stream id: `str_`, then the time in base 36 (so ids sort by creation), then 12 random hex digits. */
const newStreamId = (now: number): string => `str_${now.toString(36).padStart(9, "0")}${randomBytes(6).toString("hex")}`

/** A text array parameter (or `NULL`), as JSON for `jsonb_array_elements_text`. */
const textArray = (values: ReadonlyArray<string> | null): string | null => values === null ? null : JSON.stringify(values)

/** A row's key in `stream_wallets`: its scope and address. */
const rowKeyOf = (scope: string, address: string): string => `${scope} ${address}`

/** A wallet's row key in `stream_wallets`. */
const rowKey = (wallet: WatchedWallet.WatchedWallet): string => rowKeyOf(scopeOfWallet(wallet), wallet.address)

/** The cursor after a wallet: its scope and address, base64url. */
const walletCursor = (scope: string, address: string): string => Buffer.from(JSON.stringify([scope, address])).toString("base64url")

/** A stored address: `0x` and hex digits (EVM: 40, Aptos: 64), lower case: whole bytes, as the table keeps it. */
const cursorAddress = /^0x(?:[0-9a-f]{40}|[0-9a-f]{64})$/

/**
 * A wallet cursor read back; `undefined` for one that is not ours (the API refuses it first): it
 * must be canonical base64url of a JSON pair whose scope is a known chain or Aptos network and
 * whose address is lower-case hex, so that no part of it (a NUL, a stray byte) reaches the query.
 */
export const readWalletCursor = (cursor: string): readonly [string, string] | undefined => {
  const bytes = Buffer.from(cursor, "base64url")
  if (bytes.toString("base64url") !== cursor) return undefined
  try {
    const value: unknown = JSON.parse(bytes.toString("utf8"))
    return Array.isArray(value) && value.length === 2 && typeof value[0] === "string" && typeof value[1] === "string" &&
        allScopes.includes(value[0]) && cursorAddress.test(value[1])
      ? [value[0], value[1]]
      : undefined
  } catch {
    return undefined
  }
}

/**
 * The streams and their wallets.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { StreamStore } from "@chainquery/watch-service"
 *
 * const count = Effect.gen(function*() {
 *   const store = yield* StreamStore.StreamStore
 *   return (yield* store.list({ limit: 100 })).items.length
 * })
 * ```
 * @since 0.2.0
 */
export class StreamStore extends Context.Service<StreamStore, {
  readonly create: (settings: Settings, secret: Redacted.Redacted<string>) => Effect.Effect<Stream, SqlError.SqlError>
  readonly list: (page: { readonly cursor?: string | undefined; readonly limit: number }) => Effect.Effect<Page<Stream>, SqlError.SqlError>
  readonly get: (id: string) => Effect.Effect<Option.Option<Stream>, SqlError.SqlError>
  readonly update: (id: string, change: Partial<Settings>) => Effect.Effect<Option.Option<Stream>, SqlError.SqlError>
  readonly remove: (id: string) => Effect.Effect<boolean, SqlError.SqlError>
  /**
   * Sets the stream's status (only while it is `from`, when given); `active` also starts its
   * success rate afresh (only the attempts after count).
   */
  readonly setStatus: (id: string, status: Status, reason: string | null, from?: Status) => Effect.Effect<Option.Option<Stream>, SqlError.SqlError>
  /** The stream's signing secret, opened (see `StreamSecrets`). */
  readonly secret: (id: string) => Effect.Effect<Option.Option<Redacted.Redacted<string>>, SqlError.SqlError | SecretsKeyError>
  /**
   * The secrets a request of the stream is signed with now (since 0.5.0): its secret, then, while
   * a rotation is in grace (until its end, by the `Clock`), the one before.
   */
  readonly signingSecrets: (id: string) => Effect.Effect<Option.Option<ReadonlyArray<Redacted.Redacted<string>>>, SqlError.SqlError | SecretsKeyError>
  /**
   * Rotates the stream's secret to `secret` (since 0.5.0): the one before goes on signing next to
   * it for `graceSeconds` (none at 0); one still in grace from an earlier rotation stops at once.
   */
  readonly rotateSecret: (id: string, secret: Redacted.Redacted<string>, graceSeconds: number) => Effect.Effect<Option.Option<Stream>, SqlError.SqlError>
  /**
   * Adds wallets (those it has already are kept), each covered from the block of `coveredFrom` at
   * its index when given (announced by the stream's next batch): how many were new, and each
   * wallet's first covered block as stored (`null`: not known, a wallet of an older service). A
   * stream that does not exist gets none (`added: 0`).
   */
  readonly addWallets: (
    id: string,
    wallets: ReadonlyArray<WatchedWallet.WatchedWallet>,
    coveredFrom?: ReadonlyArray<bigint>
  ) => Effect.Effect<{ readonly added: number; readonly coveredFrom: ReadonlyArray<bigint | null> }, SqlError.SqlError>
  /** Locks the stream's row until the transaction ends (every writer of its batches and coverage does first): whether it exists. */
  readonly lock: (id: string) => Effect.Effect<boolean, SqlError.SqlError>
  /** Removes wallets (those it does not have are ignored), and the history they were still owed: how many it had. */
  readonly removeWallets: (id: string, wallets: ReadonlyArray<WatchedWallet.WatchedWallet>) => Effect.Effect<number, SqlError.SqlError>
  /**
   * A number that changes whenever the wallets some scan watches may have (wallets added or
   * removed, a stream's chains, kinds or confirmations changed, a stream deleted): scanners read
   * the wallets again only then.
   */
  readonly walletsVersion: Effect.Effect<bigint, SqlError.SqlError>
  /** How many wallets the stream has. */
  readonly walletCount: (id: string) => Effect.Effect<number, SqlError.SqlError>
  readonly listWallets: (
    id: string,
    page: {
      readonly cursor?: readonly [string, string] | undefined
      readonly limit: number
      /** Only the wallets whose address contains this text, in any case (since 0.5.0). */
      readonly search?: string | undefined
    }
  ) => Effect.Effect<Page<WatchedWallet.WatchedWallet>, SqlError.SqlError>
  /** Every wallet of a scope that some stream with these confirmations holds (what one scan watches). */
  readonly watched: (scope: Scope, confirmations: number) => Effect.Effect<ReadonlyArray<WatchedWallet.WatchedWallet>, SqlError.SqlError>
  /**
   * What one scan watches (as `watched`), as changed since `since`, a `version` this answered
   * before (since 0.5.0): the wallets added since then alone (`whole: false`; some may be watched
   * already), or every wallet (`whole: true`) when `since` is `undefined` or some wallet may have
   * left since (wallets removed, a stream deleted, its chains or confirmations changed). Reading
   * only what was added keeps a look at a set that grew request after request proportional to the
   * growth, not to the set.
   */
  readonly watchedSince: (
    scope: Scope,
    confirmations: number,
    since: bigint | undefined
  ) => Effect.Effect<
    { readonly version: bigint; readonly whole: boolean; readonly wallets: ReadonlyArray<WatchedWallet.WatchedWallet> },
    SqlError.SqlError
  >
  /**
   * The scans a scope needs: per confirmations value of the streams holding wallets there, the
   * event kinds those streams want (`null`: all).
   */
  readonly scansOn: (
    scope: Scope
  ) => Effect.Effect<ReadonlyArray<{ readonly confirmations: number; readonly kinds: ReadonlyArray<ReadonlyArray<WatchEvent.Kind> | null> }>, SqlError.SqlError>
}>()("@chainquery/watcher/StreamStore") {
  /** The store on the context's `SqlClient` (the service's migrations must have run), its secrets kept by `StreamSecrets`. */
  static readonly layer: Layer.Layer<StreamStore, never, SqlClient.SqlClient | StreamSecrets> = Layer.effect(
    StreamStore,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const secrets = yield* StreamSecrets
      /**
       * The statement that moves the wallets' version on when `when` holds (a CTE of the change's
       * statement), for a change that may take wallets from a scan: a scan reads them all again
       * (`reset`, see `watchedSince`). Adding moves it on in `addWallets`, and stamps the wallets.
       */
      const bump = (when: Statement.Fragment) =>
        sql`UPDATE wallet_set_version SET version = version + 1, reset = version + 1 WHERE id = 1 AND ${when} RETURNING 1`
      const watched = (scope: Scope, confirmations: number, addedAfter: Statement.Fragment) =>
        sql<{ address: string }>`SELECT ${sql.literal(addressText("d.address"))} AS address FROM (
            SELECT DISTINCT w.address FROM stream_wallets w JOIN streams s ON s.id = w.stream_id
            WHERE w.scope = ${scope} AND s.confirmations = ${confirmations} AND (s.scopes IS NULL OR ${scope} = ANY (s.scopes))
              AND ${addedAfter}) AS d
          ORDER BY d.address`.pipe(
          Effect.map((rows) => rows.map((row) => walletOfScope(scope, row.address)))
        )
      return StreamStore.of({
        create: (settings, secret) =>
          Effect.gen(function*() {
            const now = yield* DateTime.now
            const id = newStreamId(DateTime.toEpochMillis(now))
            const at = DateTime.formatIso(now)
            const stored = yield* secrets.seal(id, secret)
            const filters = filtersParameter(settings.filters)
            const rows = yield* sql<StreamRow>`
              INSERT INTO streams (id, url, description, event_kinds, scopes, confirmations, secret, status, created_at, updated_at,
                filters, filters_announced)
              VALUES (${id}, ${settings.url}, ${settings.description},
                (SELECT array_agg(value) FROM jsonb_array_elements_text(${textArray(settings.events)}::jsonb)),
                (SELECT array_agg(value) FROM jsonb_array_elements_text(${textArray(settings.scopes)}::jsonb)),
                ${settings.confirmations}, ${stored}, 'active', ${at}::timestamptz, ${at}::timestamptz,
                ${filters}::jsonb, ${filters}::jsonb IS NULL)
              RETURNING ${sql.literal(columns)}`
            return streamOf(rows[0]!)
          }),

        list: ({ cursor, limit }) =>
          sql<StreamRow>`SELECT ${sql.literal(columns)} FROM streams
            WHERE ${cursor === undefined ? sql.literal("true") : sql`id > ${cursor}`} ORDER BY id LIMIT ${limit + 1}`.pipe(
            Effect.map((rows) => ({
              items: rows.slice(0, limit).map(streamOf),
              nextCursor: rows.length > limit ? rows[limit - 1]!.id : null
            }))
          ),

        get: (id) => sql<StreamRow>`SELECT ${sql.literal(columns)} FROM streams WHERE id = ${id}`.pipe(Effect.map(one)),

        update: (id, change) =>
          sql.withTransaction(Effect.gen(function*() {
            const at = DateTime.formatIso(yield* DateTime.now)
            const changesScans = change.events !== undefined || change.scopes !== undefined || change.confirmations !== undefined
            const filters = filtersParameter(change.filters)
            const rows = yield* sql<StreamRow>`WITH bumped AS (${bump(sql`${changesScans} AND EXISTS (SELECT 1 FROM streams WHERE id = ${id})`)})
              UPDATE streams SET
                url = COALESCE(${change.url ?? null}, url),
                description = COALESCE(${change.description ?? null}, description),
                event_kinds = CASE WHEN ${change.events !== undefined} THEN
                  (SELECT array_agg(value) FROM jsonb_array_elements_text(${textArray(change.events ?? null)}::jsonb)) ELSE event_kinds END,
                scopes = CASE WHEN ${change.scopes !== undefined} THEN
                  (SELECT array_agg(value) FROM jsonb_array_elements_text(${textArray(change.scopes ?? null)}::jsonb)) ELSE scopes END,
                confirmations = COALESCE(${change.confirmations ?? null}::integer, confirmations),
                filters_announced = CASE WHEN ${change.filters !== undefined} AND filters IS DISTINCT FROM ${filters}::jsonb
                  THEN false ELSE filters_announced END,
                filters = CASE WHEN ${change.filters !== undefined} THEN ${filters}::jsonb ELSE filters END,
                updated_at = ${at}::timestamptz
              WHERE id = ${id} RETURNING ${sql.literal(columns)}`
            // The coverage of a chain the stream no longer receives ends (added back, it starts again with the wallets added then).
            if (change.scopes !== undefined && change.scopes !== null) {
              yield* sql`DELETE FROM stream_coverage WHERE stream_id = ${id}
                AND NOT scope = ANY (SELECT jsonb_array_elements_text(${textArray(change.scopes)}::jsonb))`
            }
            return one(rows)
          })),

        remove: (id) =>
          sql.withTransaction(Effect.gen(function*() {
            // The stream's row first: wallets being added (under it, see `addWallets`) are committed
            // before its wallets are deleted, in a statement that sees them.
            if ((yield* sql`SELECT 1 FROM streams WHERE id = ${id} FOR UPDATE`).length === 0) return false
            yield* sql`DELETE FROM stream_wallets WHERE stream_id = ${id}`
            const [removed] = yield* sql<{ count: number }>`WITH removed AS (DELETE FROM streams WHERE id = ${id} RETURNING 1),
              bumped AS (${bump(sql`EXISTS (SELECT 1 FROM removed)`)})
              SELECT count(*)::int AS count FROM removed`
            return removed!.count > 0
          })),

        walletsVersion: sql<{ version: string }>`SELECT version::text FROM wallet_set_version WHERE id = 1`.pipe(
          Effect.map(([row]) => BigInt(row?.version ?? "0"))
        ),

        setStatus: (id, status, reason, from) =>
          Effect.gen(function*() {
            const at = DateTime.formatIso(yield* DateTime.now)
            return one(
              yield* sql<StreamRow>`UPDATE streams SET status = ${status}, status_reason = ${reason}, updated_at = ${at}::timestamptz,
                  resumed_at = CASE WHEN ${status} = 'active' THEN ${at}::timestamptz ELSE resumed_at END
                WHERE id = ${id} AND ${from === undefined ? sql.literal("true") : sql`status = ${from}`} RETURNING ${sql.literal(columns)}`
            )
          }),

        secret: (id) =>
          sql<{ secret: string }>`SELECT secret FROM streams WHERE id = ${id}`.pipe(
            Effect.flatMap(([row]) => row === undefined ? Effect.succeedNone : Effect.asSome(secrets.open(id, row.secret)))
          ),

        signingSecrets: (id) =>
          Effect.gen(function*() {
            const [row] = yield* sql<{ secret: string; previous_secret: string | null; previous_secret_until: string | null }>`
              SELECT secret, previous_secret, ${sql.literal(millis("previous_secret_until"))} FROM streams WHERE id = ${id}`
            if (row === undefined) return Option.none()
            const current = yield* secrets.open(id, row.secret)
            const now = yield* DateTime.now
            const inGrace = row.previous_secret !== null && row.previous_secret_until !== null &&
              DateTime.isLessThan(now, utcOf(row.previous_secret_until))
            return Option.some(inGrace ? [current, yield* secrets.open(id, row.previous_secret!)] : [current])
          }),

        rotateSecret: (id, secret, graceSeconds) =>
          Effect.gen(function*() {
            const now = yield* DateTime.now
            const at = DateTime.formatIso(now)
            const until = graceSeconds > 0 ? DateTime.formatIso(DateTime.add(now, { seconds: graceSeconds })) : null
            const stored = yield* secrets.seal(id, secret)
            return one(
              yield* sql<StreamRow>`UPDATE streams SET previous_secret = CASE WHEN ${until}::timestamptz IS NULL THEN NULL ELSE secret END,
                  previous_secret_until = ${until}::timestamptz, rotated_at = ${at}::timestamptz, secret = ${stored}, updated_at = ${at}::timestamptz
                WHERE id = ${id} RETURNING ${sql.literal(columns)}`
            )
          }),

        addWallets: (id, wallets, coveredFrom) =>
          Effect.gen(function*() {
            const at = DateTime.formatIso(yield* DateTime.now)
            const rows = JSON.stringify(wallets.map((wallet, index) => ({
              scope: scopeOfWallet(wallet),
              address: wallet.address,
              covered_from: coveredFrom?.[index]?.toString() ?? null
            })))
            // What each wallet is stored with when it is new (the first of a repeated one).
            const keys = wallets.map(rowKey)
            const given = new Map<string, bigint | null>()
            keys.forEach((key, index) => {
              if (!given.has(key)) given.set(key, coveredFrom?.[index] ?? null)
            })
            // The wallets are stamped with the version this moves on to: a scan reads those added since its last look alone (`watchedSince`).
            // Under the stream's row (shared): a deletion of the stream waits for them, and deletes them
            // (see `remove`). Not a foreign key: its check was a look per wallet, 45 ms of each 10,000.
            const [added] = yield* sql<{ count: number }>`WITH stream AS (SELECT id FROM streams WHERE id = ${id} FOR KEY SHARE),
              bumped AS (UPDATE wallet_set_version SET version = version + 1 WHERE id = 1 RETURNING version),
              added AS (
                INSERT INTO stream_wallets (stream_id, scope, address, added_at, covered_from, announced, added_version)
                SELECT s.id, x.scope, ${sql.literal(addressBytes("x.address"))}, ${at}::timestamptz, x.covered_from::bigint, x.covered_from IS NULL,
                  (SELECT version FROM bumped)
                FROM stream s, jsonb_to_recordset(${rows}::jsonb) AS x(scope text, address text, covered_from text)
                ON CONFLICT DO NOTHING RETURNING 1)
              SELECT count(*)::int AS count FROM added`
            // All new (the usual bulk add): stored as given, nothing to read back.
            if (added!.count === given.size) return { added: added!.count, coveredFrom: keys.map((key) => given.get(key)!) }
            const stored = yield* sql<{ scope: string; address: string; covered_from: string | null }>`SELECT w.scope, ${sql.literal(addressText("w.address"))} AS address, w.covered_from::text
              FROM stream_wallets w JOIN jsonb_to_recordset(${rows}::jsonb) AS x(scope text, address text)
                ON w.scope = x.scope AND w.address = ${sql.literal(addressBytes("x.address"))}
              WHERE w.stream_id = ${id}`
            const from = new Map(stored.map((row) => [rowKeyOf(row.scope, row.address), row.covered_from === null ? null : BigInt(row.covered_from)]))
            return { added: added!.count, coveredFrom: keys.map((key) => from.get(key) ?? null) }
          }),

        lock: (id) => sql`SELECT 1 FROM streams WHERE id = ${id} FOR UPDATE`.pipe(Effect.map((rows) => rows.length > 0)),

        removeWallets: (id, wallets) => {
          const rows = JSON.stringify(wallets.map((wallet) => ({ scope: scopeOfWallet(wallet), address: wallet.address })))
          // The stream's row first, as an admission takes it (then the wallets' version, then the
          // wallets): a removal never holds a wallet an admission waits for while it waits for the version.
          return sql.withTransaction(Effect.andThen(
            sql`SELECT 1 FROM streams WHERE id = ${id} FOR UPDATE`,
            sql<{ count: number }>`WITH removed AS (
              DELETE FROM stream_wallets w USING jsonb_to_recordset(${rows}::jsonb) AS x(scope text, address text)
              WHERE w.stream_id = ${id} AND w.scope = x.scope AND w.address = ${sql.literal(addressBytes("x.address"))} RETURNING 1),
            unowed AS (DELETE FROM stream_history h USING jsonb_to_recordset(${rows}::jsonb) AS x(scope text, address text)
              WHERE h.stream_id = ${id} AND h.scope = x.scope AND h.address = x.address RETURNING 1),
            unstaged AS (DELETE FROM stream_history_staged h USING jsonb_to_recordset(${rows}::jsonb) AS x(scope text, address text)
              WHERE h.stream_id = ${id} AND h.scope = x.scope AND h.address = x.address RETURNING 1),
            bumped AS (${bump(sql`EXISTS (SELECT 1 FROM removed)`)})
            SELECT count(*)::int AS count FROM removed`
          )).pipe(Effect.map(([removed]) => removed!.count))
        },

        walletCount: (id) =>
          sql<{ count: number }>`SELECT count(*)::int AS count FROM stream_wallets WHERE stream_id = ${id}`.pipe(Effect.map((rows) => rows[0]!.count)),

        listWallets: (id, { cursor, limit, search }) =>
          sql<{ scope: string; address: string }>`SELECT scope, ${sql.literal(addressText("address"))} AS address FROM stream_wallets
            WHERE stream_id = ${id}
            AND ${cursor === undefined ? sql.literal("true") : sql`(scope, address) > (${cursor[0]}, ${addressBytesOf(sql, cursor[1])})`}
            AND ${search === undefined || search === "" ? sql.literal("true") : sql`strpos(${sql.literal(addressText("address"))}, lower(${search})) > 0`}
            ORDER BY scope, stream_wallets.address LIMIT ${limit + 1}`.pipe(
            Effect.map((rows) => ({
              items: rows.slice(0, limit).map((row) => walletOfScope(row.scope, row.address)),
              nextCursor: rows.length > limit ? walletCursor(rows[limit - 1]!.scope, rows[limit - 1]!.address) : null
            }))
          ),

        watched: (scope, confirmations) => watched(scope, confirmations, sql.literal("true")),

        watchedSince: (scope, confirmations, since) =>
          Effect.gen(function*() {
            // Versions are given in the order their changes commit (each change holds the row until
            // it does): every wallet stamped up to the version read is there to be read.
            const [row] = yield* sql<{ version: string; reset: string }>`SELECT version::text, reset::text FROM wallet_set_version WHERE id = 1`
            const version = BigInt(row?.version ?? "0")
            const whole = since === undefined || BigInt(row?.reset ?? "0") > since
            const wallets = yield* watched(
              scope,
              confirmations,
              whole ? sql.literal("true") : sql`w.added_version > ${since.toString()}::bigint AND w.added_version <= ${version.toString()}::bigint`
            )
            return { version, whole, wallets }
          }),

        scansOn: (scope) =>
          sql<{ confirmations: number; event_kinds: ReadonlyArray<string> | null }>`SELECT DISTINCT s.confirmations, s.event_kinds FROM streams s
            WHERE (s.scopes IS NULL OR ${scope} = ANY (s.scopes))
              AND EXISTS (SELECT 1 FROM stream_wallets w WHERE w.stream_id = s.id AND w.scope = ${scope}) ORDER BY 1`.pipe(
            Effect.map((rows) => {
              const scans = new Map<number, Array<ReadonlyArray<WatchEvent.Kind> | null>>()
              for (const row of rows) {
                const kinds = row.event_kinds === null ? null : row.event_kinds.filter((kind): kind is WatchEvent.Kind => kindSet.has(kind))
                ;(scans.get(row.confirmations) ?? scans.set(row.confirmations, []).get(row.confirmations)!).push(kinds)
              }
              return Array.from(scans, ([confirmations, kinds]) => ({ confirmations, kinds }))
            })
          )
      })
    })
  )
}
