/**
 * What each stream's batches account for, per scope (an EVM chain, or an Aptos network), so that
 * a receiver can prove it has every event:
 *
 * - A stream's coverage of a scope starts at the block after the first checkpoint of its first
 *   wallet there, and each batch that moves it states the range `[from, to]` it adds: contiguous
 *   with the one before, up to the lowest checkpoint of the scope's scan (every event up to it is
 *   committed, with the batch, in the same transaction). What a stream was told never goes back: a
 *   wallet that joins a scan below its lowest checkpoint holds the claims back until the scan has
 *   read it up to there, and is covered only from after what its stream was told.
 * - A batch with events at or before what the stream was already told (a reorganisation:
 *   retractions and their replacements) says which range it `replaces`, from its lowest such event
 *   up to the stream's covered-to, and covers from there again.
 * - Wallets added to a stream are covered from the block after their checkpoint in the scan (the
 *   one they have if another stream of the same depth holds them, else one placed just below the
 *   scan's lowest, or on a scope no scan reads yet at the engine's baseline), and after what the
 *   stream was told. The next batch lists them.
 *
 * Every writer locks the stream's row first, so claims and admissions of one stream are serial.
 *
 * @since 0.3.0
 */
import { PgCheckpoints, PgStateStore, type StateStore, type WatchedWallet } from "@chainquery/watch"
import { Effect, Option } from "effect"
import { SqlClient, type SqlError } from "effect/sql"
import type { Scope } from "../model/Scopes.js"
import { positionsByScope, walletOfScope } from "../model/Scopes.js"
import { addressBytes, addressBytesOf, addressText } from "./sqlAddress.js"

/**
 * A range of one scope's blocks (Aptos: ledger versions), both ends included.
 *
 * @example
 * ```ts
 * import type { Coverage } from "@chainquery/watch-service"
 *
 * const range: Coverage.Range = { scope: "0x1", from: 101n, to: 120n }
 * ```
 * @since 0.3.0
 */
export interface Range {
  readonly scope: Scope
  readonly from: bigint
  readonly to: bigint
}

/**
 * A wallet a batch announces: covered from `coveredFrom` on.
 *
 * @example
 * ```ts
 * import type { Coverage } from "@chainquery/watch-service"
 *
 * const added: Coverage.CoveredWallet = { scope: "0x1", address: "0x00000000000000000000000000000000000000aa", coveredFrom: 121n }
 * ```
 * @since 0.3.0
 */
export interface CoveredWallet {
  readonly scope: Scope
  readonly address: string
  readonly coveredFrom: bigint
  /** For a wallet added with its history: its first block (see `HistoryStore`). */
  readonly historyFrom?: bigint | undefined
}

/**
 * What one batch of a stream accounts for on one scope: the range it adds, and the range it
 * states again (a reorganisation), each when there is one.
 *
 * @example
 * ```ts
 * import type { Coverage } from "@chainquery/watch-service"
 *
 * const claim: Coverage.Claim = { coverage: { scope: "0x1", from: 118n, to: 125n }, replaces: { scope: "0x1", from: 118n, to: 120n } }
 * ```
 * @since 0.3.0
 */
export interface Claim {
  readonly coverage?: Range | undefined
  readonly replaces?: Range | undefined
}

/** The most wallets one batch announces; more wait for the next batches. */
export const maxAnnouncedPerBatch = 1_000

/**
 * The engine state's namespace of the scan of `scope` at `confirmations`.
 *
 * @example
 * ```ts
 * import { Coverage } from "@chainquery/watch-service"
 *
 * Coverage.namespaceOf("0x1", 12) // "scan:0x1:12"
 * ```
 * @since 0.3.0
 */
export const namespaceOf = (scope: Scope, confirmations: number): string => `scan:${scope}:${confirmations}`

/** A stream's claim on a scope, given what it was told (`batchedTo`), the scan's lowest checkpoint and its lowest new event. */
const claimOf = (
  scope: Scope,
  row: { readonly coveredFrom: bigint; readonly batchedTo: bigint },
  frontier: bigint,
  lowest: bigint | undefined
): Claim & { readonly batchedTo: bigint } => {
  const to = frontier > row.batchedTo ? frontier : row.batchedTo
  if (lowest !== undefined && lowest <= row.batchedTo && row.batchedTo >= row.coveredFrom) {
    const from = lowest > row.coveredFrom ? lowest : row.coveredFrom
    return { replaces: { scope, from, to: row.batchedTo }, coverage: { scope, from, to }, batchedTo: to }
  }
  return frontier > row.batchedTo ? { coverage: { scope, from: row.batchedTo + 1n, to }, batchedTo: to } : { batchedTo: row.batchedTo }
}

