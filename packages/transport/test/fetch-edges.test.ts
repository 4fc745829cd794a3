/**
 * What a `fetch` of the user's (a `FetchHttpClient.Fetch`) or an odd setting could break, on both
 * ways of sending, over real HTTP on 127.0.0.1: a `fetch` that ignores its signal, one that answers
 * without a promise, one that answers with something that is not a `Response`, one that writes to
 * the headers it is given, one that follows redirects
 * itself to an origin that stalls; an attempt timeout too long for a timer; JSON nested deeper
 * than a recursive walk goes.
 */
import { EvmApi } from "@chainquery/schema"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { Cause, Duration, Effect, Exit } from "effect"
import { FetchHttpClient } from "effect/http"
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { Endpoint, ResponseBody } from "../src/index.js"
import { paths } from "./support/paths.js"

const wallet = "0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed"
const page = JSON.stringify({ page: 0, page_size: 100, cursor: "", result: [] })
const transfers = Endpoint.fromHttpApi(EvmApi.EvmGroup.endpoints.getWalletNFTTransfers)

/** What the service saw: the `accept` header of each request. */
const accepted: Array<string | undefined> = []
/** Requests the stalling origin received; its answers, held open. */
let stalledHits = 0
const held: Array<ServerResponse> = []

const listen = (handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<{ server: Server; url: string }> =>
  new Promise((resolve) => {
    const server = createServer(handler)
    server.listen(0, "127.0.0.1", () => resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }))
  })

let service: { server: Server; url: string }
let stalling: { server: Server; url: string }
beforeAll(async () => {
  stalling = await listen((_, res) => {
    stalledHits++
    held.push(res)
    res.writeHead(200, { "content-type": "application/json", "content-length": "1000" })
    res.write("{")
  })
  service = await listen((req, res) => {
    accepted.push(req.headers.accept)
    if (req.url?.includes("elsewhere") === true) {
      res.writeHead(302, { location: `${stalling.url}/stolen` })
      res.end()
      return
    }
    res.writeHead(200, { "content-type": "application/json" })
    res.end(page)
  })
})
afterAll(async () => {
  for (const { server } of [service, stalling]) {
    server.closeAllConnections()
    await new Promise<void>((resolve) => server.close(() => resolve()))
  }
})

type Fetch = typeof globalThis.fetch

