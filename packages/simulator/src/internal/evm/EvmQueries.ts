/**
 * The seven family A operations over the simulated chains, producing the decoded response types of
 * `@chainquery/schema` (the HttpApi layer encodes them to the wire). Listings read at a snapshot
 * carried in the cursor, so walking every page returns each record once while the world advances.
 *
 * @internal
 */
import type { Block, BlockNumberOrHash, Chain, DefiPositions, EvmPage, NftOwner } from "@chainquery/schema"
import { DateTime, Option } from "effect"
import * as Cursor from "../Cursor.js"
import { readWindow, type WindowPage } from "../Listing.js"
import { NotFoundProblem } from "../Problems.js"
import { Random } from "../Random.js"
import { positionsAt } from "./Defi.js"
import type { EvmChain } from "./EvmChain.js"
import { blockRecord, tradeRecord, transferRecord } from "./EvmRecords.js"
import type { TransferRow } from "./EvmRows.js"
import { mediaOf, normalizedMetadata, rawMetadata, traitCounts } from "./TokenMetadata.js"
import type { EvmWorld } from "./EvmWorld.js"

const defaultChain: Chain.ChainId = "0x1"
const defaultLimit = 100

const some = Option.some
const none = Option.none()

/** Paging parameters as decoded by the HttpApi. */
export interface Paging {
  readonly limit?: number | undefined
  readonly cursor?: string | undefined
}

/** Block and date bounds (A2, A4); blocks win over dates, as the service documents. */
export interface Range {
  readonly from_block?: bigint | undefined
  readonly to_block?: bigint | undefined
  readonly from_date?: DateTime.Utc | undefined
  readonly to_date?: DateTime.Utc | undefined
}

/** Reads the snapshot and position of a listing from its cursor (or starts one at `head`). */
const resume = (paging: Paging, fingerprint: string, head: number): Cursor.CursorState =>
  paging.cursor === undefined ? { q: fingerprint, s: head, p: 0, k: 0 } : Cursor.decodeOrThrow(paging.cursor, fingerprint)

const nextCursor = (state: Cursor.CursorState, position: number, more: boolean): Option.Option<string> =>
  more ? some(Cursor.encode({ q: state.q, s: state.s, p: position, k: (state.k ?? 0) + 1 })) : none

/**
 * The envelope fields of a page read from a window. `total` is `null`, as in the captures where
 * the service was not asked to count (their cursors carry `disable_total: true`).
 */
const pageOf = <A>(state: Cursor.CursorState, limit: number, page: WindowPage<A>) => ({
  total: none,
  page: state.k ?? 0,
  page_size: limit,
  cursor: nextCursor(state, page.position, page.more),
  result: page.items,
  rejected: []
})

const blockBounds = (chain: EvmChain, range: Range): { readonly from: number; readonly to: number } => {
  const from = range.from_block !== undefined
    ? Number(range.from_block)
    : range.from_date !== undefined
    ? chain.blockAtOrBefore(DateTime.toEpochMillis(range.from_date) - 1) + 1
    : 0
  const to = range.to_block !== undefined
    ? Number(range.to_block)
    : range.to_date !== undefined
    ? chain.blockAtOrBefore(DateTime.toEpochMillis(range.to_date))
    : Number.MAX_SAFE_INTEGER
  return { from, to }
}

/**
 * The range filter as the caller gave it, for cursor fingerprints: resolved bounds can move as the
 * chain grows (a date past the head resolves to the current head), the filter does not.
 */
const rangeFilter = (range: Range) => ({
  fromBlock: range.from_block,
  toBlock: range.to_block,
  fromDate: range.from_date === undefined ? undefined : DateTime.toEpochMillis(range.from_date),
  toDate: range.to_date === undefined ? undefined : DateTime.toEpochMillis(range.to_date)
})

/** Resolves a block number or hash to a number, or undefined when no such block exists. */
const blockNumberOf = (chain: EvmChain, block: BlockNumberOrHash.BlockNumberOrHash): number | undefined => {
  if (typeof block === "bigint") return block <= BigInt(chain.head) ? Number(block) : undefined
  return chain.blockByHash.get(block)
}

/** The family A operations over a world. */
export class EvmQueries {
  constructor(private readonly world: EvmWorld) {}

  private chain(id: Chain.ChainId | undefined) {
    return this.world.chain(id ?? defaultChain)
  }

