/**
 * What a receiver gets: the body of a webhook (a batch of a stream's events, the blocks it
 * accounts for and the wallets added since the batch before) and its Standard Webhooks headers,
 * as Schemas, written once in `@chainquery/webhook-receiver` (`Batch`) where receivers decode it.
 * `DeliveryWorker.body` writes this JSON by encoding it (the events as they were stored, already
 * encoded); it is described in the OpenAPI document's `webhooks`.
 *
 * @since 0.5.0
 */
// Named so that the declaration of the batch (whose events hold addresses) can name them.
import type { AptosAddress as _AptosAddress, EvmAddress as _EvmAddress } from "@chainquery/schema"
import { WatchEvent } from "@chainquery/watch"
import { Batch } from "@chainquery/webhook-receiver"
import { Schema } from "effect"

/**
 * The JSON body of a webhook, exactly as the service sends it: the receiver kit's batch
 * (`Batch.sent`) with the service's events (`WatchEvent`, each as the CLI writes it with
 * `--format json`) and the Aptos networks it watches. Blocks and versions are decimal strings.
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
export const WebhookBatch = Batch.sent({ event: WatchEvent.WatchEvent, network: Schema.Literals(["mainnet", "testnet"]) })

/**
 * @since 0.5.0
 */
export type WebhookBatch = typeof WebhookBatch.Type

/**
 * The headers of a webhook (Standard Webhooks), each with what it means (the receiver kit's
 * `Batch.headers`).
 *
 * @example
 * ```ts
 * import { WebhookBatch } from "@chainquery/watch-service"
 *
 * Object.keys(WebhookBatch.headers) // ["webhook-id", "webhook-timestamp", "webhook-signature"]
 * ```
 * @since 0.5.0
 */
export const headers = Batch.headers