/** The key of the advisory lock of a scan's namespace (with the namespace's hash). */
const scanLockKey = 0x5ca0

/**
 * Takes the transaction-scoped lock of the scans of `scopes` at `confirmations`, in a fixed order.
 * A scan's commit takes it before it matches its events to the streams; adding wallets and
 * forgetting them take it before they read or write where the scan's wallets stand: so a wallet
 * joins a stream either before a commit (and gets its events) or after it (from where it left it).
 *
 * @example
 * ```ts
 * import { Coverage } from "@chainquery/watch-service"
 *
 * const locked = Coverage.lockScans(["0x1", "0x89"], 0) // Effect<void, SqlError, SqlClient>
 * ```
 * @since 0.3.0
 */
export const lockScans = (scopes: Iterable<Scope>, confirmations: number): Effect.Effect<void, SqlError.SqlError, SqlClient.SqlClient> =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    for (const namespace of [...new Set(Array.from(scopes, (scope) => namespaceOf(scope, confirmations)))].toSorted()) {
      yield* sql`SELECT pg_advisory_xact_lock(${scanLockKey}, hashtext(${namespace}))`
    }
  })

/** Whether stream `s` (of a query) is one the scan of `scope` at `confirmations` reads for. */
const scanning = (sql: SqlClient.SqlClient, scope: Scope, confirmations: number) =>
  sql`s.confirmations = ${confirmations} AND (s.scopes IS NULL OR ${scope} = ANY (s.scopes))`

/** Of `wallets`, the addresses some stream with `confirmations` holds on `scope` (what its scan watches). */
const heldAmong = (scope: Scope, confirmations: number, wallets: ReadonlyArray<WatchedWallet.WatchedWallet>) =>
  wallets.length === 0 ? Effect.succeed(new Set<string>()) : Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ address: string }>`SELECT DISTINCT ${sql.literal(addressText("w.address"))} AS address
      FROM stream_wallets w JOIN streams s ON s.id = w.stream_id
      WHERE w.scope = ${scope} AND ${scanning(sql, scope, confirmations)} AND w.address IN (
        SELECT ${sql.literal(addressBytes("a"))} FROM jsonb_array_elements_text(${JSON.stringify(wallets.map((wallet) => wallet.address))}::jsonb) AS e(a))`).pipe(
      Effect.map((rows) => new Set(rows.map((row) => row.address)))
    )

/**
 * The lowest checkpoint of the wallets that streams with `confirmations` hold on `scope`: every
 * event of theirs up to it is committed. A wallet no stream holds any more is left out (its
 * checkpoint stays where the scan left it until it is forgotten). `None`: no such wallet has one.
 *
 * @example
 * ```ts
 * import { Coverage } from "@chainquery/watch-service"
 *
 * const lowest = Coverage.frontier("0x1", 0) // Effect<Option<bigint>, …, SqlClient>
 * ```
 * @since 0.3.0
 */
export const frontier = (
  scope: Scope,
  confirmations: number
): Effect.Effect<Option.Option<bigint>, StateStore.StateStoreError, SqlClient.SqlClient> =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    PgCheckpoints.frontier(namespaceOf(scope, confirmations), scope, (wallet) =>
      sql`EXISTS (SELECT 1 FROM stream_wallets w JOIN streams s ON s.id = w.stream_id
        WHERE w.scope = ${scope} AND w.address = ${addressBytesOf(sql, wallet)} AND ${scanning(sql, scope, confirmations)})`))

/**
 * The lowest checkpoint of the wallets one stream holds on `scope` (in the scan of its
 * `confirmations`): every event of the stream's wallets up to it is committed, whatever the
 * other streams' wallets. `None`: the stream holds no wallet with a checkpoint there.
 *
 * @example
 * ```ts
 * import { Coverage } from "@chainquery/watch-service"
 *
 * const lowest = Coverage.frontierOf("str_0mwxp89sc8710d9595292", "0x1", 0) // Effect<Option<bigint>, …, SqlClient>
 * ```
 * @since 0.3.0
 */
