/**
 * The defaults of the README's settings table, each pinned at its edge with TestClock and a
 * scripted (or silent) HttpClient: the attempt and total timeouts, the retry count and cap, the
 * longest Retry-After waited for, the statuses never retried, the weight of an unknown operation,
 * the requests in flight and the largest body.
 */
import type { Errors } from "@chainquery/schema"
import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect, Fiber, Layer, Result } from "effect"
import { HttpClient } from "effect/http"
import { TestClock } from "effect/testing"
import { ComputeBudget, ResponseBody, Transport } from "../src/index.js"
import { type Scripted, scriptedClient } from "./support/fakeHttp.js"

const request = {
  operation: "getBlock",
  path: "/api/v2.2/block/1",
  query: [["chain", "0x1"]] as const,
  decode: (body: unknown) => Result.succeed(body)
}

const make = Transport.make({ baseUrl: "https://service.test", apiKey: "k" })

const scripted = (script: ReadonlyArray<Scripted>) => {
  const fake = scriptedClient(script)
  return { call: make.pipe(Effect.flatMap((transport) => transport.send(request)), Effect.provide(fake.layer)), asked: fake.asked }
}

/** An HttpClient that never answers, counting the requests started and still waiting. */
const silent = () => {
  const counts = { started: 0, waiting: 0 }
  const client = HttpClient.make(() =>
    Effect.suspend(() => {
      counts.started++
      counts.waiting++
      return Effect.never
    }).pipe(Effect.onInterrupt(() => Effect.sync(() => counts.waiting--)))
  )
  return { layer: Layer.succeed(HttpClient.HttpClient, client), counts }
}

/** A 200 whose body is a JSON string of `size` bytes. */
const stringOfSize = (size: number): Scripted => ({ status: 200, body: `"${"a".repeat(size - 2)}"` })

/** Lets forked fibers run up to their next wait without moving the clock. */
const settle = TestClock.adjust(Duration.zero)

