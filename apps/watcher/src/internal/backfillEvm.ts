/**
 * One EVM chain's part of a backfill: the safe head when some wallets have no checkpoint (the
 * newest fully indexed block, `confirmations` deep, found with the engine's A1 probes), then per
 * wallet its transfers (A2) and, when trades are watched on a chain that has them, its trades
 * (A4) from FROM up to its bound (its checkpoint, or the safe head), merged in chain order: block,
 * then log index, each trade right after its wallet's last transfer of the same transaction.
 *
 * @internal
 */
import type { EvmClient } from "@chainquery/evm-client"
import { Chain } from "@chainquery/schema"
import { Effect, Stream } from "effect"
import { type EngineError, fromClient as failed } from "../EngineError.js"
import { fromNftTransfer, type NftEvent } from "../NftEvents.js"
import type { From } from "../Backfill.js"
import type { BlockEvents, BlockHash, Checkpoint } from "../StateStore.js"
import { fromTrade } from "../TradeEvents.js"
import { type EvmWallet, key } from "../WatchedWallet.js"
import type { WatchEvent } from "../WatchEvent.js"
import { safeHead } from "./evmReads.js"
import type { Progress } from "./progressBar.js"
import type { Printed, Recent } from "./recentBlocks.js"

/**
 * What {@link backfillChain} reads: one chain's wallets, the checkpoints, FROM and what is watched.
 *
 * `Backfill.run` makes one per chain with watched wallets, with the `EvmClient`, the checkpoints
 * of every wallet by key, whether transfers and trades are watched, and its progress bar.
 */
export interface EvmInput {
  readonly client: EvmClient.Service
  readonly chain: Chain.ChainId
  readonly wallets: ReadonlyArray<EvmWallet>
  readonly checkpoints: ReadonlyMap<string, Checkpoint>
  readonly from: From
  readonly transfers: boolean
  readonly trades: boolean
  readonly confirmations: number
  readonly concurrency: number
  readonly progress: Progress
  /** What is on record of the chain's recent blocks, and how many blocks from the head are recorded. */
  readonly recent: Recent
  readonly reorgWindow: number
}

/** What a chain's backfill prints and commits. */
export interface ChainHistory {
  readonly events: ReadonlyArray<WatchEvent>
  readonly checkpoints: ReadonlyArray<Checkpoint>
  readonly blocks: ReadonlyArray<BlockHash>
  readonly blockEvents: ReadonlyArray<BlockEvents>
}

const isPrinted = (event: WatchEvent): event is Printed =>
  event.kind === "nft.received" || event.kind === "nft.sent" || event.kind === "trade.bought" || event.kind === "trade.sold"

/**
 * The events of the new wallets in the recent blocks (after `head - reorgWindow`) and in every
 * block already on record, added to those blocks' records (a record holds the events of every
 * wallet that covers its block): the engine then retracts them if a reorganisation replaces their
 * block, and never takes them for new.
 */
const recordsOf = (input: EvmInput, head: bigint, since: bigint, events: ReadonlyArray<WatchEvent>, fresh: ReadonlySet<string>) => {
  const added = new Map<bigint, Array<Printed>>()
  // Every recent block the new wallets now cover is on record, with `""` when none of them had a
  // transfer there: a reorganisation that brings them one is then noticed.
  for (let block = head - BigInt(input.reorgWindow) + 1n; block <= head; block++) {
    if (block > since && block > 0n && !input.recent.hashes.has(block)) added.set(block, [])
  }
  for (const event of events) {
    if (!isPrinted(event) || !fresh.has(event.wallet)) continue
    if (event.blockNumber <= head - BigInt(input.reorgWindow) && !input.recent.hashes.has(event.blockNumber)) continue
    added.set(event.blockNumber, [...added.get(event.blockNumber) ?? [], event])
  }
  const blocks: Array<BlockHash> = []
  const blockEvents: Array<BlockEvents> = []
  for (const [number, mine] of added) {
    const known = input.recent.printed.get(number) ?? []
    const ids = new Set(known.map((event) => event.id))
    const recorded = input.recent.hashes.get(number) ?? ""
    const hash = recorded === "" ? mine[0]?.blockHash ?? "" : recorded
    blocks.push({ chain: input.chain, number, hash })
    blockEvents.push({ chain: input.chain, number, hash, events: [...known, ...mine.filter((event) => !ids.has(event.id))] })
  }
  return { blocks, blockEvents }
}

const pageSize = 100

/** How many wallets without a checkpoint are asked for their newest transfer, to start the head search. */
const sample = 5

const tradeChains: ReadonlySet<string> = new Set(Chain.tradeChainIds)

const isTradeChain = (chain: Chain.ChainId): chain is Chain.TradeChainId => tradeChains.has(chain)

const maxOf = (values: ReadonlyArray<bigint>): bigint => values.reduce((a, b) => (b > a ? b : a), 0n)

/** The block of a wallet's newest transfer (0 when it has none). */
const newestBlock = (client: EvmClient.Service, chain: Chain.ChainId, wallet: EvmWallet) =>
  client.getWalletNFTTransfers({ address: wallet.address, chain, limit: 1, order: "DESC" }).pipe(
    Effect.map((page) => page.result[0]?.block_number ?? 0n),
    Effect.mapError(failed("getWalletNFTTransfers"))
  )

