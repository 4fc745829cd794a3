/**
 * One simulated EVM chain: its blocks, transactions, NFT transfers and trades, with the indexes
 * that make every listing cost O(page): per wallet, per token, per contract, all append-only
 * arrays in chain order (so a snapshot is a prefix, and a reorg truncates the tails).
 *
 * @internal
 */
import type { Random } from "../Random.js"
import { BlockBuilder } from "./BlockBuilder.js"
import {
  type ChainProfile,
  type Collection,
  collectionsOf,
  nativeToken,
  zeroAddress
} from "./EvmConfig.js"
import type { BlockRow, TokenRow, TradeRow, TransferRow } from "./EvmRows.js"

const genesisTime = Date.UTC(2024, 0, 1)

const tokenKey = (contract: string, tokenId: bigint) => `${contract}:${tokenId}`

const push = <K, V>(map: Map<K, Array<V>>, key: K, value: V) => {
  const list = map.get(key)
  if (list === undefined) map.set(key, [value])
  else list.push(value)
}

/** Removes trailing entries `>= cutoff` from the list under `key`. */
const truncate = (map: Map<string, Array<number>>, key: string, cutoff: number) => {
  const list = map.get(key)
  if (list === undefined) return
  while (list.length > 0 && list[list.length - 1]! >= cutoff) list.pop()
  if (list.length === 0) map.delete(key)
}

/** A simulated chain. */
export class EvmChain {
  readonly collections: ReadonlyArray<Collection>
  readonly blocks: Array<BlockRow> = []
  readonly transfers: Array<TransferRow> = []
  readonly trades: Array<TradeRow> = []
  /** Transfer indexes per wallet (sender or recipient), chain order. */
  readonly transfersByWallet = new Map<string, Array<number>>()
  /** Transfer indexes per token (`contract:tokenId`), chain order. */
  readonly transfersByToken = new Map<string, Array<number>>()
  /** Trade indexes per wallet (seller or buyer), chain order. */
  readonly tradesByWallet = new Map<string, Array<number>>()
  /** Tokens per contract, mint order. */
  readonly tokensByContract = new Map<string, Array<TokenRow>>()
  readonly blockByHash = new Map<string, number>()
  private readonly owner721 = new Map<string, string>()
  private readonly balances1155 = new Map<string, Map<string, bigint>>()
  private readonly nextTokenId = new Map<string, bigint>()
  private readonly generations = new Map<number, number>()

  constructor(
    readonly profile: ChainProfile,
    private readonly random: Random,
    private readonly wallets: ReadonlyArray<string>,
    private readonly markets: ReadonlyArray<string>,
    history: number
  ) {
    this.collections = collectionsOf(random, profile)
    for (let i = 0; i < Math.max(1, history); i++) this.advance()
  }

  /** Number of the newest block. */
  get head(): number {
    return this.profile.firstBlock + this.blocks.length - 1
  }

  /** The block with this number, if it exists. */
  block(number: number): BlockRow | undefined {
    return this.blocks[number - this.profile.firstBlock]
  }

  /** Timestamp (ms) of a block number. */
  timestampOf(number: number): number {
    return genesisTime + (number - this.profile.firstBlock) * this.profile.blockTime * 1000
  }

  /** The newest block whose timestamp is <= `millis` (for date filters), or firstBlock - 1. */
  blockAtOrBefore(millis: number): number {
    const offset = Math.floor((millis - genesisTime) / (this.profile.blockTime * 1000))
    return this.profile.firstBlock + Math.min(Math.max(offset, -1), this.blocks.length - 1)
  }

