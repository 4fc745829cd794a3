/**
 * The simulator as an Effect service: a wire-faithful local implementation of all 14 operations
 * over a deterministic, evolving world, served over real HTTP on 127.0.0.1, with a control API
 * for tests (advance blocks, reorganise a chain, inject faults, read the ground truth, see the
 * latest requests).
 *
 * @since 0.1.0
 */
import { NodeHttpServer } from "@effect/platform-node"
import type { Chain } from "@chainquery/schema"
import { Context, Duration, Effect, Layer } from "effect"
import type { FaultConfig } from "./internal/front/Faults.js"
import { type WireFlavour, wireProblem } from "./internal/front/RealWire.js"
import { type LoggedRequest, requestLogProblem } from "./internal/front/RequestLog.js"
import type { StatsSnapshot } from "./internal/front/Stats.js"
import { type Running, start } from "./internal/Server.js"
import type { World } from "./internal/World.js"

/**
 * The fault configuration: a probability per kind (`latency`, `rateLimited`, `serverError`,
 * `reset`, `truncated`, `malformed`, `stalled`, `huge`), globally and per operation id.
 *
 * @example
 * ```ts
 * import type { Simulator } from "@chainquery/simulator"
 *
 * const faults: Simulator.FaultConfig = { serverError: { probability: 0.2, statuses: [503] } }
 * ```
 * @since 0.1.0
 */
export type { FaultConfig }

/**
 * What `stats` reports.
 *
 * @example
 * ```ts
 * import type { Simulator } from "@chainquery/simulator"
 *
 * const requests = (stats: Simulator.StatsSnapshot) => stats.requests.total
 * ```
 * @since 0.1.0
 */
export type { StatsSnapshot }

/**
 * One API request in the request log (see {@link Options.requestLog}): when it arrived (epoch
 * milliseconds), its method, its path and query exactly as requested, the operation it matched
 * (`"unknown"` for none), its family, its network (family B only) and its `User-Agent`.
 *
 * @example
 * ```ts
 * import type { Simulator } from "@chainquery/simulator"
 *
 * const blockRequests = (requests: ReadonlyArray<Simulator.LoggedRequest>) =>
 *   requests.filter((request) => request.operation === "getBlock").map((request) => request.userAgent)
 * ```
 * @since 0.4.0
 */
export type { LoggedRequest }

/**
 * The JSON types the answers carry: `"spec"` (service.md's, the default) or `"real"` (those of
 * the real service's captured responses: `log_index` a number, `possible_spam` a boolean,
 * `token_properties` an object, ...; the README lists every field that differs).
 *
 * @example
 * ```ts
 * import type { Simulator } from "@chainquery/simulator"
 *
 * const wire: Simulator.WireFlavour = "real"
 * ```
 * @since 0.5.0
 */
export type { WireFlavour }

/**
 * The API key the simulator accepts unless told otherwise.
 *
 * @example
 * ```ts
 * import { Simulator } from "@chainquery/simulator"
 *
 * Simulator.defaultApiKey // "chainquery-simulator-key"
 * ```
 * @since 0.1.0
 */
export const defaultApiKey = "chainquery-simulator-key"

/**
 * How to start a simulator. Every field is optional.
 *
 * @example
 * ```ts
 * import { Simulator } from "@chainquery/simulator"
 *
 * const options: Simulator.Options = { seed: 42, blockTime: "2 seconds", indexing: false }
 * ```
 * @since 0.1.0
 */
export interface Options {
  /** The world's seed: the same seed gives the same world. Default 42. */
  readonly seed?: string | number | undefined
  /** Port on 127.0.0.1; 0 (the default) picks a free one. */
  readonly port?: number | undefined
  /** Host to listen on. Default 127.0.0.1. */
  readonly host?: string | undefined
  /** The API key requests must carry (X-API-Key or Authorization: Bearer). Default {@link defaultApiKey}. */
  readonly apiKey?: string | undefined
  /** Advance the world every `blockTime`; when absent, blocks advance only when told. */
  readonly blockTime?: Duration.Input | undefined
  /** Blocks of history generated per chain before serving. Default 60. */
  readonly history?: number | undefined
  /** Number of wallets shared by the EVM chains. Default 400. */
  readonly wallets?: number | undefined
  /** Multiplies every chain's NFT activity per block. Default 1. */
  readonly activityScale?: number | undefined
  /**
   * The service's indexing behaviour: the newest block sometimes not yet indexed
   * (`lagProbability`, default 0.3) and collections `SYNCING` for `syncBlocks` blocks after
   * their first owners request (default 3). `false` switches both off.
   */
  readonly indexing?: false | { readonly lagProbability?: number; readonly syncBlocks?: number } | undefined
  /** Chains with NFT activity (names or ids); the others answer but stay empty. Default: all. */
  readonly chains?: ReadonlyArray<Chain.ChainId> | undefined
  /** Faults to inject from the start (they can be changed at run time). */
  readonly faults?: FaultConfig | undefined
  /** A compute-unit budget per second per API key; absent means unlimited. */
  readonly rateLimit?: { readonly unitsPerSecond: number; readonly weights?: Record<string, number> } | undefined
  /**
   * How many of the latest API requests to keep for `requests` (a ring: the oldest is dropped
   * first); a non-negative integer, default 0 (none kept). Control requests are not kept.
   *
   * @since 0.4.0
   */
  readonly requestLog?: number | undefined
  /**
   * The JSON types of the answers: `"spec"` (service.md's, the default) or `"real"` (the types the
   * real service's captured responses show, for code written against real responses). Values are
   * the same in both.
   *
   * @since 0.5.0
   */
  readonly wire?: WireFlavour | undefined
}

