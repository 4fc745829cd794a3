/**
 * The `LedgerClient` service: the seven family B operations (the Aptos API) of the chainquery
 * service on one network, mainnet or testnet, over the shared request pipeline of
 * `@chainquery/transport` (API key as a `Redacted`, timeouts, retries honouring `Retry-After`, a
 * compute-unit budget, typed errors). Every method validates its parameters before anything is
 * sent (`InvalidInput` names the field) and decodes the page with `@chainquery/schema`.
 *
 * @since 0.1.0
 */
import type { Errors } from "@chainquery/schema"
import { Transport } from "@chainquery/transport"
import type { PageFailed } from "@chainquery/pagination"
import { Config, Context, Effect, Layer, Option, Schema, type Stream } from "effect"
import type { HttpClient } from "effect/http"
import type { LedgerOperation } from "./LedgerOperation.js"
import * as LedgerStream from "./LedgerStream.js"
import { defaultBaseUrls, type Network } from "./Network.js"
import * as GetCoinsByNameRange from "./operations/getCoinsByNameRange.js"
import * as GetNFTByOwners from "./operations/getNFTByOwners.js"
import * as GetNFTCollections from "./operations/getNFTCollections.js"
import * as GetNFTOwnersByCollection from "./operations/getNFTOwnersByCollection.js"
import * as GetNFTOwnersByTokens from "./operations/getNFTOwnersByTokens.js"
import * as GetNFTTransfersByCreators from "./operations/getNFTTransfersByCreators.js"
import * as GetWalletsNFTTransfers from "./operations/getWalletsNFTTransfers.js"

/**
 * How to make a client: the network (default `mainnet`), the API key, and optionally a base URL
 * (it wins over the network's default, e.g. for a proxy or the simulator) and any setting of the
 * transport (timeouts, retries, rate limit, body cap, user agent).
 *
 * @example
 * ```ts
 * import { Redacted } from "effect"
 * import type { LedgerClient } from "@chainquery/ledger-client"
 *
 * const options: LedgerClient.Options = {
 *   network: "testnet",
 *   apiKey: Redacted.make(process.env.MORALIS_API_KEY ?? ""),
 *   retry: { times: 5 },
 *   rateLimit: { unitsPerSecond: 25 }
 * }
 * ```
 * @since 0.1.0
 */
export interface Options extends Omit<Transport.Options, "baseUrl"> {
  /** The network to read. Default `mainnet`. */
  readonly network?: Network | undefined
  /** Where the service is; default: the network's production URL (`Network.defaultBaseUrls`). */
  readonly baseUrl?: string | undefined
}

/**
 * The client's methods: the seven operations, named after the service's operation ids, and a
 * stream per listing. Each takes the operation's parameters (camelCase) and optional per-call
 * overrides.
 *
 * @example
 * ```ts
 * import type { LedgerClient } from "@chainquery/ledger-client"
 *
 * const coins = (client: LedgerClient.Service) => client.getCoinsByNameRange({ limit: 10 })
 * ```
 * @since 0.1.0
 */
