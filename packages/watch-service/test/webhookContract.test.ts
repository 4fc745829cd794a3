/**
 * The webhook contract, end to end in one process (issue #40): for generated batches (ranges of
 * EVM chains and Aptos networks, wallets, events of every family, secrets of any length), the body
 * the service builds (`DeliveryWorker.body`, by encoding the contract's schema) is byte for byte
 * the body of the writer below (0.4.0's, with 0.5.0's `phase`, `history` and `historyFrom`, issue
 * #41, and `test` and `filters`, issue #42); the receiver kit decodes it, and so does the service's own
 * schema, back to the events it stored; the service's signature is the reference Standard
 * Webhooks library's (`standardwebhooks`), byte for byte, and that library and the kit both
 * verify it, also when it signs with two secrets (a rotation in grace) under either. One byte more
 * in the body and neither does.
 */
import { describe, expect, it } from "@effect/vitest"
import { WatchEvent } from "@chainquery/watch"
import { Batch, Signature } from "@chainquery/webhook-receiver"
import { Effect, Redacted, Result, Schema } from "effect"
import * as fc from "fast-check"
import { Webhook } from "standardwebhooks"
import { aptosAlice, aptosTransfer } from "../../watch/test/fixtures.js"
import type { CoveredWallet, Range } from "../src/store/Coverage.js"
import type { WalletRange } from "../src/store/Outbox.js"
import * as DeliveryWorker from "../src/delivery/DeliveryWorker.js"
import { WebhookBatch } from "../src/delivery/WebhookBatch.js"
import * as WebhookSignature from "../src/delivery/WebhookSignature.js"
import type * as StreamFilters from "../src/model/StreamFilters.js"
import { transfers } from "./support/storeFixtures.js"

// 0.4.0's writer of a body, string templates and all, with 0.5.0's fields (`test`, then `phase` after
// `heartbeat`, `history` then `filters` after `wallets`, `historyFrom` after `coveredFrom`): the bytes receivers get.
const scope040 = (name: string) =>
  name.startsWith("aptos:") ? { key: `"network":${JSON.stringify(name.slice(6))}`, aptos: true } : { key: `"chain":${JSON.stringify(name)}`, aptos: false }
const range040 = (r: Range) => {
  const { aptos, key } = scope040(r.scope)
  const unit = aptos ? "Version" : "Block"
  return `{${key},"from${unit}":"${r.from}","to${unit}":"${r.to}"}`
}
const wallet040 = (w: CoveredWallet) =>
  `{${scope040(w.scope).key},"address":${JSON.stringify(w.address)},"coveredFrom":"${w.coveredFrom}"` +
  `${w.historyFrom === undefined ? "" : `,"historyFrom":"${w.historyFrom}"`}}`
const history050 = (h: WalletRange) => {
  const { aptos, key } = scope040(h.scope)
  const unit = aptos ? "Version" : "Block"
  return `{${key},"address":${JSON.stringify(h.address)},"from${unit}":"${h.from}","to${unit}":"${h.to}"}`
}
const filters050 = (filters: StreamFilters.Filters | null): string =>
  filters === null
    ? "null"
    : `{"contracts":${filters.contracts === null ? "null" : `[${filters.contracts.map((c) => JSON.stringify(c)).join(",")}]`},` +
      `"minValue":${filters.minValue === null ? "null" : `{${Object.entries(filters.minValue).map(([k, v]) => `${JSON.stringify(k)}:"${v}"`).join(",")}}`}}`
const bodyOf040 = (batch: Generated): string =>
  `{"streamId":${JSON.stringify(batch.streamId)},"deliveryId":${JSON.stringify(batch.deliveryId)},"sequence":${batch.sequence},` +
  `"replay":${batch.replay},"heartbeat":${batch.heartbeat},"test":${batch.test},"phase":${JSON.stringify(batch.phase)},` +
  `"replaces":[${batch.replaces.map(range040).join(",")}],"coverage":[${batch.coverage.map(range040).join(",")}],` +
  `"wallets":[${batch.wallets.map(wallet040).join(",")}],"history":[${batch.history.map(history050).join(",")}],` +
  `"filters":${filters050(batch.filters)},` +
  `"events":[${batch.events.join(",")}]}`

/** Events of every family the service sends: NFT transfers on two chains, a retraction, an Aptos token. */
const pool: ReadonlyArray<WatchEvent.WatchEvent> = [
  ...transfers(3),
  ...transfers(2, { chain: "0x89", from: 7 }),
  WatchEvent.retract(transfers(1, { from: 40 })[0] as WatchEvent.NftEvent),
  ...WatchEvent.fromAptosTransfer("mainnet", aptosAlice, aptosTransfer())
]