/** An event with where it sits in the chain. */
interface Placed {
  readonly block: bigint
  readonly primary: number
  readonly secondary: number
  readonly event: WatchEvent
}

const byPlace = (a: Placed, b: Placed): number =>
  a.block !== b.block ? (a.block < b.block ? -1 : 1) : a.primary !== b.primary ? a.primary - b.primary : a.secondary - b.secondary

/** The range of a wallet's reads: from FROM (a block or a date) to its bound. */
const rangeOf = (from: From, upTo: bigint) =>
  from._tag === "Block" ? { fromBlock: from.block, toBlock: upTo } : { fromDate: from.date, toBlock: upTo }

/** One wallet's events in `[FROM, upTo]`, placed. */
const readWallet = Effect.fnUntraced(function*(input: EvmInput, wallet: EvmWallet, upTo: bigint) {
  const { chain, client, progress } = input
  if (upTo <= 0n || (input.from._tag === "Block" && input.from.block > upTo)) return []
  const range = rangeOf(input.from, upTo)
  const transfers: ReadonlyArray<NftEvent> = input.transfers
    ? (yield* client.streamWalletNFTTransfers({ address: wallet.address, chain, ...range, order: "ASC", limit: pageSize }).pipe(
      Stream.map((transfer) => fromNftTransfer(chain, wallet.address, transfer)),
      Stream.tap((events) => Effect.sync(() => progress.found(events.length))),
      Stream.runCollect,
      Effect.mapError(failed("getWalletNFTTransfers"))
    )).flat()
    : []
  const placed: Array<Placed> = transfers.map((event) => ({ block: event.blockNumber, primary: event.logIndex, secondary: 0, event }))
  if (!input.trades || !isTradeChain(chain)) return placed
  const lastLog = new Map<string, number>()
  for (const event of transfers) lastLog.set(event.transactionHash, Math.max(lastLog.get(event.transactionHash) ?? -1, event.logIndex))
  const trades = yield* client.streamNFTTradesByWallet({ address: wallet.address, chain, ...range, limit: pageSize }).pipe(
    Stream.map((trade) => ({ transactionIndex: trade.transaction_index, events: fromTrade(chain, wallet.address, trade) })),
    Stream.tap((trade) => Effect.sync(() => progress.found(trade.events.length))),
    Stream.runCollect,
    Effect.mapError(failed("getNFTTradesByWallet"))
  )
  for (const trade of trades) {
    for (const event of trade.events) {
      const log = lastLog.get(event.transactionHash)
      // After the wallet's last transfer of the transaction; without one (transfers not
      // watched), after every transfer of the block, in transaction order.
      placed.push(
        log === undefined
          ? { block: event.blockNumber, primary: Number.MAX_SAFE_INTEGER, secondary: trade.transactionIndex, event }
          : { block: event.blockNumber, primary: log, secondary: 1, event }
      )
    }
  }
  return placed
})

/**
 * The chain's history for the backfill in chain order, and the checkpoints (at the safe head) of
 * its wallets that had none.
 *
 * `Backfill.run` writes the `events`, then commits the `checkpoints`, before it reads the next
 * chain.
 */
export const backfillChain = Effect.fnUntraced(function*(
  input: EvmInput
): Effect.fn.Return<ChainHistory, EngineError> {
  const { chain, client } = input
  const tracked = input.wallets.flatMap((wallet) => {
    const checkpoint = input.checkpoints.get(key(wallet))
    return checkpoint === undefined ? [] : [checkpoint.position]
  })
  const fresh = input.wallets.filter((wallet) => !input.checkpoints.has(key(wallet)))
  let head = 0n
  if (fresh.length > 0) {
    // A block known to be indexed: a checkpoint of the chain, or the newest transfer of a few wallets.
    const start = tracked.length > 0
      ? maxOf(tracked)
      : maxOf(yield* Effect.forEach(fresh.slice(0, sample), (wallet) => newestBlock(client, chain, wallet), { concurrency: input.concurrency }))
    head = yield* safeHead(client, chain, start, input.confirmations, { fromIndexed: true })
  }
  const placed = yield* Effect.forEach(
    input.wallets,
    (wallet) =>
      readWallet(input, wallet, input.checkpoints.get(key(wallet))?.position ?? head).pipe(
        Effect.tap(() => Effect.sync(() => input.progress.advance(1)))
      ),
    { concurrency: input.concurrency }
  )
  // Wallets in the order given, then a stable sort: ties keep that order.
  const events = placed.flat().toSorted(byPlace).map((item) => item.event)
  // A new wallet reports what comes after the block before FROM (a date: every block before it,
  // as for a wallet of an older state file).
  const since = input.from._tag === "Block" ? input.from.block - 1n : 0n
  const checkpoints = fresh.map((wallet): Checkpoint => ({ wallet, position: head, hash: null, since: since < head ? since : head }))
  const records = input.reorgWindow > 0 ? recordsOf(input, head, since, events, new Set(fresh.map((wallet) => wallet.address))) : { blocks: [], blockEvents: [] }
  return { events, checkpoints, ...records }
})
