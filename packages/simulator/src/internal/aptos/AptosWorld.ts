/**
 * One simulated Aptos network (family B): a deterministic world of wallets, creators, NFT
 * collections, tokens and coins that evolves one {@link AptosWorld.advance} tick at a time, and
 * the seven family B listings over it, answered in the decoded page types of
 * `@chainquery/schema`.
 *
 * Every listing reads at a snapshot: the ledger version current when its first page was asked
 * for, carried in the cursor. Walking all pages of a listing returns each record of that
 * snapshot exactly once, however far the world advances in between. Queries cost
 * O(keys · log n + offset + page), not O(world).
 *
 * @internal
 */
import type { AptosToken, LedgerPage } from "@chainquery/schema"
import { Option } from "effect"
import * as Cursor from "../Cursor.js"
import { Random } from "../Random.js"
import { tick } from "./AptosActivity.js"
import { type AptosNetwork, makeGenesis } from "./AptosGenesis.js"
import { AptosLedger, holdingKey, lowerBound } from "./AptosLedger.js"
import { type Collected, collect, descending, holdingsAt, merge, type Source } from "./AptosPaging.js"
import { coinRecord, collectionRecord, holdingRecord, transferRecord } from "./AptosRecords.js"

export type { AptosNetwork } from "./AptosGenesis.js"

/**
 * How to build a network. `history` is the number of ordinary ticks run after the mint-heavy
 * initial history (default 50).
 *
 * The same options always build the same world, e.g.
 * `{ seed: "demo/aptos/mainnet", network: "mainnet", history: 40 }`.
 */
export interface AptosWorldOptions {
  readonly seed: string
  readonly network: AptosNetwork
  readonly history?: number | undefined
}

/**
 * A page request, already validated: `limit` (1..100), `offset` (records to skip from the
 * position) and the `cursor` of the previous page.
 *
 * A first page gives only `limit` (and perhaps `offset`); each next page also passes the `cursor`
 * of the page before.
 */
export interface PageRequest {
  readonly limit: number
  readonly offset?: number | undefined
  readonly cursor?: string | undefined
}

/**
 * B1 filters: owner addresses (padded, lower-case) to exclude / to restrict to. An empty
 * whitelist is no whitelist.
 *
 * Each is `0x` and 64 hex digits, e.g. `"0x" + "ab".repeat(32)`.
 */
export interface WalletFilters {
  readonly walletBlacklist?: ReadonlyArray<string> | undefined
  readonly walletWhitelist?: ReadonlyArray<string> | undefined
}

/**
 * B2/B3/B5 filters: collection data id hashes to exclude / to restrict to. An empty whitelist is
 * no whitelist.
 *
 * In tests, `world.sampleCollections(n)` gives ids of busy collections to put in a whitelist.
 */
export interface CollectionFilters {
  readonly collectionBlacklist?: ReadonlyArray<string> | undefined
  readonly collectionWhitelist?: ReadonlyArray<string> | undefined
}

/**
 * B4/B7 bounds: inclusive, case-sensitive (UTF-16 code-unit order, so `"Z" < "a"`).
 *
 * `{ fromName: "A", toName: "Czz" }`, for instance, keeps the names from `"A"` to `"Czz"`, both
 * included.
 */
export interface NameRange {
  readonly fromName?: string | undefined
  readonly toName?: string | undefined
}

const byName = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0)

/** First index of `order` whose name is >= `name` (`strict`: > `name`). */
const nameBound = (order: ReadonlyArray<number>, nameOf: (i: number) => string, name: string, strict: boolean): number => {
  let lo = 0, hi = order.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    const key = nameOf(order[mid]!)
    if (key < name || (strict && key === name)) lo = mid + 1
    else hi = mid
  }
  return lo
}

/** A list as a sorted set for fingerprints; `undefined` when absent or empty. */
const normal = (items: ReadonlyArray<string> | undefined): ReadonlyArray<string> | undefined =>
  items === undefined || items.length === 0 ? undefined : [...new Set(items.map((i) => i.toLowerCase()))].toSorted()

interface Snapshot {
  readonly fingerprint: string
  readonly version: number
  /** Rows `[0, bound)` are the snapshot. */
  readonly bound: number
  /** Where the previous page stopped, when continuing. */
  readonly position: number | undefined
}

/**
 * A simulated Aptos network. Transfer listings (B2, B3) are newest first (descending version,
 * then descending event order); holding listings (B1, B5, B6) are in order of acquisition;
 * B4 and B7 are in name order.
 *
 * Build one with `new AptosWorld({ seed, network })`, read a listing with, say,
 * `world.transfersByWallets(world.sampleWallets(1), {}, { limit: 10 })`, and move it on one tick
 * with `world.advance()`.
 */
