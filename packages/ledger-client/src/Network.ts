/**
 * The two networks family B serves, mainnet and testnet, and where each is served by default. The
 * service is the same at both addresses; which network a request reads is chosen by the base URL
 * it is sent to.
 *
 * @since 0.1.0
 */

/**
 * A network of the Aptos ledger.
 *
 * @example
 * ```ts
 * import type { Network } from "@chainquery/ledger-client"
 *
 * const network: Network.Network = "testnet"
 * ```
 * @since 0.1.0
 */
export type Network = "mainnet" | "testnet"

/**
 * The production base URL of each network (no version segment: family B paths start at the root).
 *
 * @example
 * ```ts
 * import { Network } from "@chainquery/ledger-client"
 *
 * Network.defaultBaseUrls.testnet // "https://testnet-aptos-api.moralis.io"
 * ```
 * @since 0.1.0
 */
export const defaultBaseUrls: Readonly<Record<Network, string>> = {
  mainnet: "https://mainnet-aptos-api.moralis.io",
  testnet: "https://testnet-aptos-api.moralis.io"
}
