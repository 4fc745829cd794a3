/**
 * The WebhookReceiver service: its layer checks the settings once, and `receive` reads the time
 * from the Clock (here a TestClock set to the test's `now`).
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Redacted } from "effect"
import { TestClock } from "effect/testing"
import { ReceiverState, WebhookReceiver } from "../src/index.js"
import { batchRequest, evm, now, secret } from "./support/signing.js"

const receiver = WebhookReceiver.layer({ secret: Redacted.make(secret), toleranceSeconds: 60 })

describe("WebhookReceiver", () => {
  it.effect("receives a batch at the Clock's time, with the layer's tolerance", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(now * 1000 + 999)
      const service = yield* WebhookReceiver.WebhookReceiver
      const request = batchRequest({ sequence: 1, coverage: [evm("0x1", 10, 20)] })
      const { batch, state } = yield* service.receive({ ...request, state: ReceiverState.initial })
      assert.strictEqual(batch.sequence, 1)
      assert.deepStrictEqual(state.coverage, { "0x1": { from: "10", to: "20" } })
      // The retry of the same request is AlreadyProcessed once the state is stored.
      const retry = yield* Effect.flip(service.receive({ ...request, state }))
      assert.strictEqual(retry._tag, "AlreadyProcessed")
      // 61 s later, the same request is stale under the layer's 60 s.
      yield* TestClock.adjust("61 seconds")
      const stale = yield* Effect.flip(service.receive({ ...request, state: ReceiverState.initial }))
      assert.strictEqual(stale._tag, "StaleTimestamp")
      assert.deepStrictEqual(stale._tag === "StaleTimestamp" ? [stale.ageSeconds, stale.toleranceSeconds] : [], [61, 60])
    }).pipe(Effect.provide(receiver)))

  it.effect("the layer fails to build with InvalidConfig on an unusable secret or tolerance", () =>
    Effect.gen(function*() {
      const badSecret = yield* Effect.flip(Layer.build(WebhookReceiver.layer({ secret: "whsec_!!" })).pipe(Effect.scoped))
      assert.deepStrictEqual([badSecret._tag, badSecret.setting], ["InvalidConfig", "secret"])
      const badTolerance = yield* Effect.flip(Layer.build(WebhookReceiver.layer({ secret, toleranceSeconds: -5 })).pipe(Effect.scoped))
      assert.deepStrictEqual([badTolerance._tag, badTolerance.setting], ["InvalidConfig", "toleranceSeconds"])
    }))
})