export class AptosWorld {
  readonly network: AptosNetwork
  readonly ledger: AptosLedger
  private readonly random: Random
  private ticks = 0
  private readonly collectionOrder: ReadonlyArray<number>
  private readonly coinOrder: ReadonlyArray<number>

  constructor(options: AptosWorldOptions) {
    this.network = options.network
    this.random = new Random(options.seed)
    this.ledger = new AptosLedger(makeGenesis(this.random.fork("genesis"), options.network), this.random.fork("ledger"))
    const { collections, coins, profile } = this.ledger.genesis
    this.collectionOrder = collections.map((c) => c.index).toSorted((a, b) =>
      byName(collections[a]!.name, collections[b]!.name) || byName(collections[a]!.id, collections[b]!.id)
    )
    this.coinOrder = coins.map((_, i) => i).toSorted((a, b) =>
      byName(coins[a]!.name, coins[b]!.name) || byName(coins[a]!.coinType, coins[b]!.coinType)
    )
    for (let i = 0; i < profile.bootstrapTicks; i++) this.step(true)
    for (let i = 0; i < (options.history ?? 50); i++) this.step(false)
  }

  /** One tick: a few new transactions (mints, transfers, sales, burns) at new versions. */
  advance(): void {
    this.step(false)
  }

  /** The newest ledger version. */
  latestVersion(): bigint {
    return BigInt(this.ledger.lastVersion())
  }

  /** B1: holdings of the tokens of one collection, as of the listing's snapshot. */
  ownersByCollection(collectionDataIdHash: string, filters: WalletFilters, page: PageRequest): LedgerPage.HoldingsPage {
    const id = collectionDataIdHash.toLowerCase()
    const whitelist = normal(filters.walletWhitelist), blacklist = normal(filters.walletBlacklist)
    const collection = this.ledger.collectionIndex.get(id)
    const keys = collection === undefined
      ? []
      : whitelist === undefined
      ? [holdingKey.collection(collection)]
      : this.accounts(whitelist).map((owner) => holdingKey.ownerCollection(owner, collection))
    const excluded = new Set(this.accounts(blacklist))
    return this.holdingsPage("owners-by-collection", { id, whitelist, blacklist }, keys, (h) => !excluded.has(this.ledger.holdings[h]!.owner), page)
  }

  /** B2: transfers of tokens whose collection was created by one of `creators`, newest first. */
  transfersByCreators(creators: ReadonlyArray<string>, filters: CollectionFilters, page: PageRequest): LedgerPage.TransfersPage {
    const creatorList = normal(creators) ?? []
    const whitelist = normal(filters.collectionWhitelist), blacklist = normal(filters.collectionBlacklist)
    const creatorSet = new Set(this.accounts(creatorList))
    const { collections } = this.ledger.genesis
    const lists = whitelist === undefined
      ? [...creatorSet].map((creator) => this.ledger.byCreator.get(creator) ?? [])
      : this.collectionsOf(whitelist).filter((c) => creatorSet.has(collections[c]!.creator)).map((c) => this.ledger.byCollection[c]!)
    return this.transfersPage("transfers-by-creators", { creators: creatorList, whitelist, blacklist }, lists, blacklist, page)
  }

  /** B3: transfers from or to any of `wallets`, newest first; a transfer between two of them comes once. */
  transfersByWallets(wallets: ReadonlyArray<string>, filters: CollectionFilters, page: PageRequest): LedgerPage.TransfersPage {
    const parties = normal(wallets) ?? []
    const whitelist = normal(filters.collectionWhitelist), blacklist = normal(filters.collectionBlacklist)
    const accounts = this.accounts(parties)
    const lists = whitelist === undefined
      ? accounts.map((a) => this.ledger.byAccount.get(a) ?? [])
      : accounts.flatMap((a) => this.collectionsOf(whitelist).map((c) => this.ledger.byAccountCollection.get(`${a}:${c}`) ?? []))
    return this.transfersPage("transfers-by-wallets", { wallets: parties, whitelist, blacklist }, lists, blacklist, page)
  }

  /** B4: collections in name order, optionally within an inclusive, case-sensitive name range. */
  collections(range: NameRange, page: PageRequest): LedgerPage.CollectionsPage {
    const { collections } = this.ledger.genesis
    return this.rangePage("collections", this.collectionOrder, (c) => collections[c]!.name, range, page, (c, bound) =>
      collectionRecord(this.ledger, c, bound))
  }

