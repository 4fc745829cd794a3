/**
 * The initial catalogue of one simulated Aptos network: its accounts (wallets and NFT creators),
 * its NFT collections and its coins, all drawn from a seeded {@link Random}. Nothing here changes
 * after genesis; the ledger of transfers and holdings that evolves lives in `AptosLedger.ts`.
 *
 * @internal
 */
import { Random } from "../Random.js"

/**
 * The two Aptos networks the service knows.
 *
 * Each has its own {@link NetworkProfile} (see {@link profileOf}).
 */
export type AptosNetwork = "mainnet" | "testnet"

/**
 * The size and pace of a network.
 *
 * Mainnet's `firstVersion` is 1,000,000,000 and testnet's 3,000,000,000 (see {@link profileOf}).
 */
export interface NetworkProfile {
  readonly network: AptosNetwork
  /** The version of the first NFT transaction of the simulated history. */
  readonly firstVersion: number
  /** The instant of `firstVersion`, in epoch milliseconds. */
  readonly genesisMillis: number
  /** How many ledger versions pass per millisecond (timestamps derive from versions). */
  readonly versionsPerMilli: number
  readonly wallets: number
  readonly creators: number
  readonly collections: number
  readonly coins: number
  /** Mint-heavy ticks run at genesis to give the world an initial history. */
  readonly bootstrapTicks: number
  /** NFT transactions per tick: [min, max]. */
  readonly txPerTick: readonly [number, number]
}

/**
 * The profile of each network: mainnet is bigger and busier than testnet.
 *
 * Testnet, for instance, has 220 wallets, 18 creators and 36 collections; mainnet has 360, 30 and
 * 50.
 */
export const profileOf = (network: AptosNetwork): NetworkProfile =>
  network === "mainnet"
    ? {
      network,
      firstVersion: 1_000_000_000,
      genesisMillis: Date.UTC(2024, 0, 15, 12, 0, 0),
      versionsPerMilli: 4,
      wallets: 360,
      creators: 30,
      collections: 50,
      coins: 200,
      bootstrapTicks: 160,
      txPerTick: [2, 6]
    }
    : {
      network,
      firstVersion: 3_000_000_000,
      genesisMillis: Date.UTC(2024, 1, 1, 8, 0, 0),
      versionsPerMilli: 2,
      wallets: 220,
      creators: 18,
      collections: 36,
      coins: 140,
      bootstrapTicks: 100,
      txPerTick: [1, 4]
    }

/**
 * The deterministic instant (epoch milliseconds) of a ledger version: the genesis instant plus an
 * offset derived from the version, never the wall clock.
 *
 * Mainnet runs 4 versions per millisecond, so its version 1,000,000,400 is `genesisMillis + 100`.
 */
export const millisAt = (profile: NetworkProfile, version: number): number =>
  profile.genesisMillis + Math.floor((version - profile.firstVersion) / profile.versionsPerMilli)

/**
 * An NFT collection (token standard v1). `capacity` caps the simulated mints (the finite
 * `maximum`, or unbounded).
 *
 * Collections are told apart by `id`; `creator` is an index into `Genesis.accounts`, not an
 * address.
 */
export interface CollectionInfo {
  readonly index: number
  /** `collection_data_id_hash`: 64 lower-case hex digits, no `0x`. */
  readonly id: string
  readonly name: string
  /** Account index of the creator. */
  readonly creator: number
  readonly description: string
  readonly metadataUri: string
  readonly maximum: bigint
  readonly capacity: number
  readonly tableHandle: string
  readonly descriptionMutable: boolean
  readonly maximumMutable: boolean
  readonly uriMutable: boolean
  readonly createdVersion: number
  /** Token names are `<collection> #n` (true) or `#n` (false). */
  readonly prefixedNames: boolean
  /** Tokens are editions minted with an amount above 1. */
  readonly editions: boolean
  readonly propertyKeys: ReadonlyArray<string>
  readonly propertyVersion: number
  /** Relative likelihood of a mint landing in this collection. */
  readonly popularity: number
}

/**
 * A coin type registered on the network (B7).
 *
 * The native coin (`Genesis.nativeCoin`) is the one whose `coinType` is
 * `0x1::aptos_coin::AptosCoin` (symbol `APT`, 8 decimals).
 */
export interface CoinInfo {
  readonly coinType: string
  readonly coinTypeHash: string
  readonly name: string
  readonly symbol: string
  readonly decimals: number
  readonly creator: string
  readonly aggregatorHandle: string | null
  readonly aggregatorKey: string | null
  readonly createdVersion: number
}

