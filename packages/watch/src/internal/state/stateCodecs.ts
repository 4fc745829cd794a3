/**
 * How the state's values are kept, whichever the store: the JSON text of DeFi summaries, of the
 * events of a block and of pending events, and a wallet's keys (its scope, then its address). The
 * SQLite store keeps them in its file; the memory store keeps the same text, so both read back
 * equal values.
 *
 * @internal
 */
import { DefiPositions } from "@chainquery/schema"
import { Schema } from "effect"
import { type NftEvent, NftReceived, NftSent } from "../../NftEvents.js"
import { TradeBought, type TradeEvent, TradeSold } from "../../TradeEvents.js"
import { isHistoryJson, toJsonOfPhase, WatchEvent } from "../../WatchEvent.js"
import * as WatchedWallet from "../../WatchedWallet.js"

const summariesJson = Schema.fromJsonString(DefiPositions.DefiPositionsSummary)
/** A DeFi snapshot's summaries as JSON text. */
export const encodeSummaries = Schema.encodeSync(summariesJson)
/** A DeFi snapshot's summaries from JSON text. */
export const decodeSummaries = Schema.decodeUnknownSync(summariesJson)

const eventsJson = Schema.fromJsonString(Schema.Array(Schema.Union([NftReceived, NftSent, TradeBought, TradeSold])))
/** The events emitted from a block as JSON text. */
export const encodeEvents: (events: ReadonlyArray<NftEvent | TradeEvent>) => string = Schema.encodeSync(eventsJson)
/** The events emitted from a block, from JSON text. */
export const decodeEvents: (text: unknown) => ReadonlyArray<NftEvent | TradeEvent> = Schema.decodeUnknownSync(eventsJson)

const decodeEvent = Schema.decodeUnknownSync(Schema.fromJsonString(WatchEvent))
/** The events read back from a history's pending batch. */
const ofHistory = new WeakSet<WatchEvent>()
/** A pending event as JSON text; a history's says so (see `WatchEvent.toJsonOfPhase`). */
export const encodePending = (event: WatchEvent, phase?: "live" | "history" | undefined): string => toJsonOfPhase(event, phase)
/** A pending event from JSON text, remembered as a history's when it says so. */
export const decodePending = (text: unknown): WatchEvent => {
  const event = decodeEvent(text)
  if (typeof text === "string" && isHistoryJson(text)) ofHistory.add(event)
  return event
}
/** The phase of pending events read back: a history's, or live. */
export const phaseOfPending = (events: ReadonlyArray<WatchEvent>): "live" | "history" =>
  events.length > 0 && ofHistory.has(events[0]!) ? "history" : "live"

/** A checkpoint's first key: the chain id, or `aptos:<network>`. */
export const scopeOf = WatchedWallet.scopeOf

/** The wallet of a row, decoded (and so checked) from its keys. */
export const walletOf = WatchedWallet.fromScope
