/**
 * The Aptos ledger clients the engine reads, one service per network, so that a program can
 * provide a mainnet client, a testnet client, or both (the engine asks only for the networks
 * its wallets are on).
 *
 * @since 0.1.0
 */
import { LedgerClient } from "@chainquery/ledger-client"
import type { Errors } from "@chainquery/schema"
import { Context, Effect, Layer } from "effect"
import type { AptosNetwork } from "./WatchedWallet.js"

/**
 * A ledger client, as the engine uses it.
 *
 * @example
 * ```ts
 * import type { LedgerClients } from "@chainquery/watch"
 *
 * const network = (client: LedgerClients.LedgerService) => client.network
 * ```
 * @since 0.1.0
 */
export type LedgerService = LedgerClient.Service

/**
 * The ledger client of Aptos mainnet.
 *
 * @example
 * ```ts
 * import { Layer } from "effect"
 * import { LedgerClients } from "@chainquery/watch"
 *
 * const mainnet = LedgerClients.MainnetLedger.layer({ apiKey: "key" })
 * ```
 * @since 0.1.0
 */
export class MainnetLedger extends Context.Service<MainnetLedger, LedgerService>()(
  "@chainquery/watch/LedgerClients/MainnetLedger"
) {
  /** A mainnet client on `fetch` with these options (the network is forced to `mainnet`). */
  static readonly layer = (options: Omit<LedgerClient.Options, "network">): Layer.Layer<MainnetLedger, Errors.InvalidConfig> =>
    Layer.effect(MainnetLedger, LedgerClient.makeOnFetch({ ...options, network: "mainnet" }))
}

/**
 * The ledger client of Aptos testnet.
 *
 * @example
 * ```ts
 * import { LedgerClients } from "@chainquery/watch"
 *
 * const testnet = LedgerClients.TestnetLedger.layer({ apiKey: "key" })
 * ```
 * @since 0.1.0
 */
export class TestnetLedger extends Context.Service<TestnetLedger, LedgerService>()(
  "@chainquery/watch/LedgerClients/TestnetLedger"
) {
  /** A testnet client on `fetch` with these options (the network is forced to `testnet`). */
  static readonly layer = (options: Omit<LedgerClient.Options, "network">): Layer.Layer<TestnetLedger, Errors.InvalidConfig> =>
    Layer.effect(TestnetLedger, LedgerClient.makeOnFetch({ ...options, network: "testnet" }))
}

/**
 * The client of a network if one was provided, `None` otherwise.
 *
 * @example
 * ```ts
 * import { LedgerClients } from "@chainquery/watch"
 *
 * const client = LedgerClients.clientFor("testnet") // Effect<Option<LedgerClient>>
 * ```
 * @since 0.1.0
 */
export const clientFor = (network: AptosNetwork) =>
  network === "mainnet" ? Effect.serviceOption(MainnetLedger) : Effect.serviceOption(TestnetLedger)
