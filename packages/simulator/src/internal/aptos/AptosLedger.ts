/**
 * The evolving state of one simulated Aptos network: the chain-ordered NFT transfer rows, the
 * tokens they created, the holdings they imply, and append-only indexes over them. Every list is
 * kept in chain order (row ids and holding ids only grow), so a query at any past version is a
 * binary search plus a walk of one page.
 *
 * A holding is the interval during which an owner has a positive balance of a token: it opens at
 * the row that takes the balance above zero and closes at the row that takes it back to zero.
 * The holdings of a key (owner, collection, token, owner and collection) at a snapshot are its
 * open intervals opened before the snapshot plus those closed after it.
 *
 * @internal
 */
import type { Random } from "../Random.js"
import { type Genesis, millisAt } from "./AptosGenesis.js"

/**
 * What a transfer row records.
 *
 * {@link transferTypes} gives the Move event type written for each.
 */
export type TransferKind = "mint" | "deposit" | "claim" | "burn"

/**
 * The `transfer_type` written for each kind (the Move event type, as the service reports it).
 *
 * A claim, for instance, is written as `0x3::token_transfers::TokenClaimEvent`; the other kinds are
 * `0x3::token` events.
 */
export const transferTypes: Readonly<Record<TransferKind, string>> = {
  mint: "0x3::token::MintTokenEvent",
  deposit: "0x3::token::DepositEvent",
  claim: "0x3::token_transfers::TokenClaimEvent",
  burn: "0x3::token::BurnTokenEvent"
}

/**
 * One NFT transfer. `from` is -1 for a mint and `to` is -1 for a burn; accounts are indexes
 * into `genesis.accounts`.
 *
 * A row is a sale when `coinAmount` (with its `coinType`) is set; every other row has `null` in
 * both.
 */
export interface TransferRow {
  readonly version: number
  readonly token: number
  readonly from: number
  readonly to: number
  readonly amount: number
  readonly kind: TransferKind
  readonly coinAmount: bigint | null
  readonly coinType: string | null
  readonly eventAccount: number
  readonly creationNumber: number
  readonly sequenceNumber: number
}

/**
 * A token (token data) created by a mint row.
 *
 * `id` is the `token_data_id_hash` (64 hex digits) and `name` is `<collection> #n` or `#n` (see
 * `CollectionInfo.prefixedNames`).
 */
export interface TokenRow {
  readonly id: string
  readonly collection: number
  readonly name: string
  readonly propertyVersion: number
  /** `token_properties`: a JSON object as text, e.g. `{"HP":"10"}`. */
  readonly properties: string
  readonly mintRow: number
}

/**
 * An interval of positive balance of `token` held by `owner`; `closeRow` is `Infinity` while
 * open, `amount` the current balance, `events` the rows that changed it (ascending).
 */
export interface HoldingRow {
  readonly owner: number
  readonly token: number
  readonly openRow: number
  closeRow: number
  amount: number
  readonly events: Array<number>
}

/**
 * The holdings of one key: ids of the open ones (ascending) and of the closed ones (in close
 * order, hence by ascending `closeRow`).
 *
 * A new index has both lists empty; the ledger makes one for a key (see {@link holdingKey}) when
 * the first holding of that key opens.
 */
export class HoldingIndex {
  readonly open: Array<number> = []
  readonly closed: Array<number> = []
}

/**
 * The keys of the holding indexes.
 *
 * `holdingKey.ownerCollection(3, 7)` is `"w3:7"`; the other keys are `o<owner>`, `c<collection>`
 * and `t<token>`.
 */
export const holdingKey = {
  owner: (owner: number) => `o${owner}`,
  collection: (collection: number) => `c${collection}`,
  token: (token: number) => `t${token}`,
  ownerCollection: (owner: number, collection: number) => `w${owner}:${collection}`
}

/**
 * First index in the ascending `items` whose key is >= `target`.
 *
 * `lowerBound([1, 3, 5], (x) => x, 4)` is 2; it is `items.length` when every key is below `target`.
 */
export const lowerBound = <A>(items: ReadonlyArray<A>, key: (item: A) => number, target: number): number => {
  let lo = 0, hi = items.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (key(items[mid]!) < target) lo = mid + 1
    else hi = mid
  }
  return lo
}

const self = (n: number) => n

const push = <K>(map: Map<K, Array<number>>, key: K, id: number): void => {
  const list = map.get(key)
  if (list === undefined) map.set(key, [id])
  else list.push(id)
}

