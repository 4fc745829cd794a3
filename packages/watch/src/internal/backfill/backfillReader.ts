/**
 * One wallet's part of an EVM backfill, read as it is needed: its transfers stream (A2, oldest
 * first, through the pagination layer: one page at a time), cut into slices that are complete up
 * to a block, each with the wallet's trades (A4) of the slice's blocks. A chain's backfill merges
 * the slices of its wallets in block order (`backfillEvm`), so that nothing but a slice or two per
 * wallet is held in memory, however long the range.
 *
 * A slice is complete up to `through`: every transfer and trade of the wallet in its blocks is in
 * it. The stream's records come in block order, so the blocks before the newest record read are
 * complete; the newest one may go on in the next page, so its events wait for the next slice.
 *
 * @internal
 */
import type { EvmClient } from "@chainquery/evm-client"
import { Chain, type NftTransfer } from "@chainquery/schema"
import { Effect, Option, Pull, type Scope, Stream } from "effect"
import type { DateTime } from "effect"
import { type EngineError, fromClient as failed } from "../../EngineError.js"
import { fromNftTransfer, type NftEvent } from "../../NftEvents.js"
import { fromTrade } from "../../TradeEvents.js"
import type { EvmWallet } from "../../WatchedWallet.js"
import type { WatchEvent } from "../../WatchEvent.js"

/** An event with where it sits in the chain: block, then log index (a trade: after its transfer). */
export interface Placed {
  readonly block: bigint
  readonly primary: number
  readonly secondary: number
  readonly event: WatchEvent
}

/**
 * Chain order; ties keep the order they came in (a stable sort): a transfer between two watched
 * wallets is the sender's `nft.sent` and the receiver's `nft.received`, in the order of the wallets.
 */
export const byPlace = (a: Placed, b: Placed): number =>
  a.block !== b.block ? (a.block < b.block ? -1 : 1) : a.primary !== b.primary ? a.primary - b.primary : a.secondary - b.secondary

/** The wallet's events of the blocks up to `through` not given before (from where the last slice ended). */
export interface Slice {
  readonly through: bigint
  readonly placed: ReadonlyArray<Placed>
  /** The first block the wallet's reads covered, known from the first slice of a date's backfill on. */
  readonly origin: bigint
}

/** Where a wallet's reads start: a block, or (a backfill from a date, before its first slice) an instant. */
export type Start =
  | { readonly _tag: "Block"; readonly block: bigint }
  | { readonly _tag: "Date"; readonly date: DateTime.Utc }

/** What a reader needs: the client, the chain, the wallet, where it starts and ends, what is watched. */
export interface ReaderInput {
  readonly client: EvmClient.Service
  readonly chain: Chain.ChainId
  readonly wallet: EvmWallet
  readonly start: Start
  readonly upTo: bigint
  readonly transfers: boolean
  readonly trades: boolean
  /** A slice is cut once it has this many records of complete blocks (default 100, a page). */
  readonly sliceRecords?: number | undefined
}

/** A wallet's slices, one at a time: `next` gives the next one, `undefined` once `upTo` was given. */
export interface Reader {
  readonly next: Effect.Effect<Slice | undefined, EngineError>
}

const pageSize = 100

const tradeChains: ReadonlySet<string> = new Set(Chain.tradeChainIds)

const rangeFrom = (start: Start) => start._tag === "Block" ? { fromBlock: start.block } : { fromDate: start.date }

/**
 * A reader of the wallet's slices from `start` to `upTo`. Its transfers stream is pulled in the
 * reader's scope: closing the scope stops it.
 */
export const make = Effect.fnUntraced(function*(input: ReaderInput): Effect.fn.Return<Reader, never, Scope.Scope> {
  const { chain, client, upTo, wallet } = input
  const withTrades = input.trades && tradeChains.has(chain)
  const sliceRecords = Math.max(1, input.sliceRecords ?? pageSize)
  if (input.start._tag === "Block" && input.start.block > upTo) return { next: Effect.succeed(undefined) }
  const pull = yield* Stream.toPull(
    client.streamWalletNFTTransfers({ address: wallet.address, chain, ...rangeFrom(input.start), toBlock: upTo, order: "ASC", limit: pageSize })
  )
  /** Where the next slice's trades start: the first slice's start, then the block after the last slice. */
  let tradesFrom = input.start
  let origin = input.start._tag === "Block" ? input.start.block : undefined
  /** Transfers of the complete blocks not given yet, and those of the newest block read (maybe incomplete). */
  let complete: Array<NftTransfer.NftTransfer> = []
  let newest: Array<NftTransfer.NftTransfer> = []
  let ended = false
  let over = false

  const slice = Effect.fnUntraced(function*(transfers: ReadonlyArray<NftTransfer.NftTransfer>, through: bigint) {
    origin ??= transfers[0]?.block_number ?? through
    const events: ReadonlyArray<NftEvent> = input.transfers ? transfers.flatMap((t) => fromNftTransfer(chain, wallet.address, t)) : []
    const placed: Array<Placed> = events.map((event) => ({ block: event.blockNumber, primary: event.logIndex, secondary: 0, event }))
    if (withTrades) {
      // After the wallet's last transfer of the same transaction; without one (transfers not
      // watched), after every transfer of the block, in transaction order.
      const lastLog = new Map<string, number>()
      for (const event of events) lastLog.set(event.transactionHash, Math.max(lastLog.get(event.transactionHash) ?? -1, event.logIndex))
      const trades = yield* client.streamNFTTradesByWallet({
        address: wallet.address,
        chain: chain as Chain.TradeChainId,
        ...rangeFrom(tradesFrom),
        toBlock: through,
        limit: pageSize
      }).pipe(Stream.runCollect, Effect.mapError(failed("getNFTTradesByWallet")))
      for (const trade of trades) {
        for (const event of fromTrade(chain, wallet.address, trade)) {
          const log = lastLog.get(event.transactionHash)
          placed.push(
            log === undefined
              ? { block: event.blockNumber, primary: Number.MAX_SAFE_INTEGER, secondary: trade.transaction_index, event }
              : { block: event.blockNumber, primary: log, secondary: 1, event }
          )
        }
      }
    }
    tradesFrom = { _tag: "Block", block: through + 1n }
    return { through, placed, origin } satisfies Slice
  })

  /** Slices cut but not given yet (a page may hold several). */
  const cut: Array<{ readonly transfers: ReadonlyArray<NftTransfer.NftTransfer>; readonly through: bigint }> = []

  const next: Effect.Effect<Slice | undefined, EngineError> = Effect.suspend(() => {
    const queued = cut.shift()
    if (queued !== undefined) return slice(queued.transfers, queued.through)
    if (over) return Effect.succeed(undefined)
    if (ended) {
      over = true
      return slice([...complete, ...newest], upTo)
    }
    return pull.pipe(
      Effect.map(Option.some),
      Pull.catchDone(() => Effect.succeed(Option.none<ReadonlyArray<NftTransfer.NftTransfer>>())),
      Effect.mapError(failed("getWalletNFTTransfers")),
      Effect.flatMap((chunk) => {
        if (Option.isNone(chunk)) ended = true
        else {
          for (const transfer of chunk.value) {
            if (newest.length > 0 && transfer.block_number > newest[0]!.block_number) {
              // The blocks before this record's are complete.
              complete.push(...newest)
              newest = []
              if (complete.length >= sliceRecords) {
                cut.push({ transfers: complete, through: transfer.block_number - 1n })
                complete = []
              }
            }
            newest.push(transfer)
          }
        }
        return next
      })
    )
  })
  return { next }
})
