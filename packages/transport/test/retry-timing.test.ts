/**
 * Retry timing, exactly, with TestClock and a scripted HttpClient: which statuses are retried,
 * the backoff of a schedule, Retry-After honoured in both its forms (delay-seconds and HTTP date,
 * and refused when too long), the attempt count.
 */
import { Errors } from "@chainquery/schema"
import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect, Fiber, Option, Result, Schedule } from "effect"
import { TestClock } from "effect/testing"
import { RetryPolicy, Transport } from "../src/index.js"
import { type Scripted, scriptedClient } from "./support/fakeHttp.js"

const request = {
  operation: "getBlock",
  path: "/api/v2.2/block/1",
  query: [["chain", "0x1"]] as const,
  decode: (body: unknown) => Result.succeed(body)
}

const run = (script: ReadonlyArray<Scripted>, options: Partial<Transport.Options> = {}) => {
  const fake = scriptedClient(script)
  const call = Effect.gen(function*() {
    const transport = yield* Transport.make({ baseUrl: "https://service.test", apiKey: "k", ...options })
    return yield* transport.send(request)
  }).pipe(Effect.provide(fake.layer))
  return { call, asked: fake.asked }
}

describe("transport retry timing", () => {
  it.effect("retries 503 on the given schedule, exactly", () =>
    Effect.gen(function*() {
      const { call, asked } = run([{ status: 503 }, { status: 503 }, { status: 200, body: '{"ok":true}' }], {
        retry: { schedule: Schedule.exponential("100 millis"), times: 3 }
      })
      const fiber = yield* Effect.forkChild(call)
      yield* TestClock.adjust("99 millis")
      assert.strictEqual(asked.length, 1)
      yield* TestClock.adjust("1 millis")
      assert.strictEqual(asked.length, 2)
      yield* TestClock.adjust("199 millis")
      assert.strictEqual(asked.length, 2)
      yield* TestClock.adjust("1 millis")
      assert.deepStrictEqual(yield* Fiber.join(fiber), { ok: true })
      assert.deepStrictEqual(asked.map((a) => a.at), [0, 100, 300])
    }))

  it.effect("waits for Retry-After when it is longer than the backoff", () =>
    Effect.gen(function*() {
      const { call, asked } = run([{ status: 429, headers: { "retry-after": "3" } }, { status: 200, body: "[]" }])
      const fiber = yield* Effect.forkChild(call)
      yield* TestClock.adjust("2999 millis")
      assert.strictEqual(asked.length, 1)
      yield* TestClock.adjust("1 millis")
      assert.deepStrictEqual(yield* Fiber.join(fiber), [])
      assert.deepStrictEqual(asked.map((a) => a.at), [0, 3000])
    }))

  it.effect("a Retry-After of 7 s: the retry comes exactly then, not after the 1 s pause of a bare 429", () =>
    Effect.gen(function*() {
      const { call, asked } = run([{ status: 429, headers: { "retry-after": "7" } }, { status: 200, body: "7" }], {
        retry: { base: "10 millis" }
      })
      const fiber = yield* Effect.forkChild(call)
      yield* TestClock.adjust("6999 millis")
      assert.strictEqual(asked.length, 1, "no retry before the 7 s asked for")
      yield* TestClock.adjust("1 millis")
      assert.strictEqual(yield* Fiber.join(fiber), 7)
      assert.deepStrictEqual(asked.map((a) => a.at - asked[0]!.at), [0, 7000])
    }))

  // Without a budget in the way: the schedule alone must honour the delay the error carries.
  it.effect("RetryPolicy.retry on its own waits for the error's retryAfter, not just the backoff", () =>
    Effect.gen(function*() {
      let attempts = 0
      const attempt = Effect.suspend(() =>
        ++attempts === 1
          ? Effect.fail(new Errors.RateLimited({ message: "slow down", retryAfter: Option.some(Duration.seconds(3)) }))
          : Effect.succeed(attempts)
      )
      const fiber = yield* Effect.forkChild(RetryPolicy.retry(attempt, { base: "10 millis" }))
      yield* TestClock.adjust("2999 millis")
      assert.strictEqual(attempts, 1)
      yield* TestClock.adjust("1 millis")
      assert.strictEqual(yield* Fiber.join(fiber), 2)
    }))

  it.effect("an HTTP-date Retry-After is waited for until that date, by the Effect clock", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(Date.parse("Wed, 21 Oct 2026 07:27:55 GMT"))
      const { call, asked } = run([{ status: 429, headers: { "retry-after": "Wed, 21 Oct 2026 07:28:00 GMT" } }, {
        status: 200,
        body: "5"
      }], { retry: { base: "10 millis" } })
      const fiber = yield* Effect.forkChild(call)
      yield* TestClock.adjust("4999 millis")
      assert.strictEqual(asked.length, 1, "no retry before the date")
      yield* TestClock.adjust("1 millis")
      assert.strictEqual(yield* Fiber.join(fiber), 5)
      assert.deepStrictEqual(asked.map((a) => new Date(a.at).toISOString()), ["2026-10-21T07:27:55.000Z", "2026-10-21T07:28:00.000Z"])
    }))

  it.effect("an HTTP date already past: retried after the backoff alone (8-12 ms here), no pause", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(Date.parse("Wed, 21 Oct 2026 07:28:00 GMT"))
      const { call, asked } = run([{ status: 429, headers: { "retry-after": "Wed, 21 Oct 2026 06:00:00 GMT" } }, {
        status: 200,
        body: "0"
      }], { retry: { base: "10 millis" } })
      const fiber = yield* Effect.forkChild(call)
      yield* TestClock.adjust("7 millis")
      assert.strictEqual(asked.length, 1)
      yield* TestClock.adjust("5 millis")
      assert.strictEqual(asked.length, 2, "retried within the jittered 10 ms backoff")
      assert.strictEqual(yield* Fiber.join(fiber), 0)
    }))

  // What is neither delay-seconds nor a date is as if there were no header: the 429's default
  // 1 s pause of the budget, then the retry (the backoff, 10 ms here, ends before it).
  for (const garbage of ["soon", "3 seconds", "1e3", "", "NaN"]) {
    it.effect(`a Retry-After that is neither seconds nor a date (${JSON.stringify(garbage)}) is ignored: as without one`, () =>
      Effect.gen(function*() {
        const { call, asked } = run([{ status: 429, headers: { "retry-after": garbage } }, { status: 200, body: "1" }], {
          retry: { base: "10 millis" }
        })
        const fiber = yield* Effect.forkChild(Effect.result(call))
        yield* TestClock.adjust("999 millis")
        assert.strictEqual(asked.length, 1)
        yield* TestClock.adjust("1 millis")
        assert.deepStrictEqual(yield* Fiber.join(fiber), Result.succeed(1))
        assert.deepStrictEqual(asked.map((a) => a.at), [0, 1000])
      }))
  }

  it("parseRetryAfter: delay-seconds, an HTTP date relative to now (0 once past), nothing for the rest", () => {
    const now = Date.parse("Wed, 21 Oct 2026 07:27:50 GMT")
    const parsed = (header: string | undefined) => Option.map(RetryPolicy.parseRetryAfter(header, now), Duration.toMillis)
    assert.deepStrictEqual(parsed("3"), Option.some(3000))
    assert.deepStrictEqual(parsed(" 1.5 "), Option.some(1500))
    assert.deepStrictEqual(parsed("0"), Option.some(0))
    assert.deepStrictEqual(parsed("Wed, 21 Oct 2026 07:28:00 GMT"), Option.some(10_000))
    // The obsolete RFC 850 form, which RFC 9110 still asks recipients to accept.
    assert.deepStrictEqual(parsed("Wednesday, 21-Oct-26 07:28:00 GMT"), Option.some(10_000))
    assert.deepStrictEqual(parsed("Wed, 21 Oct 2026 07:00:00 GMT"), Option.some(0))
    for (const garbage of [undefined, "", "soon", "3 seconds", "1e3", "NaN"]) assert.deepStrictEqual(parsed(garbage), Option.none(), String(garbage))
  })

  it("parseRetryAfter reads the three HTTP-date forms as GMT, strictly: what a lenient Date.parse takes for a date is nothing", () => {
    const now = Date.UTC(2026, 9, 21, 7, 27, 50)
    const parsed = (header: string) => Option.map(RetryPolicy.parseRetryAfter(header, now), Duration.toMillis)
    const day = 24 * 3600 * 1000
    // asctime, one-digit day padded with a space, and IMF-fixdate: the same instant.
    assert.deepStrictEqual(parsed("Wed Oct 21 07:28:00 2026"), Option.some(10_000))
    assert.deepStrictEqual(parsed("Sun Nov  1 07:27:50 2026"), Option.some(11 * day))
    assert.deepStrictEqual(parsed("Sun, 01 Nov 2026 07:27:50 GMT"), Option.some(11 * day))
    // A leap second is the second after :59 (07:27:60 is as late as 07:28:00 here).
    assert.deepStrictEqual(parsed("Wed, 21 Oct 2026 07:27:60 GMT"), Option.some(10_000))
    const lenient = [
      "-5", "-1", "3.", "1,5", "Retry 5", "10.5.2030", "2030-01-01", "Wed, 21 Oct 2026 07:28:00 +0000", "Wed, 21 Oct 2026 07:28:00 UTC",
      "Wed, 31 Feb 2026 07:28:00 GMT", "Wed, 21 Oct 2026 24:00:00 GMT", "Wed, 21 Oct 2026 07:60:00 GMT", "Wed, 21 Oct 2026 07:28:61 GMT",
      "Wed, 21 Foo 2026 07:28:00 GMT", "Wed, 1 Oct 2026 07:28:00 GMT"
    ]
    for (const garbage of lenient) assert.deepStrictEqual(parsed(garbage), Option.none(), garbage)
  })

  it("parseRetryAfter: an RFC 850 two-digit year more than 50 years ahead of now is the most recent past one", () => {
    const now = Date.UTC(2026, 9, 21, 7, 27, 50)
    const parsed = (header: string) => Option.map(RetryPolicy.parseRetryAfter(header, now), Duration.toMillis)
    // 76 is 2076 (50 years ahead), 77 is 1977 (2077 would be 51): long past, no wait.
    assert.deepStrictEqual(parsed("Wednesday, 21-Oct-76 07:27:50 GMT"), Option.some(Date.UTC(2076, 9, 21, 7, 27, 50) - now))
    assert.deepStrictEqual(parsed("Thursday, 21-Oct-77 07:27:50 GMT"), Option.some(0))
    assert.deepStrictEqual(parsed("Wednesday, 21-Oct-26 07:28:00 GMT"), Option.some(10_000))
    // In 2070 a current date is sent as 70 and read as 2070, not 1970.
    const later = Date.UTC(2070, 0, 1)
    assert.deepStrictEqual(Option.map(RetryPolicy.parseRetryAfter("Wednesday, 01-Jan-70 00:00:05 GMT", later), Duration.toMillis), Option.some(5000))
  })

  it("parseRetryAfter reads asctime as GMT, not in the machine's time zone (Pacific/Chatham here, see vitest.config.ts)", () => {
    // The check can only fail if the machine's zone is not GMT: make sure it is not.
    assert.notStrictEqual(new Date(2026, 9, 21).getTimezoneOffset(), 0)
    const now = Date.UTC(2026, 9, 21, 7, 27, 50)
    assert.deepStrictEqual(Option.map(RetryPolicy.parseRetryAfter("Wed Oct 21 07:28:00 2026", now), Duration.toMillis), Option.some(10_000))
  })

  it.effect("a Retry-After beyond the bound fails at once with RateLimited", () =>
    Effect.gen(function*() {
      const { call, asked } = run([{ status: 429, headers: { "retry-after": "120" } }])
      const error = yield* Effect.flip(call)
      assert.instanceOf(error, Errors.RateLimited)
      assert.deepStrictEqual(Option.map((error as Errors.RateLimited).retryAfter, Duration.toSeconds), Option.some(120))
      assert.strictEqual(asked.length, 1)
    }))

  it.effect("a refused Retry-After pauses the client's other calls only up to maxRetryAfter", () =>
    Effect.gen(function*() {
      const fake = scriptedClient([{ status: 429, headers: { "retry-after": "3600" } }, { status: 200, body: "2" }])
      const program = Effect.gen(function*() {
        const transport = yield* Transport.make({ baseUrl: "https://service.test", apiKey: "k", retry: { maxRetryAfter: "5 seconds" } })
        const refused = yield* Effect.flip(transport.send(request))
        assert.strictEqual(refused._tag, "RateLimited")
        const next = yield* Effect.forkChild(transport.send(request))
        yield* TestClock.adjust("4999 millis")
        assert.strictEqual(fake.asked.length, 1)
        yield* TestClock.adjust("1 millis")
        return yield* Fiber.join(next)
      }).pipe(Effect.provide(fake.layer))
      assert.strictEqual(yield* program, 2)
      assert.deepStrictEqual(fake.asked.map((a) => a.at), [0, 5000])
    }))

  it.effect("the call's deadline covers waiting for compute units", () =>
    Effect.gen(function*() {
      const fake = scriptedClient([{ status: 200, body: "1" }])
      const program = Effect.gen(function*() {
        const transport = yield* Transport.make({
          baseUrl: "https://service.test",
          apiKey: "k",
          attemptTimeout: "100 millis",
          totalTimeout: "500 millis",
          rateLimit: { unitsPerSecond: 1 }
        })
        yield* transport.send(request)
        const second = yield* Effect.forkChild(Effect.flip(transport.send(request)))
        yield* TestClock.adjust("500 millis")
        return yield* Fiber.join(second)
      }).pipe(Effect.provide(fake.layer))
      const error = yield* program
      assert.strictEqual(error._tag, "Transport")
      assert.match(error.message, /did not complete within/)
      assert.strictEqual(fake.asked.length, 1)
    }))

  it.effect("a call's own maxRetryAfter bounds the pause it imposes on the others", () =>
    Effect.gen(function*() {
      const fake = scriptedClient([{ status: 429, headers: { "retry-after": "20" } }, { status: 200, body: "3" }])
      const program = Effect.gen(function*() {
        const transport = yield* Transport.make({ baseUrl: "https://service.test", apiKey: "k" })
        const refused = yield* Effect.flip(transport.send(request, { retry: { maxRetryAfter: "1 second" } }))
        assert.strictEqual(refused._tag, "RateLimited")
        const next = yield* Effect.forkChild(transport.send(request))
        yield* TestClock.adjust("1 second")
        return yield* Fiber.join(next)
      }).pipe(Effect.provide(fake.layer))
      assert.strictEqual(yield* program, 3)
      assert.deepStrictEqual(fake.asked.map((a) => a.at), [0, 1000])
    }))

  it.effect("the budget learns from the answers: a 429 halves the rate, a success gives back a twentieth", () =>
    Effect.gen(function*() {
      const fake = scriptedClient([{ status: 429, headers: { "retry-after": "1" } }, { status: 200, body: "1" }])
      const program = Effect.gen(function*() {
        const transport = yield* Transport.make({
          baseUrl: "https://service.test",
          apiKey: "k",
          retry: { base: "10 millis" },
          rateLimit: { unitsPerSecond: 100, weights: { getBlock: 10 } }
        })
        const first = yield* Effect.forkChild(transport.send(request))
        yield* TestClock.adjust("1200 millis")
        yield* Fiber.join(first)
        const second = yield* Effect.forkChild(transport.send(request))
        yield* TestClock.adjust("1 second")
        return yield* Fiber.join(second)
      }).pipe(Effect.provide(fake.layer))
      assert.strictEqual(yield* program, 1)
      // The 429 at 0: rate 50 per second, nothing accrues during the 1 s pause, so the retry's 10
      // units come at 1200. Its success lifts the rate to 55: the next 10 units take 182 ms (at 50,
      // without the success counted, 200 ms).
      assert.deepStrictEqual(fake.asked.map((a) => a.at), [0, 1200, 1382])
    }))

  it.effect("gives up after `times` retries with the last error", () =>
    Effect.gen(function*() {
      const { call, asked } = run([{ status: 502, body: '{"message":"bad gateway"}' }], {
        retry: { schedule: Schedule.spaced("10 millis"), times: 2 }
      })
      const fiber = yield* Effect.forkChild(Effect.flip(call))
      yield* TestClock.adjust("100 millis")
      const error = yield* Fiber.join(fiber)
      assert.strictEqual(error._tag, "ServerError")
      assert.strictEqual((error as Errors.ServerError).status, 502)
      assert.strictEqual(error.message, "bad gateway")
      assert.strictEqual(asked.length, 3)
    }))

  for (const [status, tag] of [[400, "BadRequest"], [401, "Unauthorized"], [403, "Unauthorized"], [404, "NotFound"]] as const) {
    it.effect(`never retries ${status}`, () =>
      Effect.gen(function*() {
        const { call, asked } = run([{ status, body: '{"message":"no"}' }, { status: 200 }])
        const error = yield* Effect.flip(call)
        assert.strictEqual(error._tag, tag)
        assert.strictEqual(error.message, "no")
        assert.strictEqual(asked.length, 1)
      }))
  }

  it.effect("retries 408 and 504 too, with the default jittered backoff (within 0.8-1.2x of 250 ms)", () =>
    Effect.gen(function*() {
      const { call, asked } = run([{ status: 408 }, { status: 504 }, { status: 200, body: "1" }])
      const fiber = yield* Effect.forkChild(call)
      yield* TestClock.adjust("2 seconds")
      assert.strictEqual(yield* Fiber.join(fiber), 1)
      const first = asked[1]!.at - asked[0]!.at
      const second = asked[2]!.at - asked[1]!.at
      assert.isTrue(first >= 200 && first <= 300, `first delay ${first}`)
      assert.isTrue(second >= 400 && second <= 600, `second delay ${second}`)
    }))

  it.effect("sends the key, Accept and a User-Agent naming chainquery", () =>
    Effect.gen(function*() {
      const { call, asked } = run([{ status: 200 }])
      yield* call
      assert.strictEqual(asked[0]!.headers["x-api-key"], "k")
      assert.strictEqual(asked[0]!.headers["accept"], "application/json")
      assert.match(asked[0]!.headers["user-agent"]!, /^chainquery\/\d+\.\d+\.\d+/)
      assert.strictEqual(asked[0]!.url, "https://service.test/api/v2.2/block/1?chain=0x1")
    }))

  it.effect("a userAgent option is added after chainquery's own", () =>
    Effect.gen(function*() {
      const { call, asked } = run([{ status: 200 }], { userAgent: "my-app/2.1" })
      yield* call
      assert.match(asked[0]!.headers["user-agent"]!, /^chainquery\/\d+\.\d+\.\d+ my-app\/2\.1$/)
    }))
})
