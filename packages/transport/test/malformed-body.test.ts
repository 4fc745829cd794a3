/**
 * A success answer whose body is not JSON at all (cut short or garbled on the way) is a failure
 * of the exchange: retried like a 5xx, with the same policy and compute-unit budget, then
 * `Transport` `MalformedBody`. A JSON body that does not decode is the service's answer and is
 * not retried. Over real HTTP on 127.0.0.1 (a node:http server plays a script of answers), on the
 * real clock (the backoffs are a few milliseconds).
 */
import { EvmApi } from "@chainquery/schema"
import { afterAll, assert, beforeAll, beforeEach, describe, it } from "@effect/vitest"
import { Effect, Schedule } from "effect"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { Endpoint, type Transport } from "../src/index.js"
import { paths } from "./support/paths.js"

const wallet = "0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed"
const record = {
  token_address: "0x1", token_id: "1", from_address: "0x2", to_address: "0x3", value: "0", amount: "1",
  block_number: "5", block_timestamp: "2023-07-17T21:27:59.000Z", block_hash: "0xb", transaction_hash: "0xt",
  transaction_index: 1, log_index: 2
}
const page = JSON.stringify({ page: 0, page_size: 100, cursor: "", result: [record] })

/** The answers the server plays, one per request; past the end, the last one again. */
const answers = {
  whole: page,
  cut: page.slice(0, Math.floor(page.length / 2)),
  garbled: `{"result": [{"block_number":"1"<html>502 Bad Gateway</html>`,
  empty: "",
  wrongField: JSON.stringify({ page: "first", page_size: 100, cursor: "", result: [] })
} as const

let script: Array<keyof typeof answers> = []
let served = 0
let server: Server
let baseUrl = ""
beforeAll(async () => {
  server = createServer((_req, res) => {
    const answer = script[Math.min(served, script.length - 1)]!
    served++
    res.writeHead(200, { "content-type": "application/json" })
    res.end(answers[answer])
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))
beforeEach(() => {
  served = 0
})

const transfers = Endpoint.fromHttpApi(EvmApi.EvmGroup.endpoints.getWalletNFTTransfers)
const fast = { base: "5 millis", cap: "20 millis" } as const

describe.each(paths)("a success answer whose body is not JSON, $name", (path) => {
  const call = (played: ReadonlyArray<keyof typeof answers>, options: Partial<Transport.Options> = {}) =>
    Effect.gen(function*() {
      script = [...played]
      const transport = yield* path.make({ baseUrl, apiKey: "k", retry: { times: 3, ...fast }, ...options })
      return yield* transport.send(transfers.build({ address: wallet }, {}))
    })

  it.live("cut short, garbled, empty, then whole: retried into the page (4 requests)", () =>
    Effect.gen(function*() {
      const result = yield* call(["cut", "garbled", "empty", "whole"])
      assert.strictEqual(result.result.length, 1)
      assert.strictEqual(result.result[0]!.block_number, 5n)
      assert.strictEqual(served, 4)
    }))

  it.live("never whole: Transport MalformedBody after the first attempt and its 3 retries", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(call(["cut"]))
      assert.strictEqual(error._tag, "Transport")
      assert.strictEqual((error as { reason: string }).reason, "MalformedBody")
      assert.match(error.message, /^the body of a 200 answer is not valid JSON \(\d+ characters, starting "\{/)
      assert.strictEqual(served, 4)
    }))

  it.live("the same policy as a 5xx: retry.times, a schedule of the caller's, or none", () =>
    Effect.gen(function*() {
      yield* Effect.flip(call(["garbled"], { retry: { times: 1, ...fast } }))
      assert.strictEqual(served, 2)
      served = 0
      yield* Effect.flip(call(["garbled"], { retry: { schedule: Schedule.spaced("5 millis"), times: 5 } }))
      assert.strictEqual(served, 6)
      served = 0
      const once = yield* Effect.flip(call(["garbled"], { retry: { times: 0 } }))
      assert.strictEqual((once as { reason: string }).reason, "MalformedBody")
      assert.strictEqual(served, 1)
    }))

  it.live("each attempt takes its compute units from the budget, as a 5xx's does", () =>
    Effect.gen(function*() {
      // 20 units a second (and at most 20 saved up), 10 an attempt: the first two attempts find
      // their units, the third and the fourth wait half a second each.
      const started = Date.now()
      const error = yield* Effect.flip(call(["empty"], { rateLimit: { unitsPerSecond: 20, weights: { getWalletNFTTransfers: 10 } } }))
      assert.strictEqual((error as { reason: string }).reason, "MalformedBody")
      assert.strictEqual(served, 4)
      assert.isAtLeast(Date.now() - started, 900)
    }))

  it.live("a JSON body that does not decode is the service's answer: ResponseDecode, one request", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(call(["wrongField", "whole"]))
      assert.strictEqual(error._tag, "ResponseDecode")
      assert.strictEqual(served, 1)
    }))
})
