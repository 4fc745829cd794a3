/**
 * Retry-After over real HTTP on 127.0.0.1, both ways of sending, on the real clock: the retry
 * reaches the server no sooner than the service asked, in seconds or as an HTTP date. What is
 * asked (2 s, or a date at least 2 s ahead) is twice the 1 s that a 429 without a usable
 * Retry-After pauses for, and far above the backoff (10 ms here): a transport that misread the
 * header would retry a second early. Only lower bounds are asserted: a loaded machine can make
 * the retry late, never early.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Result } from "effect"
import type { IncomingMessage, ServerResponse } from "node:http"
import { startServer } from "./support/keyWitness.js"
import { paths } from "./support/paths.js"

const request = {
  operation: "getBlock",
  path: "/api/v2.2/block/1",
  query: [["chain", "0x1"]] as const,
  decode: (body: unknown) => Result.succeed(body)
}

/** What the server asks for, in seconds or as a date, from the time of its answer. */
const asks: ReadonlyArray<readonly [string, (now: number) => string]> = [
  ["delay-seconds (2)", () => "2"],
  // An HTTP date has whole seconds: the next whole second 2 s or more ahead.
  ["an HTTP date at least 2 s ahead", (now) => new Date(Math.ceil((now + 2000) / 1000) * 1000).toUTCString()]
]

/** Timer rounding between the client's sleep and `Date.now` on the server: never a second. */
const tolerance = 25

/**
 * A server that answers its first request with a 429 and `Retry-After: retryAfter(now)`, the
 * others with `1`, noting when each arrived (`Date.now`, the clock an HTTP date is read on).
 */
const askingOnce = (retryAfter: (now: number) => string) => {
  const arrivals: Array<number> = []
  const handler = (_request: IncomingMessage, response: ServerResponse) => {
    const now = Date.now()
    arrivals.push(now)
    if (arrivals.length === 1) {
      response.writeHead(429, { "content-type": "application/json", "retry-after": retryAfter(now) })
      response.end(JSON.stringify({ message: "Rate Limit exceeded" }))
    } else {
      response.writeHead(200, { "content-type": "application/json" })
      response.end("1")
    }
  }
  return Effect.map(
    Effect.acquireRelease(Effect.promise(() => startServer("127.0.0.1", handler)), (server) => Effect.promise(server.close)),
    (server) => ({ url: server.url, arrivals })
  )
}

describe.each(paths)("Retry-After over real HTTP, $name", (path) => {
  for (const [form, retryAfter] of asks) {
    it.live(`${form}: the retry reaches the server no sooner than asked`, () =>
      Effect.gen(function*() {
        const server = yield* askingOnce(retryAfter)
        const transport = yield* path.make({ baseUrl: server.url, apiKey: "k", retry: { base: "10 millis" } })
        assert.strictEqual(yield* transport.send(request), 1)
        assert.strictEqual(server.arrivals.length, 2)
        const gap = server.arrivals[1]! - server.arrivals[0]!
        assert.isAtLeast(gap, 2000 - tolerance, `retried ${gap} ms after the 429`)
      }))
  }
})
