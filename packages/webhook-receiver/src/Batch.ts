/**
 * The body of a webhook: one batch of a stream, with its place in the stream (`sequence`), the
 * blocks it accounts for per chain (`coverage`), the ranges a reorganisation states again
 * (`replaces`), the wallets added since the previous batch and the events. Block numbers and
 * ledger versions are decimal strings. Unknown fields are tolerated (and dropped); the events are
 * kept as they came.
 *
 * @since 0.3.0
 */
import { Effect, Schema } from "effect"
import { Decimal } from "./Decimal.js"

const isRange = (from: string, to: string): boolean => BigInt(from) <= BigInt(to)

/**
 * An EVM chain id in hex, as the service names chains: `"0x1"`, `"0x89"`.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { Batch } from "@chainquery/webhook-receiver"
 *
 * Schema.is(Batch.ChainId)("0x89") // true
 * ```
 * @since 0.3.0
 */
export const ChainId = Schema.String.check(Schema.isPattern(/^0x[0-9a-fA-F]+$/, { message: "Expected a hex chain id such as 0x1" }))

/**
 * An Aptos network name: `"mainnet"`, `"testnet"`.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { Batch } from "@chainquery/webhook-receiver"
 *
 * Schema.is(Batch.Network)("mainnet") // true
 * ```
 * @since 0.3.0
 */
export const Network = Schema.String.check(Schema.isPattern(/^[A-Za-z0-9_-]+$/, { message: "Expected an Aptos network name such as mainnet" }))

/**
 * An inclusive range of blocks of one EVM chain.
 *
 * @example
 * ```ts
 * import type { Batch } from "@chainquery/webhook-receiver"
 *
 * const range: Batch.BlockRange = { chain: "0x1", fromBlock: "118", toBlock: "125" }
 * ```
 * @since 0.3.0
 */
export const BlockRange = Schema.Struct({ chain: ChainId, fromBlock: Decimal, toBlock: Decimal }).check(
  Schema.makeFilter((range) => isRange(range.fromBlock, range.toBlock) || `fromBlock ${range.fromBlock} is after toBlock ${range.toBlock}`)
)

/**
 * An EVM block range, as decoded.
 *
 * @example
 * ```ts
 * import type { Batch } from "@chainquery/webhook-receiver"
 *
 * const range: Batch.BlockRange = { chain: "0x89", fromBlock: "1", toBlock: "1" }
 * ```
 * @since 0.3.0
 */
export type BlockRange = typeof BlockRange.Type

/**
 * An inclusive range of ledger versions of one Aptos network.
 *
 * @example
 * ```ts
 * import type { Batch } from "@chainquery/webhook-receiver"
 *
 * const range: Batch.VersionRange = { network: "mainnet", fromVersion: "1001", toVersion: "1500" }
 * ```
 * @since 0.3.0
 */
export const VersionRange = Schema.Struct({ network: Network, fromVersion: Decimal, toVersion: Decimal }).check(
  Schema.makeFilter((range) => isRange(range.fromVersion, range.toVersion) || `fromVersion ${range.fromVersion} is after toVersion ${range.toVersion}`)
)

/**
 * An Aptos version range, as decoded.
 *
 * @example
 * ```ts
 * import type { Batch } from "@chainquery/webhook-receiver"
 *
 * const range: Batch.VersionRange = { network: "testnet", fromVersion: "7", toVersion: "9" }
 * ```
 * @since 0.3.0
 */
export type VersionRange = typeof VersionRange.Type

/**
 * A range of a `coverage` or `replaces` entry: blocks of an EVM chain or versions of an Aptos
 * network.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { Batch } from "@chainquery/webhook-receiver"
 *
 * Schema.is(Batch.Range)({ network: "testnet", fromVersion: "5", toVersion: "9" }) // true
 * ```
 * @since 0.3.0
 */
export const Range = Schema.Union([BlockRange, VersionRange])

/**
 * A `coverage` or `replaces` entry, as decoded.
 *
 * @example
 * ```ts
 * import type { Batch } from "@chainquery/webhook-receiver"
 *
 * declare const range: Batch.Range
 * const kind = "chain" in range ? "evm" : "aptos"
 * ```
 * @since 0.3.0
 */
export type Range = typeof Range.Type



/**
 * A wallet added to the stream since the previous batch, and the block (EVM) or ledger version
 * (Aptos) from which its events are covered.
 *
 * @example
 * ```ts
 * import type { Batch } from "@chainquery/webhook-receiver"
 *
 * const wallet: Batch.Wallet = { chain: "0x1", address: "0xabc", coveredFrom: "121" }
 * ```
 * @since 0.3.0
 */
export const Wallet = Schema.Union([
  Schema.Struct({ chain: ChainId, address: Schema.NonEmptyString, coveredFrom: Decimal }),
  Schema.Struct({ network: Network, address: Schema.NonEmptyString, coveredFrom: Decimal })
])

/**
 * A wallet entry, as decoded.
 *
 * @example
 * ```ts
 * import type { Batch } from "@chainquery/webhook-receiver"
 *
 * const wallet: Batch.Wallet = { network: "mainnet", address: "0x1", coveredFrom: "1001" }
 * ```
 * @since 0.3.0
 */