export const frontierOf = (
  streamId: string,
  scope: Scope,
  confirmations: number
): Effect.Effect<Option.Option<bigint>, StateStore.StateStoreError, SqlClient.SqlClient> =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    PgCheckpoints.frontier(
      namespaceOf(scope, confirmations),
      scope,
      // Each checkpoint's wallet looked up in the key (a list of the stream's addresses would be read whole).
      (wallet) =>
        sql`EXISTS (SELECT 1 FROM stream_wallets w
          WHERE w.scope = ${scope} AND w.address = ${addressBytesOf(sql, wallet)} AND w.stream_id = ${streamId})`
    ))

/**
 * Of `wallets`, those that no stream with `confirmations` holds on their scope now, forgotten by
 * the scan (under its lock, so that one added again meanwhile keeps its checkpoint).
 *
 * @example
 * ```ts
 * import type { WatchedWallet } from "@chainquery/watch"
 * import { Coverage } from "@chainquery/watch-service"
 *
 * declare const removed: ReadonlyArray<WatchedWallet.WatchedWallet>
 * const forgotten = Coverage.forgetUnheld("0x1", 0, removed)
 * ```
 * @since 0.3.0
 */
export const forgetUnheld = (
  scope: Scope,
  confirmations: number,
  wallets: ReadonlyArray<WatchedWallet.WatchedWallet>
): Effect.Effect<void, SqlError.SqlError | StateStore.StateStoreError, SqlClient.SqlClient> =>
  Effect.gen(function*() {
    if (wallets.length === 0) return
    const sql = yield* SqlClient.SqlClient
    yield* sql.withTransaction(Effect.gen(function*() {
      yield* lockScans([scope], confirmations)
      const still = yield* heldAmong(scope, confirmations, wallets)
      yield* PgStateStore.forget(namespaceOf(scope, confirmations), wallets.filter((wallet) => !still.has(wallet.address)))
    }))
  })

/**
 * Forgets, in the scan of `scope` at `confirmations`, every wallet no stream holds any more: run
 * when the scan starts, for wallets removed while it was not running (or whose forgetting was
 * lost with the process), so that they never hold back the reading of its lowest checkpoint.
 * Answers how many were forgotten.
 *
 * @example
 * ```ts
 * import { Coverage } from "@chainquery/watch-service"
 *
 * const swept = Coverage.forgetAllUnheld("0x1", 0) // Effect<number, …, SqlClient>
 * ```
 * @since 0.3.0
 */
export const forgetAllUnheld = (
  scope: Scope,
  confirmations: number
): Effect.Effect<number, SqlError.SqlError | StateStore.StateStoreError, SqlClient.SqlClient> =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const namespace = namespaceOf(scope, confirmations)
    return yield* sql.withTransaction(Effect.gen(function*() {
      yield* lockScans([scope], confirmations)
      const left = yield* sql<{ wallet: string }>`SELECT c.wallet FROM watch_checkpoints c
        WHERE c.namespace = ${namespace} AND c.scope = ${scope} AND NOT EXISTS (
          SELECT 1 FROM stream_wallets w JOIN streams s ON s.id = w.stream_id
          WHERE w.scope = c.scope AND w.address = ${sql.literal(addressBytes("c.wallet"))} AND ${scanning(sql, scope, confirmations)})`
      yield* PgStateStore.forget(namespace, left.map((row) => walletOfScope(scope, row.wallet)))
      return left.length
    }))
  })

/**
 * The claims of a batch of each of `streams` on `scope`, each given the lowest block of its events
 * in the batch (if any), up to `upTo` (the scan's lowest checkpoint, see {@link frontier}), and their covered-to
 * moved on. Run it in the batch's transaction, the streams' rows locked. A stream not covered on
 * the scope (no wallet admitted there) claims nothing.
 *
 * @example
 * ```ts
 * import { Option } from "effect"
 * import { Coverage } from "@chainquery/watch-service"
 *
 * const claims = Coverage.claim("0x1", [{ id: "str_0mwxp89sc8710d9595292", lowest: 118n }], Option.some(130n))
 * ```
 * @since 0.3.0
 */
