/**
 * Starts the simulator: builds the world, serves the HttpApi of both families behind the front
 * door (URL normalisation, rate limit, faults, stats, request log) on a node:http server, exposes
 * the control API, and advances the world on a timer when a block time is set.
 *
 * @internal
 */
import { NodeHttpServer } from "@effect/platform-node"
import { type Chain, EvmApi, LedgerApi } from "@chainquery/schema"
import { Duration, Effect, Layer, Schedule } from "effect"
import { HttpRouter, HttpServerRequest } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { authLayer, keyAccepted } from "./ApiKeyCheck.js"
import { handleControl } from "./Control.js"
import { evmHandlers } from "./evm/EvmHandlers.js"
import { evmPages } from "./evm/EvmPages.js"
import { EvmQueries } from "./evm/EvmQueries.js"
import { endpointsOf, type FastPath, makeFastPath } from "./FastPath.js"
import type { IndexingOptions } from "./evm/EvmWorld.js"
import type { FaultConfig } from "./front/Faults.js"
import { makeFrontDoor } from "./front/FrontDoor.js"
import type { WireFlavour } from "./front/RealWire.js"
import { ledgerHandlers, networkHeader } from "./LedgerHandlers.js"
import { withServiceBadRequests } from "./RequestErrors.js"
import { World } from "./World.js"

/** Everything a running simulator needs, defaults resolved. */
export interface ServerOptions {
  readonly seed: string
  readonly host: string
  readonly port: number
  readonly apiKey: string
  readonly blockTime: Duration.Duration | undefined
  readonly history: number
  readonly wallets: number
  readonly activityScale: number
  readonly indexing: IndexingOptions | false
  readonly activeChains: ReadonlyArray<Chain.ChainId> | undefined
  readonly faults: FaultConfig | undefined
  readonly rateLimit: { readonly unitsPerSecond: number; readonly weights?: Record<string, number> } | undefined
  /** How many of the latest API requests the request log keeps (default 0: none). */
  readonly requestLog?: number | undefined
  /** The JSON types of the answers: service.md's (`spec`, the default) or the captured ones (`real`). */
  readonly wire?: WireFlavour | undefined
  /** Whether the fast path answers the paged family A listings (default true; tests compare both). */
  readonly fastPath?: boolean | undefined
}

/** A running simulator. */
export interface Running {
  readonly url: string
  readonly world: World
  readonly frontDoor: ReturnType<typeof makeFrontDoor>
  /** The fast path in front of the HttpApi app, unless it was switched off. */
  readonly fastPath: FastPath | undefined
}

const listen = (server: Server, host: string, port: number) =>
  Effect.callback<AddressInfo, Error>((resume) => {
    server.once("error", (error) => resume(Effect.fail(error)))
    server.listen(port, host, () => resume(Effect.succeed(server.address() as AddressInfo)))
  })

const close = (server: Server) =>
  Effect.callback<void>((resume) => {
    server.close(() => resume(Effect.void))
    server.closeAllConnections()
  })

/** Starts a simulator in the current scope; it stops when the scope closes. */
export const start = Effect.fnUntraced(function*(options: ServerOptions) {
  const world = new World({
    seed: options.seed,
    history: options.history,
    wallets: options.wallets,
    activityScale: options.activityScale,
    indexing: options.indexing,
    activeChains: options.activeChains
  })
  const queries = new EvmQueries(world.evm)
  const pages = evmPages(queries)
  const app = Layer.mergeAll(
    HttpApiBuilder.layer(EvmApi.EvmApi).pipe(Layer.provide(evmHandlers(queries, pages))),
    HttpApiBuilder.layer(LedgerApi.LedgerApi).pipe(Layer.provide(ledgerHandlers(world.aptos)))
  ).pipe(Layer.provide(authLayer(options.apiKey)), Layer.provide(HttpRouter.disableLogger))
  const httpEffect = yield* HttpRouter.toHttpEffect(app)
  const served = withServiceBadRequests(httpEffect, () =>
    Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      return {
        family: request.headers[networkHeader] === undefined ? "A" as const : "B" as const,
        query: Object.fromEntries(new URL(request.url, "http://localhost").searchParams)
      }
    }))
  const scope = yield* Effect.scope
  const httpApi = yield* NodeHttpServer.makeHandler(served, { scope })
  const fastPath = options.fastPath === false ? undefined : makeFastPath({
    endpoints: [...endpointsOf(EvmApi.EvmApi), ...endpointsOf(LedgerApi.LedgerApi)],
    group: "evm",
    answers: pages,
    accepts: (headers) => keyAccepted(headers, options.apiKey),
    next: httpApi
  })
  const frontDoor = makeFrontDoor({
    seed: options.seed,
    next: fastPath?.handle ?? httpApi,
    control: handleControl({
      world,
      getFaults: () => frontDoor.faults.get(),
      setFaults: (json) => frontDoor.faults.setFromJson(json),
      stats: () => frontDoor.stats.snapshot(),
      resetStats: () => frontDoor.resetStats(),
      requests: () => frontDoor.requestLog.entries()
    }),
    ...(options.faults === undefined ? {} : { faults: options.faults }),
    ...(options.rateLimit === undefined ? {} : { rateLimit: options.rateLimit }),
    requestLog: options.requestLog,
    wire: options.wire
  })
  // Idle connections are kept 65 s while clients are told 5 s (see `FrontDoor`): a client never
  // reuses one the server is closing at that moment (a reset, seen on loaded machines).
  const server = createServer({ keepAlive: true, keepAliveTimeout: 65_000 }, frontDoor.handle)
  const address = yield* Effect.acquireRelease(listen(server, options.host, options.port), () =>
    Effect.andThen(Effect.sync(() => frontDoor.close()), close(server)))
  if (options.blockTime !== undefined) {
    // A block every `blockTime`, on a fixed cadence: the first one `blockTime` after the start,
    // and making a block does not stretch the time to the next (the delay and a spaced schedule
    // together made the blocks twice as far apart as asked).
    yield* Effect.forkScoped(
      Effect.andThen(Effect.sleep(options.blockTime), Effect.repeat(Effect.sync(() => world.advance()), Schedule.fixed(options.blockTime)))
    )
  }
  return { url: `http://${options.host}:${address.port}`, world, frontDoor, fastPath } satisfies Running
})
