/**
 * The simulated EVM side: all 25 chains, the wallets they share, and the service's indexing
 * behaviour (the newest block sometimes not yet indexed; collections that start `SYNCING` on
 * their first owners request). Deterministic from the seed and the sequence of calls.
 *
 * @internal
 */
import type { Chain } from "@chainquery/schema"
import { Random } from "../Random.js"
import { chainProfiles, marketplaces, walletsOf } from "./EvmConfig.js"
import { EvmChain } from "./EvmChain.js"
import type { TransferRow } from "./EvmRows.js"

/** How the service's indexing lag is simulated; `false` switches it off. */
export interface IndexingOptions {
  /** Probability that the newest block of a chain is not yet indexed. */
  readonly lagProbability: number
  /** Blocks it takes a collection to go from `SYNCING` to `SYNCED` after its first request. */
  readonly syncBlocks: number
}

/** Options of the EVM world. */
export interface EvmWorldOptions {
  readonly seed: string
  /** Blocks generated per chain at start. */
  readonly history: number
  /** Number of shared wallets. */
  readonly wallets: number
  /** Multiplies every chain's activity (NFT actions per block). */
  readonly activityScale: number
  readonly indexing: IndexingOptions | false
  /** Chains with NFT activity; the others answer but stay empty. All when absent. */
  readonly activeChains?: ReadonlyArray<Chain.ChainId> | undefined
}

/** A reorganisation that happened: the chain, the first replaced block and what was orphaned. */
export interface ReorgRecord {
  readonly chain: Chain.ChainId
  readonly fromBlock: number
  readonly orphaned: ReadonlyArray<TransferRow>
}

/** All EVM chains. */
export class EvmWorld {
  readonly chains = new Map<Chain.ChainId, EvmChain>()
  readonly wallets: ReadonlyArray<string>
  readonly reorgs: Array<ReorgRecord> = []
  private readonly random: Random
  private readonly syncStarted = new Map<string, number>()

  constructor(readonly options: EvmWorldOptions) {
    this.random = new Random(options.seed).fork("evm")
    this.wallets = walletsOf(this.random, options.wallets)
    const markets = marketplaces(this.random)
    for (const profile of chainProfiles(this.random)) {
      const active = options.activeChains === undefined || options.activeChains.includes(profile.id)
      const scaled = { ...profile, activity: active ? profile.activity * options.activityScale : 0 }
      this.chains.set(profile.id, new EvmChain(scaled, this.random, this.wallets, markets, options.history))
    }
  }

  /** The chain with this id (every one of the 25 exists). */
  chain(id: Chain.ChainId): EvmChain {
    return this.chains.get(id)!
  }

  /** Appends one block to every chain. */
  advance(): void {
    for (const chain of this.chains.values()) chain.advance()
  }

  /** Replaces the last `depth` blocks of a chain. */
  reorg(id: Chain.ChainId, depth: number): ReorgRecord {
    const chain = this.chain(id)
    const fromBlock = chain.head - Math.min(depth, chain.blocks.length - 1) + 1
    const record = { chain: id, fromBlock, orphaned: chain.reorg(depth) }
    this.reorgs.push(record)
    return record
  }

  /** The newest block whose transfers are all indexed. */
  indexedHead(id: Chain.ChainId): number {
    const chain = this.chain(id)
    const indexing = this.options.indexing
    if (indexing === false || indexing.lagProbability <= 0) return chain.head
    const slow = this.random.fork("lag", id, chain.head).chance(indexing.lagProbability)
    return slow ? chain.head - 1 : chain.head
  }

  /**
   * The owners-listing status of a collection. A collection that was not indexed before starts
   * indexing at its first request (`SYNCING`, with half of its tokens known) and is `SYNCED`
   * `syncBlocks` blocks later.
   */
  syncStatus(id: Chain.ChainId, contract: string): { readonly status: "SYNCING" | "SYNCED"; readonly knownShare: number } {
    const chain = this.chain(id)
    const collection = chain.collectionAt(contract)
    const indexing = this.options.indexing
    if (indexing === false || collection === undefined || collection.preIndexed) return { status: "SYNCED", knownShare: 1 }
    const key = `${id}:${contract}`
    const started = this.syncStarted.get(key) ?? chain.head
    this.syncStarted.set(key, started)
    return chain.head >= started + indexing.syncBlocks
      ? { status: "SYNCED", knownShare: 1 }
      : { status: "SYNCING", knownShare: 0.5 }
  }
}
