/**
 * The static shape of the simulated EVM world: which chains are busy, their block times and first
 * block numbers, the shared wallets and the NFT collections each chain has. Everything derives
 * from the seed.
 *
 * @internal
 */
import { Chain } from "@chainquery/schema"
import type { Random } from "../Random.js"

/** How a chain behaves. */
export interface ChainProfile {
  readonly id: Chain.ChainId
  readonly name: string
  /** Seconds between blocks (drives timestamps only). */
  readonly blockTime: number
  /** NFT actions per block, on average. */
  readonly activity: number
  /** Number of the first simulated block. */
  readonly firstBlock: number
}

const busy: Partial<Record<Chain.ChainId, { readonly activity: number; readonly blockTime: number; readonly firstBlock: number }>> = {
  "0x1": { activity: 8, blockTime: 12, firstBlock: 18_000_000 },
  "0x89": { activity: 10, blockTime: 2, firstBlock: 50_000_000 },
  "0x2105": { activity: 8, blockTime: 2, firstBlock: 8_000_000 },
  "0x38": { activity: 4, blockTime: 3, firstBlock: 33_000_000 },
  "0xa4b1": { activity: 3, blockTime: 1, firstBlock: 150_000_000 }
}

/** The profile of every one of the 25 chains: a few busy, the rest quiet. */
export const chainProfiles = (random: Random): ReadonlyArray<ChainProfile> =>
  Chain.chains.map(([name, id]) => {
    const known = busy[id]
    const r = random.fork("profile", id)
    return {
      id,
      name,
      blockTime: known?.blockTime ?? r.pick([2, 3, 5, 6, 12]),
      activity: known?.activity ?? 0.6 + r.next(),
      firstBlock: known?.firstBlock ?? r.between(1_000_000, 20_000_000)
    }
  })

/** One NFT collection on one chain. */
export interface Collection {
  readonly address: string
  readonly name: string
  readonly symbol: string
  readonly kind: "ERC721" | "ERC1155"
  /** Whether the service had indexed it before the simulation started (else A5 starts SYNCING). */
  readonly preIndexed: boolean
}

const words = [
  "Azuki", "Bored", "Cool", "Doodle", "Ether", "Fidenza", "Gobbler", "Hashmask", "Invisible", "Jelly",
  "Kitty", "Lil", "Moon", "Noun", "Otherside", "Pudgy", "Quirk", "Rare", "Squiggle", "Terra", "Uni",
  "Vee", "World", "Xeno", "Yuga", "Zorb"
]
const kinds = ["Apes", "Cats", "Cubes", "Friends", "Heads", "Lands", "Penguins", "Punks", "Skulls", "Tickets"]

/** The collections of a chain: busier chains have more. */
export const collectionsOf = (random: Random, profile: ChainProfile): ReadonlyArray<Collection> => {
  const r = random.fork("collections", profile.id)
  const count = Math.max(3, Math.round(profile.activity * 3))
  return Array.from({ length: count }, (_, i) => {
    const name = `${r.pick(words)} ${r.pick(kinds)}`
    return {
      address: `0x${r.hex(20)}`,
      name: i === 0 ? name : `${name} ${i}`,
      symbol: name.split(" ").map((w) => w.slice(0, 2).toUpperCase()).join(""),
      kind: r.chance(0.3) ? "ERC1155" : "ERC721",
      preIndexed: i % 4 !== 3
    } as const
  })
}

/** Addresses that exist on every chain; the first ones are the most active. */
export const walletsOf = (random: Random, count: number): ReadonlyArray<string> => {
  const r = random.fork("wallets")
  return Array.from({ length: count }, () => `0x${r.hex(20)}`)
}

/** Marketplaces that trades happen on. */
export const marketplaces = (random: Random): ReadonlyArray<string> => {
  const r = random.fork("marketplaces")
  return Array.from({ length: 3 }, () => `0x${r.hex(20)}`)
}

/** The native-currency sentinel used as `price_token_address` for sales paid in ETH. */
export const nativeToken = "0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee"

/** The zero address: the `from` of mints and the `to` of burns. */
export const zeroAddress = "0x0000000000000000000000000000000000000000"