  /** B5: holdings of any of `owners`, as of the listing's snapshot. */
  nftsByOwners(owners: ReadonlyArray<string>, filters: CollectionFilters, page: PageRequest): LedgerPage.HoldingsPage {
    const holders = normal(owners) ?? []
    const whitelist = normal(filters.collectionWhitelist), blacklist = normal(filters.collectionBlacklist)
    const accounts = this.accounts(holders)
    const keys = whitelist === undefined
      ? accounts.map(holdingKey.owner)
      : accounts.flatMap((a) => this.collectionsOf(whitelist).map((c) => holdingKey.ownerCollection(a, c)))
    const excluded = new Set(this.collectionsOf(blacklist))
    const keep = (h: number) => !excluded.has(this.ledger.tokens[this.ledger.holdings[h]!.token]!.collection)
    return this.holdingsPage("nfts-by-owners", { owners: holders, whitelist, blacklist }, keys, keep, page)
  }

  /** B6: holdings of any of the tokens, as of the listing's snapshot. */
  ownersByTokens(tokenDataIdHashes: ReadonlyArray<string>, page: PageRequest): LedgerPage.HoldingsPage {
    const ids = normal(tokenDataIdHashes) ?? []
    const keys = ids.flatMap((id) => {
      const token = this.ledger.tokenIndex.get(id)
      return token === undefined ? [] : [holdingKey.token(token)]
    })
    return this.holdingsPage("owners-by-tokens", { ids }, keys, () => true, page)
  }

  /** B7: coins in name order (A-Z, code-unit order), optionally within an inclusive, case-sensitive range. */
  coinsByNameRange(range: NameRange, page: PageRequest): LedgerPage.CoinsPage {
    const { coins } = this.ledger.genesis
    return this.rangePage("coins-by-name", this.coinOrder, (c) => coins[c]!.name, range, page, (c) => coinRecord(this.ledger, coins[c]!))
  }

  /** Ground truth: every NFT transfer at or after `fromVersion`, in chain order (ascending). */
  transfersSince(fromVersion: bigint): ReadonlyArray<AptosToken.TokenTransfer> {
    const from = fromVersion > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Math.max(0, Number(fromVersion))
    const start = lowerBound(this.ledger.versions, (v) => v, from)
    return this.ledger.rows.slice(start).map((row) => transferRecord(this.ledger, row))
  }

  /** Ground truth: the current holdings of an address, in order of acquisition. */
  holdingsOf(owner: string): ReadonlyArray<AptosToken.TokenHolding> {
    const account = this.ledger.accountIndex.get(owner.toLowerCase())
    const index = account === undefined ? undefined : this.ledger.holdingIndexes.get(holdingKey.owner(account))
    return (index?.open ?? []).map((h) => holdingRecord(this.ledger, h, this.ledger.rows.length))
  }

  /** The `n` busiest wallets (most transfers), for tests and demos. */
  sampleWallets(n: number): ReadonlyArray<string> {
    return this.busiest(this.ledger.genesis.wallets, (a) => this.ledger.byAccount.get(a)?.length ?? 0, n)
      .map((a) => this.ledger.genesis.accounts[a]!)
  }

  /** The `n` creators whose collections saw the most transfers. */
  sampleCreators(n: number): ReadonlyArray<string> {
    return this.busiest(this.ledger.genesis.creators, (a) => this.ledger.byCreator.get(a)?.length ?? 0, n)
      .map((a) => this.ledger.genesis.accounts[a]!)
  }

  /** The `collection_data_id_hash` of the `n` busiest collections. */
  sampleCollections(n: number): ReadonlyArray<string> {
    const { collections } = this.ledger.genesis
    return this.busiest(collections.map((c) => c.index), (c) => this.ledger.byCollection[c]!.length, n).map((c) => collections[c]!.id)
  }

  /** The `token_data_id_hash` of `n` tokens held now, those with the most owners first. */
  sampleTokens(n: number): ReadonlyArray<string> {
    const owners = new Map<number, number>()
    for (const h of this.ledger.live) {
      const token = this.ledger.holdings[h]!.token
      owners.set(token, (owners.get(token) ?? 0) + 1)
    }
    return this.busiest([...owners.keys()], (t) => owners.get(t)!, n).map((t) => this.ledger.tokens[t]!.id)
  }

  private step(bootstrap: boolean): void {
    tick(this.ledger, this.random.fork("tick", this.ticks), bootstrap)
    this.ticks++
  }

  private busiest(items: ReadonlyArray<number>, weight: (item: number) => number, n: number): ReadonlyArray<number> {
    return items.toSorted((a, b) => weight(b) - weight(a) || a - b).slice(0, Math.max(0, n))
  }