export const claim = (
  scope: Scope,
  streams: ReadonlyArray<{ readonly id: string; readonly lowest: bigint | undefined }>,
  upTo: Option.Option<bigint>
): Effect.Effect<ReadonlyMap<string, Claim>, SqlError.SqlError, SqlClient.SqlClient> =>
  Effect.gen(function*() {
    const claims = new Map<string, Claim>()
    if (streams.length === 0 || Option.isNone(upTo)) return claims
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<{ stream_id: string; covered_from: string; batched_to: string }>`SELECT stream_id, covered_from::text, batched_to::text
      FROM stream_coverage WHERE scope = ${scope} AND stream_id IN (SELECT jsonb_array_elements_text(${JSON.stringify(streams.map((s) => s.id))}::jsonb))`
    const lowestOf = new Map(streams.map((s) => [s.id, s.lowest]))
    const moved: Array<{ stream_id: string; batched_to: string }> = []
    for (const row of rows) {
      const before = BigInt(row.batched_to)
      const { batchedTo, ...made } = claimOf(scope, { coveredFrom: BigInt(row.covered_from), batchedTo: before }, upTo.value, lowestOf.get(row.stream_id))
      if (made.coverage !== undefined || made.replaces !== undefined) claims.set(row.stream_id, made)
      if (batchedTo !== before) moved.push({ stream_id: row.stream_id, batched_to: String(batchedTo) })
    }
    if (moved.length > 0) {
      yield* sql`UPDATE stream_coverage c SET batched_to = x.batched_to::bigint
        FROM jsonb_to_recordset(${JSON.stringify(moved)}::jsonb) AS x(stream_id text, batched_to text)
        WHERE c.stream_id = x.stream_id AND c.scope = ${scope}`
    }
    return claims
  })

/**
 * Takes the wallets of each stream that no batch announced yet (at most 1,000 per stream, any of
 * them, the rest for later batches) and marks them announced, each in address order per chain.
 * Run it in the batch's transaction.
 *
 * @example
 * ```ts
 * import { Coverage } from "@chainquery/watch-service"
 *
 * const added = Coverage.announce(["str_0mwxp89sc8710d9595292"]) // Effect<ReadonlyMap<string, ReadonlyArray<CoveredWallet>>, …>
 * ```
 * @since 0.3.0
 */
export const announce = (
  streamIds: ReadonlyArray<string>
): Effect.Effect<ReadonlyMap<string, ReadonlyArray<CoveredWallet>>, SqlError.SqlError, SqlClient.SqlClient> =>
  Effect.gen(function*() {
    const announced = new Map<string, Array<CoveredWallet>>()
    if (streamIds.length === 0) return announced
    const sql = yield* SqlClient.SqlClient
    // Any 1,000 of a stream's (read through its index of unannounced wallets, which stops there):
    // no sort of all of them, which a hundred thousand just added made a cost of every batch.
    const rows = yield* sql<{ stream_id: string; scope: string; address: string; covered_from: string; history_from: string | null }>`WITH picked AS (
        SELECT u.stream_id, u.scope, u.address FROM (SELECT DISTINCT id FROM jsonb_array_elements_text(${JSON.stringify(streamIds)}::jsonb) AS e(id)) AS s
        CROSS JOIN LATERAL (SELECT stream_id, scope, address FROM stream_wallets
          WHERE stream_id = s.id AND NOT announced AND covered_from IS NOT NULL LIMIT ${maxAnnouncedPerBatch}) AS u)
      UPDATE stream_wallets w SET announced = true FROM picked p
      WHERE w.stream_id = p.stream_id AND w.scope = p.scope AND w.address = p.address AND NOT w.announced
      RETURNING w.stream_id, w.scope, ${sql.literal(addressText("w.address"))} AS address, w.covered_from::text, w.history_from::text`
    for (const row of rows.toSorted((a, b) => a.scope < b.scope ? -1 : a.scope > b.scope ? 1 : a.address < b.address ? -1 : a.address > b.address ? 1 : 0)) {
      const wallet: CoveredWallet = row.history_from === null
        ? { scope: row.scope, address: row.address, coveredFrom: BigInt(row.covered_from) }
        : { scope: row.scope, address: row.address, coveredFrom: BigInt(row.covered_from), historyFrom: BigInt(row.history_from) }
      const list = announced.get(row.stream_id)
      if (list === undefined) announced.set(row.stream_id, [wallet])
      else list.push(wallet)
    }
    return announced
  })