/**
 * A running simulator: its base URLs and control operations.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Simulator } from "@chainquery/simulator"
 *
 * const program = Effect.gen(function*() {
 *   const sim = yield* Simulator.Simulator
 *   yield* sim.advance(5)
 *   return sim.evmUrl
 * }).pipe(Effect.provide(Simulator.layer({ seed: 7 })))
 * ```
 * @since 0.1.0
 */
export class Simulator extends Context.Service<Simulator, {
  /** The server's root, e.g. `http://127.0.0.1:4123`. */
  readonly url: string
  /** Base URL of family A (paths under `/api/v2.2`). */
  readonly evmUrl: string
  /** Base URLs of family B, one per network. */
  readonly ledgerUrl: { readonly mainnet: string; readonly testnet: string }
  /** The API key the simulator accepts. */
  readonly apiKey: string
  /** The world itself, for ground-truth reads in tests. */
  readonly world: World
  /** Advances every chain by `blocks` blocks (default 1). */
  readonly advance: (blocks?: number) => Effect.Effect<void>
  /** Replaces the last `depth` blocks of an EVM chain; returns the first replaced block. */
  readonly reorg: (chain: Chain.ChainId, depth: number) => Effect.Effect<number>
  /** Replaces the fault configuration; fails with the reason when it is not valid. */
  readonly setFaults: (faults: FaultConfig) => Effect.Effect<void, string>
  /** Requests per operation, family and network, faults injected, rate-limited answers, units spent. */
  readonly stats: Effect.Effect<StatsSnapshot>
  /** Zeroes the stats and empties the request log. */
  readonly resetStats: Effect.Effect<void>
  /**
   * The latest API requests, oldest first: at most {@link Options.requestLog} of them (none by
   * default), the same requests `stats` counts.
   *
   * @since 0.4.0
   */
  readonly requests: Effect.Effect<ReadonlyArray<LoggedRequest>>
}>()("@chainquery/simulator/Simulator") {}

const resolve = (options: Options) => {
  const indexing = options.indexing === false
    ? false as const
    : { lagProbability: options.indexing?.lagProbability ?? 0.3, syncBlocks: options.indexing?.syncBlocks ?? 3 }
  return {
    seed: String(options.seed ?? 42),
    host: options.host ?? "127.0.0.1",
    port: options.port ?? 0,
    apiKey: options.apiKey ?? defaultApiKey,
    blockTime: options.blockTime === undefined ? undefined : Duration.fromInputUnsafe(options.blockTime),
    history: options.history ?? 60,
    wallets: options.wallets ?? 400,
    activityScale: options.activityScale ?? 1,
    indexing,
    activeChains: options.chains,
    faults: options.faults,
    rateLimit: options.rateLimit,
    requestLog: options.requestLog ?? 0,
    wire: options.wire ?? "spec"
  }
}

const serviceOf = (running: Running, apiKey: string): Simulator["Service"] => ({
  url: running.url,
  evmUrl: running.url,
  ledgerUrl: { mainnet: `${running.url}/aptos/mainnet`, testnet: `${running.url}/aptos/testnet` },
  apiKey,
  world: running.world,
  advance: (blocks = 1) => Effect.sync(() => running.world.advance(blocks)),
  reorg: (chain, depth) => Effect.sync(() => running.world.reorg(chain, depth).fromBlock),
  setFaults: (faults) =>
    Effect.suspend(() => {
      const problem = running.frontDoor.faults.setFromJson(faults)
      return problem === undefined ? Effect.void : Effect.fail(problem)
    }),
  stats: Effect.sync(() => running.frontDoor.stats.snapshot()),
  resetStats: Effect.sync(() => running.frontDoor.resetStats()),
  requests: Effect.sync(() => running.frontDoor.requestLog.entries())
})

/**
 * Starts a simulator in-process on a free port for the lifetime of the layer. Fails with an
 * `Error` naming the option when `requestLog` is not a non-negative integer or `wire` is neither
 * `"spec"` nor `"real"`.
 *
 * @example
 * ```ts
 * import { layer } from "@effect/vitest"
 * import { Simulator } from "@chainquery/simulator"
 *
 * layer(Simulator.layer({ seed: 1, indexing: false }))("my app", (it) => {
 *   // it.effect(...) tests can `yield* Simulator.Simulator` and call sim.evmUrl
 * })
 * ```
 * @since 0.1.0
 */
export const layer = (options: Options = {}): Layer.Layer<Simulator, Error> =>
  Layer.effect(
    Simulator,
    Effect.suspend(() => {
      const resolved = resolve(options)
      const problem = requestLogProblem(resolved.requestLog) ?? wireProblem(resolved.wire)
      if (problem !== undefined) return Effect.fail(new Error(problem))
      return Effect.map(start(resolved), (running) => serviceOf(running, resolved.apiKey))
    })
  ).pipe(Layer.provide(NodeHttpServer.layerHttpServices))