const scopes = ["0x1", "0x89", "0xa4b1", "aptos:mainnet", "aptos:testnet"] as const
const block = fc.bigInt({ min: 0n, max: 10n ** 15n })
const ranges = fc.uniqueArray(
  fc.record({ scope: fc.constantFrom(...scopes), from: block, span: fc.bigInt({ min: 0n, max: 10n ** 6n }) }),
  { selector: (range) => range.scope, maxLength: scopes.length }
).map((list) => list.map(({ from, scope, span }): Range => ({ scope, from, to: from + span })))
const hex = (length: number) => fc.stringMatching(new RegExp(`^[0-9a-f]{${length}}$`))
const wallets = fc.array(
  fc.constantFrom(...scopes).chain((scope) =>
    fc.record(
      { scope: fc.constant(scope), address: hex(scope.startsWith("aptos:") ? 64 : 40).map((digits) => `0x${digits}`), coveredFrom: block, historyFrom: block },
      { requiredKeys: ["scope", "address", "coveredFrom"] }
    )
  ),
  { maxLength: 6 }
)
const histories = fc.array(
  fc.constantFrom(...scopes).chain((scope) =>
    fc.record({
      scope: fc.constant(scope),
      address: hex(scope.startsWith("aptos:") ? 64 : 40).map((digits) => `0x${digits}`),
      from: block,
      span: fc.bigInt({ min: 0n, max: 10n ** 6n })
    }).map(({ from, span, ...wallet }): WalletRange => ({ ...wallet, from, to: from + span }))
  ),
  { maxLength: 4 }
)

const filters = fc.option(
  fc.record({
    contracts: fc.option(fc.array(fc.oneof(hex(40).map((digits) => `0x${digits}`), hex(64)), { minLength: 1, maxLength: 4 })),
    minValue: fc.option(fc.dictionary(fc.constantFrom("0x1", "0x89", "0xa4b1"), fc.bigInt({ min: 0n, max: 10n ** 30n }), { minKeys: 1 }))
  }),
  { freq: 3 }
)

const generated = fc.record({
  streamId: fc.stringMatching(/^str_[0-9a-z]{1,21}$/),
  deliveryId: fc.stringMatching(/^msg_[0-9A-Za-z]{21}$/),
  sequence: fc.integer({ min: 1, max: 2 ** 31 }),
  replay: fc.boolean(),
  heartbeat: fc.boolean(),
  test: fc.boolean(),
  filters,
  phase: fc.constantFrom("live" as const, "history" as const),
  replaces: ranges,
  coverage: ranges,
  wallets,
  history: histories,
  stored: fc.subarray([...pool]),
  key: fc.uint8Array({ minLength: 1, maxLength: 64 }),
  previousKey: fc.option(fc.uint8Array({ minLength: 1, maxLength: 64 }))
}).map((batch) => ({
  ...batch,
  // A test event carries sequence 0, and only it does.
  sequence: batch.test ? 0 : batch.sequence,
  events: batch.stored.map(WatchEvent.toJson)
}))
type Generated = typeof generated extends fc.Arbitrary<infer A> ? A : never

const decodeReceived = Schema.decodeUnknownSync(Schema.fromJsonString(Batch.Batch))
const decodeSent = Schema.decodeUnknownSync(Schema.fromJsonString(WebhookBatch))

describe("the webhook contract", () => {
  it("bodies the service builds are the contract's bytes, decode with the kit and the service's schema, and are signed as the reference library signs", () => {
    const now = Math.floor(Date.now() / 1000)
    fc.assert(
      fc.property(generated, (batch) => {
        const text = DeliveryWorker.body(batch)
        expect(text).toBe(bodyOf040(batch))

        const received = decodeReceived(text)
        expect(received).toEqual({ ...JSON.parse(text), events: batch.events.map((event) => JSON.parse(event)) })
        expect(decodeSent(text).events).toEqual(batch.stored)

        const secret = `whsec_${Buffer.from(batch.key).toString("base64")}`
        const headers = Effect.runSync(WebhookSignature.headers({ secret: Redacted.make(secret), id: batch.deliveryId, timestamp: now, body: text }))
        const reference = new Webhook(secret)
        expect(headers["webhook-signature"]).toBe(reference.sign(batch.deliveryId, new Date(now * 1000), text))
        expect(reference.verify(text, headers)).toEqual(JSON.parse(text))
        const key = Result.getOrThrow(Signature.keyOf(secret))
        expect(Result.isSuccess(Signature.verify(key, { headers, body: text, now, toleranceSeconds: 300 }))).toBe(true)

        // One byte more, and neither verifies.
        expect(() => reference.verify(`${text} `, headers)).toThrow()
        expect(Result.isFailure(Signature.verify(key, { headers, body: `${text} `, now, toleranceSeconds: 300 }))).toBe(true)

        // Signed with a new secret and the one before (a rotation in grace): either verifies, with the library and the kit.
        if (batch.previousKey !== null) {
          const previous = `whsec_${Buffer.from(batch.previousKey).toString("base64")}`
          const both = Effect.runSync(WebhookSignature.headers({
            secret: [Redacted.make(secret), Redacted.make(previous)],
            id: batch.deliveryId,
            timestamp: now,
            body: text
          }))
          for (const one of [secret, previous]) {
            expect(new Webhook(one).verify(text, both)).toEqual(JSON.parse(text))
            expect(Result.isSuccess(Signature.verify(Result.getOrThrow(Signature.keyOf(one)), { headers: both, body: text, now, toleranceSeconds: 300 }))).toBe(true)
          }
        }
      }),
      { seed: 40, numRuns: 300 }
    )
  })
})
