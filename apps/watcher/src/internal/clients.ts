/**
 * The service clients the engine reads through, as the CLI and the service configure them: the
 * EVM client, and the Aptos client of each network that is watched, with the API key, timeouts,
 * a compute-unit budget and base URLs from the flags.
 *
 * @internal
 */
import { EvmClient } from "@chainquery/evm-client"
import type { Errors } from "@chainquery/schema"
import { LedgerClients } from "@chainquery/watch"
import { Duration, Layer, type Redacted } from "effect"

/** What the clients are built from (the flags' values). */
export interface ClientOptions {
  readonly apiKey: Redacted.Redacted<string>
  readonly evmBaseUrl: string | undefined
  readonly ledgerBaseUrl: string | undefined
  readonly ledgerTestnetBaseUrl: string | undefined
  readonly allowInsecureHttp?: boolean | undefined
  readonly requestTimeout?: Duration.Duration | undefined
  readonly computeUnits?: number | undefined
  /** Extra `User-Agent` text after `chainquery/<version>`, such as `(runner 10.0.0.5:34431)`. */
  readonly userAgent?: string | undefined
}

/** The EVM client, and the Aptos client of each network in `networks`. */
export const clientLayers = (
  config: ClientOptions,
  networks: { readonly mainnet: boolean; readonly testnet: boolean }
): Layer.Layer<EvmClient.EvmClient, Errors.InvalidConfig> => {
  const options = {
    apiKey: config.apiKey,
    attemptTimeout: config.requestTimeout,
    // A call (attempts and retries) may last as long as four attempts and their backoff.
    totalTimeout: config.requestTimeout === undefined
      ? undefined
      : Duration.max(Duration.seconds(60), Duration.times(config.requestTimeout, 6)),
    rateLimit: config.computeUnits === undefined ? undefined : { unitsPerSecond: config.computeUnits },
    allowInsecureHttp: config.allowInsecureHttp,
    userAgent: config.userAgent
  }
  const evm = EvmClient.layer({ ...options, ...(config.evmBaseUrl === undefined ? {} : { baseUrl: config.evmBaseUrl }) })
  const mainnet = networks.mainnet
    ? LedgerClients.MainnetLedger.layer({ ...options, ...(config.ledgerBaseUrl === undefined ? {} : { baseUrl: config.ledgerBaseUrl }) })
    : Layer.empty
  const testnet = networks.testnet
    ? LedgerClients.TestnetLedger.layer({
      ...options,
      ...(config.ledgerTestnetBaseUrl === undefined ? {} : { baseUrl: config.ledgerTestnetBaseUrl })
    })
    : Layer.empty
  // The Aptos clients are read when provided (see `LedgerClients`), so only the EVM one is required.
  return Layer.mergeAll(evm, mainnet, testnet)
}
