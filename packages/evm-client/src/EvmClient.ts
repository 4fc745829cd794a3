/**
 * `EvmClient`: the seven family A (EVM API v2.2) operations of the chainquery service as one
 * Effect service. Every call validates its parameters before sending anything (`InvalidInput`
 * names the parameter), then goes through the shared transport: the API key as a `Redacted`,
 * per-attempt and per-call timeouts, retries with backoff honouring `Retry-After`, a compute-unit
 * budget, a body size cap and typed errors.
 *
 * @since 0.1.0
 */
import type { PageFailed } from "@chainquery/pagination"
import type { Errors } from "@chainquery/schema"
import { Transport } from "@chainquery/transport"
import { Config, Context, Effect, Layer, Option, Schema, type Stream } from "effect"
import type { HttpClient } from "effect/http"
import * as EvmStream from "./EvmStream.js"
import * as GetBlock from "./operations/getBlock.js"
import * as GetDefiPositionsSummary from "./operations/getDefiPositionsSummary.js"
import * as GetNFTOwners from "./operations/getNFTOwners.js"
import * as GetNFTTradesByWallet from "./operations/getNFTTradesByWallet.js"
import * as GetNFTTransfers from "./operations/getNFTTransfers.js"
import * as GetNFTTransfersByBlock from "./operations/getNFTTransfersByBlock.js"
import * as GetWalletNFTTransfers from "./operations/getWalletNFTTransfers.js"

/**
 * The production base URL of family A. The operations' paths carry the `/api/v2.2` prefix.
 *
 * @example
 * ```ts
 * import { EvmClient } from "@chainquery/evm-client"
 *
 * EvmClient.defaultBaseUrl // "https://deep-index.moralis.io"
 * ```
 * @since 0.1.0
 */
export const defaultBaseUrl = "https://deep-index.moralis.io"

/**
 * How a client behaves: the transport's options, with `baseUrl` optional (default
 * {@link defaultBaseUrl}; a base URL ending in `/api/v2.2` is accepted too). Only `apiKey` is
 * required. Defaults: 3 retries (250 ms doubling, capped at 4 s, `Retry-After` honoured up to
 * 30 s), 8 requests in flight, no compute-unit budget, 16 MiB body cap, 10 s per attempt, 60 s
 * per call.
 *
 * @example
 * ```ts
 * import { Redacted } from "effect"
 * import type { EvmClient } from "@chainquery/evm-client"
 *
 * const options: EvmClient.Options = {
 *   apiKey: Redacted.make(process.env.MORALIS_API_KEY ?? ""),
 *   attemptTimeout: "5 seconds",
 *   retry: { times: 5 },
 *   rateLimit: { unitsPerSecond: 25, maxConcurrency: 4 }
 * }
 * ```
 * @since 0.1.0
 */
export interface Options extends Omit<Transport.Options, "baseUrl"> {
  /** The service's base URL, without `/api/v2.2`. Default {@link defaultBaseUrl}. */
  readonly baseUrl?: string | undefined
}

/**
 * The client's methods, one per operation, named after the service's operation ids. Each takes
 * the operation's parameters (camelCase) and optional per-call overrides (`retry`, `timeout`).
 *
 * @example
 * ```ts
 * import type { EvmClient } from "@chainquery/evm-client"
 *
 * const usesBlocks = (client: EvmClient.Service) => client.getBlock({ block: 17000000 })
 * ```
 * @since 0.1.0
 */
