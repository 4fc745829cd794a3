/**
 * The body of a webhook: one batch of a stream, with its place in the stream (`sequence`), the
 * blocks it accounts for per chain (`coverage`), the ranges a reorganisation states again
 * (`replaces`), the wallets added since the previous batch and the events; and its Standard
 * Webhooks headers. Block numbers and ledger versions are decimal strings. This is the contract's
 * one home: the service builds its bodies by encoding `sent` (every field present, its events and
 * networks as it types them) and documents it in its OpenAPI document; a receiver decodes with
 * `Batch`, the same fields, where unknown fields are tolerated (and dropped), absent flags and
 * lists are false and empty, and the events are kept as they came.
 *
 * @since 0.3.0
 */
import { Effect, Schema } from "effect"
import { Decimal } from "./Decimal.js"

const isRange = (from: string, to: string): boolean => BigInt(from) <= BigInt(to)

/** A schema with a description (the OpenAPI document shows it). */
const described = <S extends Schema.Top>(schema: S, description: string): S["Rebuild"] => schema.annotate({ description })

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
export const BlockRange = Schema.Struct({
  chain: described(ChainId, "The chain's id, in hex (`0x1`: Ethereum)."),
  fromBlock: described(Decimal, "The first block of the range, a decimal string."),
  toBlock: described(Decimal, "The last block of the range, included, a decimal string.")
}).annotate({ description: "A range of an EVM chain's blocks, both ends included." }).check(
  Schema.makeFilter((range) => isRange(range.fromBlock, range.toBlock) || `fromBlock ${range.fromBlock} is after toBlock ${range.toBlock}`)
).annotate({ identifier: "BlockRange" })

/** How an Aptos network is named: any name (a receiver), or those the service sends (its document). */
type NetworkName = Schema.Codec<string, string>

/** A range of an Aptos network's versions, the network named as `network` says. */
const versionRangeOf = (network: NetworkName) =>
  Schema.Struct({
    network: described(network, "The Aptos network."),
    fromVersion: described(Decimal, "The first ledger version of the range, a decimal string."),
    toVersion: described(Decimal, "The last ledger version of the range, included, a decimal string.")
  }).annotate({ description: "A range of an Aptos network's ledger versions, both ends included." }).check(
    Schema.makeFilter((range) =>
      isRange(range.fromVersion, range.toVersion) || `fromVersion ${range.fromVersion} is after toVersion ${range.toVersion}`
    )
  ).annotate({ identifier: "VersionRange" })

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
export const VersionRange = versionRangeOf(Network)

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

/** An EVM wallet added to the stream. */
const EvmWallet = Schema.Struct({
  chain: described(ChainId, "The chain's id, in hex."),
  address: described(Schema.NonEmptyString, "The wallet's address, lower case."),
  coveredFrom: described(Decimal, "The block the wallet is covered from: its events from there on are the stream's."),
  historyFrom: Schema.optionalKey(described(
    Decimal,
    "Present for a wallet added with its history: the first block of it. `phase: history` batches account for the wallet's blocks from there to `coveredFrom` - 1 (`history`)."
  ))
}).annotate({ identifier: "AnnouncedEvmWallet", description: "An EVM wallet added to the stream." })

/** An Aptos wallet added to the stream, the network named as `network` says. */
const aptosWalletOf = (network: NetworkName) =>
  Schema.Struct({
    network: described(network, "The Aptos network."),
    address: described(Schema.NonEmptyString, "The wallet's address, 64 hex digits."),
    coveredFrom: described(Decimal, "The ledger version the wallet is covered from."),
    historyFrom: Schema.optionalKey(described(Decimal, "Present for a wallet added with its history: its first ledger version."))
  }).annotate({ identifier: "AnnouncedAptosWallet", description: "An Aptos wallet added to the stream." })

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
export const Wallet = Schema.Union([EvmWallet, aptosWalletOf(Network)])

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