/**
 * Rows, tokens, holdings and their indexes; grows only through {@link AptosLedger.mint},
 * {@link AptosLedger.move} and {@link AptosLedger.burn}.
 *
 * A ledger starts empty from a genesis and a random of its own (for event handles);
 * `ledger.mint(version, collection, to, amount, random)` then creates a token and returns its
 * index.
 */
export class AptosLedger {
  readonly rows: Array<TransferRow> = []
  readonly versions: Array<number> = []
  readonly tokens: Array<TokenRow> = []
  readonly holdings: Array<HoldingRow> = []
  readonly tokenIndex = new Map<string, number>()
  readonly accountIndex: ReadonlyMap<string, number>
  readonly collectionIndex: ReadonlyMap<string, number>
  /** Rows by creator account, by participant account, by `account:collection`, by collection. */
  readonly byCreator = new Map<number, Array<number>>()
  readonly byAccount = new Map<number, Array<number>>()
  readonly byAccountCollection = new Map<string, Array<number>>()
  readonly byCollection: ReadonlyArray<Array<number>>
  /** Tokens of each collection, in mint order. */
  readonly collectionTokens: ReadonlyArray<Array<number>>
  readonly holdingIndexes = new Map<string, HoldingIndex>()
  /** Ids of the currently open holdings, in no particular order (for picking one at random). */
  readonly live: Array<number> = []
  private readonly livePosition = new Map<number, number>()
  private readonly openByPair = new Map<string, number>()
  private readonly handles = new Map<string, number>()
  private readonly nextHandle = new Map<number, number>()
  private readonly sequences = new Map<string, number>()

  constructor(readonly genesis: Genesis, private readonly random: Random) {
    this.accountIndex = new Map(genesis.accounts.map((a, i) => [a, i]))
    this.collectionIndex = new Map(genesis.collections.map((c) => [c.id, c.index]))
    this.byCollection = genesis.collections.map(() => [])
    this.collectionTokens = genesis.collections.map(() => [])
  }

  /** The version of the newest row (one before the first version when there is none). */
  lastVersion(): number {
    return this.versions.at(-1) ?? this.genesis.profile.firstVersion - 1
  }

  /** The number of rows at or before `version`: rows `[0, bound)` form the snapshot. */
  rowBound(version: number): number {
    return lowerBound(this.versions, self, version + 1)
  }

  /** Creates a token of `collection` and mints `amount` of it to `to`; returns the token. */
  mint(version: number, collection: number, to: number, amount: number, random: Random): number {
    const info = this.genesis.collections[collection]!
    const serial = this.collectionTokens[collection]!.length + 1
    const properties: Record<string, string> = {}
    for (const key of info.propertyKeys) properties[key] = propertyValue(key, random, millisAt(this.genesis.profile, version))
    const token = this.tokens.length
    this.tokens.push({
      id: this.freshTokenId(random),
      collection,
      name: info.prefixedNames ? `${info.name} #${serial}` : `#${serial}`,
      propertyVersion: info.propertyVersion,
      properties: JSON.stringify(properties),
      mintRow: this.rows.length
    })
    this.tokenIndex.set(this.tokens[token]!.id, token)
    this.collectionTokens[collection]!.push(token)
    this.append({ version, token, from: -1, to, amount, kind: "mint", coinAmount: null, coinType: null, account: info.creator })
    return token
  }

  /** Moves `amount` of an open holding to `to` (a claim, or a deposit; a sale when `coin` is set). */
  move(
    version: number,
    holding: number,
    to: number,
    amount: number,
    kind: "deposit" | "claim",
    coin: { readonly amount: bigint; readonly type: string } | null
  ): void {
    const { owner, token } = this.holdings[holding]!
    this.append({
      version, token, from: owner, to, amount, kind,
      coinAmount: coin?.amount ?? null, coinType: coin?.type ?? null,
      account: kind === "claim" ? owner : to
    })
  }

  /** Burns `amount` of an open holding. */
  burn(version: number, holding: number, amount: number): void {
    const { owner, token } = this.holdings[holding]!
    this.append({ version, token, from: owner, to: -1, amount, kind: "burn", coinAmount: null, coinType: null, account: owner })
  }

  /** The balance of a holding at a snapshot of `bound` rows. */
  amountAt(holding: HoldingRow, bound: number): number {
    let amount = 0
    for (const id of holding.events) {
      if (id >= bound) break
      const row = this.rows[id]!
      amount += row.to === holding.owner ? row.amount : -row.amount
    }
    return amount
  }

