/**
 * What the network and the service do to a call, over real HTTP with the simulator's faults:
 * 429 with Retry-After waited for (in seconds or as an HTTP date, measured where the requests
 * arrive), a 5xx retried into a success, retries exhausted, timeouts, truncated and malformed
 * bodies retried, an oversized body, a dropped connection.
 */
import { Simulator } from "@chainquery/simulator"
import { assert, describe, layer } from "@effect/vitest"
import { RetryPolicy } from "@chainquery/transport"
import { Duration, Effect, Option, Schedule, Stream } from "effect"
import { createServer, request as forward } from "node:http"
import type { AddressInfo } from "node:net"
import { EvmClient } from "../src/index.js"
import { busiest, clientOn, simulatorWithClient, stats, timed } from "./support/fixtures.js"

/** Runs `effect` with `faults` set, clearing them afterwards whatever happens. */
const withFaults = <A, E, R>(sim: Simulator.Simulator["Service"], faults: Simulator.FaultConfig, effect: Effect.Effect<A, E, R>) =>
  Effect.orDie(sim.setFaults(faults)).pipe(Effect.andThen(effect), Effect.ensuring(Effect.orDie(sim.setFaults({}))))

/**
 * A proxy on 127.0.0.1 in front of the simulator: it answers the first request itself, a 429 with
 * `Retry-After: retryAfter(now)`, passes the others on, and notes when each arrived (`Date.now`,
 * the clock an HTTP date is read on).
 */
