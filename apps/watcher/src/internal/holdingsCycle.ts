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
import { type EngineError, fromClient as failed } from "../EngineError.js"
import { type HoldingEvent, holdingSyncing, holdingUpdated } from "../HoldingEvents.js"
import type { WatchEvent } from "../WatchEvent.js"

interface Moved {
  readonly wallet: EvmAddress.EvmAddress
  readonly tokens: Set<bigint>
  block: bigint
}

/** Per collection, per wallet: the tokens moved this cycle and the newest block they moved in. */
const movedOf = (events: ReadonlyArray<WatchEvent>): Map<string, Map<string, Moved>> => {
  const collections = new Map<string, Map<string, Moved>>()
  for (const event of events) {
    if (event.kind !== "nft.received" && event.kind !== "nft.sent") continue
    const wallets = collections.get(event.collection) ?? new Map<string, Moved>()
    collections.set(event.collection, wallets)
    const moved = wallets.get(event.wallet)
    if (moved === undefined) wallets.set(event.wallet, { wallet: event.wallet, tokens: new Set([event.tokenId]), block: event.blockNumber })
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

/** The holding reports of a chain's new NFT events. */
export const holdingsOf: (
  client: EvmClient.Service,
  chain: Chain.ChainId,
  events: ReadonlyArray<WatchEvent>
) => Effect.Effect<ReadonlyArray<HoldingEvent>, EngineError> = Effect.fnUntraced(function*(
  client: EvmClient.Service,
  chain: Chain.ChainId,
  events: ReadonlyArray<WatchEvent>
) {
  const reports: Array<HoldingEvent> = []
  for (const [collection, wallets] of movedOf(events)) {
    const balances = yield* ownersOf(client, chain, collection, wallets)
    for (const moved of wallets.values()) {
      if (Option.isNone(balances)) {
        reports.push(holdingSyncing(chain, moved.wallet, collection, moved.block))
        continue
      }
      for (const tokenId of [...moved.tokens].toSorted((a, b) => (a < b ? -1 : a > b ? 1 : 0))) {
        reports.push(holdingUpdated(chain, moved.wallet, collection, tokenId, balances.value.get(`${moved.wallet}:${tokenId}`) ?? 0n, moved.block))
      }
    }
  }
  return reports
})