export type Wallet = typeof Wallet.Type

/**
 * The key a range's chain goes by in the receiver's state: the chain id in lower case (`"0x1"`)
 * or `aptos:<network>` (`"aptos:mainnet"`). Errors name chains by this key.
 *
 * @example
 * ```ts
 * import { Batch } from "@chainquery/webhook-receiver"
 *
 * Batch.scopeOf({ chain: "0x1", fromBlock: "1", toBlock: "2" }) // "0x1"
 * Batch.scopeOf({ network: "mainnet", fromVersion: "1", toVersion: "2" }) // "aptos:mainnet"
 * ```
 * @since 0.3.0
 */
export const scopeOf = (entry: Range | Wallet): string => ("chain" in entry ? entry.chain.toLowerCase() : `aptos:${entry.network}`)

/**
 * The bounds of a range whatever its kind: `from` and `to` are its first and last block (or
 * version), inclusive.
 *
 * @example
 * ```ts
 * import { Batch } from "@chainquery/webhook-receiver"
 *
 * Batch.boundsOf({ network: "mainnet", fromVersion: "1001", toVersion: "1500" })
 * // { scope: "aptos:mainnet", from: "1001", to: "1500" }
 * ```
 * @since 0.3.0
 */
export const boundsOf = (range: Range): { readonly scope: string; readonly from: string; readonly to: string } =>
  "chain" in range
    ? { scope: scopeOf(range), from: range.fromBlock, to: range.toBlock }
    : { scope: scopeOf(range), from: range.fromVersion, to: range.toVersion }

/** A list of ranges naming each chain at most once. */
const Ranges = Schema.Array(Range).check(
  Schema.makeFilter((ranges) => {
    const seen = new Set<string>()
    for (const [index, range] of ranges.entries()) {
      const scope = scopeOf(range)
      if (seen.has(scope)) return { path: [index], issue: `${scope} is named twice in the list` }
      seen.add(scope)
    }
    return undefined
  })
)

/**
 * One event, opaque to the kit: any JSON object, kept whole (by the contract each has a string
 * `id`, stable across retries and replays, and a `kind` such as `"nft.received"`).
 *
 * @example
 * ```ts
 * import type { Batch } from "@chainquery/webhook-receiver"
 *
 * declare const event: Batch.Event
 * const id = typeof event.id === "string" ? event.id : undefined
 * ```
 * @since 0.3.0
 */
export const Event = Schema.Record(Schema.String, Schema.Unknown)

/**
 * An event, as decoded: a JSON object.
 *
 * @example
 * ```ts
 * import type { Batch } from "@chainquery/webhook-receiver"
 *
 * const event: Batch.Event = { id: "ev_1", kind: "nft.received" }
 * ```
 * @since 0.3.0
 */
export type Event = typeof Event.Type

const orFalse = Schema.Boolean.pipe(Schema.withDecodingDefaultKey(Effect.succeed(false)))

/**
 * A batch as decoded from the body. `replay`, `heartbeat`, `replaces`, `coverage` and `wallets`
 * may be absent from the JSON (false and empty then).
 *
 * - `sequence`: 1, 2, 3, … per stream; a retry carries the same one.
 * - `replay`: events sent before, again, at an operator's request; no coverage.
 * - `heartbeat`: sent because no batch went out for a while; no events.
 * - `replaces`: per chain, a range earlier batches covered that this one states again (a
 *   reorganisation: the events start with the retractions).
 * - `coverage`: per chain, the inclusive range this batch accounts for.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { Batch } from "@chainquery/webhook-receiver"
 *
 * const batch = Schema.decodeUnknownSync(Batch.Batch)({
 *   streamId: "str_1",
 *   deliveryId: "msg_1",
 *   sequence: 1,
 *   coverage: [{ chain: "0x1", fromBlock: "118", toBlock: "125" }],
 *   events: [{ id: "ev_1", kind: "nft.received" }]
 * })
 * batch.replay // false
 * ```
 * @since 0.3.0
 */
export const Batch = Schema.Struct({
  streamId: Schema.NonEmptyString,
  deliveryId: Schema.NonEmptyString,
  sequence: Schema.Int.check(Schema.isGreaterThanOrEqualTo(1)),
  replay: orFalse,
  heartbeat: orFalse,
  replaces: Ranges.pipe(Schema.withDecodingDefaultKey(Effect.succeed([]))),
  coverage: Ranges.pipe(Schema.withDecodingDefaultKey(Effect.succeed([]))),
  wallets: Schema.Array(Wallet).pipe(Schema.withDecodingDefaultKey(Effect.succeed([]))),
  events: Schema.Array(Event)
})

/**
 * A batch, as decoded.
 *
 * @example
 * ```ts
 * import type { Batch } from "@chainquery/webhook-receiver"
 *
 * declare const batch: Batch.Batch
 * const count = batch.events.length
 * ```
 * @since 0.3.0
 */
export type Batch = typeof Batch.Type