const askingProxy = (target: string, retryAfter: (now: number) => string) => {
  const arrivals: Array<number> = []
  const server = createServer((req, res) => {
    const now = Date.now()
    arrivals.push(now)
    if (arrivals.length === 1) {
      res.writeHead(429, { "content-type": "application/json", "retry-after": retryAfter(now) })
      return void res.end(JSON.stringify({ message: "Rate Limit exceeded" }))
    }
    const upstream = forward(new URL(req.url ?? "/", target), { method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers)
      answer.pipe(res)
    })
    upstream.on("error", () => res.destroy())
    req.pipe(upstream)
  })
  const listening = new Promise<string>((resolve) =>
    server.listen(0, "127.0.0.1", () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`))
  )
  const closed = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections()
      server.close(() => resolve())
    })
  return Effect.map(Effect.acquireRelease(Effect.promise(() => listening), () => Effect.promise(closed)), (url) => ({ url, arrivals }))
}

/**
 * What the proxy asks for: 3 s, three times the 1 s a 429 without a usable Retry-After pauses the
 * client for, and far above the backoff; as a date, the next whole second 3 s or more ahead.
 */
const asks: ReadonlyArray<readonly [string, (now: number) => string]> = [
  ["Retry-After: 3", () => "3"],
  ["a Retry-After HTTP date 3 s ahead", (now) => new Date(Math.ceil((now + 3000) / 1000) * 1000).toUTCString()]
]

describe("EvmClient resilience", () => {
  layer(simulatorWithClient({ seed: 5, indexing: false, history: 10, chains: ["0x1"] }), { excludeTestServices: true })((it) => {
    for (const [form, retryAfter] of asks) {
      it.effect(`${form} is waited for: the retry reaches the service no sooner, not after a bare 429's 1 s pause`, () =>
        Effect.gen(function*() {
          const sim = yield* Simulator.Simulator
          const proxy = yield* askingProxy(sim.evmUrl, retryAfter)
          // A client of its own, with the default retry policy: the 429 pauses only this one.
          const client = yield* EvmClient.makeOnFetch({ baseUrl: proxy.url, apiKey: sim.apiKey })
          const head = sim.world.evm.chain("0x1").head
          const block = yield* client.getBlock({ block: head, chain: "eth" })
          assert.strictEqual(Option.getOrThrow(block).number, BigInt(head))
          assert.strictEqual(proxy.arrivals.length, 2)
          // A lower bound only: a loaded machine makes the retry late, never early (25 ms for
          // timer rounding, far from the second a misread header would lose).
          const gap = proxy.arrivals[1]! - proxy.arrivals[0]!
          assert.isAtLeast(gap, 3000 - 25, `retried ${gap} ms after the 429`)
        }))
    }

    it.effect("a 5xx is retried; the call succeeds once the service recovers", () =>
      Effect.gen(function*() {
        const sim = yield* Simulator.Simulator
        const client = yield* EvmClient.EvmClient
        const head = sim.world.evm.chain("0x1").head
        const before = yield* stats(sim)
        // The service recovers as the first failure is handed to the schedule, before the retry:
        // no race between a timer and the backoff.
        const recovering = RetryPolicy.schedule({ base: "10 millis" }).pipe(Schedule.tap(() => Effect.orDie(sim.setFaults({}))))
        const block = yield* withFaults(
          sim,
          { routes: { getBlock: { serverError: { probability: 1, statuses: [503] } } } },
          client.getBlock({ block: head, chain: "eth" }, { retry: { schedule: recovering, times: 3 } })
        )
        assert.strictEqual(Option.getOrThrow(block).number, BigInt(head))
        const after = yield* stats(sim)
        assert.strictEqual(after.faults["serverError"]! - before.faults["serverError"]!, 1, "exactly one injected fault")
        assert.strictEqual(after.requests.byOperation.getBlock! - before.requests.byOperation.getBlock!, 2)
      }))

    it.effect("retries exhausted: ServerError after times + 1 requests", () =>
      Effect.gen(function*() {
        const sim = yield* Simulator.Simulator
        const client = yield* EvmClient.EvmClient
        const before = yield* stats(sim)
        const error = yield* withFaults(
          sim,
          { routes: { getBlock: { serverError: { probability: 1, statuses: [502] } } } },
          Effect.flip(client.getBlock({ block: 1, chain: "eth" }, { retry: { times: 2, base: "10 millis" } }))
        )
        assert.strictEqual(error._tag, "ServerError")
        if (error._tag === "ServerError") assert.strictEqual(error.status, 502)
        const after = yield* stats(sim)
        assert.strictEqual(after.requests.byOperation.getBlock! - before.requests.byOperation.getBlock!, 3)
        assert.strictEqual(after.faults["serverError"]! - before.faults["serverError"]!, 3)
      }))

    it.effect("an attempt that takes too long fails with Transport Timeout", () =>
      Effect.gen(function*() {
        const sim = yield* Simulator.Simulator
        const impatient = yield* clientOn(sim, { attemptTimeout: "200 millis" })
        const [elapsed, error] = yield* withFaults(
          sim,
          { routes: { getBlock: { latency: { probability: 1, ms: 8000 } } } },
          timed(Effect.flip(impatient.getBlock({ block: 1, chain: "eth" }, { retry: { times: 0 } })))
        )
        assert.strictEqual(error._tag, "Transport")
        if (error._tag === "Transport") assert.strictEqual(error.reason, "Timeout")
        // Far under the 8 s answer, with room for a loaded machine.
        assert.isBelow(elapsed, 6000, "the client did not wait for the slow answer")
      }))

    it.effect("a call that takes too long overall (retries included) fails with Transport Timeout", () =>
      Effect.gen(function*() {
        const sim = yield* Simulator.Simulator
        const client = yield* EvmClient.EvmClient
        const [elapsed, error] = yield* withFaults(
          sim,
          { routes: { getDefiPositionsSummary: { serverError: 1 } } },
          timed(Effect.flip(client.getDefiPositionsSummary(
            { address: "0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed" },
            { timeout: "300 millis", retry: { times: 10, base: "100 millis" } }
          )))
        )
        assert.strictEqual(error._tag, "Transport")
        if (error._tag === "Transport") assert.strictEqual(error.reason, "Timeout")
        // Ten retries from 100 ms, capped at 4 s, would take over 20 s.
        assert.isBelow(elapsed, 8000)
      }))

    it.effect("a body cut short is retried like a 5xx: Transport MalformedBody once the retries are spent", () =>
      Effect.gen(function*() {
        const sim = yield* Simulator.Simulator
        const client = yield* EvmClient.EvmClient
        const before = yield* stats(sim)
        const error = yield* withFaults(
          sim,
          { routes: { getNFTTransfersByBlock: { truncated: 1 } } },
          Effect.flip(client.getNFTTransfersByBlock(
            { block: sim.world.evm.chain("0x1").head, chain: "eth" },
            { retry: { times: 2, base: "10 millis" } }
          ))
        )
        assert.strictEqual(error._tag, "Transport")
        if (error._tag === "Transport") assert.strictEqual(error.reason, "MalformedBody")
        assert.include(error.message, "not valid JSON")
        const after = yield* stats(sim)
        assert.strictEqual(after.requests.byOperation.getNFTTransfersByBlock! - before.requests.byOperation.getNFTTransfersByBlock!, 3)
        assert.strictEqual(after.faults["truncated"]! - before.faults["truncated"]!, 3)
      }))

    it.effect("garbled and cut-short pages of a stream are read again: every record once, in order", () =>
      Effect.gen(function*() {
        const sim = yield* Simulator.Simulator
        const client = yield* EvmClient.EvmClient
        const head = BigInt(sim.world.evm.chain("0x1").head)
        const { wallet } = busiest(sim)
        const read = client.streamWalletNFTTransfers(
          { address: wallet, chain: "eth", toBlock: head, order: "ASC", limit: 3 },
          // Half the pages fail: 30 retries make a page that never gets through a 1 in 2^31 event.
          { call: { retry: { times: 30, base: "5 millis", cap: "10 millis" } } }
        ).pipe(Stream.map((transfer) => `${transfer.block_number}:${transfer.log_index}`), Stream.runCollect)
        const clean = yield* read
        assert.isAbove(clean.length, 6, "several pages")
        const before = yield* stats(sim)
        const faulty = yield* withFaults(sim, { routes: { getWalletNFTTransfers: { truncated: 0.3, malformed: 0.2 } } }, read)
        const after = yield* stats(sim)
        assert.deepStrictEqual(faulty, clean)
        assert.isAbove(after.faults["truncated"]! + after.faults["malformed"]! - before.faults["truncated"]! - before.faults["malformed"]!, 0)
      }))

    it.effect("a malformed body is retried too: Transport MalformedBody", () =>
      Effect.gen(function*() {
        const sim = yield* Simulator.Simulator
        const client = yield* EvmClient.EvmClient
        const error = yield* withFaults(
          sim,
          { routes: { getDefiPositionsSummary: { malformed: 1 } } },
          Effect.flip(client.getDefiPositionsSummary({ address: "0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed" }, { retry: { times: 1, base: "10 millis" } }))
        )
        assert.strictEqual(error._tag, "Transport")
        if (error._tag === "Transport") assert.strictEqual(error.reason, "MalformedBody")
      }))

    it.effect("a body over maxBodyBytes fails with Transport BodyTooLarge, not retried", () =>
      Effect.gen(function*() {
        const sim = yield* Simulator.Simulator
        const capped = yield* clientOn(sim, { maxBodyBytes: 1_000_000 })
        const before = yield* stats(sim)
        const error = yield* withFaults(
          sim,
          { routes: { getBlock: { huge: { probability: 1, bytes: 2 * 1024 * 1024 } } } },
          Effect.flip(capped.getBlock({ block: 1, chain: "eth" }))
        )
        assert.strictEqual(error._tag, "Transport")
        if (error._tag === "Transport") assert.strictEqual(error.reason, "BodyTooLarge")
        const after = yield* stats(sim)
        assert.strictEqual(after.requests.byOperation.getBlock! - before.requests.byOperation.getBlock!, 1)
      }))

    it.effect("a dropped connection is a Transport Network error after the retries", () =>
      Effect.gen(function*() {
        const sim = yield* Simulator.Simulator
        const client = yield* EvmClient.EvmClient
        const before = yield* stats(sim)
        const error = yield* withFaults(
          sim,
          { routes: { getNFTOwners: { reset: 1 } } },
          Effect.flip(client.getNFTOwners({ address: "0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed" }, { retry: { times: 1, base: "10 millis" } }))
        )
        assert.strictEqual(error._tag, "Transport")
        if (error._tag === "Transport") assert.strictEqual(error.reason, "Network")
        const after = yield* stats(sim)
        assert.strictEqual(after.requests.byOperation.getNFTOwners! - before.requests.byOperation.getNFTOwners!, 2)
      }))
  })

  layer(
    simulatorWithClient({ seed: 5, indexing: false, history: 10, chains: ["0x1"], rateLimit: { unitsPerSecond: 10 } }),
    { excludeTestServices: true }
  )("rate limited", (it) => {
    it.effect("a 429 with Retry-After is waited for, then the call succeeds", () =>
      Effect.gen(function*() {
        const sim = yield* Simulator.Simulator
        const client = yield* EvmClient.EvmClient
        const head = sim.world.evm.chain("0x1").head
        const before = yield* stats(sim)
        const first = yield* client.getBlock({ block: head, chain: "eth" })
        const [elapsed, second] = yield* timed(client.getBlock({ block: head - 1, chain: "eth" }))
        assert.isTrue(Option.isSome(first) && Option.isSome(second))
        // The simulator asks for 1 s, as long as the pause of a 429 without Retry-After: that the
        // header itself is read is shown by the tests with a proxy asking for 3 s, above.
        assert.isAtLeast(elapsed, 950, "waited for Retry-After (1 s)")
        const after = yield* stats(sim)
        assert.strictEqual(after.rateLimited - before.rateLimited, 1)
        assert.strictEqual(after.requests.byOperation.getBlock! - before.requests.byOperation.getBlock!, 3)
      }))

    it.effect("a Retry-After longer than maxRetryAfter fails at once with RateLimited", () =>
      Effect.gen(function*() {
        const sim = yield* Simulator.Simulator
        // A client of its own: a 429 pauses every request of the client that received it.
        const client = yield* clientOn(sim, { apiKey: sim.apiKey })
        const [elapsed, error] = yield* withFaults(
          sim,
          { routes: { getNFTOwners: { rateLimited: { probability: 1, retryAfterSeconds: 120 } } } },
          timed(Effect.flip(client.getNFTOwners({ address: "0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed" })))
        )
        assert.strictEqual(error._tag, "RateLimited")
        if (error._tag === "RateLimited") {
          assert.deepStrictEqual(Option.map(error.retryAfter, Duration.toSeconds), Option.some(120))
        }
        // Well under the 120 s asked for, and under the 30 s of the default maxRetryAfter (the
        // simulator's own budget may add a 1 s wait first).
        assert.isBelow(elapsed, 15_000)
      }))
  })
})
