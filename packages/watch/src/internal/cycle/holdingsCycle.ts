/**
 * Holdings in a cycle (`watch: holdings`): for each collection in which watched wallets have new
 * NFT events, the collection's owners (A5, every page) give each of those wallets' balance of
 * each token it moved, reported after the cycle's other events of the chain. A collection whose
 * first page says `SYNCING` is reported as such (one `holding.syncing` per wallet), not as
 * empty, and its pages are not walked.
 *
 * @internal
 */
import type { EvmClient } from "@chainquery/evm-client"
import type { Chain, EvmAddress, EvmPage } from "@chainquery/schema"
import { Effect, Option } from "effect"
import { type EngineError, fromClient as failed } from "../../EngineError.js"
import { type HoldingEvent, holdingSyncing, holdingUpdated } from "../../HoldingEvents.js"
import type { WatchEvent } from "../../WatchEvent.js"

export interface Moved {
  readonly wallet: EvmAddress.EvmAddress
  readonly tokens: Set<bigint>
  block: bigint
  /** Whether `holding.syncing` was reported for this wallet and collection already. */
  syncingReported: boolean
}

/** Per collection, per wallet: the tokens moved this cycle and the newest block they moved in. */
const movedOf = (events: ReadonlyArray<WatchEvent>): Map<string, Map<string, Moved>> => {
  const collections = new Map<string, Map<string, Moved>>()
  for (const event of events) {
    if (event.kind !== "nft.received" && event.kind !== "nft.sent") continue
    const wallets = collections.get(event.collection) ?? new Map<string, Moved>()
    collections.set(event.collection, wallets)
    const moved = wallets.get(event.wallet)
    if (moved === undefined) {
      wallets.set(event.wallet, { wallet: event.wallet, tokens: new Set([event.tokenId]), block: event.blockNumber, syncingReported: false })
    }
    else {
      moved.tokens.add(event.tokenId)
      if (event.blockNumber > moved.block) moved.block = event.blockNumber
    }
  }
  return collections
}

const ownersOf = Effect.fnUntraced(function*(
  client: EvmClient.Service,
  chain: Chain.ChainId,
  collection: string,
  wallets: ReadonlyMap<string, Moved>
) {
  const balances = new Map<string, bigint>()
  let cursor: string | undefined = undefined
  do {
    const page: EvmPage.OwnersPage = yield* client.getNFTOwners({
      address: collection,
      chain,
      limit: 100,
      ...(cursor === undefined ? {} : { cursor })
    }).pipe(Effect.mapError(failed("getNFTOwners")))
    if (cursor === undefined && Option.getOrUndefined(page.status) === "SYNCING") return Option.none<Map<string, bigint>>()
    for (const owner of page.result) {
      const wallet = owner.owner_of.toLowerCase()
      if (!wallets.get(wallet)?.tokens.has(owner.token_id)) continue
      const id = `${wallet}:${owner.token_id}`
      balances.set(id, (balances.get(id) ?? 0n) + owner.amount)
    }
    cursor = Option.getOrUndefined(page.cursor)
  } while (cursor !== undefined)
  return Option.some(balances)
})

/**
 * What is still owed a `holding.updated`: per collection that was `SYNCING`, the wallets and the
 * tokens they moved. Kept in memory by the engine (per chain) from a committed cycle to the
 * next, checked again every cycle until the collection is synced; lost on a restart.
 */
export type Pending = Map<string, Map<string, Moved>>

/** Adds `more` to what is pending for a collection. */
const remember = (pending: Pending, collection: string, more: ReadonlyMap<string, Moved>) => {
  const wallets = pending.get(collection) ?? new Map<string, Moved>()
  pending.set(collection, wallets)
  for (const moved of more.values()) {
    const known = wallets.get(moved.wallet)
    if (known === undefined) wallets.set(moved.wallet, { ...moved, tokens: new Set(moved.tokens) })
    else {
      for (const token of moved.tokens) known.tokens.add(token)
      if (moved.block > known.block) known.block = moved.block
    }
  }
}

const byToken = (a: bigint, b: bigint) => (a < b ? -1 : a > b ? 1 : 0)

/** A copy of what is pending that can be changed without changing the original. */
const copyOf = (pending: Pending): Pending =>
  new Map([...pending].map(([collection, wallets]) => [
    collection,
    new Map([...wallets].map(([wallet, moved]) => [wallet, { ...moved, tokens: new Set(moved.tokens) }]))
  ]))

/**
 * What is pending after a cycle whose holdings could not be read: what was, and every collection
 * in which the cycle's events moved tokens (checked again next cycle, so no report is lost).
 */
export const owedAfterFailure = (before: Pending, events: ReadonlyArray<WatchEvent>): Pending => {
  const pending = copyOf(before)
  for (const [collection, wallets] of movedOf(events)) remember(pending, collection, wallets)
  return pending
}

/** A cycle's holding reports, and what is pending after them (to keep once the cycle is committed). */
export interface Holdings {
  readonly reports: ReadonlyArray<HoldingEvent>
  readonly pending: Pending
}

/**
 * The holding reports of a chain's new NFT events, and of the collections still pending from
 * earlier cycles: `holding.updated` once a collection is synced, `holding.syncing` the first time
 * a wallet's tokens moved in a collection that is not. `before` is left as it is: a cycle that is
 * not committed must not change what the next one owes.
 */
export const holdingsOf: (
  client: EvmClient.Service,
  chain: Chain.ChainId,
  events: ReadonlyArray<WatchEvent>,
  before: Pending
) => Effect.Effect<Holdings, EngineError> = Effect.fnUntraced(function*(
  client: EvmClient.Service,
  chain: Chain.ChainId,
  events: ReadonlyArray<WatchEvent>,
  before: Pending
) {
  const pending = copyOf(before)
  const reports: Array<HoldingEvent> = []
  const moved = movedOf(events)
  for (const collection of new Set([...moved.keys(), ...pending.keys()])) {
    const fresh = moved.get(collection) ?? new Map<string, Moved>()
    const waiting = pending.get(collection)
    if (waiting !== undefined) remember(pending, collection, fresh)
    const all = waiting ?? fresh
    const balances = yield* ownersOf(client, chain, collection, all)
    if (Option.isNone(balances)) {
      if (waiting === undefined) remember(pending, collection, fresh)
      // Once per wallet and collection: the wallets owed since a failed read are reported too.
      for (const entry of pending.get(collection)?.values() ?? []) {
        if (entry.syncingReported) continue
        reports.push(holdingSyncing(chain, entry.wallet, collection, entry.block))
        entry.syncingReported = true
      }
      continue
    }
    pending.delete(collection)
    for (const entry of all.values()) {
      for (const tokenId of [...entry.tokens].toSorted(byToken)) {
        reports.push(holdingUpdated(chain, entry.wallet, collection, tokenId, balances.value.get(`${entry.wallet}:${tokenId}`) ?? 0n, entry.block))
      }
    }
  }
  return { reports, pending } satisfies Holdings
})