export interface Service {
  /** A1: the NFT transfers of one block. */
  readonly getNFTTransfersByBlock: (
    params: GetNFTTransfersByBlock.Parameters,
    options?: Transport.CallOptions
  ) => Effect.Effect<GetNFTTransfersByBlock.ReturnType, GetNFTTransfersByBlock.ErrorType>
  /** A2: the NFT transfers of a wallet. */
  readonly getWalletNFTTransfers: (
    params: GetWalletNFTTransfers.Parameters,
    options?: Transport.CallOptions
  ) => Effect.Effect<GetWalletNFTTransfers.ReturnType, GetWalletNFTTransfers.ErrorType>
  /** A3: the transfers of one NFT. */
  readonly getNFTTransfers: (
    params: GetNFTTransfers.Parameters,
    options?: Transport.CallOptions
  ) => Effect.Effect<GetNFTTransfers.ReturnType, GetNFTTransfers.ErrorType>
  /** A4: the NFT trades of a wallet. */
  readonly getNFTTradesByWallet: (
    params: GetNFTTradesByWallet.Parameters,
    options?: Transport.CallOptions
  ) => Effect.Effect<GetNFTTradesByWallet.ReturnType, GetNFTTradesByWallet.ErrorType>
  /** A5: the owners of a contract's NFTs. */
  readonly getNFTOwners: (
    params: GetNFTOwners.Parameters,
    options?: Transport.CallOptions
  ) => Effect.Effect<GetNFTOwners.ReturnType, GetNFTOwners.ErrorType>
  /** A6: a block, `Option.none()` when unknown. */
  readonly getBlock: (
    params: GetBlock.Parameters,
    options?: Transport.CallOptions
  ) => Effect.Effect<GetBlock.ReturnType, GetBlock.ErrorType>
  /** A7: a wallet's DeFi positions, one summary per protocol. */
  readonly getDefiPositionsSummary: (
    params: GetDefiPositionsSummary.Parameters,
    options?: Transport.CallOptions
  ) => Effect.Effect<GetDefiPositionsSummary.ReturnType, GetDefiPositionsSummary.ErrorType>
  /** A1 as a stream of transfers. `limit` is the page size. */
  readonly streamNFTTransfersByBlock: (
    params: GetNFTTransfersByBlock.Parameters,
    options?: EvmStream.StreamOptions
  ) => Stream.Stream<GetNFTTransfersByBlock.ReturnType["result"][number], PageFailed.PageFailed<GetNFTTransfersByBlock.ErrorType>>
  /** A2 as a stream of transfers; `parts` splits a block range. `limit` is the page size. */
  readonly streamWalletNFTTransfers: (
    params: GetWalletNFTTransfers.Parameters,
    options?: EvmStream.RangeStreamOptions
  ) => Stream.Stream<GetWalletNFTTransfers.ReturnType["result"][number], PageFailed.PageFailed<GetWalletNFTTransfers.ErrorType | Errors.InvalidInput>>
  /** A3 as a stream of transfers. `limit` is the page size. */
  readonly streamNFTTransfers: (
    params: GetNFTTransfers.Parameters,
    options?: EvmStream.StreamOptions
  ) => Stream.Stream<GetNFTTransfers.ReturnType["result"][number], PageFailed.PageFailed<GetNFTTransfers.ErrorType>>
  /** A4 as a stream of trades; `parts` splits a block range. `limit` is the page size. */
  readonly streamNFTTradesByWallet: (
    params: GetNFTTradesByWallet.Parameters,
    options?: EvmStream.RangeStreamOptions
  ) => Stream.Stream<GetNFTTradesByWallet.ReturnType["result"][number], PageFailed.PageFailed<GetNFTTradesByWallet.ErrorType | Errors.InvalidInput>>
  /** A5 as a stream of owners. `limit` is the page size. */
  readonly streamNFTOwners: (
    params: GetNFTOwners.Parameters,
    options?: EvmStream.StreamOptions
  ) => Stream.Stream<GetNFTOwners.ReturnType["result"][number], PageFailed.PageFailed<GetNFTOwners.ErrorType>>
}

/**
 * The client as a service. Provide it with {@link layer}, {@link layerConfig} or
 * {@link layerWithoutHttpClient}.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { EvmClient } from "@chainquery/evm-client"
 *
 * const program = Effect.gen(function*() {
 *   const client = yield* EvmClient.EvmClient
 *   return yield* client.getBlock({ block: 17000000, chain: "eth" })
 * }).pipe(Effect.provide(EvmClient.layer({ apiKey: process.env.MORALIS_API_KEY ?? "" })))
 * ```
 * @since 0.1.0
 */
export class EvmClient extends Context.Service<EvmClient, Service>()("@chainquery/evm-client/EvmClient") {}

/** Drops trailing slashes and a trailing `/api/v2.2` (the paths carry it). */
const normaliseBaseUrl = (baseUrl: string): string => baseUrl.replace(/\/+$/, "").replace(/\/api\/v2\.2$/, "")

/**
 * Makes a client on the `HttpClient` in context.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { FetchHttpClient } from "effect/http"
 * import { EvmClient } from "@chainquery/evm-client"
 *
 * const program = Effect.gen(function*() {
 *   const client = yield* EvmClient.make({ apiKey: "key", baseUrl: "http://127.0.0.1:4000" })
 *   return yield* client.getDefiPositionsSummary({ address: "0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed" })
 * }).pipe(Effect.provide(FetchHttpClient.layer))
 * ```
 * @since 0.1.0
 */
export const make = (options: Options): Effect.Effect<Service, Errors.InvalidConfig, HttpClient.HttpClient> =>
  Effect.map(Transport.make(transportOptions(options)), fromTransport)

/**
 * Makes a client that sends its requests straight with `fetch` (`Transport.makeOnFetch`): what
 * {@link layer} provides.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { EvmClient } from "@chainquery/evm-client"
 *
 * const program = Effect.gen(function*() {
 *   const client = yield* EvmClient.makeOnFetch({ apiKey: "key", baseUrl: "http://127.0.0.1:4000" })
 *   return yield* client.getBlock({ block: 17000000, chain: "eth" })
 * })
 * ```
 * @since 0.2.0
 */
export const makeOnFetch = (options: Options): Effect.Effect<Service, Errors.InvalidConfig> =>
  Effect.map(Transport.makeOnFetch(transportOptions(options)), fromTransport)

const transportOptions = (options: Options): Transport.Options => ({ ...options, baseUrl: normaliseBaseUrl(options.baseUrl ?? defaultBaseUrl) })

