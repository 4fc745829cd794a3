/**
 * The events of EVM NFT transfers: `nft.received` / `nft.sent` (from the transfer records of A1,
 * A2, A3) and `retracted` (a transfer or trade event whose block was orphaned), as Schemas, with
 * their pure constructors, seen from one watched wallet: the same record always gives the same
 * events with the same ids. All of it is re-exported by `WatchEvent`.
 *
 * @since 0.1.0
 */
import type { Chain, EvmAddress, NftTransfer } from "@chainquery/schema"
import { Schema } from "effect"
import * as EventId from "./EventId.js"
import { Amount, described, evmFields, kindOf, normaliseEvm as normalise, RecordAddress, Timestamp } from "./internal/events/eventFields.js"
import type { TradeEvent } from "./TradeEvents.js"

const nftFields = {
  ...evmFields,
  /** The NFT contract. */
  collection: described(RecordAddress, "The NFT contract."),
  tokenId: described(Amount, "The token's id, a decimal string."),
  amount: described(Amount, "How many of the token moved (1 for an ERC-721), a decimal string."),
  /** The sender of a received NFT, the recipient of a sent one (0x000…0 for mints and burns). */
  counterparty: described(RecordAddress, "The sender of a received NFT, the recipient of a sent one (0x000…0 for mints and burns)."),
  /** `mint` (from 0x000…0), `burn` (to 0x000…0) or `transfer`. */
  transfer: described(Schema.Literals(["transfer", "mint", "burn"]), "`mint` (from 0x000…0), `burn` (to 0x000…0) or `transfer`."),
  transactionHash: described(Schema.String, "The transaction's hash."),
  logIndex: described(Schema.Int, "The transfer's log index in its block."),
  blockNumber: described(Amount, "The block's number, a decimal string."),
  blockHash: described(Schema.String, "The block's hash: a reorganisation that orphans it retracts the event."),
  timestamp: described(Timestamp, "The block's time (ISO 8601, UTC).")
}

/**
 * An NFT arrived in a watched wallet.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { WatchEvent } from "@chainquery/watch"
 *
 * declare const event: WatchEvent.NftReceived
 * const line = JSON.stringify(Schema.encodeSync(WatchEvent.NftReceived)(event)) // bigints as strings: "tokenId":"1234"
 * ```
 * @since 0.1.0
 */
export const NftReceived = Schema.Struct({ kind: kindOf("nft.received", "`nft.received`: an NFT entered the watched wallet."), ...nftFields })

/**
 * @example
 * ```ts
 * import type { WatchEvent } from "@chainquery/watch"
 *
 * const minted = (event: WatchEvent.NftReceived) => event.transfer === "mint"
 * ```
 * @since 0.1.0
 */
export type NftReceived = typeof NftReceived.Type

/**
 * An NFT left a watched wallet.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { WatchEvent } from "@chainquery/watch"
 *
 * declare const event: WatchEvent.WatchEvent
 * Schema.is(WatchEvent.NftSent)(event) // true when event.kind is "nft.sent"
 * ```
 * @since 0.1.0
 */
export const NftSent = Schema.Struct({ kind: kindOf("nft.sent", "`nft.sent`: an NFT left the watched wallet."), ...nftFields })

/**
 * @example
 * ```ts
 * import type { WatchEvent } from "@chainquery/watch"
 *
 * const burned = (event: WatchEvent.NftSent) => event.transfer === "burn"
 * ```
 * @since 0.1.0
 */
export type NftSent = typeof NftSent.Type

/**
 * Either side of an NFT transfer.
 *
 * @example
 * ```ts
 * import type { WatchEvent } from "@chainquery/watch"
 *
 * const where = (event: WatchEvent.NftEvent) => `${event.transactionHash}:${event.logIndex}`
 * ```
 * @since 0.1.0
 */
export type NftEvent = NftReceived | NftSent

