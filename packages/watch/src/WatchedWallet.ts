/**
 * The wallets the watcher watches: one wallet on one EVM chain or one Aptos network, as Effect
 * Schemas (so they can be stored and read back), with the identity used to de-duplicate them.
 *
 * @since 0.1.0
 */
import { AptosAddress, Chain, EvmAddress } from "@chainquery/schema"
import { Schema } from "effect"

/**
 * An Aptos network: `mainnet` or `testnet`.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { WatchedWallet } from "@chainquery/watch"
 *
 * Schema.decodeUnknownSync(WatchedWallet.AptosNetwork)("testnet") // "testnet"
 * ```
 * @since 0.1.0
 */
export const AptosNetwork = Schema.Literals(["mainnet", "testnet"])

/**
 * @example
 * ```ts
 * import type { WatchedWallet } from "@chainquery/watch"
 *
 * const network: WatchedWallet.AptosNetwork = "mainnet"
 * ```
 * @since 0.1.0
 */
export type AptosNetwork = typeof AptosNetwork.Type

/**
 * A watched EVM wallet on one chain: the chain's canonical hex id and the lower-case address.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { WatchedWallet } from "@chainquery/watch"
 *
 * Schema.decodeUnknownSync(WatchedWallet.EvmWallet)({ family: "evm", chain: "eth", address: "0x" + "ab".repeat(20) })
 * // { family: "evm", chain: "0x1", address: "0xabab…" }
 * ```
 * @since 0.1.0
 */
export const EvmWallet = Schema.Struct({
  family: Schema.tag("evm"),
  chain: Chain.Chain,
  address: EvmAddress.EvmAddress
})

/**
 * @example
 * ```ts
 * import type { WatchedWallet } from "@chainquery/watch"
 *
 * const chainOf = (wallet: WatchedWallet.EvmWallet) => wallet.chain
 * ```
 * @since 0.1.0
 */
export type EvmWallet = typeof EvmWallet.Type

/**
 * A watched Aptos wallet on one network, its address padded to 64 hex digits.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { WatchedWallet } from "@chainquery/watch"
 *
 * Schema.decodeUnknownSync(WatchedWallet.AptosWallet)({ family: "aptos", network: "mainnet", address: "0x1" })
 * ```
 * @since 0.1.0
 */
export const AptosWallet = Schema.Struct({
  family: Schema.tag("aptos"),
  network: AptosNetwork,
  address: AptosAddress.AptosAddress
})

/**
 * @example
 * ```ts
 * import type { WatchedWallet } from "@chainquery/watch"
 *
 * const networkOf = (wallet: WatchedWallet.AptosWallet) => wallet.network
 * ```
 * @since 0.1.0
 */
export type AptosWallet = typeof AptosWallet.Type

/**
 * One wallet on one chain or network: what the watcher keeps a checkpoint for.
 *
 * @example
 * ```ts
 * import { WatchedWallet } from "@chainquery/watch"
 *
 * const where = (wallet: WatchedWallet.WatchedWallet) =>
 *   WatchedWallet.WatchedWallet.match(wallet, { evm: (w) => w.chain, aptos: (w) => `aptos-${w.network}` })
 * ```
 * @since 0.1.0
 */
export const WatchedWallet = Schema.Union([EvmWallet, AptosWallet]).pipe(Schema.toTaggedUnion("family"))

/**
 * @example
 * ```ts
 * import type { WatchedWallet } from "@chainquery/watch"
 *
 * const address = (wallet: WatchedWallet.WatchedWallet): string => wallet.address
 * ```
 * @since 0.1.0
 */
export type WatchedWallet = EvmWallet | AptosWallet

/** Each wallet's key, made once per wallet object (see {@link key}). */
const keys = new WeakMap<WatchedWallet, string>()

/**
 * The identity of a watched wallet: `evm:<chainId>:<address>` or `aptos:<network>:<address>`.
 * Made once per wallet object (wallets are values, never changed), so that the maps holding a
 * wallet under its key share one string: a hundred thousand wallets kept three copies each.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { WatchedWallet } from "@chainquery/watch"
 *
 * const wallet = Schema.decodeUnknownSync(WatchedWallet.EvmWallet)({ family: "evm", chain: "base", address: "0x" + "ab".repeat(20) })
 * WatchedWallet.key(wallet) // "evm:0x2105:0xabababababababababababababababababababab"
 * ```
 * @since 0.1.0
 */
export const key = (wallet: WatchedWallet): string => {
  let made = keys.get(wallet)
  if (made === undefined) {
    made = wallet.family === "evm" ? `evm:${wallet.chain}:${wallet.address}` : `aptos:${wallet.network}:${wallet.address}`
    keys.set(wallet, made)
  }
  return made
}

