/**
 * How events are written. `json` is NDJSON: one event per line, exactly the encoding of the
 * `WatchEvent` schema (bigints as decimal strings, timestamps as ISO 8601), never coloured, so
 * a consumer can decode each line with the same schema. `pretty` is for people: one aligned line
 * per event (time, kind, chain, wallet, token, amount, counterparty, transaction) with short
 * addresses (`0x1234…abcd`) and prices in the native currency with the chain's symbol
 * (`0.409 ETH`), coloured with ANSI escapes only when `color` is set (the CLI sets it on a TTY).
 *
 * @since 0.1.0
 */
import { Chain } from "@chainquery/schema"
import { DateTime, type Effect, Schema } from "effect"
import { WatchEvent as WatchEvents } from "@chainquery/watch"

type WatchEvent = WatchEvents.WatchEvent
const WatchEvent: typeof WatchEvents.WatchEvent = WatchEvents.WatchEvent
type DefiEvent = WatchEvents.DefiEvent
type TradeEvent = WatchEvents.TradeEvent

/**
 * The output formats.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { Output } from "@chainquery/watcher"
 *
 * Schema.decodeUnknownSync(Output.Format)("json") // "json"
 * ```
 * @since 0.1.0
 */
export const Format = Schema.Literals(["pretty", "json"])

/**
 * @example
 * ```ts
 * import type { Output } from "@chainquery/watcher"
 *
 * const format: Output.Format = "pretty"
 * ```
 * @since 0.1.0
 */
export type Format = typeof Format.Type

/**
 * How to write: the format, and for `pretty` whether to colour (ignored for `json`).
 *
 * @example
 * ```ts
 * import type { Output } from "@chainquery/watcher"
 *
 * const options: Output.Options = { format: "pretty", color: process.stdout.isTTY === true }
 * ```
 * @since 0.1.0
 */
export interface Options {
  readonly format: Format
  readonly color: boolean
  /** For `pretty`: the time of a block, shown for the events that name a block but not its time. */
  readonly blockTime?: BlockTime | undefined
}

/**
 * The time of a chain's block, or `undefined` when it is not known. With it, `pretty` shows the
 * block's time for the events that carry a block number and no time of that block: DeFi changes
 * (stamped with the moment they were read), holdings and retractions (not stamped). The demo
 * gives the simulator's clock, so that every line shows simulated block time.
 *
 * @example
 * ```ts
 * import { DateTime } from "effect"
 * import type { Output } from "@chainquery/watcher"
 *
 * // Block 0 at 2024-01-01 00:00:00 UTC, then a block every 12 s, on every chain.
 * const blockTime: Output.BlockTime = (_chain, block) => DateTime.makeUnsafe(Date.UTC(2024, 0, 1) + Number(block) * 12_000)
 * ```
 * @since 0.5.0
 */
export type BlockTime = (chain: Chain.ChainId, blockNumber: bigint) => DateTime.Utc | undefined

/**
 * One event as a JSON line (without the newline): the schema's exact encoding. (The formatter of
 * `json` writes an event of a backfill with `"phase":"history"` after its fields:
 * `WatchEvent.toJsonOfPhase`.)
 *
 * @example
 * ```ts
 * import type { WatchEvent } from "@chainquery/watch"
 * import { Output } from "@chainquery/watcher"
 *
 * declare const event: WatchEvent.WatchEvent
 * process.stdout.write(Output.json(event) + "\n") // {"kind":"nft.received","id":"evm:0x1:…","chain":"0x1",…,"tokenId":"1234",…}
 * ```
 * @since 0.1.0
 */
export const json = (event: WatchEvent): string => WatchEvents.toJson(event)

/**
 * Decodes a JSON line written by {@link json} back to the event.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import type { WatchEvent } from "@chainquery/watch"
 * import { Output } from "@chainquery/watcher"
 *
 * declare const written: WatchEvent.WatchEvent
 * const event = Effect.runSync(Output.fromJson(Output.json(written))) // equal to written
 * ```
 * @since 0.1.0
 */
export const fromJson = (line: string): Effect.Effect<WatchEvent, Schema.SchemaError> => WatchEvents.fromJson(line)

/**
 * A short form of an address or hash: `0x1234…abcd` (strings of 14 characters or fewer are kept).
 *
 * @example
 * ```ts
 * import { Output } from "@chainquery/watcher"
 *
 * Output.short("0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed") // "0x5aae…eaed"
 * ```
 * @since 0.1.0
 */
export const short = (value: string): string => value.length <= 14 ? value : `${value.slice(0, 6)}…${value.slice(-4)}`

const clip = (value: string, width: number): string => value.length <= width ? value : `${value.slice(0, width - 1)}…`

const tokenIdText = (id: bigint): string => {
  const text = id.toString()
  return text.length <= 12 ? text : `${text.slice(0, 5)}…${text.slice(-4)}`
}