describe.each(paths)("a fetch of the user's, odd settings, $name", (path) => {
  const call = (options: { readonly attemptTimeout?: Duration.Input; readonly fetch?: Fetch; readonly query?: Record<string, unknown> } = {}) => {
    const sent = Effect.gen(function*() {
      const transport = yield* path.make({
        baseUrl: service.url,
        apiKey: "k",
        retry: { times: 0 },
        ...(options.attemptTimeout === undefined ? {} : { attemptTimeout: options.attemptTimeout })
      })
      return yield* transport.send(transfers.build({ address: wallet }, options.query ?? {}))
    })
    return options.fetch === undefined ? sent : Effect.provideService(sent, FetchHttpClient.Fetch, options.fetch)
  }

  it.live("an attempt timeout longer than a timer can hold (or infinite) does not fire at once", () =>
    Effect.gen(function*() {
      for (const attemptTimeout of [Duration.infinity, Duration.days(30)]) {
        const result = yield* call({ attemptTimeout })
        assert.strictEqual(result.result.length, 0)
      }
    }))

  it.live("a call given no time at all (timeout 0) fails with Timeout and sends nothing", () =>
    Effect.gen(function*() {
      const transport = yield* path.make({ baseUrl: service.url, apiKey: "k" })
      const before = accepted.length
      const error = yield* Effect.flip(transport.send(transfers.build({ address: wallet }, {}), { timeout: Duration.zero }))
      assert.strictEqual(error._tag, "Transport")
      assert.strictEqual((error as { reason: string }).reason, "Timeout")
      assert.strictEqual(accepted.length, before, "no request")
      // The slot was given back: the next call goes through.
      const after = yield* transport.send(transfers.build({ address: wallet }, {}))
      assert.strictEqual(after.result.length, 0)
    }))

  it.live("a fetch that ignores its signal still times out at the attempt's timeout", () =>
    Effect.gen(function*() {
      const deaf = ((input: Parameters<Fetch>[0], init?: Parameters<Fetch>[1]) =>
        new Promise((resolve) => setTimeout(resolve, 1_500)).then(() => globalThis.fetch(input, { ...init, signal: null }))) as Fetch
      const error = yield* Effect.flip(call({ attemptTimeout: "100 millis", fetch: deaf }))
      assert.strictEqual(error._tag, "Transport")
      assert.strictEqual((error as { reason: string }).reason, "Timeout")
    }))

  it.live("a fetch that answers without a promise, or throws at once: a typed outcome, never a defect", () =>
    Effect.gen(function*() {
      const eager = ((): Response => new Response(page, { status: 200, headers: { "content-type": "application/json" } })) as unknown as Fetch
      const throwing = ((): never => {
        throw new TypeError("no network here")
      }) as unknown as Fetch
      for (const fetch of [eager, throwing]) {
        const exit = yield* Effect.exit(call({ fetch, attemptTimeout: "2 seconds" }))
        if (Exit.isFailure(exit)) {
          assert.isFalse(Cause.hasDies(exit.cause), Cause.pretty(exit.cause))
          assert.strictEqual(Cause.squash(exit.cause) instanceof Error ? (Cause.squash(exit.cause) as { _tag?: string })._tag : "", "Transport")
        }
      }
      const thrown = yield* Effect.flip(call({ fetch: throwing }))
      assert.strictEqual(thrown._tag, "Transport")
      assert.strictEqual((thrown as { reason: string }).reason, "Network")
    }))

  it.live("a fetch that answers with something that is not a Response: the call ends (a defect at worst), never hangs", () =>
    Effect.gen(function*() {
      // A redirect whose headers cannot be read: reading its `Location` throws.
      const nonsense = (() => Promise.resolve({ status: 302, url: "", headers: {}, body: null })) as unknown as Fetch
      const exit = yield* Effect.exit(call({ fetch: nonsense }).pipe(Effect.timeoutOrElse({ duration: "5 seconds", orElse: () => Effect.die("the call hung") })))
      assert.isTrue(Exit.isFailure(exit))
      if (Exit.isFailure(exit)) assert.notInclude(Cause.pretty(exit.cause), "the call hung")
      // The transport still works afterwards.
      const after = yield* call()
      assert.deepStrictEqual((after as { result: unknown }).result, [])
    }))

  it.live("a fetch that writes to the headers it is given changes only its own request", () =>
    Effect.gen(function*() {
      accepted.length = 0
      let first = true
      const meddling = ((input: Parameters<Fetch>[0], init?: Parameters<Fetch>[1]) => {
        if (first && init?.headers !== undefined && !(init.headers instanceof Headers) && !Array.isArray(init.headers)) {
          ;(init.headers as Record<string, string>)["accept"] = "text/html"
        }
        first = false
        return globalThis.fetch(input, init)
      }) as Fetch
      yield* call({ fetch: meddling })
      yield* call({ fetch: meddling })
      assert.strictEqual(accepted.length, 2)
      assert.strictEqual(accepted[1], "application/json")
    }))

  it.live("a fetch that follows a redirect to an origin that stalls: Redirected at once, the body unread, asked once", () =>
    Effect.gen(function*() {
      stalledHits = 0
      const following = ((input: Parameters<Fetch>[0], init?: Parameters<Fetch>[1]) =>
        globalThis.fetch(input, { ...init, redirect: "follow" })) as Fetch
      const error = yield* Effect.flip(call({ fetch: following, attemptTimeout: "5 seconds", query: { cursor: "to=elsewhere" } }))
      assert.strictEqual(error._tag, "Redirected")
      assert.isTrue((error as { followed: boolean }).followed)
      assert.strictEqual(stalledHits, 1)
    }))
})

describe("ResponseBody.parseJson", () => {
  it("parses JSON nested deeper than a recursive walk could go", () => {
    const depth = 50_000
    const text = `${"[".repeat(depth)}{"a":1}${"]".repeat(depth)}`
    assert.isDefined(ResponseBody.parseJson(text))
    const hidden = `${"[".repeat(depth)}{"__proto__":{"x":1},"a":1}${"]".repeat(depth)}`
    let value = ResponseBody.parseJson(hidden)
    for (let i = 0; i < depth; i++) value = (value as Array<unknown>)[0]
    assert.deepStrictEqual(value, { a: 1 })
  })
})