export interface Service {
  /** The network this client reads. */
  readonly network: Network
  /** The base URL requests are sent to. */
  readonly baseUrl: string
  /** B1: the holdings of the tokens of one collection. */
  readonly getNFTOwnersByCollection: (
    params: GetNFTOwnersByCollection.Parameters,
    options?: Transport.CallOptions
  ) => Effect.Effect<GetNFTOwnersByCollection.ReturnType, GetNFTOwnersByCollection.ErrorType>
  /** B2: transfers of NFTs created by the given creators, newest first. */
  readonly getNFTTransfersByCreators: (
    params: GetNFTTransfersByCreators.Parameters,
    options?: Transport.CallOptions
  ) => Effect.Effect<GetNFTTransfersByCreators.ReturnType, GetNFTTransfersByCreators.ErrorType>
  /** B3: NFT transfers from or to the given wallets, newest first. */
  readonly getWalletsNFTTransfers: (
    params: GetWalletsNFTTransfers.Parameters,
    options?: Transport.CallOptions
  ) => Effect.Effect<GetWalletsNFTTransfers.ReturnType, GetWalletsNFTTransfers.ErrorType>
  /** B4: collections in name order, optionally within a name range. */
  readonly getNFTCollections: (
    params: GetNFTCollections.Parameters,
    options?: Transport.CallOptions
  ) => Effect.Effect<GetNFTCollections.ReturnType, GetNFTCollections.ErrorType>
  /** B5: the NFTs held by the given wallets. */
  readonly getNFTByOwners: (
    params: GetNFTByOwners.Parameters,
    options?: Transport.CallOptions
  ) => Effect.Effect<GetNFTByOwners.ReturnType, GetNFTByOwners.ErrorType>
  /** B6: the holdings of the given tokens. */
  readonly getNFTOwnersByTokens: (
    params: GetNFTOwnersByTokens.Parameters,
    options?: Transport.CallOptions
  ) => Effect.Effect<GetNFTOwnersByTokens.ReturnType, GetNFTOwnersByTokens.ErrorType>
  /** B7: coins in name order, optionally within a name range. */
  readonly getCoinsByNameRange: (
    params: GetCoinsByNameRange.Parameters,
    options?: Transport.CallOptions
  ) => Effect.Effect<GetCoinsByNameRange.ReturnType, GetCoinsByNameRange.ErrorType>
  /** B1 as a stream of holdings. `limit` is the page size; see `LedgerStream.StreamOptions`. */
  readonly streamNFTOwnersByCollection: (
    params: GetNFTOwnersByCollection.Parameters,
    options?: LedgerStream.StreamOptions
  ) => Stream.Stream<GetNFTOwnersByCollection.ReturnType["result"][number], PageFailed.PageFailed<GetNFTOwnersByCollection.ErrorType>>
  /** B2 as a stream of transfers, newest first. `limit` is the page size; see `LedgerStream.StreamOptions`. */
  readonly streamNFTTransfersByCreators: (
    params: GetNFTTransfersByCreators.Parameters,
    options?: LedgerStream.StreamOptions
  ) => Stream.Stream<GetNFTTransfersByCreators.ReturnType["result"][number], PageFailed.PageFailed<GetNFTTransfersByCreators.ErrorType>>
  /** B3 as a stream of transfers, newest first. `limit` is the page size; see `LedgerStream.StreamOptions`. */
  readonly streamWalletsNFTTransfers: (
    params: GetWalletsNFTTransfers.Parameters,
    options?: LedgerStream.StreamOptions
  ) => Stream.Stream<GetWalletsNFTTransfers.ReturnType["result"][number], PageFailed.PageFailed<GetWalletsNFTTransfers.ErrorType>>
  /** B4 as a stream of collections in name order. `limit` is the page size; see `LedgerStream.StreamOptions`. */
  readonly streamNFTCollections: (
    params: GetNFTCollections.Parameters,
    options?: LedgerStream.StreamOptions
  ) => Stream.Stream<GetNFTCollections.ReturnType["result"][number], PageFailed.PageFailed<GetNFTCollections.ErrorType>>
  /** B5 as a stream of holdings. `limit` is the page size; see `LedgerStream.StreamOptions`. */
  readonly streamNFTByOwners: (
    params: GetNFTByOwners.Parameters,
    options?: LedgerStream.StreamOptions
  ) => Stream.Stream<GetNFTByOwners.ReturnType["result"][number], PageFailed.PageFailed<GetNFTByOwners.ErrorType>>
  /** B6 as a stream of holdings. `limit` is the page size; see `LedgerStream.StreamOptions`. */
  readonly streamNFTOwnersByTokens: (
    params: GetNFTOwnersByTokens.Parameters,
    options?: LedgerStream.StreamOptions
  ) => Stream.Stream<GetNFTOwnersByTokens.ReturnType["result"][number], PageFailed.PageFailed<GetNFTOwnersByTokens.ErrorType>>
  /** B7 as a stream of coins in name order. `limit` is the page size; see `LedgerStream.StreamOptions`. */
  readonly streamCoinsByNameRange: (
    params: GetCoinsByNameRange.Parameters,
    options?: LedgerStream.StreamOptions
  ) => Stream.Stream<GetCoinsByNameRange.ReturnType["result"][number], PageFailed.PageFailed<GetCoinsByNameRange.ErrorType>>
}

/**
 * The client of family B: one method per operation, named after the service's operation ids,
 * each taking its parameters (camelCase) and optional per-call overrides (`retry`, `timeout`).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { LedgerClient } from "@chainquery/ledger-client"
 *
 * const program = Effect.gen(function*() {
 *   const ledger = yield* LedgerClient.LedgerClient
 *   const page = yield* ledger.getNFTByOwners({ ownerAddresses: ["0x1"], limit: 10 })
 *   return page.result.map((holding) => holding.name)
 * }).pipe(Effect.provide(LedgerClient.layer({ apiKey: "my-key" })))
 * ```
 * @since 0.1.0
 */