  /** The newest row of a holding at a snapshot of `bound` rows. */
  lastRowAt(holding: HoldingRow, bound: number): TransferRow {
    const index = lowerBound(holding.events, self, bound) - 1
    return this.rows[holding.events[Math.max(0, index)]!]!
  }

  private freshTokenId(random: Random): string {
    let id = random.hex(32)
    while (this.tokenIndex.has(id)) id = random.hex(32)
    return id
  }

  private handleOf(account: number, kind: TransferKind): { readonly creation: number; readonly sequence: number } {
    const key = `${account}:${kind}`
    let creation = this.handles.get(key)
    if (creation === undefined) {
      creation = this.nextHandle.get(account) ?? this.random.fork("handles", account).between(2, 30)
      this.handles.set(key, creation)
      this.nextHandle.set(account, creation + 1)
    }
    const sequence = this.sequences.get(key) ?? 0
    this.sequences.set(key, sequence + 1)
    return { creation, sequence }
  }

  private append(
    input: Omit<TransferRow, "eventAccount" | "creationNumber" | "sequenceNumber"> & { readonly account: number }
  ): void {
    const { account, ...fields } = input
    const handle = this.handleOf(account, fields.kind)
    const row: TransferRow = { ...fields, eventAccount: account, creationNumber: handle.creation, sequenceNumber: handle.sequence }
    const id = this.rows.length
    this.rows.push(row)
    this.versions.push(row.version)
    const token = this.tokens[row.token]!
    const collection = token.collection
    push(this.byCreator, this.genesis.collections[collection]!.creator, id)
    this.byCollection[collection]!.push(id)
    for (const party of row.from === row.to ? [row.from] : [row.from, row.to]) {
      if (party < 0) continue
      push(this.byAccount, party, id)
      push(this.byAccountCollection, `${party}:${collection}`, id)
    }
    if (row.from >= 0) this.debit(row.from, row.token, row.amount, id)
    if (row.to >= 0) this.credit(row.to, row.token, row.amount, id)
  }

  private keysOf(owner: number, token: number): ReadonlyArray<HoldingIndex> {
    const collection = this.tokens[token]!.collection
    return [
      holdingKey.owner(owner),
      holdingKey.collection(collection),
      holdingKey.token(token),
      holdingKey.ownerCollection(owner, collection)
    ].map((key) => {
      let index = this.holdingIndexes.get(key)
      if (index === undefined) {
        index = new HoldingIndex()
        this.holdingIndexes.set(key, index)
      }
      return index
    })
  }

  private credit(owner: number, token: number, amount: number, row: number): void {
    const pair = `${owner}:${token}`
    const open = this.openByPair.get(pair)
    if (open !== undefined) {
      const holding = this.holdings[open]!
      holding.amount += amount
      holding.events.push(row)
      return
    }
    const id = this.holdings.length
    this.holdings.push({ owner, token, openRow: row, closeRow: Number.POSITIVE_INFINITY, amount, events: [row] })
    this.openByPair.set(pair, id)
    for (const index of this.keysOf(owner, token)) index.open.push(id)
    this.livePosition.set(id, this.live.length)
    this.live.push(id)
  }

  private debit(owner: number, token: number, amount: number, row: number): void {
    const pair = `${owner}:${token}`
    const id = this.openByPair.get(pair)
    if (id === undefined) throw new Error(`account ${owner} holds no token ${token}`)
    const holding = this.holdings[id]!
    if (holding.amount < amount) throw new Error(`account ${owner} holds ${holding.amount} of token ${token}, not ${amount}`)
    holding.amount -= amount
    holding.events.push(row)
    if (holding.amount > 0) return
    holding.closeRow = row
    this.openByPair.delete(pair)
    for (const index of this.keysOf(owner, token)) {
      index.open.splice(lowerBound(index.open, self, id), 1)
      index.closed.push(id)
    }
    const position = this.livePosition.get(id)!
    const last = this.live.pop()!
    if (last !== id) {
      this.live[position] = last
      this.livePosition.set(last, position)
    }
    this.livePosition.delete(id)
  }
}

const rarities = ["Common", "Uncommon", "Rare", "Epic", "Legendary"]
const colours = ["Blue", "Sunset", "Mint", "Night", "Gold"]

const propertyValue = (key: string, random: Random, millis: number): string => {
  switch (key) {
    case "HP":
      return String(random.between(1, 100))
    case "LEVEL":
      return String(random.between(1, 10))
    case "RARITY":
      return random.pick(rarities)
    case "PRODUCTION_DATE":
      return String(Math.floor(millis / 1000))
    default:
      return random.pick(colours)
  }
}
