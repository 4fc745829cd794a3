/**
 * The service's HTTP API on 127.0.0.1 (a free port) over a fresh PostgreSQL database, migrated,
 * with its real stores and middlewares and a simulator for the chains' clients, for tests: `call` sends a request with the API token (or
 * the one given, or none) and reads the JSON answer; `woken` lists the streams whose delivery was
 * woken; `run` runs an effect with the same stores, config and database as the API (to look behind
 * an answer, or to play the scanner's and the delivery's part).
 */
import { NodeCrypto } from "@effect/platform-node"
import { Context, Duration, Effect, Layer, Redacted, Ref } from "effect"
import { Mac } from "effect/crypto"
import { HttpServer } from "effect/http"
import { SqlClient } from "effect/sql"
import { Simulator } from "@chainquery/simulator"
import { freshDatabase } from "../../watch/test/support/postgres.js"
import { EvmClient } from "@chainquery/evm-client"
import { LedgerClients } from "@chainquery/watch"
import { DeliveryStore } from "../src/store/DeliveryStore.js"
import { Readiness } from "../src/api/Readiness.js"
import { ServiceConfig } from "../src/model/ServiceConfig.js"
import { DeliveryWake } from "../src/delivery/DeliveryWake.js"
import * as ServiceHttp from "../src/api/ServiceHttp.js"
import * as ServiceMigrations from "../src/store/ServiceMigrations.js"
import { StreamStore } from "../src/store/StreamStore.js"
import { plainSecrets } from "./support/storeFixtures.js"

export const apiToken = "test-token-0123456789abcdef"

/** What a test holds: the base URL, a request helper, the SQL client and the woken streams. */
export interface Api {
  readonly url: string
  readonly call: (
    method: string,
    path: string,
    options?: { readonly body?: unknown; readonly raw?: string; readonly token?: string | null; readonly contentType?: string }
  ) => Promise<{ readonly status: number; readonly body: any; readonly text: string }>
  readonly sql: SqlClient.SqlClient
  readonly woken: Effect.Effect<ReadonlyArray<string>>
  readonly run: <A, E>(effect: Effect.Effect<A, E, Behind>) => Promise<A>
}

/** What `run` provides: the API's stores, config and database, and a MAC to sign webhooks with. */
export type Behind = StreamStore | DeliveryStore | SqlClient.SqlClient | ServiceConfig | Mac.Mac

/**
 * The service's API over a fresh database; `allowPrivateWebhooks` unless told otherwise; with
 * `chainsDown`, the chains' clients point at a port where nothing listens (no head can be read);
 * with `routes`, those served beside it.
 */
export const serviceApi = (options?: {
  readonly allowPrivateWebhooks?: boolean
  readonly chainsDown?: boolean
  /** Routes served beside the API (as `ServiceMain`'s `routes`). */
  readonly routes?: ServiceHttp.Routes
}) =>
  Effect.gen(function*() {
    const woken = yield* Ref.make<ReadonlyArray<string>>([])
    const config = Layer.succeed(ServiceConfig, {
      apiToken: Redacted.make(apiToken),
      allowPrivateWebhooks: options?.allowPrivateWebhooks ?? true,
      retrySchedule: [Duration.seconds(1)],
      deliveryTimeout: Duration.seconds(10),
      minSuccessRate: 0.7,
      interval: Duration.seconds(1),
      heartbeat: Duration.minutes(5)
    })
    const wake = Layer.succeed(DeliveryWake, { wake: (id: string) => Ref.update(woken, (ids) => [...ids, id]) })
    const database = Layer.effectDiscard(ServiceMigrations.run).pipe(Layer.provideMerge(freshDatabase))
    // The chains' clients read a simulator of the test's own (adding a chain's first wallets reads its head).
    const simulator = yield* Layer.build(Simulator.layer({ host: "127.0.0.1", seed: 2001, indexing: false }))
    const sim = Context.get(simulator, Simulator.Simulator)
    const down = "http://127.0.0.1:9"
    const access = { apiKey: Redacted.make(sim.apiKey), allowInsecureHttp: true }
    const at = (url: string) => options?.chainsDown === true ? down : url
    const clients = Layer.mergeAll(
      EvmClient.layer({ ...access, baseUrl: at(sim.evmUrl) }),
      LedgerClients.MainnetLedger.layer({ ...access, baseUrl: at(sim.ledgerUrl.mainnet) }),
      LedgerClients.TestnetLedger.layer({ ...access, baseUrl: at(sim.ledgerUrl.testnet) })
    )
    const layer = ServiceHttp.serve({ host: "127.0.0.1", port: 0, routes: options?.routes }).pipe(
      Layer.provideMerge(Layer.mergeAll(StreamStore.layer, DeliveryStore.layer).pipe(Layer.provide(plainSecrets))),
      Layer.provideMerge(Layer.mergeAll(config, wake, Readiness.always, NodeCrypto.layerSecureRandom, NodeCrypto.layerMac, clients)),
      Layer.provideMerge(database)
    )
    const context = yield* Layer.build(layer)
    const { address } = Context.get(context, HttpServer.HttpServer)
    const sql = Context.get(context, SqlClient.SqlClient)
    const url = `http://127.0.0.1:${address._tag === "UnixPathAddress" ? 0 : address.port}`
    const call: Api["call"] = async (method, path, callOptions) => {
      const token = callOptions?.token === undefined ? apiToken : callOptions.token
      const headers: Record<string, string> = {}
      if (token !== null) headers["authorization"] = `Bearer ${token}`
      const body = callOptions?.raw ?? (callOptions?.body === undefined ? undefined : JSON.stringify(callOptions.body))
      if (body !== undefined) headers["content-type"] = callOptions?.contentType ?? "application/json"
      const response = await fetch(`${url}${path}`, { method, headers, ...(body === undefined ? {} : { body }) })
      const text = await response.text()
      let parsed: unknown = undefined
      try {
        parsed = text === "" ? undefined : JSON.parse(text)
      } catch {
        parsed = undefined
      }
      return { status: response.status, body: parsed, text }
    }
    const behind = Context.pick(StreamStore, DeliveryStore, SqlClient.SqlClient, ServiceConfig, Mac.Mac)(context)
    const run: Api["run"] = (effect) => Effect.runPromise(Effect.provide(effect, behind))
    return { url, call, sql, woken: Ref.get(woken), run } satisfies Api
  })
