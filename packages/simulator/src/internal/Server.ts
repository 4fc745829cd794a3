/**
 * Starts the simulator: builds the world, serves the HttpApi of both families behind the front
 * door (URL normalisation, rate limit, faults, stats) on a node:http server, exposes the control
 * API, and advances the world on a timer when a block time is set.
 *
 * @internal
 */
import { NodeHttpServer } from "@effect/platform-node"
import { ApiKey, type Chain, ErrorBody, EvmApi, LedgerApi } from "@chainquery/schema"
import { Duration, Effect, Layer, Schedule } from "effect"
import { HttpRouter, HttpServerRequest } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { handleControl } from "./Control.js"
import { evmHandlers } from "./evm/EvmHandlers.js"
import { EvmQueries } from "./evm/EvmQueries.js"
import type { IndexingOptions } from "./evm/EvmWorld.js"
import type { FaultConfig } from "./front/Faults.js"
import { makeFrontDoor } from "./front/FrontDoor.js"
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
}

/** A running simulator. */
export interface Running {
  readonly url: string
  readonly world: World
  readonly frontDoor: ReturnType<typeof makeFrontDoor>
}

/**
 * The API key check. Both schemes (X-API-Key, Bearer) are declared, and HttpApi tries each; the
 * key given is read from the request itself, so that a wrong key says "Invalid key" whichever
 * scheme is tried last.
 */
const authLayer = (apiKey: string) => {
  const check = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
    Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const header = request.headers["x-api-key"]
      const bearer = /^Bearer\s+(.+)$/i.exec(request.headers["authorization"] ?? "")?.[1]
      const given = header ?? bearer
      if (given === apiKey || bearer === apiKey) return yield* effect
      return yield* Effect.fail(new ErrorBody.UnauthorizedBody({
        message: given === undefined || given === "" ? "API KEY missing from x-api-key header" : "Invalid key"
      }))
    })
  return Layer.succeed(ApiKey.ApiKeyAuth, {
    apiKey: (effect) => check(effect),
    bearer: (effect) => check(effect)
  })
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
  const app = Layer.mergeAll(
    HttpApiBuilder.layer(EvmApi.EvmApi).pipe(Layer.provide(evmHandlers(new EvmQueries(world.evm)))),
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
  const next = yield* NodeHttpServer.makeHandler(served, { scope })
  const frontDoor = makeFrontDoor({
    seed: options.seed,
    next,
    control: handleControl({
      world,
      getFaults: () => frontDoor.faults.get(),
      setFaults: (json) => frontDoor.faults.setFromJson(json),
      stats: () => frontDoor.stats.snapshot(),
      resetStats: () => frontDoor.stats.reset()
    }),
    ...(options.faults === undefined ? {} : { faults: options.faults }),
    ...(options.rateLimit === undefined ? {} : { rateLimit: options.rateLimit })
  })
  const server = createServer({ keepAlive: true }, frontDoor.handle)
  const address = yield* Effect.acquireRelease(listen(server, options.host, options.port), () =>
    Effect.andThen(Effect.sync(() => frontDoor.close()), close(server)))
  if (options.blockTime !== undefined) {
    yield* Effect.forkScoped(
      Effect.sync(() => world.advance()).pipe(Effect.delay(options.blockTime), Effect.repeat(Schedule.spaced(options.blockTime)))
    )
  }
  return { url: `http://${options.host}:${address.port}`, world, frontDoor } satisfies Running
})
