/**
 * What the service scans: a scope is one EVM chain (its id, `0x1`) or one Aptos network
 * (`aptos:mainnet`, `aptos:testnet`). Each has its own scanner; a stream's `chains` are scopes,
 * given by name as in wallet specs (`eth`, `base-sepolia`, `aptos`, `aptos-testnet`) or by chain id.
 *
 * @since 0.2.0
 */
import { Chain } from "@chainquery/schema"
import { WatchedWallet } from "@chainquery/watch"

/**
 * A chain id or `aptos:<network>`.
 *
 * @example
 * ```ts
 * import type { Scopes } from "@chainquery/watch-service"
 *
 * const eth: Scopes.Scope = "0x1"
 * ```
 * @since 0.2.0
 */
export type Scope = string

/**
 * Every scope, EVM chains first: one scanner each.
 *
 * @example
 * ```ts
 * import { Scopes } from "@chainquery/watch-service"
 *
 * Scopes.all.length // 27
 * ```
 * @since 0.2.0
 */
export const all: ReadonlyArray<Scope> = [...Chain.chains.map(([, id]) => id), "aptos:mainnet", "aptos:testnet"]

const byName = new Map<string, Scope>([
  ...Chain.chains.flatMap(([name, id]) => [[name.replace(/ /g, "-"), id], [id, id]] as const),
  ["aptos", "aptos:mainnet"],
  ["aptos-mainnet", "aptos:mainnet"],
  ["aptos-testnet", "aptos:testnet"]
])

/**
 * The names of every chain and Aptos network, as the API takes them and answers them.
 *
 * @example
 * ```ts
 * import { Scopes } from "@chainquery/watch-service"
 *
 * Scopes.names.includes("polygon") // true
 * ```
 * @since 0.5.0
 */
export const names: ReadonlyArray<string> = [...Chain.chains.map(([name]) => name.replace(/ /g, "-")), "aptos", "aptos-testnet"]

/**
 * Every name a chain may be given by, in words, for error messages.
 *
 * @example
 * ```ts
 * import { Scopes } from "@chainquery/watch-service"
 *
 * Scopes.validNames.startsWith("eth, sepolia") // true
 * ```
 * @since 0.2.0
 */
export const validNames: string = names.join(", ") +
  " (or a chain id such as 0x1)"

/**
 * The scope of a chain name (`eth`, `base-sepolia`, `aptos-testnet`) or chain id; `undefined` for
 * one the service does not know.
 *
 * @example
 * ```ts
 * import { Scopes } from "@chainquery/watch-service"
 *
 * Scopes.fromName("polygon") // "0x89"
 * ```
 * @since 0.2.0
 */
export const fromName = (name: string): Scope | undefined => byName.get(name.trim().toLowerCase())

/**
 * The name of a scope, as streams are answered with (`eth`, `aptos-testnet`).
 *
 * @example
 * ```ts
 * import { Scopes } from "@chainquery/watch-service"
 *
 * Scopes.nameOf("aptos:mainnet") // "aptos"
 * ```
 * @since 0.2.0
 */
export const nameOf = (scope: Scope): string =>
  scope === "aptos:mainnet" ? "aptos" : scope === "aptos:testnet" ? "aptos-testnet" : Chain.nameOf(scope as Chain.ChainId).replace(/ /g, "-")

/**
 * The scope of a wallet (`WatchedWallet.scopeOf`).
 *
 * @example
 * ```ts
 * import { Scopes } from "@chainquery/watch-service"
 *
 * Scopes.scopeOfWallet({ family: "aptos", network: "testnet", address: "0x1" } as never) // "aptos:testnet"
 * ```
 * @since 0.2.0
 */
export const scopeOfWallet: (wallet: WatchedWallet.WatchedWallet) => Scope = WatchedWallet.scopeOf

/**
 * The wallet of a stored scope and address, checked as it is decoded (`WatchedWallet.fromScope`).
 *
 * @example
 * ```ts
 * import { Scopes } from "@chainquery/watch-service"
 *
 * const wallet = Scopes.walletOfScope("0x1", "0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed")
 * ```
 * @since 0.2.0
 */
export const walletOfScope: (scope: Scope, address: string) => WatchedWallet.WatchedWallet = WatchedWallet.fromScope

/**
 * The positions of `wallets` per scope, in order of first appearance.
 *
 * @example
 * ```ts
 * import { Scopes } from "@chainquery/watch-service"
 *
 * const eth = Scopes.walletOfScope("0x1", "0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed")
 * Scopes.positionsByScope([eth, eth]) // Map { "0x1" => [0, 1] }
 * ```
 * @since 0.3.0
 */
export const positionsByScope = (wallets: ReadonlyArray<WatchedWallet.WatchedWallet>): Map<Scope, Array<number>> => {
  const positions = new Map<Scope, Array<number>>()
  wallets.forEach((wallet, index) => {
    const scope = scopeOfWallet(wallet)
    const list = positions.get(scope)
    if (list === undefined) positions.set(scope, [index])
    else list.push(index)
  })
  return positions
}
