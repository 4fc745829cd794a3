/**
 * The delivery loop's log lines (SERVE.md, "Logs"): a stream that starts failing is logged once
 * (WARN: the error, and when the next attempt is, or that the batch failed for good and the next one
 * goes), once (INFO) when it delivers again, and nothing for the attempts in between or for a stream
 * delivering fine; a 410 and a success rate under the minimum have their own WARN. Real receiver on
 * 127.0.0.1, real PostgreSQL, the clock controlled (`support/clockedStores.ts`).
 */
import { assert, describe, it } from "@effect/vitest"
import { DateTime, Effect, Logger } from "effect"
import { SqlClient } from "effect/sql"
import { alice } from "../../watch/test/fixtures.js"
import { deliverDue } from "../src/delivery/DeliveryWorker.js"
import { loopLayer, setClock } from "./support/clockedStores.js"
import { type Answer, scriptedReceiver } from "./support/scriptedReceiver.js"
import { enqueue, evm, makeStream, transfers } from "./support/storeFixtures.js"

const t0 = DateTime.makeUnsafe("2030-01-02T03:04:05.678Z")
const at = (seconds: number) => setClock(DateTime.add(t0, { seconds }))
const isoAt = (seconds: number) => DateTime.formatIso(DateTime.add(t0, { seconds }))

/** `deliverDue`, with the lines it logs: [level, message]. */
const deliverLogged = (streamId: string) =>
  Effect.gen(function*() {
    const lines: Array<readonly [string, string]> = []
    const capture = Logger.make<unknown, void>(({ logLevel, message }) => {
      lines.push([logLevel, (Array.isArray(message) ? message : [message]).map(String).join(" ")])
    })
    yield* deliverDue(streamId).pipe(Effect.provide(Logger.layer([capture])))
    return lines
  })

/** A stream of alice's to a receiver answering `answers` in turn (then 200), with `count` batches of one event. */
const streamAnswering = (answers: Array<Answer>, count: number) =>
  Effect.gen(function*() {
    const receiver = yield* scriptedReceiver({ answer: () => answers.shift() ?? 200 })
    const stream = yield* makeStream([evm(alice)], { url: receiver.url("/hook") })
    yield* Effect.forEach(Array.from({ length: count }, (_, index) => index), (index) => enqueue(transfers(1, { from: index })), { discard: true })
    return stream
  })

describe("the delivery loop's log lines", () => {
  it.effect("a WARN when a stream starts failing, none while it goes on failing, an INFO when it delivers again, none while it delivers", () =>
    Effect.gen(function*() {
      yield* at(0)
      const stream = yield* streamAnswering([503, 500], 3)
      assert.deepStrictEqual(yield* deliverLogged(stream), [
        ["Warn", `stream ${stream}: webhook delivery failing (batch 1: HTTP 503: answered 503); next attempt at ${isoAt(10)}`]
      ])
      yield* at(10)
      assert.deepStrictEqual(yield* deliverLogged(stream), [], "still failing: no line")
      yield* at(70)
      assert.deepStrictEqual(yield* deliverLogged(stream), [["Info", `stream ${stream}: webhooks delivered again (batch 1 taken by the receiver)`]])
    }).pipe(Effect.provide(loopLayer())))

  it.effect("a batch failed for good says the next one goes now; a 410 has its own WARN", () =>
    Effect.gen(function*() {
      yield* at(0)
      const refused = yield* streamAnswering([400], 2)
      assert.deepStrictEqual(yield* deliverLogged(refused), [
        ["Warn", `stream ${refused}: webhook delivery failing (batch 1: HTTP 400: answered 400); not retried (failed, replayable), the next batch goes now`],
        ["Info", `stream ${refused}: webhooks delivered again (batch 2 taken by the receiver)`]
      ])
      const gone = yield* streamAnswering([410], 1)
      assert.deepStrictEqual(yield* deliverLogged(gone), [["Warn", `stream ${gone}: the receiver answered 410 Gone; the stream is in error until resumed`]])
    }).pipe(Effect.provide(loopLayer())))

  it.effect("a success rate under the minimum: a WARN with the rate", () =>
    Effect.gen(function*() {
      yield* at(0)
      const stream = yield* streamAnswering([...Array.from({ length: 75 }, () => 200), ...Array.from({ length: 25 }, () => 400)], 100)
      const lines = yield* deliverLogged(stream)
      assert.deepStrictEqual(lines.at(-1), ["Warn", `stream ${stream}: 75% of the last 100 attempts succeeded (under 80%): resume the stream once the receiver is fixed`])
    }).pipe(Effect.provide(loopLayer({ minSuccessRate: 0.8 }))))

  it.effect("a stream whose secret this runner cannot open (sealed, and no key): nothing is sent, an ERROR says why", () =>
    Effect.gen(function*() {
      yield* at(0)
      const receiver = yield* scriptedReceiver()
      const stream = yield* makeStream([evm(alice)], { url: receiver.url("/hook") })
      yield* enqueue(transfers(1))
      const sql = yield* SqlClient.SqlClient
      yield* sql`UPDATE streams SET secret = 'enc:v1:AAAA:BBBB' WHERE id = ${stream}`
      const lines = yield* deliverLogged(stream)
      assert.strictEqual(lines.length, 1)
      assert.strictEqual(lines[0]![0], "Error")
      assert.match(lines[0]![1], new RegExp(`^stream ${stream}: not delivered: .*--secrets-key`))
      assert.deepStrictEqual(receiver.hits, [])
    }).pipe(Effect.provide(loopLayer())))
})
