/**
 * What a receiver gets: the body of a webhook (a batch of a stream's events, the blocks it
 * accounts for and the wallets added since the batch before) and its Standard Webhooks headers,
 * as Schemas. `DeliveryWorker.body` writes this JSON (straight from the stored events, without
 * decoding them); these Schemas describe it, in the OpenAPI document's `webhooks`, and decode it.
 *
 * @since 0.5.0
 */
// Named so that the declaration of the batch (whose events hold addresses) can name them.
import type { AptosAddress as _AptosAddress, EvmAddress as _EvmAddress } from "@chainquery/schema"
import { WatchEvent } from "@chainquery/watch"
import { Schema } from "effect"
import { described } from "../model/described.js"

const Decimal = Schema.String.check(Schema.isPattern(/^(0|[1-9][0-9]*)$/))

/** A range of an EVM chain's blocks. */
const BlockRange = Schema.Struct({
  chain: described(Schema.String, "The chain's id, in hex (`0x1`: Ethereum)."),
  fromBlock: described(Decimal, "The first block of the range, a decimal string."),
  toBlock: described(Decimal, "The last block of the range, included, a decimal string.")
}).annotate({ identifier: "BlockRange", description: "A range of an EVM chain's blocks, both ends included." })

/** A range of an Aptos network's ledger versions. */
const VersionRange = Schema.Struct({
  network: described(Schema.Literals(["mainnet", "testnet"]), "The Aptos network."),
  fromVersion: described(Decimal, "The first ledger version of the range, a decimal string."),
  toVersion: described(Decimal, "The last ledger version of the range, included, a decimal string.")
}).annotate({ identifier: "VersionRange", description: "A range of an Aptos network's ledger versions, both ends included." })

const Range = Schema.Union([BlockRange, VersionRange])

/** A wallet added to the stream, with where it is covered from. */
const AnnouncedWallet = Schema.Union([
  Schema.Struct({
    chain: described(Schema.String, "The chain's id, in hex."),
    address: described(Schema.String, "The wallet's address, lower case."),
    coveredFrom: described(Decimal, "The block the wallet is covered from: its events from there on are the stream's.")
  }).annotate({ identifier: "AnnouncedEvmWallet", description: "An EVM wallet added to the stream." }),
  Schema.Struct({
    network: described(Schema.Literals(["mainnet", "testnet"]), "The Aptos network."),
    address: described(Schema.String, "The wallet's address, 64 hex digits."),
    coveredFrom: described(Decimal, "The ledger version the wallet is covered from.")
  }).annotate({ identifier: "AnnouncedAptosWallet", description: "An Aptos wallet added to the stream." })
])

/**
 * The JSON body of a webhook. Blocks and versions are decimal strings; the events are each exactly
 * as the CLI writes them with `--format json`.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { WebhookBatch } from "@chainquery/watch-service"
 *
 * const batch = Schema.decodeUnknownSync(Schema.fromJsonString(WebhookBatch.WebhookBatch))(
 *   '{"streamId":"str_1","deliveryId":"msg_1","sequence":1,"replay":false,"heartbeat":true,"replaces":[],' +
 *     '"coverage":[{"chain":"0x1","fromBlock":"101","toBlock":"120"}],"wallets":[],"events":[]}'
 * )
 * ```
 * @since 0.5.0
 */
export const WebhookBatch = Schema.Struct({
  streamId: described(Schema.String, "The stream the batch belongs to."),
  deliveryId: described(Schema.String, "The batch's id, the same as its `webhook-id` header, on every retry."),
  sequence: described(
    Schema.Int,
    "The batch's place in the stream's order: 1, 2, 3, … with no gap. A retry carries the same `sequence`: one already taken is a retry, a jump a batch you do not have."
  ),
  replay: described(Schema.Boolean, "`true` for a batch asked for with `POST /v1/streams/{id}/replay`: events sent before, again; no coverage."),
  heartbeat: described(Schema.Boolean, "`true` for a batch sent because none went out for `--heartbeat` (5 minutes): no events, the coverage moved on."),
  replaces: described(
    Schema.Array(Range),
    "After a reorganisation, the range earlier batches covered that this one states again; its retractions come first."
  ),
  coverage: described(
    Schema.Array(Range),
    "Per chain or Aptos network, the blocks (versions) this batch accounts for: each range starts after the previous batch's, with no hole and no overlap. A chain with nothing new is left out."
  ),
  wallets: described(
    Schema.Array(AnnouncedWallet),
    "The wallets added to the stream since its batch before, each with where it is covered from (at most 1,000 a batch; more go in the next ones)."
  ),
  events: described(
    Schema.Array(WatchEvent.WatchEvent),
    "At most 500 events, in chain order, each as the CLI writes it with `--format json`. A retraction (`kind: retracted`) comes before the events of its batch and names the event it takes back."
  )
}).annotate({
  identifier: "WebhookBatch",
  description: "A batch of a stream's events: what the service POSTs to the stream's URL, signed per Standard Webhooks."
})

/**
 * @since 0.5.0
 */
export type WebhookBatch = typeof WebhookBatch.Type

/**
 * The headers of a webhook (Standard Webhooks), each with what it means.
 *
 * @example
 * ```ts
 * import { WebhookBatch } from "@chainquery/watch-service"
 *
 * Object.keys(WebhookBatch.headers) // ["webhook-id", "webhook-timestamp", "webhook-signature"]
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