/**
 * Where a wallet is read: its chain id, or `aptos:<network>` (the first key of its state).
 *
 * @example
 * ```ts
 * import type { WatchedWallet } from "@chainquery/watch"
 * import { WatchedWallet as W } from "@chainquery/watch"
 *
 * declare const wallet: WatchedWallet.WatchedWallet
 * W.scopeOf(wallet) // "0x1", or "aptos:mainnet"
 * ```
 * @since 0.2.0
 */
export const scopeOf = (wallet: WatchedWallet): string => wallet.family === "evm" ? wallet.chain : `aptos:${wallet.network}`

const decodeWallet = Schema.decodeUnknownSync(WatchedWallet)

/**
 * The wallet of a scope (see {@link scopeOf}) and an address, decoded (and so checked); throws a
 * `SchemaError` for one that is not valid.
 *
 * @example
 * ```ts
 * import { WatchedWallet } from "@chainquery/watch"
 *
 * const wallet = WatchedWallet.fromScope("0x1", "0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed")
 * ```
 * @since 0.2.0
 */
export const fromScope = (scope: string, address: string): WatchedWallet =>
  // Already canonical (as stores and the service keep them): the wallet the decoder would give,
  // without its cost, which a hundred thousand wallets read back at once would feel.
  chainIds.has(scope) && EvmAddress.is(address)
    ? { family: "evm", chain: chainIds.get(scope)!, address }
    : decodeWallet(scope.startsWith("aptos:")
      ? { family: "aptos", network: scope.slice("aptos:".length), address }
      : { family: "evm", chain: scope, address })

/** The chain ids, each the one string of its id: not one copy per wallet read back. */
const chainIds: ReadonlyMap<string, Chain.ChainId> = new Map(Chain.chains.map(([, id]) => [id, id]))

/**
 * Drops repeated wallets (same family, chain or network, and address), keeping the first.
 *
 * @example
 * ```ts
 * import { WatchedWallet } from "@chainquery/watch"
 *
 * declare const wallet: WatchedWallet.WatchedWallet
 * WatchedWallet.dedupe([wallet, { ...wallet }]).length // 1
 * ```
 * @since 0.1.0
 */
export const dedupe = (wallets: Iterable<WatchedWallet>): ReadonlyArray<WatchedWallet> => [...byKey(wallets).values()]

/**
 * The wallets by `key`, each once (the first of repeated ones), in their order.
 *
 * @example
 * ```ts
 * import { WatchedWallet } from "@chainquery/watch"
 *
 * declare const wallet: WatchedWallet.WatchedWallet
 * WatchedWallet.byKey([wallet, { ...wallet }]).has(WatchedWallet.key(wallet)) // true
 * ```
 * @since 0.5.0
 */
export const byKey = (wallets: Iterable<WatchedWallet>): Map<string, WatchedWallet> => {
  const seen = new Map<string, WatchedWallet>()
  for (const wallet of wallets) {
    const id = key(wallet)
    if (!seen.has(id)) seen.set(id, wallet)
  }
  return seen
}

const groupBy = <A, K>(items: Iterable<A>, keyOf: (item: A) => K | undefined): Map<K, Array<A>> => {
  const groups = new Map<K, Array<A>>()
  for (const item of items) {
    const group = keyOf(item)
    if (group === undefined) continue
    const list = groups.get(group)
    if (list === undefined) groups.set(group, [item])
    else list.push(item)
  }
  return groups
}

/**
 * The EVM wallets per chain, in their order.
 *
 * @example
 * ```ts
 * import { WatchedWallet } from "@chainquery/watch"
 *
 * declare const wallets: ReadonlyArray<WatchedWallet.WatchedWallet>
 * WatchedWallet.byChain(wallets).get("0x1") // the eth wallets
 * ```
 * @since 0.1.0
 */
export const byChain = (wallets: Iterable<WatchedWallet>): Map<Chain.ChainId, Array<EvmWallet>> =>
  groupBy(
    [...wallets].filter((wallet): wallet is EvmWallet => wallet.family === "evm"),
    (wallet) => wallet.chain
  )

/**
 * The Aptos wallets per network, in their order.
 *
 * @example
 * ```ts
 * import { WatchedWallet } from "@chainquery/watch"
 *
 * declare const wallets: ReadonlyArray<WatchedWallet.WatchedWallet>
 * WatchedWallet.byNetwork(wallets).get("mainnet") // the Aptos mainnet wallets
 * ```
 * @since 0.1.0
 */
export const byNetwork = (wallets: Iterable<WatchedWallet>): Map<AptosNetwork, Array<AptosWallet>> =>
  groupBy(
    [...wallets].filter((wallet): wallet is AptosWallet => wallet.family === "aptos"),
    (wallet) => wallet.network
  )
