/**
 * Picking a scenario's wallets from the simulated world: `busy` of them among the busiest of
 * their place (EVM chain or Aptos mainnet), the rest at random among the world's other wallets
 * (often idle on that chain), now and then an address the world never used. Wallets already
 * watched are never picked again.
 */
import { AptosAddress, EvmAddress } from "@chainquery/schema"
import { Schema } from "effect"
import type { WatchedWallet } from "@chainquery/watch"
import { busiestAptos, busiestEvm } from "../../../../packages/watch/test/support/engineHarness.js"
import { type seeded, type Sim, walletKey } from "../e2e/support/e2e.js"
import type { Place } from "./draw.js"

type Random = ReturnType<typeof seeded>

const evmAddress = Schema.decodeUnknownSync(EvmAddress.EvmAddress)
const aptosAddress = Schema.decodeUnknownSync(AptosAddress.AptosAddress)

const hex = (random: Random, digits: number) =>
  Array.from({ length: digits }, () => "0123456789abcdef"[random.int(0, 15)]).join("")

/** Every wallet of `place`, the busiest first. */
const candidates = (sim: Sim, place: Place): Array<WatchedWallet.WatchedWallet> => {
  if (place === "aptos") return busiestAptos(sim, 10_000)
  const busiest = busiestEvm(sim, place, 10_000)
  const known = new Set(busiest.map((wallet) => wallet.address))
  const idle = sim.world.evm.wallets.map((address) => evmAddress(address)).filter((address) => !known.has(address))
  return [...busiest, ...idle.map((address) => ({ family: "evm" as const, chain: place, address }))]
}

/** A fresh address of `place` that no transfer ever touched (lowercase, as the world's). */
const fresh = (random: Random, place: Place): WatchedWallet.WatchedWallet =>
  place === "aptos"
    ? { family: "aptos", network: "mainnet", address: aptosAddress(`0x${hex(random, 64)}`) }
    : { family: "evm", chain: place, address: evmAddress(`0x${hex(random, 40)}`) }

/**
 * `count` wallets of `place` not in `taken`: the first `busy` from the 10 busiest left, the
 * others from the rest of the world (one in eight a fresh address).
 */
export const pickWallets = (
  sim: Sim,
  random: Random,
  place: Place,
  count: number,
  busy: number,
  taken: ReadonlySet<string>
): Array<WatchedWallet.WatchedWallet> => {
  const left = candidates(sim, place).filter((wallet) => !taken.has(walletKey(wallet)))
  const chosen: Array<WatchedWallet.WatchedWallet> = []
  const take = (pool: Array<WatchedWallet.WatchedWallet>) => {
    if (pool.length === 0) return
    const [wallet] = pool.splice(random.int(0, pool.length - 1), 1)
    chosen.push(wallet!)
  }
  const top = left.slice(0, 10)
  const rest = left.slice(10)
  for (let i = 0; i < busy; i++) take(top.length > 0 ? top : rest)
  while (chosen.length < count) {
    if (random.next() < 1 / 8 || top.length + rest.length === 0) chosen.push(fresh(random, place))
    else take(rest.length > 0 ? rest : top)
  }
  return chosen
}