  /** A1: NFT transfers of one block. */
  transfersByBlock(params: {
    readonly block: BlockNumberOrHash.BlockNumberOrHash
    readonly chain?: Chain.ChainId | undefined
    readonly order?: "ASC" | "DESC" | undefined
  } & Paging): EvmPage.TransfersByBlockPage {
    const chain = this.chain(params.chain)
    const limit = params.limit ?? defaultLimit
    const number = blockNumberOf(chain, params.block)
    const indexed = this.world.indexedHead(chain.profile.id)
    const empty = { page: 0, page_size: limit, cursor: none, result: [], rejected: [] }
    if (number === undefined) {
      return { ...empty, total: some(0), block_exists: some(false), index_complete: some(false) }
    }
    if (number > indexed) return { ...empty, total: some(0), block_exists: some(true), index_complete: some(false) }
    const row = chain.block(number)
    // A block before the simulated history exists on the real chain; it holds no NFT transfer here.
    if (row === undefined) return { ...empty, total: some(0), block_exists: some(true), index_complete: some(true) }
    const fingerprint = Cursor.fingerprint("A1", { chain: chain.profile.id, block: row.hash, order: params.order })
    const state = resume(params, fingerprint, number)
    const ids = Array.from({ length: row.transferEnd - row.transferStart }, (_, i) => row.transferStart + i)
    const page = readWindow({
      ids,
      blockOf: () => number,
      fromBlock: number,
      toBlock: number,
      order: params.order ?? "ASC",
      position: state.p,
      limit,
      map: (id) => transferRecord(chain, chain.transfers[id]!)
    })
    return {
      total: some(ids.length),
      page: state.k ?? 0,
      page_size: limit,
      cursor: nextCursor(state, page.position, page.more),
      result: page.items,
      rejected: [],
      block_exists: some(true),
      index_complete: some(true)
    }
  }

  /** A2 and A3: a listing of transfers from an index list. */
  private transferListing(
    chain: EvmChain,
    route: string,
    ids: ReadonlyArray<number>,
    params: Range & Paging & { readonly order?: "ASC" | "DESC" | undefined },
    filter: Record<string, unknown>,
    keep?: (row: TransferRow) => boolean
  ): EvmPage.TransfersPage {
    const limit = params.limit ?? defaultLimit
    const indexed = this.world.indexedHead(chain.profile.id)
    const bounds = blockBounds(chain, params)
    const fingerprint = Cursor.fingerprint(route, { ...filter, ...rangeFilter(params), order: params.order })
    const state = resume(params, fingerprint, indexed)
    const page = readWindow({
      ids,
      blockOf: (id) => chain.transfers[id]!.block,
      fromBlock: bounds.from,
      toBlock: Math.min(bounds.to, state.s),
      order: params.order ?? "DESC",
      position: state.p,
      limit,
      keep: keep === undefined ? undefined : (id) => keep(chain.transfers[id]!),
      map: (id) => transferRecord(chain, chain.transfers[id]!)
    })
    return {
      ...pageOf(state, limit, page),
      block_exists: some(bounds.to === Number.MAX_SAFE_INTEGER || bounds.to <= chain.head),
      index_complete: some(Math.min(bounds.to, chain.head) <= state.s)
    }
  }

  /** A2: transfers sent or received by a wallet. */
  walletTransfers(params: {
    readonly address: string
    readonly chain?: Chain.ChainId | undefined
    readonly contract_addresses?: ReadonlyArray<string> | undefined
    readonly order?: "ASC" | "DESC" | undefined
  } & Range & Paging): EvmPage.TransfersPage {
    const chain = this.chain(params.chain)
    const contracts = params.contract_addresses === undefined ? undefined : new Set(params.contract_addresses)
    return this.transferListing(
      chain,
      "A2",
      chain.transfersByWallet.get(params.address) ?? [],
      params,
      { chain: chain.profile.id, address: params.address, contracts: params.contract_addresses },
      contracts === undefined ? undefined : (row) => contracts.has(row.contract)
    )
  }

  /** A3: transfers of one token. */
  tokenTransfers(params: {
    readonly address: string
    readonly token_id: bigint
    readonly chain?: Chain.ChainId | undefined
    readonly order?: "ASC" | "DESC" | undefined
  } & Paging): EvmPage.TransfersPage {
    const chain = this.chain(params.chain)
    return this.transferListing(
      chain,
      "A3",
      chain.transfersByToken.get(`${params.address}:${params.token_id}`) ?? [],
      params,
      { chain: chain.profile.id, address: params.address, token: params.token_id }
    )
  }

  /** A4: trades in which a wallet bought or sold. */
  walletTrades(params: { readonly address: string; readonly chain?: Chain.TradeChainId | undefined } & Range & Paging): EvmPage.TradesPage {
    const chain = this.chain(params.chain)
    const limit = params.limit ?? defaultLimit
    const bounds = blockBounds(chain, params)
    const fingerprint = Cursor.fingerprint("A4", { chain: chain.profile.id, address: params.address, ...rangeFilter(params) })
    const state = resume(params, fingerprint, this.world.indexedHead(chain.profile.id))
    const page = readWindow({
      ids: chain.tradesByWallet.get(params.address) ?? [],
      blockOf: (id) => chain.trades[id]!.block,
      fromBlock: bounds.from,
      toBlock: Math.min(bounds.to, state.s),
      order: "DESC",
      position: state.p,
      limit,
      map: (id) => tradeRecord(chain, chain.trades[id]!)
    })
    return pageOf(state, limit, page)
  }

