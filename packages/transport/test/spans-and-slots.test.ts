/**
 * Two promises of the transport that no other test holds, on both ways of sending, over real HTTP
 * on 127.0.0.1: one span per call (named after the operation, a child of the caller's span, with
 * the chain, the final status and the number of attempts, ended with the call's outcome), and at
 * most `maxConcurrency` requests in flight, the others waiting for a slot that is never lost.
 */
import { EvmApi } from "@chainquery/schema"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { Effect, Exit, Fiber, Option, Tracer } from "effect"
import { FetchHttpClient } from "effect/http"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { Endpoint } from "../src/index.js"
import { paths } from "./support/paths.js"

const wallet = "0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed"
const page = JSON.stringify({ page: 0, page_size: 100, cursor: "", result: [] })
const transfers = Endpoint.fromHttpApi(EvmApi.EvmGroup.endpoints.getWalletNFTTransfers)

/** Requests in flight at the service now, and the most seen at once. */
let inFlight = 0
let mostInFlight = 0
/** How many requests for each `flaky` path failed before one succeeded. */
const failedOnce = new Set<string>()

let server: Server
let baseUrl: string
beforeAll(async () => {
  server = createServer((req, res) => {
    const path = req.url ?? ""
    if (path.includes("flaky") && !failedOnce.has(path)) {
      failedOnce.add(path)
      res.writeHead(503, { "content-type": "application/json" }).end(`{"message":"try again"}`)
      return
    }
    if (path.includes("rejected")) {
      res.writeHead(400, { "content-type": "application/json" }).end(`{"message":"no such chain"}`)
      return
    }
    // In flight until answered, or until the client lets go of it.
    inFlight++
    mostInFlight = Math.max(mostInFlight, inFlight)
    let counted = true
    const done = () => {
      if (counted) inFlight--
      counted = false
    }
    res.once("close", done)
    // Held long enough that every call of a batch is started while the first ones are still in flight.
    setTimeout(() => {
      if (res.destroyed) return
      done()
      res.writeHead(200, { "content-type": "application/json" }).end(page)
    }, path.includes("slow") ? 150 : 0)
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(async () => {
  server.closeAllConnections()
  await new Promise<void>((resolve) => server.close(() => resolve()))
})

/** Waits until `condition` holds (what the service saw), looking every few milliseconds. */
const until = (condition: () => boolean) =>
  Effect.gen(function*() {
    while (!condition()) yield* Effect.sleep("5 millis")
  })

/** A tracer that keeps every span it makes. */
const recordingTracer = () => {
  const spans: Array<Tracer.NativeSpan> = []
  const tracer = Tracer.make({
    span(options) {
      const span = new Tracer.NativeSpan(options)
      spans.push(span)
      return span
    }
  })
  return { spans, tracer }
}

/** A call whose `cursor` tells the service how to answer. */
const request = (cursor: string) => transfers.build({ address: wallet }, { chain: "0x89", cursor }, "0x89")

describe.each(paths)("transport $name", (path) => {
  it.live("one span per call: a child of the caller's, with operation, chain, final status and attempts", () =>
    Effect.gen(function*() {
      const transport = yield* path.make({ baseUrl, apiKey: "key", retry: { times: 2, base: "1 millis" } })
      const { spans, tracer } = recordingTracer()
      const calls = Effect.gen(function*() {
        const retried = yield* Effect.exit(transport.send(request("flaky-" + path.name.replaceAll(" ", "-"))))
        const rejected = yield* Effect.exit(transport.send(request("rejected")))
        return { retried, rejected }
      }).pipe(Effect.withSpan("caller"), Effect.provideService(Tracer.Tracer, tracer))
      const { retried, rejected } = yield* calls

      assert.isTrue(Exit.isSuccess(retried))
      assert.isTrue(Exit.isFailure(rejected))
      const caller = spans.find((span) => span.name === "caller")
      const ours = spans.filter((span) => span.name === "chainquery.getWalletNFTTransfers")
      assert.strictEqual(ours.length, 2, "one span per call, whatever the number of attempts")
      const [first, second] = ours as [Tracer.NativeSpan, Tracer.NativeSpan]
      for (const span of ours) {
        assert.strictEqual(Option.getOrUndefined(span.parent)?.spanId, caller?.spanId, "a child of the caller's span")
        assert.strictEqual(span.attributes.get("chainquery.operation"), "getWalletNFTTransfers")
        assert.strictEqual(span.status._tag, "Ended", "ended when the call ends")
      }
      assert.strictEqual(first.attributes.get("chainquery.chain"), "0x89")
      assert.strictEqual(first.attributes.get("http.status_code"), 200)
      assert.strictEqual(first.attributes.get("chainquery.attempts"), 2)
      assert.isTrue(first.status._tag === "Ended" && Exit.isSuccess(first.status.exit))
      assert.strictEqual(second.attributes.get("http.status_code"), 400)
      assert.strictEqual(second.attributes.get("chainquery.attempts"), 1, "a 400 is not retried")
      assert.isTrue(second.status._tag === "Ended" && Exit.isFailure(second.status.exit), "the span ends with the failure")
      // What runs inside the call (the HttpClient's own spans, on that way) is a child of the call's span.
      const inner = spans.filter((span) => span !== caller && !ours.includes(span))
      assert.strictEqual(inner.length, path.clientSpans ? 3 : 0, "one HttpClient span per attempt on that way, none on fetch")
      for (const span of inner) assert.include(ours.map((our) => our.spanId), Option.getOrUndefined(span.parent)?.spanId)
    }))

  it.live("at most maxConcurrency requests in flight; the others wait for a slot and all complete", () =>
    Effect.gen(function*() {
      const transport = yield* path.make({ baseUrl, apiKey: "key", rateLimit: { maxConcurrency: 2 } })
      inFlight = 0
      mostInFlight = 0
      const results = yield* Effect.all(Array.from({ length: 6 }, () => transport.send(request("slow"))), { concurrency: "unbounded" })
      assert.strictEqual(results.length, 6)
      assert.strictEqual(mostInFlight, 2, "two requests at once, never more")

      mostInFlight = 0
      const wide = yield* path.make({ baseUrl, apiKey: "key", rateLimit: { maxConcurrency: 4 } })
      yield* Effect.all(Array.from({ length: 4 }, () => wide.send(request("slow"))), { concurrency: "unbounded" })
      assert.strictEqual(mostInFlight, 4, "the cap is the option's, not a fixed one")
    }))

  it.live("a slot is never lost: not by a call interrupted in flight, nor by calls whose deadline passed while waiting", () =>
    Effect.gen(function*() {
      const transport = yield* path.make({ baseUrl, apiKey: "key", rateLimit: { maxConcurrency: 1 } })
      inFlight = 0
      mostInFlight = 0
      const interrupted = yield* Effect.forkChild(transport.send(request("slow")))
      yield* until(() => inFlight > 0)
      yield* Fiber.interrupt(interrupted)
      // The service hears of the abandoned request a moment later; count from then on.
      yield* until(() => inFlight === 0)
      mostInFlight = 0

      const holder = yield* Effect.forkChild(transport.send(request("slow")))
      yield* until(() => inFlight > 0)
      const waiting = yield* Effect.all(
        Array.from({ length: 2 }, () => Effect.flip(transport.send(request("slow"), { timeout: "40 millis" }))),
        { concurrency: "unbounded" }
      )
      for (const error of waiting) assert.strictEqual(error._tag === "Transport" && error.reason, "Timeout")
      assert.strictEqual(mostInFlight, 1, "the calls whose deadline passed while waiting were never sent")
      yield* Fiber.join(holder)

      const after = yield* Effect.all(Array.from({ length: 3 }, () => transport.send(request("slow"), { timeout: "10 seconds" })), {
        concurrency: "unbounded"
      })
      assert.strictEqual(after.length, 3, "every later call got the slot in turn")
      assert.strictEqual(mostInFlight, 1)

      // A `fetch` that never answers and ignores its signal: interrupting the call still frees its slot.
      const silent = (() => new Promise<Response>(() => {})) as typeof globalThis.fetch
      const stuck = yield* Effect.forkChild(transport.send(request("slow")).pipe(Effect.provideService(FetchHttpClient.Fetch, silent)))
      yield* Effect.sleep("20 millis")
      yield* Fiber.interrupt(stuck)
      const next = yield* transport.send(request("slow"), { timeout: "10 seconds" })
      assert.deepStrictEqual(next.result, [], "the next call got the slot")
    }))
})