const fromTransport = (transport: Transport.Transport): Service => {
  const methods = {
    getNFTTransfersByBlock: GetNFTTransfersByBlock.make(transport),
    getWalletNFTTransfers: GetWalletNFTTransfers.make(transport),
    getNFTTransfers: GetNFTTransfers.make(transport),
    getNFTTradesByWallet: GetNFTTradesByWallet.make(transport),
    getNFTOwners: GetNFTOwners.make(transport),
    getBlock: GetBlock.make(transport),
    getDefiPositionsSummary: GetDefiPositionsSummary.make(transport)
  }
  return EvmClient.of({
    ...methods,
    streamNFTTransfersByBlock: EvmStream.streamOf(methods.getNFTTransfersByBlock),
    streamWalletNFTTransfers: EvmStream.rangeStreamOf(methods.getWalletNFTTransfers),
    streamNFTTransfers: EvmStream.streamOf(methods.getNFTTransfers),
    streamNFTTradesByWallet: EvmStream.rangeStreamOf(methods.getNFTTradesByWallet),
    streamNFTOwners: EvmStream.streamOf(methods.getNFTOwners)
  })
}

/**
 * A client layer on the `HttpClient` you provide (e.g. `NodeHttpClient.layerUndici` from
 * `@effect/platform-node`, or a client wrapped with your own middleware).
 *
 * @example
 * ```ts
 * import { Layer } from "effect"
 * import { FetchHttpClient } from "effect/http"
 * import { EvmClient } from "@chainquery/evm-client"
 *
 * const client = EvmClient.layerWithoutHttpClient({ apiKey: "key" }).pipe(Layer.provide(FetchHttpClient.layer))
 * ```
 * @since 0.1.0
 */
export const layerWithoutHttpClient = (options: Options): Layer.Layer<EvmClient, Errors.InvalidConfig, HttpClient.HttpClient> =>
  Layer.effect(EvmClient, make(options))

/**
 * A client layer on `fetch`, called straight (see {@link makeOnFetch}); a
 * `FetchHttpClient.Fetch` or `FetchHttpClient.RequestInit` in context is used as
 * `FetchHttpClient.layer` would use it.
 *
 * @example
 * ```ts
 * import { EvmClient } from "@chainquery/evm-client"
 *
 * const client = EvmClient.layer({
 *   apiKey: process.env.MORALIS_API_KEY ?? "",
 *   retry: { times: 5, base: "500 millis" },
 *   rateLimit: { unitsPerSecond: 25 }
 * })
 * ```
 * @since 0.1.0
 */
export const layer = (options: Options): Layer.Layer<EvmClient, Errors.InvalidConfig> => Layer.effect(EvmClient, makeOnFetch(options))

/**
 * The settings read from the environment: `MORALIS_API_KEY` (required, read as a `Redacted`),
 * and optionally `CHAINQUERY_EVM_BASE_URL`, `CHAINQUERY_TIMEOUT` (the per-attempt timeout, e.g.
 * `10 seconds`) and `CHAINQUERY_UNITS_PER_SECOND` (the compute-unit budget).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { EvmClient } from "@chainquery/evm-client"
 *
 * const program = Effect.gen(function*() {
 *   const settings = yield* EvmClient.config
 *   return settings.baseUrl
 * })
 * ```
 * @since 0.1.0
 */
export const config: Config.Config<Options> = Config.all({
  apiKey: Config.Redacted("MORALIS_API_KEY"),
  baseUrl: Config.option(Config.NonEmptyString("CHAINQUERY_EVM_BASE_URL")),
  attemptTimeout: Config.option(Config.Duration("CHAINQUERY_TIMEOUT")),
  unitsPerSecond: Config.option(Config.schema(Schema.Finite.check(Schema.isGreaterThan(0)), "CHAINQUERY_UNITS_PER_SECOND"))
}).pipe(
  Config.map(({ apiKey, attemptTimeout, baseUrl, unitsPerSecond }): Options => ({
    apiKey,
    baseUrl: Option.getOrUndefined(baseUrl),
    attemptTimeout: Option.getOrUndefined(attemptTimeout),
    rateLimit: Option.isSome(unitsPerSecond) ? { unitsPerSecond: unitsPerSecond.value } : undefined
  }))
)

/**
 * A client layer on `fetch` configured from the environment (see {@link config}). `options`
 * gives the other settings; a variable that is set wins over the same setting in `options`.
 *
 * @example
 * ```ts
 * import { EvmClient } from "@chainquery/evm-client"
 *
 * // MORALIS_API_KEY=... CHAINQUERY_UNITS_PER_SECOND=25 node app.js
 * const client = EvmClient.layerConfig({ retry: { times: 5 } })
 * ```
 * @since 0.1.0
 */
export const layerConfig = (options: Omit<Options, "apiKey"> = {}): Layer.Layer<EvmClient, Config.ConfigError | Errors.InvalidConfig> =>
  Layer.unwrap(
    Effect.map(config, (fromEnv) =>
      layer({
        ...options,
        apiKey: fromEnv.apiKey,
        baseUrl: fromEnv.baseUrl ?? options.baseUrl,
        attemptTimeout: fromEnv.attemptTimeout ?? options.attemptTimeout,
        rateLimit: fromEnv.rateLimit === undefined ? options.rateLimit : { ...options.rateLimit, ...fromEnv.rateLimit }
      }))
  )
