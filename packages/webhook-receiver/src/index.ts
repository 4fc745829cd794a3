/**
 * @chainquery/webhook-receiver: the receiving end of chainquery's webhooks. One call checks a
 * request's Standard Webhooks signature and age, decodes its batch, and proves against the state
 * you store that you got every delivery of the stream exactly once, in order, with no hole in
 * any chain's blocks, or says exactly what is missing or doubled. As an Effect, a Promise or a
 * service.
 *
 * @since 0.3.0
 */
export * as Batch from "./Batch.js"
export * as Decimal from "./Decimal.js"
export * as Missing from "./Missing.js"
export * as Receive from "./Receive.js"
export * as ReceiveError from "./ReceiveError.js"
export * as ReceiverState from "./ReceiverState.js"
export * as Signature from "./Signature.js"
export * as WebhookReceiver from "./WebhookReceiver.js"
