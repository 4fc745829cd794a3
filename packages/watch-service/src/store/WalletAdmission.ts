/**
 * Wallets admitted to a stream: each stored with the block it is covered from, so that the
 * stream's batches account for it from exactly there. The chains' heads a placement may need are
 * read first, outside the transaction (by the caller's `startOf`: for a scope no scan covers yet,
 * and for Aptos); then, in one transaction under the locks of the wallets' scans (in a fixed
 * order) and of the stream's row, each wallet is placed (`Coverage.admit`) and stored. A
 * transaction that meets a scan's commit in a deadlock, or finds a scan emptied since the heads
 * were read, is made again (up to three times more); past that, or on any other database failure,
 * the admission dies (a defect: the HTTP API answers 500 and logs it). Wallets taken with their
 * history get it recorded in the same transaction (`HistoryStore.plan`), up to the block before
 * the one each is covered from.
 *
 * @since 0.5.0
 */
import { StateStore, type WatchedWallet } from "@chainquery/watch"
import { Data, Effect, Option } from "effect"
import { SqlClient, SqlError } from "effect/sql"
import * as Coverage from "./Coverage.js"
import * as HistoryStore from "./HistoryStore.js"
import * as Scopes from "../model/Scopes.js"
import { type Stream, StreamStore } from "./StreamStore.js"

/**
 * The stream was deleted while its wallets were being admitted: nothing was stored.
 *
 * @example
 * ```ts
 * import { WalletAdmission } from "@chainquery/watch-service"
 *
 * new WalletAdmission.StreamGone({ id: "str_0mwxp89sc8710d9595292" })
 * ```
 * @since 0.5.0
 */
export class StreamGone extends Data.TaggedError("StreamGone")<{ readonly id: string }> {}

/** A scope's scan lost its last wallet between the read of the heads and the transaction: planned again. */
class ScanEmptied extends Data.TaggedError("ScanEmptied")<{}> {}

/** A failure worth trying again (a deadlock, a serialization failure, even as the engine's store wrapped it; a plan gone stale). */
const retryable = (error: unknown): boolean =>
  error instanceof ScanEmptied || (SqlError.isSqlError(error) && error.isRetryable) ||
  (error instanceof StateStore.StateStoreError && retryable(error.cause))

/**
 * Admits `wallets` to `stream`: how many were new, each wallet's first covered block as stored,
 * and, for those given a `historyFrom`, the history it owes them (`from` to the block before). `startOf` reads where the engine would start a scope's wallets (a chain's head); its
 * failure is the admission's, with nothing stored (one that is a database failure, a `SqlError`
 * or `StateStoreError`, is treated as the admission's own: tried again, then a defect).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import type { WatchedWallet } from "@chainquery/watch"
 * import { type StreamStore, WalletAdmission } from "@chainquery/watch-service"
 *
 * declare const stream: StreamStore.Stream
 * declare const wallets: ReadonlyArray<WatchedWallet.WatchedWallet>
 * const admitted = WalletAdmission.admit(stream, wallets, () => Effect.succeed(19_000_000n))
 * ```
 * @since 0.5.0
 */
export const admit: <E>(
  stream: Stream,
  wallets: ReadonlyArray<WatchedWallet.WatchedWallet>,
  startOf: (scope: Scopes.Scope, wallets: ReadonlyArray<WatchedWallet.WatchedWallet>) => Effect.Effect<bigint, E>,
  historyFrom?: ReadonlyArray<bigint | undefined>
) => Effect.Effect<
  {
    readonly added: number
    readonly coveredFrom: ReadonlyArray<bigint | null>
    readonly history: ReadonlyArray<{ readonly from: bigint; readonly to: bigint } | undefined>
  },
  E | StreamGone,
  SqlClient.SqlClient | StreamStore
> = Effect.fn("WalletAdmission.admit")(function*<E>(
  stream: Stream,
  wallets: ReadonlyArray<WatchedWallet.WatchedWallet>,
  startOf: (scope: Scopes.Scope, wallets: ReadonlyArray<WatchedWallet.WatchedWallet>) => Effect.Effect<bigint, E>,
  historyFrom: ReadonlyArray<bigint | undefined> = []
) {
  yield* Effect.annotateCurrentSpan({ "stream.id": stream.id, "wallets.count": wallets.length })
  const sql = yield* SqlClient.SqlClient
  const streams = yield* StreamStore
  const attempt = Effect.gen(function*() {
    const byScope = Scopes.positionsByScope(wallets)
    const starts = new Map<Scopes.Scope, bigint>()
    for (const [scope, positions] of byScope) {
      const aptos = scope.startsWith("aptos:")
      if (aptos || Option.isNone(yield* Coverage.frontier(scope, stream.confirmations))) {
        starts.set(scope, yield* startOf(scope, positions.map((index) => wallets[index]!)))
      }
    }
    return yield* sql.withTransaction(Effect.gen(function*() {
      yield* Coverage.lockScans(byScope.keys(), stream.confirmations)
      if (!(yield* streams.lock(stream.id))) return yield* new StreamGone({ id: stream.id })
      const coveredFrom = yield* Coverage.admit(stream.id, stream.confirmations, wallets, (scope) => {
        const start = starts.get(scope)
        return start === undefined ? Effect.fail(new ScanEmptied()) : Effect.succeed(start)
      })
      const stored = yield* streams.addWallets(stream.id, wallets, coveredFrom)
      // The history owed for the wallets taken with one: up to the block before each is covered from.
      const owed = wallets.flatMap((wallet, index) => {
        const from = historyFrom[index]
        const covered = stored.coveredFrom[index]
        return from === undefined || covered === null || covered === undefined ? [] : [{ wallet, from, coveredFrom: covered, index }]
      })
      const planned = yield* HistoryStore.plan(stream.id, owed)
      const history: Array<{ readonly from: bigint; readonly to: bigint } | undefined> = wallets.map(() => undefined)
      owed.forEach((entry, i) => {
        history[entry.index] = planned[i]
      })
      return { ...stored, history }
    }))
  })
  return yield* attempt.pipe(
    Effect.retry({ while: retryable, times: 3 }),
    Effect.catchIf(
      (error): error is SqlError.SqlError | StateStore.StateStoreError | ScanEmptied =>
        SqlError.isSqlError(error) || error instanceof StateStore.StateStoreError || error instanceof ScanEmptied,
      Effect.die
    )
  )
})