export class LedgerClient extends Context.Service<LedgerClient, Service>()("@chainquery/ledger-client/LedgerClient") {}

const bind = <P, A>(operation: LedgerOperation<P, A>, transport: Transport.Transport, network: Network) => {
  const run = operation.make(transport)
  return (params: P, options?: Transport.CallOptions) => run({ network, params }, options)
}

/**
 * Makes a client on the `HttpClient` in context.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { FetchHttpClient } from "effect/http"
 * import { LedgerClient } from "@chainquery/ledger-client"
 *
 * const program = Effect.gen(function*() {
 *   const ledger = yield* LedgerClient.make({ network: "testnet", apiKey: "my-key" })
 *   return yield* ledger.getCoinsByNameRange({ limit: 10 })
 * }).pipe(Effect.provide(FetchHttpClient.layer))
 * ```
 * @since 0.1.0
 */
export const make = (options: Options): Effect.Effect<Service, Errors.InvalidConfig, HttpClient.HttpClient> =>
  Effect.map(Transport.make(transportOptions(options)), (transport) => fromTransport(transport, options))

/**
 * Makes a client that sends its requests straight with `fetch` (`Transport.makeOnFetch`): what
 * {@link layer} provides.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { LedgerClient } from "@chainquery/ledger-client"
 *
 * const program = Effect.gen(function*() {
 *   const ledger = yield* LedgerClient.makeOnFetch({ network: "testnet", apiKey: "my-key" })
 *   return yield* ledger.getCoinsByNameRange({ limit: 10 })
 * })
 * ```
 * @since 0.2.0
 */
export const makeOnFetch = (options: Options): Effect.Effect<Service, Errors.InvalidConfig> =>
  Effect.map(Transport.makeOnFetch(transportOptions(options)), (transport) => fromTransport(transport, options))

const transportOptions = (options: Options): Transport.Options => ({
  ...options,
  baseUrl: options.baseUrl ?? defaultBaseUrls[options.network ?? "mainnet"]
})

const fromTransport = (transport: Transport.Transport, options: Options): Service => {
  const network = options.network ?? "mainnet"
  const methods = {
    getNFTOwnersByCollection: bind(GetNFTOwnersByCollection.operation, transport, network),
    getNFTTransfersByCreators: bind(GetNFTTransfersByCreators.operation, transport, network),
    getWalletsNFTTransfers: bind(GetWalletsNFTTransfers.operation, transport, network),
    getNFTCollections: bind(GetNFTCollections.operation, transport, network),
    getNFTByOwners: bind(GetNFTByOwners.operation, transport, network),
    getNFTOwnersByTokens: bind(GetNFTOwnersByTokens.operation, transport, network),
    getCoinsByNameRange: bind(GetCoinsByNameRange.operation, transport, network)
  }
  return LedgerClient.of({
    network,
    baseUrl: transportOptions(options).baseUrl,
    ...methods,
    streamNFTOwnersByCollection: LedgerStream.streamOf(methods.getNFTOwnersByCollection),
    streamNFTTransfersByCreators: LedgerStream.streamOf(methods.getNFTTransfersByCreators),
    streamWalletsNFTTransfers: LedgerStream.streamOf(methods.getWalletsNFTTransfers),
    streamNFTCollections: LedgerStream.streamOf(methods.getNFTCollections),
    streamNFTByOwners: LedgerStream.streamOf(methods.getNFTByOwners),
    streamNFTOwnersByTokens: LedgerStream.streamOf(methods.getNFTOwnersByTokens),
    streamCoinsByNameRange: LedgerStream.streamOf(methods.getCoinsByNameRange)
  })
}

/**
 * A client layer on an `HttpClient` you provide (for instance one with your own middleware, or
 * `NodeHttpClient`).
 *
 * @example
 * ```ts
 * import { Layer } from "effect"
 * import { FetchHttpClient } from "effect/http"
 * import { LedgerClient } from "@chainquery/ledger-client"
 *
 * const live = LedgerClient.layerWithoutHttpClient({ apiKey: "my-key" }).pipe(Layer.provide(FetchHttpClient.layer))
 * ```
 * @since 0.1.0
 */
export const layerWithoutHttpClient = (options: Options): Layer.Layer<LedgerClient, Errors.InvalidConfig, HttpClient.HttpClient> =>
  Layer.effect(LedgerClient, make(options))