/**
 * Admits `wallets` to a stream (of `confirmations`) on their scans, and answers each wallet's first
 * covered block, in order. A wallet another stream holds keeps its checkpoint in the scan; the
 * others get one at the placement (a fresh one, or one left behind moved up: see
 * `PgCheckpoints.place` and `raise`): on EVM, one block below the scan's lowest checkpoint, so that the scan's
 * next advance, which moves the wallets it knows at that checkpoint, does not meet a wallet it does
 * not know yet; on a scope no scan reads yet, `start` of the scope's wallets; on Aptos, whose
 * checkpoints move only with transfers, the later of the lowest and `start`. A wallet is covered
 * from the block after its checkpoint, and never from a block the stream was already told about
 * (its events before it are not the stream's: see `Outbox.enqueue`); the stream's coverage of a
 * new scope starts there. Run it in the transaction that stores the wallets, after
 * {@link lockScans} of their scopes and the stream's row locked.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import type { WatchedWallet } from "@chainquery/watch"
 * import { Coverage } from "@chainquery/watch-service"
 *
 * declare const wallets: ReadonlyArray<WatchedWallet.WatchedWallet>
 * const coveredFrom = Coverage.admit("str_0mwxp89sc8710d9595292", 0, wallets, () => Effect.succeed(21_000_000n))
 * ```
 * @since 0.3.0
 */
export const admit = <E, R>(
  streamId: string,
  confirmations: number,
  wallets: ReadonlyArray<WatchedWallet.WatchedWallet>,
  start: (scope: Scope, wallets: ReadonlyArray<WatchedWallet.WatchedWallet>) => Effect.Effect<bigint, E, R>
): Effect.Effect<ReadonlyArray<bigint>, E | SqlError.SqlError | StateStore.StateStoreError, SqlClient.SqlClient | R> =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const coveredFrom: Array<bigint> = Array.from(wallets, () => 0n)
    for (const [scope, indexes] of positionsByScope(wallets)) {
      const scoped = indexes.map((index) => wallets[index]!)
      const lowest = yield* frontier(scope, confirmations)
      const aptos = scope.startsWith("aptos:")
      const started = Option.isNone(lowest) || aptos ? yield* start(scope, scoped) : undefined
      const position = Option.isNone(lowest) ? started! : started !== undefined ? (started > lowest.value ? started : lowest.value) : lowest.value - 1n
      const namespace = namespaceOf(scope, confirmations)
      const placed = [...yield* PgCheckpoints.place(namespace, scoped, position)]
      // A checkpoint behind that no stream holds was left where the scan stopped reading it: no
      // stream is owed what it missed since, so it goes on from the placement. One held stays.
      const behind = scoped.filter((_, i) => placed[i]! < position)
      const holding = yield* heldAmong(scope, confirmations, behind)
      const raised = new Set(behind.filter((wallet) => !holding.has(wallet.address)).map((wallet) => wallet.address))
      yield* PgCheckpoints.raise(namespace, scoped.filter((wallet) => raised.has(wallet.address)), position)
      scoped.forEach((wallet, i) => {
        if (raised.has(wallet.address)) placed[i] = position
      })
      const [told] = yield* sql<{ batched_to: string }>`SELECT batched_to::text FROM stream_coverage WHERE stream_id = ${streamId} AND scope = ${scope}`
      const after = told === undefined ? undefined : BigInt(told.batched_to) + 1n
      let first: bigint | undefined
      placed.forEach((at, i) => {
        const from = after !== undefined && after > at + 1n ? after : at + 1n
        coveredFrom[indexes[i]!] = from
        if (first === undefined || from < first) first = from
      })
      yield* sql`INSERT INTO stream_coverage (stream_id, scope, covered_from, batched_to)
        VALUES (${streamId}, ${scope}, ${String(first!)}::bigint, ${String(first! - 1n)}::bigint) ON CONFLICT DO NOTHING`
    }
    return coveredFrom
  })