  private accounts(addresses: ReadonlyArray<string> | undefined): ReadonlyArray<number> {
    return (addresses ?? []).flatMap((a) => {
      const index = this.ledger.accountIndex.get(a)
      return index === undefined ? [] : [index]
    })
  }

  private collectionsOf(ids: ReadonlyArray<string> | undefined): ReadonlyArray<number> {
    return (ids ?? []).flatMap((id) => {
      const index = this.ledger.collectionIndex.get(id)
      return index === undefined ? [] : [index]
    })
  }

  /** Opens or resumes a listing; a cursor of another listing, or from the future, is invalid. */
  private snapshot(route: string, params: Record<string, unknown>, page: PageRequest): Snapshot {
    const fingerprint = Cursor.fingerprint(`aptos/${this.network}/${route}`, params)
    if (page.cursor === undefined) {
      const version = this.ledger.lastVersion()
      return { fingerprint, version, bound: this.ledger.rowBound(version), position: undefined }
    }
    const state = Cursor.decodeOrThrow(page.cursor, fingerprint)
    const first = this.ledger.genesis.profile.firstVersion - 1
    if (state.s < first || state.s > this.ledger.lastVersion() || state.p < 0) throw new Cursor.InvalidCursor()
    return { fingerprint, version: state.s, bound: this.ledger.rowBound(state.s), position: state.p }
  }

  private envelope<A>(snapshot: Snapshot, page: Collected<A>, position: (next: number) => number) {
    const more = page.next !== undefined
    return {
      cursor: page.next === undefined
        ? Option.none<string>()
        : Option.some(Cursor.encode({ q: snapshot.fingerprint, s: snapshot.version, p: position(page.next) })),
      hasNextPage: more,
      result: page.items,
      rejected: []
    }
  }

  private walk<A>(page: PageRequest, keep: (id: number) => boolean, map: (id: number) => A) {
    return { offset: Math.max(0, page.offset ?? 0), limit: Math.max(0, page.limit), keep, map }
  }

  private holdingsPage(
    route: string,
    params: Record<string, unknown>,
    keys: ReadonlyArray<string>,
    keep: (holding: number) => boolean,
    page: PageRequest
  ): LedgerPage.HoldingsPage {
    const snapshot = this.snapshot(route, params, page)
    if ((snapshot.position ?? 0) > this.ledger.holdings.length) throw new Cursor.InvalidCursor()
    const from = snapshot.position ?? 0
    const sources = keys.flatMap((key) => {
      const index = this.ledger.holdingIndexes.get(key)
      return index === undefined ? [] : [holdingsAt(this.ledger, index, snapshot.bound, from)]
    })
    const map = (h: number) => holdingRecord(this.ledger, h, snapshot.bound)
    return this.envelope(snapshot, collect(merge(sources, "asc"), this.walk(page, keep, map)), (next) => next)
  }

  private transfersPage(
    route: string,
    params: Record<string, unknown>,
    lists: ReadonlyArray<ReadonlyArray<number>>,
    blacklist: ReadonlyArray<string> | undefined,
    page: PageRequest
  ): LedgerPage.TransfersPage {
    const snapshot = this.snapshot(route, params, page)
    if ((snapshot.position ?? 0) > snapshot.bound) throw new Cursor.InvalidCursor()
    const before = snapshot.position ?? snapshot.bound
    const excluded = new Set(this.collectionsOf(blacklist))
    const keep = (row: number) => !excluded.has(this.ledger.tokens[this.ledger.rows[row]!.token]!.collection)
    const map = (row: number) => transferRecord(this.ledger, this.ledger.rows[row]!)
    const source = merge(lists.map((list) => descending(list, before)), "desc")
    return this.envelope(snapshot, collect(source, this.walk(page, keep, map)), (next) => next + 1)
  }

  private rangePage<A>(
    route: string,
    order: ReadonlyArray<number>,
    nameOf: (item: number) => string,
    range: NameRange,
    page: PageRequest,
    record: (item: number, bound: number) => A
  ) {
    const { fromName, toName } = range
    const snapshot = this.snapshot(route, { fromName, toName }, page)
    const lo = fromName === undefined ? 0 : nameBound(order, nameOf, fromName, false)
    const hi = Math.max(lo, toName === undefined ? order.length : nameBound(order, nameOf, toName, true))
    const start = snapshot.position ?? lo
    if (start < lo || start > hi) throw new Cursor.InvalidCursor()
    let i = start
    const source: Source = { peek: () => (i < hi ? i : undefined), skip: () => void i++ }
    const map = (position: number) => record(order[position]!, snapshot.bound)
    return this.envelope(snapshot, collect(source, this.walk(page, () => true, map)), (next) => next)
  }
}
