/**
 * What a runner's scanners and history readers look at every interval, read once for all of them:
 * the wallets' version (`StreamStore.walletsVersion`: a scope's scans are planned again, and a
 * scan reads its wallets again, only when it moves) and the scopes that owe histories
 * (`HistoryStore.owedScopes`). A runner holds a scanner and a history reader per scope (27 each):
 * asking PostgreSQL for these in each of them was about 55 queries a second at a 1 s interval
 * with nothing to do, most of an idle service's CPU. Now it is 2 a runner.
 *
 * @since 0.5.0
 */
import { Cause, Context, Deferred, type Duration, Effect, Layer, Ref } from "effect"
import type { SqlClient } from "effect/sql"
import type { Scope } from "../model/Scopes.js"
import { ServiceConfig } from "../model/ServiceConfig.js"
import * as HistoryStore from "../store/HistoryStore.js"
import { StreamStore } from "../store/StreamStore.js"

/** The signals as last read, and what fires when the wallets' version moves from them. */
interface Read {
  /** The last version read (a read that fails keeps it); `undefined` until one is read. */
  readonly version: bigint | undefined
  /** `undefined`: the last read failed (every scope is read, as if it owed). */
  readonly owed: ReadonlySet<Scope> | undefined
  readonly moved: Deferred.Deferred<void>
}

/**
 * The runner's signals, read every `ServiceConfig.interval` by one fiber (see the module's doc).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { ScanSignals } from "@chainquery/watch-service"
 *
 * const owesEth = Effect.flatMap(ScanSignals.ScanSignals, (signals) => signals.historyOwed("0x1"))
 * ```
 * @since 0.5.0
 */
export class ScanSignals extends Context.Service<ScanSignals, {
  /**
   * The wallets' version as last read: a read that fails (it is logged) keeps the one before, as
   * nothing is known to have changed; `undefined` until one is read.
   */
  readonly walletsVersion: Effect.Effect<bigint | undefined>
  /**
   * The wallets' version once it is not `seen` (at once if it is not already), or as it is after
   * `within`, whichever comes first: a change is taken as soon as it is read, not an interval later.
   */
  readonly walletsChange: (seen: bigint | undefined, within: Duration.Input) => Effect.Effect<bigint | undefined>
  /** Whether `scope` owed histories when last read (`true` when that read failed: look to find out). */
  readonly historyOwed: (scope: Scope) => Effect.Effect<boolean>
}>()("@chainquery/watch-service/ScanSignals") {
  /**
   * Reads the signals once before it is built (the scanners start with them), then every interval
   * for as long as its scope is open; a read that fails is logged and tried again an interval later.
   */
  static readonly layer: Layer.Layer<ScanSignals, never, StreamStore | ServiceConfig | SqlClient.SqlClient> = Layer.effect(
    ScanSignals,
    Effect.gen(function*() {
      const streams = yield* StreamStore
      const config = yield* ServiceConfig
      const context = yield* Effect.context<SqlClient.SqlClient>()
      // Each read on its own; one that fails is logged and answers `undefined`.
      const read = Effect.all({
        version: streams.walletsVersion.pipe(failedAs("the wallets' version")),
        owed: Effect.provideContext(HistoryStore.owedScopes, context).pipe(failedAs("the scopes owing histories"))
      })
      const state = yield* Ref.make<Read>({ ...(yield* read), moved: yield* Deferred.make<void>() })
      yield* read.pipe(
        Effect.flatMap((next) =>
          Effect.flatMap(
            Ref.modify(state, (before): readonly [Deferred.Deferred<void> | undefined, Read] =>
              next.version === undefined || next.version === before.version
                ? [undefined, { ...before, owed: next.owed }]
                : [before.moved, { ...next, moved: Deferred.makeUnsafe<void>() }]),
            (moved) => moved === undefined ? Effect.void : Deferred.succeed(moved, undefined)
          )
        ),
        Effect.delay(config.interval),
        Effect.forever,
        Effect.forkScoped
      )
      return ScanSignals.of({
        walletsVersion: Effect.map(Ref.get(state), (now) => now.version),
        walletsChange: (seen, within) =>
          Effect.gen(function*() {
            const now = yield* Ref.get(state)
            if (now.version !== seen) return now.version
            yield* Effect.timeoutOption(Deferred.await(now.moved), within)
            return (yield* Ref.get(state)).version
          }),
        historyOwed: (scope) => Effect.map(Ref.get(state), (now) => now.owed === undefined || now.owed.has(scope))
      })
    })
  )
}

/** A read that fails is logged and answers `undefined` (read again an interval later). */
const failedAs = (what: string) => <A, E>(self: Effect.Effect<A, E>): Effect.Effect<A | undefined> =>
  Effect.catchCause(self, (cause) => Effect.as(Effect.logWarning(`scanners: cannot read ${what} (${Cause.pretty(cause)}); read again next interval`), undefined))