/** A native amount in 18 decimals, e.g. 1500000000000000000n -> "1.5". */
const formatUnits = (value: bigint, decimals = 18): string => {
  const unit = 10n ** BigInt(decimals)
  const sign = value < 0n ? "-" : ""
  const magnitude = value < 0n ? -value : value
  const fraction = (magnitude % unit).toString().padStart(decimals, "0").replace(/0+$/, "")
  return `${sign}${magnitude / unit}${fraction === "" ? "" : `.${fraction}`}`
}

const usd = new Intl.NumberFormat("en-US", { style: "currency", currency: "USD" })

const usdChange = (before: number | null, after: number | null): string => {
  if (before === null) return after === null ? "" : usd.format(after)
  if (after === null) return usd.format(before)
  const percent = before === 0 ? "" : ` ${after >= before ? "+" : ""}${((after - before) / Math.abs(before) * 100).toFixed(1)}%`
  return `${usd.format(before)}→${usd.format(after)}${percent}`
}

const timeText = (time: DateTime.Utc): string => {
  const iso = DateTime.formatIso(time)
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)}`
}

const chainText = (chain: Chain.ChainId): string => Chain.nameOf(chain).replace(/ /g, "-")

/** The columns of a pretty line, before padding and colour. */
type Columns = readonly [time: string, kind: string, chain: string, wallet: string, subject: string, amount: string, counterparty: string, reference: string]

const widths = [19, 15, 13, 12, 28, 16, 18] as const

/** The names of the columns, in the order of {@link Columns}. */
const headings: Columns = ["time", "kind", "chain", "wallet", "token or position", "amount or value", "counterparty", "reference"]

/** The cells padded to their columns' widths, two spaces apart (the last one as it is). */
const aligned = (cells: ReadonlyArray<string>): Array<string> =>
  cells.map((cell, index) => {
    const width = widths[index]
    return width === undefined ? cell : cell.padEnd(width)
  })

const columns = WatchEvent.match({
  "nft.received": (e): Columns => [timeText(e.timestamp), e.kind, chainText(e.chain), short(e.wallet), `${short(e.collection)} #${tokenIdText(e.tokenId)}`, `×${e.amount}`, e.transfer === "mint" ? "minted" : `from ${short(e.counterparty)}`, `tx ${short(e.transactionHash)}`],
  "nft.sent": (e): Columns => [timeText(e.timestamp), e.kind, chainText(e.chain), short(e.wallet), `${short(e.collection)} #${tokenIdText(e.tokenId)}`, `×${e.amount}`, e.transfer === "burn" ? "burned" : `to ${short(e.counterparty)}`, `tx ${short(e.transactionHash)}`],
  "trade.bought": (e): Columns => [timeText(e.timestamp), e.kind, chainText(e.chain), short(e.wallet), tradeSubject(e), priceText(e), `from ${short(e.counterparty)}`, `tx ${short(e.transactionHash)} on ${short(e.marketplace)}`],
  "trade.sold": (e): Columns => [timeText(e.timestamp), e.kind, chainText(e.chain), short(e.wallet), tradeSubject(e), priceText(e), `to ${short(e.counterparty)}`, `tx ${short(e.transactionHash)} on ${short(e.marketplace)}`],
  "defi.opened": (e): Columns => defiColumns(e),
  "defi.closed": (e): Columns => defiColumns(e),
  "defi.changed": (e): Columns => defiColumns(e),
  "aptos.token.in": (e): Columns => [timeText(e.timestamp), e.kind, `aptos-${e.network}`, short(e.wallet), clip(`${e.collection}/${e.name}`, widths[4]), `×${e.amount}`, e.counterparty === null ? "minted" : `from ${short(e.counterparty)}`, `v${e.version}`],
  "aptos.token.out": (e): Columns => [timeText(e.timestamp), e.kind, `aptos-${e.network}`, short(e.wallet), clip(`${e.collection}/${e.name}`, widths[4]), `×${e.amount}`, e.counterparty === null ? "burned" : `to ${short(e.counterparty)}`, `v${e.version}`],
  "holding.updated": (e): Columns => ["", e.kind, chainText(e.chain), short(e.wallet), `${short(e.collection)} #${tokenIdText(e.tokenId)}`, `holds ${e.amount}`, "", `block ${e.blockNumber}`],
  "holding.syncing": (e): Columns => ["", e.kind, chainText(e.chain), short(e.wallet), short(e.collection), "owners SYNCING", "", `block ${e.blockNumber}`],
  "retracted": (e): Columns => ["", e.kind, chainText(e.chain), short(e.wallet), `block ${e.blockNumber}`, "", `hash ${short(e.blockHash)}`, `retracts ${e.retracts}`]
})

function tradeSubject(e: TradeEvent): string {
  const [first, ...rest] = e.tokenIds
  const ids = first === undefined ? "" : ` #${tokenIdText(first)}${rest.length > 0 ? ` +${rest.length}` : ""}`
  return `${short(e.collection)}${ids}`
}

/**
 * A trade's price as a person reads it: in the native currency (no price token, or the
 * `0xeeee…eeee` sentinel in any case) the amount in 18 decimals and the chain's symbol
 * (`0.409 ETH`); in an ERC-20, the raw units and the short token address (decimals unknown).
 */
