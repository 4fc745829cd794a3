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
  /** `undefined`: the last read failed. */
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
  /** The wallets' version as last read; `undefined` when that read failed (it is logged). */
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
      // Both, or neither when a read fails (logged): the scanners and readers then look for themselves.
      const read = Effect.gen(function*() {
        const version: bigint | undefined = yield* streams.walletsVersion
        const owed: ReadonlySet<Scope> | undefined = yield* Effect.provideContext(HistoryStore.owedScopes, context)
        return { version, owed }
      }).pipe(
        Effect.catchCause((cause) =>
          Effect.as(
            Effect.logWarning(`scanners: cannot read the wallets' version or the scopes owing histories (${Cause.pretty(cause)}); read again next interval`),
            { version: undefined, owed: undefined }
          )
        )
      )
      const state = yield* Ref.make<Read>({ ...(yield* read), moved: yield* Deferred.make<void>() })
      yield* read.pipe(
        Effect.flatMap((next) =>
          Effect.flatMap(
            Ref.modify(state, (before): readonly [Deferred.Deferred<void> | undefined, Read] =>
              next.version === before.version
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