  /** Owners of a token at block `snapshot`, with amounts (an ERC721 has at most one). */
  ownersAt(contract: string, tokenId: bigint, snapshot: number): ReadonlyArray<readonly [string, bigint]> {
    const balances = new Map<string, bigint>()
    for (const index of this.transfersByToken.get(tokenKey(contract, tokenId)) ?? []) {
      const row = this.transfers[index]!
      if (row.block > snapshot) break
      if (row.from !== zeroAddress) {
        const left = (balances.get(row.from) ?? 0n) - row.amount
        if (left > 0n) balances.set(row.from, left)
        else balances.delete(row.from)
      }
      if (row.to !== zeroAddress) balances.set(row.to, (balances.get(row.to) ?? 0n) + row.amount)
    }
    return [...balances].toSorted(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
  }

  /** The collection at `address`, or `undefined` when the chain has none there. */
  collectionAt(address: string): Collection | undefined {
    return this.collections.find((c) => c.address === address)
  }

  /** The first receiver of a token in the chain's history (whom it was minted to). */
  minterOf(contract: string, tokenId: bigint): string | undefined {
    const first = this.transfersByToken.get(tokenKey(contract, tokenId))?.[0]
    return first === undefined ? undefined : this.transfers[first]!.to
  }

  /** Block of the last transfer of a token at or before `snapshot` (its mint block at least). */
  lastMoveBlock(contract: string, tokenId: bigint, snapshot: number): number {
    let block = 0
    for (const index of this.transfersByToken.get(tokenKey(contract, tokenId)) ?? []) {
      const row = this.transfers[index]!
      if (row.block > snapshot) break
      block = row.block
    }
    return block
  }

  /** Appends one new block. */
  advance(): void {
    const number = this.head + 1
    this.appendBlock(number, this.generations.get(number) ?? 0)
  }

  /**
   * Replaces the last `depth` blocks by new ones (same numbers, new hashes, other transfers):
   * a chain reorganisation. Returns the transfers that were orphaned.
   */
  reorg(depth: number): ReadonlyArray<TransferRow> {
    const count = Math.min(depth, this.blocks.length - 1)
    if (count <= 0) return []
    const first = this.head - count + 1
    const orphaned = this.rollback(first)
    for (let number = first; number < first + count; number++) {
      const generation = (this.generations.get(number) ?? 0) + 1
      this.generations.set(number, generation)
      this.appendBlock(number, generation)
    }
    return orphaned
  }

  private rollback(first: number): ReadonlyArray<TransferRow> {
    const firstRow = this.block(first)!
    const orphaned = this.transfers.slice(firstRow.transferStart)
    for (let i = this.transfers.length - 1; i >= firstRow.transferStart; i--) {
      const row = this.transfers[i]!
      this.unapply(row)
      truncate(this.transfersByWallet, row.from, firstRow.transferStart)
      truncate(this.transfersByWallet, row.to, firstRow.transferStart)
      truncate(this.transfersByToken, tokenKey(row.contract, row.tokenId), firstRow.transferStart)
    }
    for (let i = this.trades.length - 1; i >= firstRow.tradeStart; i--) {
      const trade = this.trades[i]!
      truncate(this.tradesByWallet, trade.seller, firstRow.tradeStart)
      truncate(this.tradesByWallet, trade.buyer, firstRow.tradeStart)
    }
    for (const [contract, tokens] of this.tokensByContract) {
      while (tokens.length > 0 && tokens[tokens.length - 1]!.mintBlock >= first) {
        const token = tokens.pop()!
        this.nextTokenId.set(contract, token.tokenId)
      }
    }
    for (const row of this.blocks.slice(first - this.profile.firstBlock)) this.blockByHash.delete(row.hash)
    this.transfers.length = firstRow.transferStart
    this.trades.length = firstRow.tradeStart
    this.blocks.length = first - this.profile.firstBlock
    return orphaned
  }

  private apply(row: TransferRow): void {
    const key = tokenKey(row.contract, row.tokenId)
    if (row.kind === "ERC721") {
      if (row.to === zeroAddress) this.owner721.delete(key)
      else this.owner721.set(key, row.to)
      return
    }
    const holders = this.balances1155.get(key) ?? new Map<string, bigint>()
    if (row.from !== zeroAddress) {
      const left = (holders.get(row.from) ?? 0n) - row.amount
      if (left > 0n) holders.set(row.from, left)
      else holders.delete(row.from)
    }
    if (row.to !== zeroAddress) holders.set(row.to, (holders.get(row.to) ?? 0n) + row.amount)
    if (holders.size === 0) this.balances1155.delete(key)
    else this.balances1155.set(key, holders)
  }

  private unapply(row: TransferRow): void {
    this.apply({ ...row, from: row.to, to: row.from })
  }

  private appendBlock(number: number, generation: number): void {
    const r = this.random.fork(this.profile.id, "block", number, generation)
    const parent = this.block(number - 1)
    const transferStart = this.transfers.length
    const tradeStart = this.trades.length
    const builder = new BlockBuilder((row) => this.record(row), r, number)
    const actions = Math.floor(this.profile.activity * (0.5 + r.next()))
    for (let i = 0; i < actions; i++) this.act(builder, r)
    const fillers = r.int(3)
    for (let i = 0; i < fillers; i++) builder.plainTx(r.pick(this.wallets), r.pick(this.wallets))
    const row: BlockRow = {
      number,
      hash: `0x${r.hex(32)}`,
      parentHash: parent?.hash ?? `0x${r.hex(32)}`,
      timestamp: this.timestampOf(number),
      miner: `0x${r.hex(20)}`,
      txs: builder.txs,
      transferStart,
      transferEnd: this.transfers.length,
      tradeStart,
      tradeEnd: this.trades.length
    }
    this.blocks.push(row)
    this.blockByHash.set(row.hash, number)
  }

  /** Records a transfer in the lists and indexes, and applies it to the head state. */
  record(row: TransferRow): number {
    const index = this.transfers.push(row) - 1
    if (row.from !== zeroAddress) push(this.transfersByWallet, row.from, index)
    if (row.to !== zeroAddress && row.to !== row.from) push(this.transfersByWallet, row.to, index)
    push(this.transfersByToken, tokenKey(row.contract, row.tokenId), index)
    if (row.from === zeroAddress) {
      push(this.tokensByContract, row.contract, { contract: row.contract, tokenId: row.tokenId, mintBlock: row.block })
    }
    this.apply(row)
    return index
  }

  /** Records a trade and its index entries. */
  recordTrade(trade: TradeRow): void {
    const index = this.trades.push(trade) - 1
    push(this.tradesByWallet, trade.seller, index)
    if (trade.buyer !== trade.seller) push(this.tradesByWallet, trade.buyer, index)
  }

  private wallet(r: Random): string {
    // Skewed: the first wallets are far more active than the rest.
    return this.wallets[Math.floor(this.wallets.length * r.next() ** 3)]!
  }

  private mintId(contract: string): bigint {
    const id = this.nextTokenId.get(contract) ?? 1n
    this.nextTokenId.set(contract, id + 1n)
    return id
  }

  /** A live token of a collection and one of its holders, or undefined. */
  private held(r: Random, collection: Collection): { tokenId: bigint; owner: string; balance: bigint } | undefined {
    const tokens = this.tokensByContract.get(collection.address)
    if (tokens === undefined || tokens.length === 0) return undefined
    for (let attempt = 0; attempt < 4; attempt++) {
      const token = r.pick(tokens)
      const key = tokenKey(collection.address, token.tokenId)
      if (collection.kind === "ERC721") {
        const owner = this.owner721.get(key)
        if (owner !== undefined) return { tokenId: token.tokenId, owner, balance: 1n }
      } else {
        const holders = this.balances1155.get(key)
        if (holders !== undefined && holders.size > 0) {
          const [owner, balance] = r.pick([...holders])
          return { tokenId: token.tokenId, owner, balance }
        }
      }
    }
    return undefined
  }

  private act(builder: BlockBuilder, r: Random): void {
    const collection = r.pick(this.collections)
    const roll = r.next()
    const held = roll < 0.3 ? undefined : this.held(r, collection)
    if (held === undefined) {
      const to = this.wallet(r)
      const count = collection.kind === "ERC1155" && r.chance(0.3) ? r.between(2, 4) : 1
      builder.nftTx(to, collection, Array.from({ length: count }, () => ({
        tokenId: this.mintId(collection.address),
        from: zeroAddress,
        to,
        amount: collection.kind === "ERC721" ? 1n : BigInt(r.between(1, 20))
      })))
      return
    }
    const amount = collection.kind === "ERC721" ? 1n : BigInt(r.between(1, Number(held.balance)))
    if (roll > 0.93) {
      builder.nftTx(held.owner, collection, [{ tokenId: held.tokenId, from: held.owner, to: zeroAddress, amount }])
      return
    }
    let to = this.wallet(r)
    if (to === held.owner) to = r.pick(this.wallets.filter((w) => w !== held.owner))
    if (roll > 0.75 && collection.kind === "ERC721") {
      const price = BigInt(r.between(1, 5000)) * 10n ** 15n
      const marketplace = r.pick(this.markets)
      const tx = builder.nftTx(to, collection, [{ tokenId: held.tokenId, from: held.owner, to, amount }], {
        value: price,
        operator: marketplace
      })
      this.recordTrade({
        block: builder.number,
        txIndex: tx.index,
        txHash: tx.hash,
        tokenIds: [held.tokenId],
        seller: held.owner,
        buyer: to,
        contract: collection.address,
        marketplace,
        priceToken: nativeToken,
        price
      })
      return
    }
    builder.nftTx(held.owner, collection, [{ tokenId: held.tokenId, from: held.owner, to, amount }])
  }
}
