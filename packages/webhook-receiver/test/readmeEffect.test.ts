/**
 * The README's `WebhookReceiver` example, run as written (see `support/readme.ts`: the kit from its
 * source, `request`, `loadState` and `processBatch` given by the test, `handle` exported): the
 * status it answers for each outcome, the batch it processes (a gap's with the gap's state), on a
 * TestClock, as the README says the service reads the time from the `Clock`.
 */
import { assert, beforeAll, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { TestClock } from "effect/testing"
import type { Receive, ReceiverState } from "../src/index.js"
import { ReceiverState as State } from "../src/index.js"
import { readme, runReadmeBlock } from "./support/readme.js"
import { batchRequest, evm, now, otherSecret, request, secret, streamId } from "./support/signing.js"

/** The request `handle` reads, the state the test stores and the sequences processed. */
let current: { readonly headers: Receive.HeadersInput; readonly body: string | Uint8Array } = { headers: {}, body: "" }
let stored: ReceiverState.ReceiverState = State.initial
const processed: Array<number> = []
readme.request = {
  get headers() {
    return current.headers
  },
  get body() {
    return current.body
  }
}
readme.loadState = Effect.sync(() => stored)
readme.processBatch = (received: Receive.Received) =>
  Effect.sync(() => {
    processed.push(received.batch.sequence)
    stored = received.state
  })

let handle: Effect.Effect<number, unknown> = Effect.die("the README example was not loaded")

beforeAll(async () => {
  const secretBefore = process.env.WEBHOOK_SECRET
  process.env.WEBHOOK_SECRET = secret
  try {
    handle = (await runReadmeBlock("With Effect: the `WebhookReceiver` service", "effectService", { appended: "export { handle }" })).handle as typeof handle
  } finally {
    if (secretBefore === undefined) delete process.env.WEBHOOK_SECRET
    else process.env.WEBHOOK_SECRET = secretBefore
  }
})

/** `handle`'s status for `signed`. */
const statusOf = (signed: { readonly headers: Receive.HeadersInput; readonly body: string | Uint8Array }) =>
  Effect.suspend(() => {
    current = signed
    return handle
  })

describe("the README's WebhookReceiver example, run as written", () => {
  it.effect("answers each outcome with the README's status and processes a batch or a gap's batch with its state", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(now * 1000)
      const first = batchRequest({ sequence: 1, coverage: [evm("0x1", 100, 109)] })
      assert.strictEqual(yield* statusOf(first), 200)
      assert.strictEqual(yield* statusOf(first), 200)
      assert.deepStrictEqual(processed, [1])
      assert.strictEqual(yield* statusOf(batchRequest({ sequence: 2 }, { secret: otherSecret })), 401)
      assert.strictEqual(yield* statusOf(request("{\"sequence\":2}", { id: "msg_2" })), 400)
      assert.strictEqual(yield* statusOf(batchRequest({ sequence: 2, streamId: "str_other" })), 409)
      assert.strictEqual(yield* statusOf(batchRequest({ sequence: 2, coverage: [evm("0x1", 109, 112)] })), 409)
      assert.deepStrictEqual(processed, [1])
      // Batch 2 is lost; batch 3 is a gap, processed with the gap's state.
      assert.strictEqual(yield* statusOf(batchRequest({ sequence: 3, coverage: [evm("0x1", 120, 129)] })), 200)
      assert.deepStrictEqual(processed, [1, 3])
      assert.deepStrictEqual(stored, {
        streamId,
        sequence: 3,
        lastDeliveryId: "msg_3",
        coverage: { "0x1": { from: "100", to: "129" } },
        missing: { sequences: [{ from: 2, to: 2 }], blocks: [{ scope: "0x1", from: "110", to: "119" }] }
      })
      // The layer's tolerance is 300 s, on the Clock's time.
      const late = batchRequest({ sequence: 4, coverage: [evm("0x1", 130, 130)] })
      yield* TestClock.adjust("301 seconds")
      assert.strictEqual(yield* statusOf(late), 401)
      yield* TestClock.setTime(now * 1000 + 300_999)
      assert.strictEqual(yield* statusOf(late), 200)
      assert.deepStrictEqual(processed, [1, 3, 4])
      // Batch 2 sent again as it was: processed, the hole gone.
      assert.strictEqual(yield* statusOf(batchRequest({ sequence: 2, replay: true, coverage: [evm("0x1", 110, 119)] })), 200)
      assert.deepStrictEqual(processed, [1, 3, 4, 2])
      assert.notProperty(stored, "missing")
    }))
})