function priceText(e: TradeEvent): string {
  return e.priceToken === null || e.priceToken.toLowerCase() === Chain.nativeCurrencyAddress
    ? `${formatUnits(e.price)} ${Chain.nativeSymbolOf(e.chain)}`
    : `${e.price} ${short(e.priceToken)}`
}

function defiColumns(e: DefiEvent): Columns {
  return [timeText(e.timestamp), e.kind, chainText(e.chain), short(e.wallet), clip(`${e.protocolName} ${e.positionLabel}`, widths[4]), usdChange(e.usdBefore, e.usdAfter), short(e.positionAddress), `block ${e.blockNumber}`]
}

const ansi = { reset: "\u001b[0m", dim: "\u001b[2m", red: "\u001b[31m", green: "\u001b[32m", yellow: "\u001b[33m", magenta: "\u001b[35m", cyan: "\u001b[36m" }

const kindColor = (kind: WatchEvent["kind"]): string => {
  if (kind === "retracted") return ansi.magenta
  if (kind === "defi.changed" || kind.startsWith("holding.")) return ansi.yellow
  return /received|bought|opened|\.in$/.test(kind) ? ansi.green : ansi.red
}

/** The kinds that name a block but not its time: `pretty` shows `blockTime`'s time of it. */
const stampedByBlock = WatchEvent.isAnyOf(["defi.opened", "defi.closed", "defi.changed", "holding.updated", "holding.syncing", "retracted"])

const timeOfBlock = (event: WatchEvent, blockTime: BlockTime): DateTime.Utc | undefined =>
  stampedByBlock(event) ? blockTime(event.chain, event.blockNumber) : undefined

/**
 * The line naming the pretty columns, aligned as {@link pretty} aligns events (without the
 * newline): what the demo prints first.
 *
 * @example
 * ```ts
 * import { Output } from "@chainquery/watcher"
 *
 * process.stdout.write(`${Output.header}\n`) // "time                 kind             chain          wallet        token or position ..."
 * ```
 * @since 0.5.0
 */
export const header: string = aligned(headings).join("  ").trimEnd()

/**
 * One event as an aligned line (without the newline). ANSI colours only when `color` is true.
 *
 * @example
 * ```ts
 * import type { WatchEvent } from "@chainquery/watch"
 * import { Output } from "@chainquery/watcher"
 *
 * declare const event: WatchEvent.WatchEvent // token #1234 of 0xbc4c…f13d, from 0xb0b0…b0b0 to 0x5aae…eaed
 * Output.pretty(event, { color: false })
 * // "2024-05-01 12:00:07  nft.received     eth            0x5aae…eaed   0xbc4c…f13d #1234             ×1                from 0xb0b0…b0b0    tx 0xab12…ef90"
 * ```
 * @since 0.1.0
 */
export const pretty = (event: WatchEvent, options: { readonly color: boolean; readonly blockTime?: BlockTime | undefined }): string => {
  const cells = [...columns(event)]
  const time = options.blockTime === undefined ? undefined : timeOfBlock(event, options.blockTime)
  if (time !== undefined) cells[0] = timeText(time)
  const padded = aligned(cells)
  if (options.color) {
    padded[0] = `${ansi.dim}${padded[0]}${ansi.reset}`
    padded[1] = `${kindColor(event.kind)}${padded[1]}${ansi.reset}`
    padded[2] = `${ansi.cyan}${padded[2]}${ansi.reset}`
    padded[7] = `${ansi.dim}${padded[7]}${ansi.reset}`
  }
  return padded.join("  ").trimEnd()
}

/**
 * A formatter for the chosen options: {@link json} for `json` (colour ignored; given the batch's
 * `phase` `"history"`, the line says `"phase":"history"` after the event's fields), {@link pretty}
 * otherwise.
 *
 * @example
 * ```ts
 * import type { WatchEvent } from "@chainquery/watch"
 * import { Output } from "@chainquery/watcher"
 *
 * declare const events: ReadonlyArray<WatchEvent.WatchEvent>
 * const write = Output.formatter({ format: "json", color: true }) // colour is never applied to JSON
 * for (const event of events) process.stdout.write(write(event) + "\n")
 * ```
 * @since 0.1.0
 */
export const formatter = (options: Options): (event: WatchEvent, phase?: "live" | "history") => string =>
  options.format === "json"
    ? (event, phase) => WatchEvents.toJsonOfPhase(event, phase)
    : (event) => pretty(event, { color: options.color, blockTime: options.blockTime })

/**
 * Formats a batch of events, one line each, every line ending in a newline (empty for none).
 *
 * @example
 * ```ts
 * import type { WatchEvent } from "@chainquery/watch"
 * import { Output } from "@chainquery/watcher"
 *
 * declare const events: ReadonlyArray<WatchEvent.WatchEvent>
 * process.stdout.write(Output.lines(events, { format: "json", color: false }))
 * ```
 * @since 0.1.0
 */
export const lines = (events: Iterable<WatchEvent>, options: Options): string => {
  const format = formatter(options)
  let text = ""
  for (const event of events) text += `${format(event)}\n`
  return text
}