/**
 * Everything fixed at genesis. `accounts` holds every address that takes part in NFT activity;
 * `wallets` and `creators` are indexes into it.
 *
 * An address is `0x` and 64 lower-case hex digits; the first wallet's, for instance, is
 * `genesis.accounts[genesis.wallets[0]]`.
 */
export interface Genesis {
  readonly profile: NetworkProfile
  readonly accounts: ReadonlyArray<string>
  readonly wallets: ReadonlyArray<number>
  readonly creators: ReadonlyArray<number>
  readonly collections: ReadonlyArray<CollectionInfo>
  readonly coins: ReadonlyArray<CoinInfo>
  /** Index into `coins` of the native coin (`0x1::aptos_coin::AptosCoin`), used for sales. */
  readonly nativeCoin: number
}

const address = (random: Random): string => `0x${random.hex(32)}`

const prefixes = [
  "Aptos", "Bruh", "Cosmic", "Pixel", "Mystic", "Lazy", "Golden", "Tiny", "Neon", "Rogue", "Velvet", "Quantum",
  "Savage", "Frosty", "Lucky", "Ancient", "Hidden", "Royal", "Wild", "Shadow", "Ocean", "Solar", "Iron", "Dream"
]
const nouns = [
  "Monkeys", "Wizards", "Bears", "Eggs", "Punks", "Cats", "Dragons", "Apes", "Knights", "Foxes", "Owls", "Names",
  "Pets", "Robots", "Skulls", "Frogs", "Whales", "Lands", "Ghosts", "Tigers"
]
const phrases = [
  "a collection of hand-drawn characters living on Aptos",
  "generative art, minted on chain",
  "membership passes for the community",
  "in-game items that level up",
  ""
]
const propertyPool = ["HP", "LEVEL", "RARITY", "TYPE", "BACKGROUND", "EYES", "PRODUCTION_DATE"]
const u64Max = 18446744073709551615n

const collectionName = (random: Random, taken: Set<string>): string => {
  for (;;) {
    const style = random.next()
    const base = `${random.pick(prefixes)} ${random.pick(nouns)}`
    const name = style < 0.1
      ? base.toLowerCase()
      : style < 0.15
      ? `${random.between(1, 9)}${random.pick(["bit", "D", "04"])} ${random.pick(nouns)}`
      : style < 0.25
      ? `${base} - ${random.pick(["Genesis", "Season 2", "Egg", "Pass"])}`
      : base
    if (!taken.has(name)) {
      taken.add(name)
      return name
    }
  }
}

const makeCollection = (random: Random, index: number, creator: number, name: string, profile: NetworkProfile): CollectionInfo => {
  const bounded = random.chance(0.55)
  const maximum = bounded ? BigInt(random.between(300, 8000)) : random.chance(0.5) ? u64Max : 9007199254740991n
  const keys = random.chance(0.3) ? [] : propertyPool.filter(() => random.chance(0.35))
  const uriKind = random.next()
  return {
    index,
    id: random.hex(32),
    name,
    creator,
    description: random.chance(0.2) ? "" : `${name}: ${random.pick(phrases)}`.replace(/: $/, ""),
    metadataUri: uriKind < 0.45
      ? `https://arweave.net/${random.hex(21)}`
      : uriKind < 0.85
      ? `ipfs://bafybei${random.hex(24)}`
      : "",
    maximum,
    capacity: bounded ? Number(maximum) : Number.POSITIVE_INFINITY,
    tableHandle: address(random),
    descriptionMutable: random.chance(0.3),
    maximumMutable: random.chance(0.1),
    uriMutable: random.chance(0.3),
    createdVersion: profile.firstVersion - random.between(1_000, 40_000_000),
    prefixedNames: random.chance(0.6),
    editions: random.chance(0.15),
    propertyKeys: keys,
    propertyVersion: keys.length > 0 && random.chance(0.3) ? 1 : 0,
    popularity: random.between(1, 10)
  }
}

const vowels = ["a", "e", "i", "o", "u", "y"]
const syllables = [
  "ap", "to", "mo", "ve", "ka", "ri", "zen", "lu", "na", "sol", "tra", "vex", "qui", "dor", "fi", "gal", "hy", "ion",
  "jet", "kor", "lex", "mir", "nox", "orb", "pyr", "rho", "sun", "tor", "umi", "vor", "wex", "xen", "yar", "zed"
]
const suffixes = ["", "", " Coin", " Token", " Finance", " USD", " Protocol", "-LP"]
const capitalize = (word: string) => `${word.charAt(0).toUpperCase()}${word.slice(1)}`