/** An EVM wallet's history range. */
const EvmHistory = Schema.Struct({
  chain: described(ChainId, "The chain's id, in hex."),
  address: described(Schema.NonEmptyString, "The wallet's address, lower case."),
  fromBlock: described(Decimal, "The first block of the wallet's history this batch accounts for."),
  toBlock: described(Decimal, "The last one, included.")
}).annotate({ description: "Blocks of an EVM wallet's history." }).check(
  Schema.makeFilter((range) => isRange(range.fromBlock, range.toBlock) || `fromBlock ${range.fromBlock} is after toBlock ${range.toBlock}`)
).annotate({ identifier: "EvmWalletHistory" })

/** An Aptos wallet's history range, the network named as `network` says. */
const aptosHistoryOf = (network: NetworkName) =>
  Schema.Struct({
    network: described(network, "The Aptos network."),
    address: described(Schema.NonEmptyString, "The wallet's address, 64 hex digits."),
    fromVersion: described(Decimal, "The first ledger version of the wallet's history this batch accounts for."),
    toVersion: described(Decimal, "The last one, included.")
  }).annotate({ description: "Ledger versions of an Aptos wallet's history." }).check(
    Schema.makeFilter((range) =>
      isRange(range.fromVersion, range.toVersion) || `fromVersion ${range.fromVersion} is after toVersion ${range.toVersion}`
    )
  ).annotate({ identifier: "AptosWalletHistory" })

/**
 * The blocks (Aptos: ledger versions) of one wallet's history a `phase: "history"` batch accounts
 * for: every event of the wallet in them is in the batch (or in the wallet's history batches
 * before it). A wallet's ranges join, from its `historyFrom` to its `coveredFrom` - 1.
 *
 * @example
 * ```ts
 * import type { Batch } from "@chainquery/webhook-receiver"
 *
 * const range: Batch.WalletHistory = { chain: "0x1", address: "0xabc", fromBlock: "18000000", toBlock: "18000099" }
 * ```
 * @since 0.5.0
 */
export const WalletHistory = Schema.Union([EvmHistory, aptosHistoryOf(Network)])

/**
 * A wallet's history range, as decoded.
 *
 * @example
 * ```ts
 * import type { Batch } from "@chainquery/webhook-receiver"
 *
 * const range: Batch.WalletHistory = { network: "mainnet", address: "0x1", fromVersion: "1", toVersion: "9" }
 * ```
 * @since 0.5.0
 */
export type WalletHistory = typeof WalletHistory.Type

/**
 * The key a wallet's history goes by in the receiver's state: its scope (see {@link scopeOf}), a
 * space, and its address in lower case.
 *
 * @example
 * ```ts
 * import { Batch } from "@chainquery/webhook-receiver"
 *
 * Batch.walletKeyOf({ chain: "0x1", address: "0xABC", coveredFrom: "5" }) // "0x1 0xabc"
 * ```
 * @since 0.5.0
 */
export const walletKeyOf = (entry: Wallet | WalletHistory): string =>
  `${"chain" in entry ? entry.chain.toLowerCase() : `aptos:${entry.network}`} ${entry.address.toLowerCase()}`

/**
 * The bounds of a wallet's history range whatever its kind.
 *
 * @example
 * ```ts
 * import { Batch } from "@chainquery/webhook-receiver"
 *
 * Batch.historyBoundsOf({ chain: "0x1", address: "0xabc", fromBlock: "5", toBlock: "9" }) // { key: "0x1 0xabc", from: "5", to: "9" }
 * ```
 * @since 0.5.0
 */
export const historyBoundsOf = (range: WalletHistory): { readonly key: string; readonly from: string; readonly to: string } =>
  "chain" in range ? { key: walletKeyOf(range), from: range.fromBlock, to: range.toBlock } : { key: walletKeyOf(range), from: range.fromVersion, to: range.toVersion }

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
const oncePerChain = Schema.makeFilter((ranges: ReadonlyArray<Range>) => {
  const seen = new Set<string>()
  for (const [index, range] of ranges.entries()) {
    const scope = scopeOf(range)
    if (seen.has(scope)) return { path: [index], issue: `${scope} is named twice in the list` }
    seen.add(scope)
  }
  return undefined
})

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