/**
 * A client layer on the `fetch` of the platform, called straight (see {@link makeOnFetch}); a
 * `FetchHttpClient.Fetch` or `FetchHttpClient.RequestInit` in context is used as
 * `FetchHttpClient.layer` would use it.
 *
 * @example
 * ```ts
 * import { LedgerClient } from "@chainquery/ledger-client"
 *
 * const mainnet = LedgerClient.layer({ apiKey: "my-key" })
 * const testnet = LedgerClient.layer({ network: "testnet", apiKey: "my-key" })
 * const local = LedgerClient.layer({ baseUrl: "http://127.0.0.1:4000/aptos/mainnet", apiKey: "chainquery-simulator-key" })
 * ```
 * @since 0.1.0
 */
export const layer = (options: Options): Layer.Layer<LedgerClient, Errors.InvalidConfig> =>
  Layer.effect(LedgerClient, makeOnFetch(options))

/**
 * The client's settings from the configuration (the environment by default):
 *
 * - `MORALIS_API_KEY` (required, read as a `Redacted`, must not be empty),
 * - `CHAINQUERY_LEDGER_NETWORK`: `mainnet` (default) or `testnet`,
 * - `CHAINQUERY_LEDGER_BASE_URL` (optional; wins over the network's default URL),
 * - `CHAINQUERY_TIMEOUT` (optional): the longest a whole call may take, retries included, as a
 *   duration such as `30 seconds` (default 60 s),
 * - `CHAINQUERY_UNITS_PER_SECOND` (optional): the compute-unit budget, a positive number.
 *
 * @example
 * ```ts
 * import { ConfigProvider, Effect } from "effect"
 * import { LedgerClient } from "@chainquery/ledger-client"
 *
 * const options = LedgerClient.config.parse(ConfigProvider.fromEnv({ env: { MORALIS_API_KEY: "key", CHAINQUERY_LEDGER_NETWORK: "testnet" } }))
 * ```
 * @since 0.1.0
 */
export const config: Config.Config<Options> = Config.all({
  apiKey: Config.schema(Schema.Redacted(Schema.NonEmptyString), "MORALIS_API_KEY"),
  network: Config.Literals(["mainnet", "testnet"], "CHAINQUERY_LEDGER_NETWORK").pipe(Config.withDefault("mainnet" as const)),
  baseUrl: Config.option(Config.NonEmptyString("CHAINQUERY_LEDGER_BASE_URL")),
  timeout: Config.option(Config.Duration("CHAINQUERY_TIMEOUT")),
  unitsPerSecond: Config.option(Config.schema(Schema.Finite.check(Schema.isGreaterThan(0)), "CHAINQUERY_UNITS_PER_SECOND"))
}).pipe(
  Config.map(({ apiKey, network, baseUrl, timeout, unitsPerSecond }): Options => ({
    apiKey,
    network,
    ...(Option.isSome(baseUrl) ? { baseUrl: baseUrl.value } : {}),
    ...(Option.isSome(timeout) ? { totalTimeout: timeout.value } : {}),
    ...(Option.isSome(unitsPerSecond) ? { rateLimit: { unitsPerSecond: unitsPerSecond.value } } : {})
  }))
)

/**
 * A client layer configured from the environment (see {@link config}) on `fetch`. `options` sets
 * what the environment does not (retries, attempt timeout, concurrency, body cap, user agent);
 * `CHAINQUERY_TIMEOUT` and `CHAINQUERY_UNITS_PER_SECOND`, when set, win over `totalTimeout` and
 * `rateLimit.unitsPerSecond` given here.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { LedgerClient } from "@chainquery/ledger-client"
 *
 * // MORALIS_API_KEY=... CHAINQUERY_LEDGER_NETWORK=testnet node app.js
 * const program = Effect.gen(function*() {
 *   const ledger = yield* LedgerClient.LedgerClient
 *   return yield* ledger.getCoinsByNameRange({ limit: 5 })
 * }).pipe(Effect.provide(LedgerClient.layerConfig({ retry: { times: 5 } })))
 * ```
 * @since 0.1.0
 */
export const layerConfig = (
  options: Omit<Options, "apiKey" | "network" | "baseUrl"> = {}
): Layer.Layer<LedgerClient, Config.ConfigError | Errors.InvalidConfig> =>
  Layer.unwrap(
    Effect.map(config, (fromEnvironment) =>
      layer({
        ...options,
        ...fromEnvironment,
        ...(options.rateLimit === undefined && fromEnvironment.rateLimit === undefined
          ? {}
          : { rateLimit: { ...options.rateLimit, ...fromEnvironment.rateLimit } })
      }))
  )