describe("transport defaults (README: Settings)", () => {
  it.effect("attemptTimeout is 10 s: an attempt that never answers is given up at 10 s and tried again", () =>
    Effect.gen(function*() {
      const server = silent()
      const fiber = yield* Effect.forkChild(make.pipe(Effect.flatMap((transport) => transport.send(request)), Effect.provide(server.layer)))
      yield* settle
      assert.strictEqual(server.counts.started, 1)
      yield* TestClock.adjust("9999 millis")
      assert.strictEqual(server.counts.started, 1)
      assert.strictEqual(server.counts.waiting, 1)
      // Given up at 10 s, retried after the backoff (250 ms, jittered 0.8-1.2x).
      yield* TestClock.adjust("1 millis")
      assert.strictEqual(server.counts.waiting, 0)
      yield* TestClock.adjust("300 millis")
      assert.strictEqual(server.counts.started, 2)
      yield* Fiber.interrupt(fiber)
    }))

  it.effect("totalTimeout is 60 s: with attempts of 100 s, the call fails at 60 s exactly", () =>
    Effect.gen(function*() {
      const server = silent()
      const fiber = yield* Effect.forkChild(
        Transport.make({ baseUrl: "https://service.test", apiKey: "k", attemptTimeout: "100 seconds" }).pipe(
          Effect.flatMap((transport) => Effect.flip(transport.send(request))),
          Effect.provide(server.layer)
        )
      )
      yield* TestClock.adjust("59999 millis")
      assert.isUndefined(fiber.pollUnsafe())
      yield* TestClock.adjust("1 millis")
      const error = yield* Fiber.join(fiber)
      assert.strictEqual(error._tag, "Transport")
      assert.strictEqual((error as Errors.Transport).reason, "Timeout")
      assert.strictEqual(server.counts.started, 1)
      assert.strictEqual(server.counts.waiting, 0)
    }))

  it.effect("retry is 3 times: a 503 that never ends is asked 4 times, then the call fails with it", () =>
    Effect.gen(function*() {
      const { call, asked } = scripted([{ status: 503, body: '{"message":"busy"}' }])
      const fiber = yield* Effect.forkChild(Effect.flip(call))
      yield* TestClock.adjust("30 seconds")
      const error = yield* Fiber.join(fiber)
      assert.strictEqual(error._tag, "ServerError")
      assert.strictEqual(asked.length, 4)
    }))

  it.effect("retry backoff: 250 ms doubling, jittered 0.8-1.2x, capped at 4 s", () =>
    Effect.gen(function*() {
      const fake = scriptedClient([{ status: 503 }])
      const fiber = yield* Effect.forkChild(
        Transport.make({ baseUrl: "https://service.test", apiKey: "k", retry: { times: 7 } }).pipe(
          Effect.flatMap((transport) => Effect.flip(transport.send(request))),
          Effect.provide(fake.layer)
        )
      )
      yield* TestClock.adjust("60 seconds")
      yield* Fiber.join(fiber)
      const gaps = fake.asked.slice(1).map((asked, index) => asked.at - fake.asked[index]!.at)
      const nominal = [250, 500, 1000, 2000, 4000, 8000, 16_000]
      assert.strictEqual(gaps.length, nominal.length)
      gaps.forEach((gap, index) => {
        const capped = Math.min(nominal[index]!, 4000)
        assert.isTrue(gap >= capped * 0.8 && gap <= capped * 1.2, `retry ${index + 1} after ${gap} ms, expected about ${capped}`)
      })
    }))

  it.effect("maxRetryAfter is 30 s: Retry-After 30 is waited for, 31 fails at once with RateLimited", () =>
    Effect.gen(function*() {
      const waited = scripted([{ status: 429, headers: { "retry-after": "30" } }, { status: 200, body: "1" }])
      const fiber = yield* Effect.forkChild(waited.call)
      yield* TestClock.adjust("30 seconds")
      assert.strictEqual(yield* Fiber.join(fiber), 1)
      assert.deepStrictEqual(waited.asked.map((asked) => asked.at), [0, 30_000])

      const refused = scripted([{ status: 429, headers: { "retry-after": "31" } }, { status: 200, body: "1" }])
      const error = yield* Effect.flip(refused.call)
      assert.strictEqual(error._tag, "RateLimited")
      assert.strictEqual(refused.asked.length, 1)
    }))

  for (const status of [501, 505, 507, 599]) {
    it.effect(`${status} is a ServerError, not retried`, () =>
      Effect.gen(function*() {
        const { call, asked } = scripted([{ status, body: '{"message":"no"}' }, { status: 200 }])
        const error = yield* Effect.flip(call)
        assert.strictEqual(error._tag, "ServerError")
        assert.strictEqual(asked.length, 1)
      }))
  }

  it.effect("an operation without a weight costs 5 units", () =>
    Effect.gen(function*() {
      const budget = yield* ComputeBudget.make({ unitsPerSecond: 10 })
      // The bucket starts full (10 units): two unknown operations spend it, the third waits 500 ms.
      yield* budget.take("notAnOperation")
      yield* budget.take("notAnOperation")
      const third = yield* Effect.forkChild(budget.take("notAnOperation"))
      yield* TestClock.adjust("499 millis")
      assert.isUndefined(third.pollUnsafe())
      yield* TestClock.adjust("1 millis")
      yield* Fiber.join(third)
    }))

  it.effect("maxConcurrency is 8: a ninth request waits for one of the eight in flight", () =>
    Effect.gen(function*() {
      const server = silent()
      const fibers = yield* make.pipe(
        Effect.flatMap((transport) => Effect.forEach(Array.from({ length: 9 }), () => Effect.forkChild(transport.send(request)))),
        Effect.provide(server.layer)
      )
      yield* settle
      assert.strictEqual(server.counts.started, 8)
      yield* Fiber.interruptAll(fibers)
    }))

  it("maxBodyBytes is 16 MiB", () => {
    assert.strictEqual(ResponseBody.defaultMaxBytes, 16 * 1024 * 1024)
  })

  it.effect("a body of 16 MiB is read; one byte more fails with BodyTooLarge", () =>
    Effect.gen(function*() {
      const limit = 16 * 1024 * 1024
      const read = yield* scripted([stringOfSize(limit)]).call
      assert.strictEqual((read as string).length, limit - 2)
      const error = yield* Effect.flip(scripted([stringOfSize(limit + 1)]).call)
      assert.strictEqual(error._tag, "Transport")
      assert.strictEqual((error as Errors.Transport).reason, "BodyTooLarge")
    }))
})