/**
 * The content filter of a stream, as the batch that brings it into force states it: the contracts
 * (EVM contract addresses, lower case; Aptos collection ids, 64 hex digits) whose events the
 * stream receives (`null`: any), and per chain id the least `price` of a trade it receives, in the
 * smallest unit of the price's token (`null`: any).
 *
 * @example
 * ```ts
 * import type { Batch } from "@chainquery/webhook-receiver"
 *
 * const filter: Batch.Filters = { contracts: ["0x00000000000000000000000000000000000000aa"], minValue: { "0x1": "1000000000000000000" } }
 * ```
 * @since 0.5.0
 */
export const Filters = Schema.Struct({
  contracts: described(
    Schema.NullOr(Schema.Array(Schema.String)),
    "The contracts whose events the stream receives: EVM contract addresses (an NFT's or a trade's `collection`, a DeFi position's `positionAddress`), Aptos collection ids (`collectionId`); `null`: any."
  ),
  minValue: described(
    Schema.NullOr(Schema.Record(Schema.String, Decimal)),
    "Per chain id, the least `price` of a `trade.*` event the stream receives, in the smallest unit of its `priceToken`; `null`: any."
  )
})

/**
 * @since 0.5.0
 */
export type Filters = typeof Filters.Type

/** Every field of a batch, its events and Aptos networks as the given schemas type them. */
const fieldsOf = <E extends Schema.Top>(event: E, network: NetworkName) => {
  const range = Schema.Union([BlockRange, versionRangeOf(network)])
  // Described before the check: a description after a check of its own is not in the JSON Schema.
  const ranges = (description: string) => described(Schema.Array(range), description).check(oncePerChain)
  return {
    streamId: described(Schema.NonEmptyString, "The stream the batch belongs to."),
    deliveryId: described(Schema.NonEmptyString, "The batch's id, the same as its `webhook-id` header, on every retry."),
    sequence: described(
      Schema.Int.check(Schema.isGreaterThanOrEqualTo(0)),
      "The batch's place in the stream's order: 1, 2, 3, … with no gap. A retry carries the same `sequence`: one already taken is a retry, a jump a batch you do not have. `0` for a test event only."
    ),
    replay: described(Schema.Boolean, "`true` for a batch asked for with `POST /v1/streams/{id}/replay`: events sent before, again; no coverage."),
    heartbeat: described(Schema.Boolean, "`true` for a batch sent because none went out for `--heartbeat` (5 minutes): no events, the coverage moved on."),
    test: described(
      Schema.Boolean,
      "`true` for a test event (`POST /v1/streams/{id}/test`, or `verify: true`): sequence 0, outside the stream's order, no events, no coverage; answer 2xx and change nothing."
    ),
    phase: described(
      Schema.Literals(["live", "history"]),
      "`live`: events as blocks come (and their coverage). `history`: the past of wallets added with their history (`history` says which blocks of which wallet), interleaved with live batches in the one sequence; do not fire live notifications for them."
    ),
    replaces: ranges(
      "After a reorganisation, the range earlier batches covered that this one states again; its retractions come first."
    ),
    coverage: ranges(
      "Per chain or Aptos network, the blocks (versions) this batch accounts for: each range starts after the previous batch's, with no hole and no overlap. A chain with nothing new is left out."
    ),
    wallets: described(
      Schema.Array(Schema.Union([EvmWallet, aptosWalletOf(network)])),
      "The wallets added to the stream since its batch before, each with where it is covered from (at most 1,000 a batch; more go in the next ones)."
    ),
    history: described(
      Schema.Array(Schema.Union([EvmHistory, aptosHistoryOf(network)])),
      "In a `phase: history` batch, per wallet, the blocks of its history it accounts for: each range starts after the wallet's previous one, from its `historyFrom` to its `coveredFrom` - 1."
    ),
    filters: described(
      Schema.NullOr(Filters),
      "The stream's content filter, stated by the first batch made after it was set or changed (`{ contracts: null, minValue: null }`: removed); `null` in every other batch (a batch sent again as it was states again what it stated). Events filtered out are covered, not missing."
    ),
    // Last: the service writes the others by encoding them, then the events as they were stored.
    events: described(
      Schema.Array(event),
      "At most 500 events, in chain order, each as the CLI writes it with `--format json`. A retraction (`kind: retracted`) comes before the events of its batch and names the event it takes back."
    )
  }
}