/**
 * An earlier event is void: its block was orphaned by a reorganisation. `retracts` is its id;
 * `blockNumber` and `blockHash` name the orphaned block.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { WatchEvent } from "@chainquery/watch"
 *
 * declare const event: WatchEvent.WatchEvent
 * Schema.is(WatchEvent.Retracted)(event) // true when event.kind is "retracted"
 * ```
 * @since 0.1.0
 */
export const Retracted = Schema.Struct({
  kind: kindOf("retracted", "`retracted`: an event sent earlier is void, its block orphaned by a reorganisation."),
  ...evmFields,
  retracts: described(Schema.String, "The id of the event taken back: forget it."),
  blockNumber: described(Amount, "The orphaned block's number, a decimal string."),
  blockHash: described(Schema.String, "The orphaned block's hash.")
})

/**
 * @example
 * ```ts
 * import type { WatchEvent } from "@chainquery/watch"
 *
 * const forget = (event: WatchEvent.Retracted, seen: Set<string>) => seen.delete(event.retracts)
 * ```
 * @since 0.1.0
 */
export type Retracted = typeof Retracted.Type

/** The zero address: the sender of a mint and the recipient of a burn. */
const zeroAddress = "0x0000000000000000000000000000000000000000"

/**
 * The events of one NFT transfer for a watched wallet: `nft.sent` when the wallet is the sender,
 * `nft.received` when it is the recipient, both (sent first) for a transfer to itself, none when
 * it is neither. A mint comes from the zero address, a burn goes to it (`transfer` says which).
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { type EvmAddress, NftTransfer } from "@chainquery/schema"
 * import { WatchEvent } from "@chainquery/watch"
 *
 * declare const record: unknown // one transfer record of A1 or A2, as JSON
 * declare const wallet: EvmAddress.EvmAddress // its recipient
 * const transfer = Schema.decodeUnknownSync(NftTransfer.NftTransfer)(record)
 * const events = WatchEvent.fromNftTransfer("0x1", wallet, transfer) // [{ kind: "nft.received", … }]
 * ```
 * @since 0.1.0
 */
export const fromNftTransfer = (
  chain: Chain.ChainId,
  wallet: EvmAddress.EvmAddress,
  transfer: NftTransfer.NftTransfer
): ReadonlyArray<NftEvent> => {
  const from = normalise(transfer.from_address)
  const to = normalise(transfer.to_address)
  const transactionHash = transfer.transaction_hash.toLowerCase()
  const common = {
    chain,
    wallet,
    collection: normalise(transfer.token_address),
    tokenId: transfer.token_id,
    amount: transfer.amount,
    transfer: from === zeroAddress ? "mint" as const : to === zeroAddress ? "burn" as const : "transfer" as const,
    transactionHash,
    logIndex: transfer.log_index,
    blockNumber: transfer.block_number,
    blockHash: transfer.block_hash.toLowerCase(),
    timestamp: transfer.block_timestamp
  }
  const id = (direction: "received" | "sent") =>
    EventId.nft(chain, transactionHash, transfer.log_index, transfer.token_id, direction)
  const events: Array<NftEvent> = []
  if (from === wallet) events.push({ kind: "nft.sent", id: id("sent"), ...common, counterparty: to })
  if (to === wallet) events.push({ kind: "nft.received", id: id("received"), ...common, counterparty: from })
  return events
}

/**
 * The retraction of an NFT or trade event whose block was orphaned: it names the event, the
 * chain and the orphaned block (number and hash).
 *
 * @example
 * ```ts
 * import { WatchEvent } from "@chainquery/watch"
 *
 * declare const received: WatchEvent.NftReceived
 * const retraction = WatchEvent.retract(received) // { kind: "retracted", retracts: received.id, … }
 * ```
 * @since 0.1.0
 */
export const retract = (event: NftEvent | TradeEvent): Retracted => ({
  kind: "retracted",
  id: EventId.retracted(event.id, event.blockHash),
  chain: event.chain,
  wallet: event.wallet,
  retracts: event.id,
  blockNumber: event.blockNumber,
  blockHash: event.blockHash
})