const coinBase = (random: Random, i: number): string => {
  const kind = random.next()
  if (kind < 0.08) return `${random.between(0, 9)}${random.pick(["inch", "x", "Swap", "kLabs"])}`
  const letter = String.fromCharCode(97 + (i % 26))
  const word = `${letter}${random.pick(vowels)}${random.pick(syllables)}${random.chance(0.4) ? random.pick(syllables) : ""}`
  return kind < 0.2 ? word : capitalize(word)
}

const makeCoin = (random: Random, name: string, base: string, publishers: ReadonlyArray<string>, profile: NetworkProfile): CoinInfo => {
  const creator = random.pick(publishers)
  const symbol = base.replace(/[^A-Za-z0-9]/g, "").slice(0, random.between(3, 5)).toUpperCase()
  const struct = `${capitalize(base.replace(/[^A-Za-z0-9]/g, ""))}${random.pick(["", "Coin", "Token"])}`
  const coinType = name.endsWith("-LP")
    ? `${creator}::swap::LPToken<${random.pick(publishers)}::coin::${struct}, 0x1::aptos_coin::AptosCoin>`
    : `${creator}::${random.pick(["coin", "asset", "token", `${base.toLowerCase().replace(/[^a-z0-9]/g, "")}_coin`])}::${struct}`
  const aggregated = random.chance(0.06)
  return {
    coinType,
    coinTypeHash: random.hex(32),
    name,
    symbol: name.endsWith("-LP") ? `${symbol}-LP` : symbol,
    decimals: random.pick([6, 8, 8, 8, 6, 9, 4, 0]),
    creator,
    aggregatorHandle: aggregated ? address(random) : null,
    aggregatorKey: aggregated ? address(random) : null,
    createdVersion: profile.firstVersion - random.between(1_000, 40_000_000)
  }
}

const nativeCoin = (random: Random, profile: NetworkProfile): CoinInfo => ({
  coinType: "0x1::aptos_coin::AptosCoin",
  coinTypeHash: random.hex(32),
  name: "Aptos Coin",
  symbol: "APT",
  decimals: 8,
  creator: `0x${"1".padStart(64, "0")}`,
  aggregatorHandle: address(random),
  aggregatorKey: address(random),
  createdVersion: profile.firstVersion - 40_000_001
})

const makeCoins = (random: Random, profile: NetworkProfile): ReadonlyArray<CoinInfo> => {
  const publishers = Array.from({ length: Math.ceil(profile.coins / 3) }, () => address(random))
  const coins: Array<CoinInfo> = [nativeCoin(random, profile)]
  const names = new Set(coins.map((c) => c.name))
  for (let i = 0; coins.length < profile.coins; i++) {
    const base = coinBase(random, i)
    const name = `${base}${random.pick(suffixes)}`
    if (names.has(name)) continue
    names.add(name)
    coins.push(makeCoin(random, name, base, publishers, profile))
  }
  return coins
}

/**
 * Draws the catalogue of a network. Each part uses its own fork of `random`, so changing how
 * coins are drawn never changes the wallets.
 *
 * The sizes come from the network's profile (mainnet: 360 wallets, 30 creators, 50 collections, 200
 * coins), and the same seed always draws the same catalogue.
 */
export const makeGenesis = (random: Random, network: AptosNetwork): Genesis => {
  const profile = profileOf(network)
  const accountRandom = random.fork("accounts")
  const accounts: Array<string> = []
  const seen = new Set<string>()
  const fresh = (): number => {
    let next = address(accountRandom)
    while (seen.has(next)) next = address(accountRandom)
    seen.add(next)
    accounts.push(next)
    return accounts.length - 1
  }
  const wallets = Array.from({ length: profile.wallets }, fresh)
  const creators = Array.from({ length: profile.creators }, fresh)
  const collectionRandom = random.fork("collections")
  const names = new Set<string>()
  const collections = Array.from({ length: profile.collections }, (_, index) => {
    // Every creator gets one collection; the rest go to a few prolific creators.
    const creator = index < creators.length ? creators[index]! : collectionRandom.pick(creators.slice(0, 8))
    return makeCollection(collectionRandom, index, creator, collectionName(collectionRandom, names), profile)
  })
  const coins = makeCoins(random.fork("coins"), profile)
  return { profile, accounts, wallets, creators, collections, coins, nativeCoin: 0 }
}