/**
 * The batch exactly as the service sends it: every field present, in this order (`events` last),
 * its events and Aptos networks as the given schemas type them. The service builds each body by
 * encoding it and describes it in its OpenAPI document (as `WebhookBatch`); a receiver decodes
 * with {@link Batch}.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { Batch } from "@chainquery/webhook-receiver"
 *
 * const Sent = Batch.sent({ event: Batch.Event, network: Schema.Literals(["mainnet", "testnet"]) })
 * const body = JSON.stringify(Schema.encodeSync(Sent)({
 *   streamId: "str_1", deliveryId: "msg_1", sequence: 1, replay: false, heartbeat: true, test: false, phase: "live", replaces: [],
 *   coverage: [{ chain: "0x1", fromBlock: "101", toBlock: "120" }], wallets: [], history: [], filters: null, events: []
 * }))
 * ```
 * @since 0.5.0
 */
export const sent = <E extends Schema.Top>(options: { readonly event: E; readonly network: NetworkName }) =>
  Schema.Struct(fieldsOf(options.event, options.network)).annotate({
    identifier: "WebhookBatch",
    description: "A batch of a stream's events: what the service POSTs to the stream's URL, signed per Standard Webhooks."
  })

const received = fieldsOf(Event, Network)

/**
 * A batch as decoded from the body. `replay`, `heartbeat`, `test`, `phase`, `replaces`,
 * `coverage`, `wallets`, `history` and `filters` may be absent from the JSON (false, `"live"`,
 * empty and `null` then).
 *
 * - `sequence`: 1, 2, 3, … per stream; a retry carries the same one.
 * - `replay`: events sent before, again, at an operator's request; no coverage.
 * - `heartbeat`: sent because no batch went out for a while; no events.
 * - `test`: a test event (sequence 0, outside the stream's order): answer 2xx, change nothing.
 * - `filters`: the stream's content filter, in the first batch made after it changed.
 * - `replaces`: per chain, a range earlier batches covered that this one states again (a
 *   reorganisation: the events start with the retractions).
 * - `coverage`: per chain, the inclusive range this batch accounts for.
 * - `phase`: `"history"` for the past of wallets added with their history (`history`: per wallet,
 *   the range of its history this batch accounts for), `"live"` otherwise.
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
  ...received,
  replay: received.replay.pipe(Schema.withDecodingDefaultKey(Effect.succeed(false))),
  heartbeat: received.heartbeat.pipe(Schema.withDecodingDefaultKey(Effect.succeed(false))),
  test: received.test.pipe(Schema.withDecodingDefaultKey(Effect.succeed(false))),
  phase: received.phase.pipe(Schema.withDecodingDefaultKey(Effect.succeed("live" as const))),
  replaces: received.replaces.pipe(Schema.withDecodingDefaultKey(Effect.succeed([]))),
  coverage: received.coverage.pipe(Schema.withDecodingDefaultKey(Effect.succeed([]))),
  wallets: received.wallets.pipe(Schema.withDecodingDefaultKey(Effect.succeed([]))),
  history: received.history.pipe(Schema.withDecodingDefaultKey(Effect.succeed([]))),
  filters: received.filters.pipe(Schema.withDecodingDefaultKey(Effect.succeed(null)))
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

/**
 * The headers of a webhook (Standard Webhooks), each with what it means.
 *
 * @example
 * ```ts
 * import { Batch } from "@chainquery/webhook-receiver"
 *
 * Object.keys(Batch.headers) // ["webhook-id", "webhook-timestamp", "webhook-signature"]
 * ```
 * @since 0.5.0
 */
export const headers = {
  "webhook-id": described(
    Schema.String,
    "The batch's id (`msg_` and 21 characters), the same on every retry: deduplicate by it."
  ),
  "webhook-timestamp": described(
    Schema.String.check(Schema.isPattern(/^[0-9]+$/)),
    "When this attempt was signed, in Unix seconds: refuse one more than a few minutes old."
  ),
  "webhook-signature": described(
    Schema.String,
    "`v1,` then the base64 HMAC-SHA256 of `webhook-id.webhook-timestamp.body`, keyed with the base64-decoded part of the stream's secret after `whsec_`. Check it on the raw body."
  )
}
