/**
 * The events of Aptos tokens: `aptos.token.in` / `aptos.token.out` (from the token transfer
 * records of B2, B3), as Schemas, with their pure constructor, seen from one watched wallet: the
 * same record always gives the same events with the same ids. All of it is re-exported by
 * `WatchEvent`.
 *
 * @since 0.1.0
 */
import { AptosAddress, type AptosToken } from "@chainquery/schema"
import { Option, Schema } from "effect"
import * as EventId from "./EventId.js"
import { Amount, described, kindOf, RecordAddress, Timestamp } from "./internal/events/eventFields.js"
import { AptosNetwork } from "./WatchedWallet.js"

const aptosFields = {
  id: described(Schema.String, "The event's id: the same however and whenever it was seen; de-duplicate by it."),
  network: described(AptosNetwork, "The Aptos network: `mainnet` or `testnet`."),
  wallet: described(AptosAddress.AptosAddress, "The watched wallet, 64 hex digits."),
  /** The collection's name and `collection_data_id_hash`. */
  collection: described(Schema.String, "The collection's name."),
  collectionId: described(Schema.String, "The collection's `collection_data_id_hash`."),
  creator: described(RecordAddress, "The collection's creator."),
  /** The token's `token_data_id_hash` and name. */
  tokenDataId: described(Schema.String, "The token's `token_data_id_hash`."),
  name: described(Schema.String, "The token's name."),
  amount: described(Amount, "How many of the token moved, a decimal string."),
  /** The other side; `null` for a mint (no sender) or a burn (no recipient). */
  counterparty: described(Schema.NullOr(RecordAddress), "The other side; `null` for a mint (no sender) or a burn (no recipient)."),
  /** The Move event type, e.g. `0x3::token::DepositEvent`. */
  transferType: described(Schema.String, "The Move event type, e.g. `0x3::token::DepositEvent`."),
  /** Coins that moved with the token (a sale), if any. */
  coinAmount: described(Schema.NullOr(Amount), "Coins that moved with the token (a sale), in the coin's smallest unit; `null` if none."),
  coinType: described(Schema.NullOr(Schema.String), "Those coins' Move type; `null` if none."),
  /** The ledger version (transaction) and the event: its handle's account and creation number, its sequence number. */
  version: described(Amount, "The ledger version (the transaction), a decimal string."),
  eventAccount: described(RecordAddress, "The account of the event's handle."),
  eventCreationNumber: described(Amount, "The creation number of the event's handle, a decimal string."),
  eventSequenceNumber: described(Amount, "The event's sequence number in its handle, a decimal string."),
  timestamp: described(Timestamp, "The transaction's time (ISO 8601, UTC).")
}

/**
 * An Aptos token arrived in a watched wallet.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { WatchEvent } from "@chainquery/watch"
 *
 * declare const event: WatchEvent.WatchEvent
 * Schema.is(WatchEvent.AptosTokenIn)(event) // true when event.kind is "aptos.token.in"
 * ```
 * @since 0.1.0
 */
export const AptosTokenIn = Schema.Struct({ kind: kindOf("aptos.token.in", "`aptos.token.in`: an Aptos token entered the watched wallet."), ...aptosFields })

/**
 * @example
 * ```ts
 * import type { WatchEvent } from "@chainquery/watch"
 *
 * const label = (event: WatchEvent.AptosTokenIn) => `${event.collection}/${event.name}`
 * ```
 * @since 0.1.0
 */
export type AptosTokenIn = typeof AptosTokenIn.Type

/**
 * An Aptos token left a watched wallet.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { WatchEvent } from "@chainquery/watch"
 *
 * declare const event: WatchEvent.WatchEvent
 * Schema.is(WatchEvent.AptosTokenOut)(event) // true when event.kind is "aptos.token.out"
 * ```
 * @since 0.1.0
 */
export const AptosTokenOut = Schema.Struct({ kind: kindOf("aptos.token.out", "`aptos.token.out`: an Aptos token left the watched wallet."), ...aptosFields })

/**
 * @example
 * ```ts
 * import type { WatchEvent } from "@chainquery/watch"
 *
 * const sold = (event: WatchEvent.AptosTokenOut) => event.coinAmount !== null
 * ```
 * @since 0.1.0
 */
export type AptosTokenOut = typeof AptosTokenOut.Type

/**
 * Either side of an Aptos token transfer.
 *
 * @example
 * ```ts
 * import type { WatchEvent } from "@chainquery/watch"
 *
 * const at = (event: WatchEvent.AptosEvent) => event.version
 * ```
 * @since 0.1.0
 */
export type AptosEvent = AptosTokenIn | AptosTokenOut

/** Pads a well-formed Aptos address to 64 lower-case hex digits; anything else is kept as sent. */
const normalise = (address: string): string =>
  /^0x[0-9a-fA-F]{1,64}$/.test(address) ? `0x${address.slice(2).toLowerCase().padStart(64, "0")}` : address

/**
 * The events of one Aptos token transfer for a watched wallet: `aptos.token.out` when the
 * wallet is the sender, `aptos.token.in` when it is the recipient, both (out first) for a
 * transfer to itself, none otherwise. A mint has no sender and a burn no recipient: their
 * counterparty is `null`.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { type AptosAddress, AptosToken } from "@chainquery/schema"
 * import { WatchEvent } from "@chainquery/watch"
 *
 * declare const record: unknown // one transfer record of B2 or B3, as JSON
 * declare const wallet: AptosAddress.AptosAddress // its recipient
 * const transfer = Schema.decodeUnknownSync(AptosToken.TokenTransfer)(record)
 * const events = WatchEvent.fromAptosTransfer("mainnet", wallet, transfer) // [{ kind: "aptos.token.in", … }]
 * ```
 * @since 0.1.0
 */
export const fromAptosTransfer = (
  network: AptosNetwork,
  wallet: AptosAddress.AptosAddress,
  transfer: AptosToken.TokenTransfer
): ReadonlyArray<AptosEvent> => {
  const from = Option.getOrNull(Option.map(transfer.from_address, normalise))
  const to = Option.getOrNull(Option.map(transfer.to_address, normalise))
  const eventAccount = normalise(transfer.event_account_address)
  const common = {
    network,
    wallet,
    collection: transfer.collection_name,
    collectionId: transfer.collection_data_id_hash,
    creator: normalise(transfer.creator_address),
    tokenDataId: transfer.token_data_id_hash,
    name: transfer.name,
    amount: transfer.token_amount,
    transferType: transfer.transfer_type,
    coinAmount: Option.getOrNull(transfer.coin_amount),
    coinType: Option.getOrNull(transfer.coin_type),
    version: transfer.transaction_version,
    eventAccount,
    eventCreationNumber: transfer.event_creation_number,
    eventSequenceNumber: transfer.event_sequence_number,
    timestamp: transfer.transaction_timestamp
  }
  const id = (direction: "in" | "out") =>
    EventId.aptos(
      network,
      transfer.transaction_version,
      eventAccount,
      transfer.event_creation_number,
      transfer.event_sequence_number,
      direction
    )
  const events: Array<AptosEvent> = []
  if (from === wallet) events.push({ kind: "aptos.token.out", id: id("out"), ...common, counterparty: to })
  if (to === wallet) events.push({ kind: "aptos.token.in", id: id("in"), ...common, counterparty: from })
  return events
}