  /** A5: owners of the tokens of a contract, in mint order. */
  owners(params: {
    readonly address: string
    readonly chain?: Chain.ChainId | undefined
    readonly normalizeMetadata?: boolean | undefined
    readonly media_items?: boolean | undefined
  } & Paging): EvmPage.OwnersPage {
    const chain = this.chain(params.chain)
    const limit = params.limit ?? defaultLimit
    const sync = this.world.syncStatus(chain.profile.id, params.address)
    const fingerprint = Cursor.fingerprint("A5", { chain: chain.profile.id, address: params.address })
    const state = resume(params, fingerprint, this.world.indexedHead(chain.profile.id))
    const tokens = chain.tokensByContract.get(params.address) ?? []
    let minted = 0
    while (minted < tokens.length && tokens[minted]!.mintBlock <= state.s) minted++
    const known = Math.ceil(minted * sync.knownShare)
    const collection = chain.collectionAt(params.address)
    // How many tokens of this listing share each trait: those it lists (known at the snapshot)
    // that someone holds (normalised metadata only).
    const counts = params.normalizeMetadata === true
      ? traitCounts(
        tokens.slice(0, known).filter((t) => chain.ownersAt(t.contract, t.tokenId, state.s).length > 0).map((t) => t.tokenId)
      )
      : new Map<string, number>()
    const asked = { ...params, counts }
    const result: Array<NftOwner.NftOwner> = []
    let position = state.p
    let within = state.w ?? 0
    while (position < known && result.length < limit) {
      const token = tokens[position]!
      const holders = chain.ownersAt(token.contract, token.tokenId, state.s)
      while (within < holders.length && result.length < limit) {
        const [owner, amount] = holders[within]!
        within++
        result.push(this.ownerRecord(chain, collection, token, owner, amount, state.s, asked))
      }
      if (within >= holders.length) {
        position++
        within = 0
      }
    }
    const more = position < known
    return {
      status: some(sync.status),
      total: none,
      page: state.k ?? 0,
      page_size: limit,
      cursor: more ? some(Cursor.encode({ q: state.q, s: state.s, p: position, k: (state.k ?? 0) + 1, w: within })) : none,
      result,
      rejected: []
    }
  }

  private ownerRecord(
    chain: EvmChain,
    collection: { readonly name: string; readonly symbol: string; readonly kind: "ERC721" | "ERC1155"; readonly preIndexed: boolean } | undefined,
    token: { readonly contract: string; readonly tokenId: bigint; readonly mintBlock: number },
    owner: string,
    amount: bigint,
    snapshot: number,
    params: {
      readonly normalizeMetadata?: boolean | undefined
      readonly media_items?: boolean | undefined
      readonly counts: ReadonlyMap<string, number>
    }
  ): NftOwner.NftOwner {
    const lastMove = chain.lastMoveBlock(token.contract, token.tokenId, snapshot)
    const minted = DateTime.makeUnsafe(chain.timestampOf(token.mintBlock))
    const described = { ...token, chainId: chain.profile.id, collectionName: collection?.name ?? "Unknown", synced: minted }
    const minter = chain.minterOf(token.contract, token.tokenId)
    return {
      token_address: token.contract,
      token_id: token.tokenId,
      contract_type: some(collection?.kind ?? "ERC721"),
      owner_of: owner,
      block_number: BigInt(lastMove),
      block_number_minted: some(BigInt(token.mintBlock)),
      token_uri: some(`https://nft.example.invalid/${token.contract}/${token.tokenId}.json`),
      metadata: some(JSON.stringify(rawMetadata(described))),
      normalized_metadata: params.normalizeMetadata === true ? some(normalizedMetadata(described, params.counts)) : none,
      media: params.media_items === true ? some(mediaOf(described)) : none,
      amount,
      name: some(collection?.name ?? "Unknown"),
      symbol: some(collection?.symbol ?? "UNK"),
      token_hash: some(new Random(`${token.contract}:${token.tokenId}`).hex(16)),
      rarity_rank: none,
      rarity_label: none,
      rarity_percentage: none,
      last_token_uri_sync: some(minted),
      last_metadata_sync: some(minted),
      possible_spam: some(false),
      verified_collection: some(collection?.preIndexed ?? false),
      minter_address: minter === undefined ? none : some(minter)
    }
  }

  /** A6: a block with its transactions (and internal transactions when asked). */
  block(params: {
    readonly block: BlockNumberOrHash.BlockNumberOrHash
    readonly chain?: Chain.ChainId | undefined
    readonly include?: "internal_transactions" | undefined
  }): Block.Block {
    const chain = this.chain(params.chain)
    const number = blockNumberOf(chain, params.block)
    // A block before the simulated history is not known here either (it was a 500 before).
    const row = number === undefined ? undefined : chain.block(number)
    if (row === undefined) throw new NotFoundProblem("Block not found")
    return blockRecord(chain, row, params.include === "internal_transactions")
  }

  /** A7: the DeFi positions of a wallet at the head. */
  defiPositions(params: { readonly address: string; readonly chain?: Chain.ChainId | undefined }): ReadonlyArray<DefiPositions.ProtocolSummary> {
    const chain = this.chain(params.chain)
    return positionsAt(this.world.options.seed, chain.profile.id, params.address, chain.head)
  }
}
