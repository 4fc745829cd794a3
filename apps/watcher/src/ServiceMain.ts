/**
 * `chainquery-watcher serve`'s service: `@chainquery/watch-service`'s `ServiceMain` with the
 * clients the CLI configures from its flags (API key, base URLs, timeouts, compute units), so
 * that `ServiceMain.run(options)` runs the whole service from one set of options. A runner of a
 * cluster names itself in its requests' `User-Agent` by `runnerTag` of its address.
 *
 * @since 0.2.0
 */
import { ConsoleRoutes } from "@chainquery/console"
import { ServiceMain as Service } from "@chainquery/watch-service"
import { type Effect, Layer } from "effect"
import type { EvmClient } from "@chainquery/evm-client"
import type { Errors } from "@chainquery/schema"
import { type ClientOptions, clientLayers } from "./internal/clients.js"

/**
 * Everything `serve` is run with (the flags, checked): the service's options and its clients'.
 *
 * @example
 * ```ts
 * import type { ServiceMain } from "@chainquery/watcher"
 *
 * const local = (options: ServiceMain.ServeOptions) => options.host === "127.0.0.1"
 * ```
 * @since 0.2.0
 */
export interface ServeOptions extends Service.ServeOptions, ClientOptions {}

/**
 * How a runner names itself in its requests' `User-Agent` (see `@chainquery/watch-service`).
 *
 * @example
 * ```ts
 * import { ServiceMain } from "@chainquery/watcher"
 *
 * ServiceMain.runnerTag({ host: "10.0.0.5", port: 34431 }) // 12 hex digits
 * ```
 * @since 0.4.0
 */
export const runnerTag: (address: { readonly host: string; readonly port: number }) => string = Service.runnerTag

/**
 * The clients `serve` reads through: the EVM client and both Aptos networks' from the options; a
 * runner of a cluster says which in its `User-Agent` (by a digest of its address, which stays private).
 *
 * @example
 * ```ts
 * import { ServiceMain } from "@chainquery/watcher"
 *
 * declare const options: ServiceMain.ServeOptions
 * const clients = ServiceMain.clients(options)
 * ```
 * @since 0.5.0
 */
export const clients = (options: ServeOptions): Layer.Layer<EvmClient.EvmClient, Errors.InvalidConfig> => {
  const runner = options.cluster?.runnerAddress
  return clientLayers(
    runner === undefined ? options : { ...options, userAgent: `(runner ${runnerTag(runner)})` },
    { mainnet: true, testnet: true }
  )
}

/** The options with the console (`@chainquery/console`) served beside the API, unless they name other routes. */
const withConsole = (options: ServeOptions): ServeOptions => options.routes === undefined ? { ...options, routes: ConsoleRoutes.layer } : options

/**
 * The whole service as one layer, with its clients, and the console at `/console`: built, it
 * serves; released, it stops.
 *
 * @example
 * ```ts
 * import { Layer } from "effect"
 * import { ServiceMain } from "@chainquery/watcher"
 *
 * declare const options: ServiceMain.ServeOptions
 * const running = Layer.launch(ServiceMain.layer(options))
 * ```
 * @since 0.2.0
 */
export const layer = (options: ServeOptions) => Service.layer(withConsole(options), clients(options))

/**
 * Runs the service until it is interrupted.
 *
 * @example
 * ```ts
 * import { ServiceMain } from "@chainquery/watcher"
 *
 * declare const options: ServiceMain.ServeOptions
 * const forever = ServiceMain.run(options)
 * ```
 * @since 0.2.0
 */
export const run = (options: ServeOptions): Effect.Effect<never, unknown> => Layer.launch(layer(options))
