/**
 * Trades in a cycle: trades are a subset of transfers, so A4 is read only for the wallets that
 * have new NFT events this cycle on a chain with trades, over the blocks of those events, and a
 * trade is kept only when its transaction is one of the wallet's new transfers (so a block read
 * again for a reorganisation never repeats an older trade). Trade events are placed right after
 * the wallet's last transfer event of the same transaction, and recorded with the block's events
 * so that a reorganisation retracts them too.
 *
 * @internal
 */
import type { EvmClient } from "@chainquery/evm-client"
import { Chain } from "@chainquery/schema"
import { Effect, Stream } from "effect"
import { fromClient as failed } from "../../EngineError.js"
import type { NftEvent } from "../../NftEvents.js"
import type { BlockEvents } from "../../StateStore.js"
import { fromTrade, type TradeEvent } from "../../TradeEvents.js"
import type { WatchEvent } from "../../WatchEvent.js"
import type { Step } from "./cycleStep.js"

const isNft = (event: WatchEvent): event is NftEvent => event.kind === "nft.received" || event.kind === "nft.sent"

const tradeChains: ReadonlySet<string> = new Set(Chain.tradeChainIds)

/** Whether the service offers trades (A4) on a chain. */
export const hasTrades = (chain: Chain.ChainId): boolean => tradeChains.has(chain)

interface Activity {
  readonly wallet: NftEvent["wallet"]
  from: bigint
  to: bigint
  readonly transactions: Set<string>
}

const activityOf = (events: ReadonlyArray<WatchEvent>): Map<string, Activity> => {
  const byWallet = new Map<string, Activity>()
  for (const event of events) {
    if (!isNft(event)) continue
    const known = byWallet.get(event.wallet)
    if (known === undefined) {
      byWallet.set(event.wallet, { wallet: event.wallet, from: event.blockNumber, to: event.blockNumber, transactions: new Set([event.transactionHash]) })
    } else {
      if (event.blockNumber < known.from) known.from = event.blockNumber
      if (event.blockNumber > known.to) known.to = event.blockNumber
      known.transactions.add(event.transactionHash)
    }
  }
  return byWallet
}

/** Every trade of the wallet's new transactions, read with A4 over their blocks. */
const readTrades = (client: EvmClient.Service, chain: Chain.ChainId, activity: Activity) =>
  client.streamNFTTradesByWallet({ address: activity.wallet, chain, fromBlock: activity.from, toBlock: activity.to, limit: 100 }).pipe(
    Stream.runCollect,
    Effect.mapError(failed("getNFTTradesByWallet")),
    Effect.map((trades) =>
      [...trades]
        .filter((trade) => activity.transactions.has(trade.transaction_hash.toLowerCase()))
        .flatMap((trade) => fromTrade(chain, activity.wallet, trade))
    )
  )

const key = (wallet: string, transaction: string) => `${wallet}:${transaction}`

/** Puts each trade event after the last event of its wallet and transaction. */
const interleave = (events: ReadonlyArray<WatchEvent>, trades: ReadonlyArray<TradeEvent>): Array<WatchEvent> => {
  const pending = new Map<string, Array<TradeEvent>>()
  for (const trade of trades) pending.set(key(trade.wallet, trade.transactionHash), [...pending.get(key(trade.wallet, trade.transactionHash)) ?? [], trade])
  const last = new Map<string, number>()
  events.forEach((event, index) => {
    if (isNft(event)) last.set(key(event.wallet, event.transactionHash), index)
  })
  const out: Array<WatchEvent> = []
  events.forEach((event, index) => {
    out.push(event)
    if (!isNft(event)) return
    const k = key(event.wallet, event.transactionHash)
    if (last.get(k) === index) out.push(...pending.get(k) ?? [])
  })
  return out
}

/** Adds the step's trades: to its events, and to the recorded events of their blocks. */
export const withTrades = Effect.fnUntraced(function*(client: EvmClient.Service, chain: Chain.ChainId, step: Step) {
  if (!hasTrades(chain)) return step
  const activity = [...activityOf(step.events).values()]
  if (activity.length === 0) return step
  // A trade on record already (its transfer came back under a new log index after a
  // reorganisation, its trade stayed) is neither printed nor recorded again.
  const recorded = new Set(step.blockEvents.flatMap((entry) => entry.events.map((event) => event.id)))
  const trades = (yield* Effect.forEach(activity, (a) => readTrades(client, chain, a), { concurrency: 4 }))
    .flat()
    .filter((trade) => !recorded.has(trade.id))
  if (trades.length === 0) return step
  const byBlock = new Map<bigint, Array<TradeEvent>>()
  for (const trade of trades) byBlock.set(trade.blockNumber, [...byBlock.get(trade.blockNumber) ?? [], trade])
  const blockEvents: Array<BlockEvents> = step.blockEvents.map((entry) => {
    const added = (byBlock.get(entry.number) ?? []).filter((trade) => entry.events.some((event) => event.transactionHash === trade.transactionHash))
    return added.length === 0 ? entry : { ...entry, events: [...entry.events, ...added] }
  })
  return { ...step, events: interleave(step.events, trades), blockEvents } satisfies Step
})
