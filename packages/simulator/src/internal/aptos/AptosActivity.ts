/**
 * One tick of NFT activity on a simulated Aptos network: a few transactions at new, increasing
 * ledger versions, each a mint, a transfer (a claim, a deposit, or a sale paid in a coin) or a
 * burn. Every draw comes from the tick's own {@link Random}, so the same seed and the same
 * number of ticks always give the same ledger.
 *
 * @internal
 */
import type { Random } from "../Random.js"
import type { AptosLedger } from "./AptosLedger.js"

/** Largest gap between two NFT transactions (the versions between are other transactions). */
const maxVersionGap = 2500

/** A wallet, skewed so that a few wallets are much busier than most. */
const pickWallet = (ledger: AptosLedger, random: Random, not: number): number => {
  const wallets = ledger.genesis.wallets
  for (;;) {
    const wallet = wallets[Math.floor(random.next() ** 2 * wallets.length)]!
    if (wallet !== not) return wallet
  }
}

/** A collection that can still mint, weighted by popularity; -1 when every one is full. */
const pickCollection = (ledger: AptosLedger, random: Random): number => {
  const open = ledger.genesis.collections.filter((c) => ledger.collectionTokens[c.index]!.length < c.capacity)
  if (open.length === 0) return -1
  let roll = random.next() * open.reduce((sum, c) => sum + c.popularity, 0)
  for (const collection of open) {
    roll -= collection.popularity
    if (roll < 0) return collection.index
  }
  return open.at(-1)!.index
}

const mint = (ledger: AptosLedger, random: Random, version: number): boolean => {
  const batch = random.chance(0.08) ? random.between(2, 3) : 1
  for (let i = 0; i < batch; i++) {
    const collection = pickCollection(ledger, random)
    if (collection < 0) return i > 0
    const info = ledger.genesis.collections[collection]!
    const to = random.chance(0.15) ? info.creator : pickWallet(ledger, random, -1)
    ledger.mint(version, collection, to, info.editions ? random.between(2, 40) : 1, random)
  }
  return true
}

const salePrice = (ledger: AptosLedger, random: Random): { readonly amount: bigint; readonly type: string } => {
  const coins = ledger.genesis.coins
  const coin = random.chance(0.85) ? coins[ledger.genesis.nativeCoin]! : random.pick(coins)
  const tenths = BigInt(random.between(1, 5000))
  return { amount: coin.decimals === 0 ? tenths : tenths * 10n ** BigInt(coin.decimals - 1), type: coin.coinType }
}

const transfer = (ledger: AptosLedger, random: Random, version: number): void => {
  const id = random.pick(ledger.live)
  const holding = ledger.holdings[id]!
  const to = pickWallet(ledger, random, holding.owner)
  const amount = holding.amount === 1 ? 1 : random.between(1, Math.min(holding.amount, 5))
  if (random.chance(0.2)) {
    ledger.move(version, id, to, amount, "claim", null)
  } else {
    ledger.move(version, id, to, amount, "deposit", random.chance(0.45) ? salePrice(ledger, random) : null)
  }
}

const burn = (ledger: AptosLedger, random: Random, version: number): void => {
  const id = random.pick(ledger.live)
  ledger.burn(version, id, random.between(1, ledger.holdings[id]!.amount))
}

/**
 * Appends one tick of transactions. `bootstrap` ticks (the initial history) are mostly mints.
 *
 * Each transaction lands 1 to 2,500 versions after the one before, so after a tick
 * `ledger.lastVersion()` has moved on. The world gives each tick its own fork of its random
 * (`random.fork("tick", n)`), so ticks stay reproducible.
 */
export const tick = (ledger: AptosLedger, random: Random, bootstrap: boolean): void => {
  const [min, max] = ledger.genesis.profile.txPerTick
  const count = bootstrap ? max : random.between(min, max)
  const mintShare = bootstrap ? 0.7 : 0.28
  let version = ledger.lastVersion()
  for (let i = 0; i < count; i++) {
    version += random.between(1, maxVersionGap)
    const roll = random.next()
    if ((ledger.live.length === 0 || roll < mintShare) && mint(ledger, random, version)) continue
    if (ledger.live.length === 0) continue
    if (roll > 0.95) burn(ledger, random, version)
    else transfer(ledger, random, version)
  }
}
