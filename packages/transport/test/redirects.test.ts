/**
 * Issue #19, redirects: over real HTTP, the service on 127.0.0.1 and another origin on 127.0.0.2.
 * A `3xx` answer is a typed `Redirected` naming the status and the target (origin and path, never
 * its query), it is not retried, and the other origin never receives a request, so never the key.
 */
import { EvmApi } from "@chainquery/schema"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { Effect, Exit, Layer } from "effect"
import { FetchHttpClient, Headers, HttpClient } from "effect/http"
import type { ServerResponse } from "node:http"
import { Endpoint, Transport } from "../src/index.js"
import { type Path, paths } from "./support/paths.js"
import { closeAll, key, keyFoundIn, capture, startServer, type TestServer } from "./support/keyWitness.js"

const wallet = "0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed"
const transfers = Endpoint.fromHttpApi(EvmApi.EvmGroup.endpoints.getWalletNFTTransfers)
const emptyPage = JSON.stringify({ page: 0, page_size: 100, cursor: "", result: [] })

let service: TestServer | undefined
let elsewhere: TestServer | undefined
/** How the service answers the current test. */
let answer: (response: ServerResponse) => void = (response) => response.end(emptyPage)

beforeAll(async () => {
  service = await startServer("127.0.0.1", (_, response) => answer(response))
  elsewhere = await startServer("127.0.0.2", (_, response) => response.end(emptyPage))
})
afterAll(() => closeAll([service, elsewhere]))

const redirectTo = (status: number, location: string | undefined) => (response: ServerResponse) => {
  response.writeHead(status, location === undefined ? {} : { location })
  response.end("moved")
}

/** One call with the default retry policy (3 retries), on the `HttpClient` `client`. */
const call = (client: Layer.Layer<HttpClient.HttpClient>) =>
  Effect.gen(function*() {
    const transport = yield* Transport.make({ baseUrl: service!.url, apiKey: key, retry: { base: "1 millis" } })
    return yield* transport.send(transfers.build({ address: wallet }, {}))
  }).pipe(Effect.provide(client))

/** The same call on `path`. */
const callOn = (path: Path) =>
  Effect.gen(function*() {
    const transport = yield* path.make({ baseUrl: service!.url, apiKey: key, retry: { base: "1 millis" } })
    return yield* transport.send(transfers.build({ address: wallet }, {}))
  })

const reset = () => {
  service!.seen.length = 0
  elsewhere!.seen.length = 0
}

describe.each(paths)("a 3xx answer is a typed error, never followed, never retried, $name", (path) => {
  for (const status of [300, 301, 302, 303, 304, 305, 306, 307, 308]) {
    it.effect(`${status} to another origin: Redirected, and the other origin gets nothing`, () =>
      Effect.gen(function*() {
        reset()
        answer = redirectTo(status, `${elsewhere!.url}/steal/it?key=${encodeURIComponent(key)}&x=1`)
        const captured = yield* capture(callOn(path))
        assert.isTrue(captured.exit._tag === "Failure")
        const error = yield* Effect.flip(callOn(path))
        assert.strictEqual(error._tag, "Redirected")
        if (error._tag !== "Redirected") return
        assert.strictEqual(error.status, status)
        assert.strictEqual(error.location, `${elsewhere!.url}/steal/it`)
        assert.isFalse(error.followed)
        assert.notInclude(error.message, "?")
        assert.strictEqual(service!.seen.length, 2, "one request per call: not retried")
        assert.deepStrictEqual(elsewhere!.seen, [], "the other origin was never asked")
        assert.deepStrictEqual(keyFoundIn(captured), [])
      }))
  }

  it.effect("a same-origin redirect is not followed either", () =>
    Effect.gen(function*() {
      reset()
      answer = redirectTo(302, "/api/v2.2/somewhere-else")
      const error = yield* Effect.flip(callOn(path))
      assert.strictEqual(error._tag, "Redirected")
      assert.strictEqual((error as { location: string }).location, `${service!.url}/api/v2.2/somewhere-else`)
      assert.strictEqual(service!.seen.length, 1)
    }))

  it.effect("a Location that echoes the key in its path is scrubbed; none at all reads (none)", () =>
    Effect.gen(function*() {
      answer = redirectTo(307, `${elsewhere!.url}/${key}`)
      const echoed = yield* Effect.flip(callOn(path))
      assert.strictEqual((echoed as { location: string }).location, `${elsewhere!.url}/<redacted>`)
      answer = redirectTo(301, undefined)
      const bare = yield* Effect.flip(callOn(path))
      assert.strictEqual((bare as { location: string }).location, "(none)")
      assert.deepStrictEqual(elsewhere!.seen, [])
    }))

  it.effect("a RequestInit where the call runs: redirect: \"follow\" is overridden, its headers are kept", () =>
    Effect.gen(function*() {
      reset()
      answer = redirectTo(307, `${elsewhere!.url}/steal`)
      const error = yield* Effect.flip(
        callOn(path).pipe(Effect.provideService(FetchHttpClient.RequestInit, { redirect: "follow", headers: { "x-trace": "kept" } }))
      )
      assert.strictEqual(error._tag, "Redirected")
      assert.strictEqual(service!.seen[0]?.headers["x-trace"], "kept")
      assert.strictEqual(service!.seen[0]?.apiKey, key)
      assert.deepStrictEqual(elsewhere!.seen, [])
    }))
})

describe("redirects, details", () => {
  it.effect("a Location that is not a URL reads (an invalid URL)", () =>
    Effect.gen(function*() {
      answer = redirectTo(302, "http://[::1")
      const error = yield* Effect.flip(call(FetchHttpClient.layer))
      assert.strictEqual(error._tag, "Redirected")
      assert.strictEqual((error as { location: string }).location, "(an invalid URL)")
    }))

  it.effect("on an HttpClient tracing every header, with redacted names that leave out X-API-Key, its spans still show <redacted>", () =>
    Effect.gen(function*() {
      answer = (response) => response.end(emptyPage)
      const captured = yield* capture(call(FetchHttpClient.layer).pipe(
        Effect.provideService(Headers.CurrentRedactedNames, ["authorization"]),
        Effect.provideService(HttpClient.TracerHeaderFilter, () => true)
      ))
      assert.isTrue(Exit.isSuccess(captured.exit))
      assert.isTrue(captured.spans.some((span) => span.includes('"http.request.header.x-api-key":"<redacted>"')), captured.spans.join("\n"))
      assert.deepStrictEqual(keyFoundIn(captured), [])
    }))

  it.effect("a Location with the key in its host name, which the URL parser lowercases, is scrubbed", () =>
    Effect.gen(function*() {
      answer = redirectTo(302, "http://AbCdEfGh12345678.example/p?x=1")
      const transport = yield* Transport.make({ baseUrl: service!.url, apiKey: "AbCdEfGh12345678" })
      const error = yield* Effect.flip(transport.send(transfers.build({ address: wallet }, {})))
      assert.strictEqual((error as { location: string }).location, "http://<redacted>.example/p")
    }).pipe(Effect.provide(FetchHttpClient.layer)))

  for (const path of paths) {
    it.effect(`a fetch of the user's, given where the transport is made, is the one used (redirects still manual), ${path.name}`, () =>
      Effect.gen(function*() {
        reset()
        answer = redirectTo(302, `${elsewhere!.url}/steal`)
        const used: Array<string | undefined> = []
        const ownFetch = ((input: Parameters<typeof globalThis.fetch>[0], init?: Parameters<typeof globalThis.fetch>[1]) => {
          used.push(init?.redirect)
          return globalThis.fetch(input, init)
        }) as typeof globalThis.fetch
        const transport = yield* path.make({ baseUrl: service!.url, apiKey: key }).pipe(
          Effect.provideService(FetchHttpClient.Fetch, ownFetch)
        )
        const error = yield* Effect.flip(transport.send(transfers.build({ address: wallet }, {})))
        assert.strictEqual(error._tag, "Redirected")
        assert.deepStrictEqual(used, ["manual"])
        assert.deepStrictEqual(elsewhere!.seen, [])
      }))
  }

  // A RequestInit asking fetch to follow redirects: `redirect` is overridden, the rest is kept,
  // whether it was given where the call runs or to the HttpClient layer itself.
  const givenRequestInit: Record<string, (init: RequestInit) => ReturnType<typeof call>> = {
    "where the call runs": (init) => call(FetchHttpClient.layer).pipe(Effect.provideService(FetchHttpClient.RequestInit, init)),
    "to the HttpClient layer itself": (init) =>
      call(FetchHttpClient.layer.pipe(Layer.provide(Layer.succeed(FetchHttpClient.RequestInit, init))))
  }
  for (const [where, run] of Object.entries(givenRequestInit)) {
    it.effect(`a RequestInit given ${where}: redirect: "follow" is overridden, its headers are kept`, () =>
      Effect.gen(function*() {
        reset()
        answer = redirectTo(307, `${elsewhere!.url}/steal`)
        const error = yield* Effect.flip(run({ redirect: "follow", headers: { "x-trace": "kept" } }))
        assert.strictEqual(error._tag, "Redirected")
        assert.strictEqual(service!.seen[0]?.headers["x-trace"], "kept")
        assert.deepStrictEqual(elsewhere!.seen, [])
      }))
  }

  it.effect("an HTTP client that follows redirects itself: its answer from another origin is refused", () =>
    Effect.gen(function*() {
      reset()
      answer = redirectTo(302, `${elsewhere!.url}/steal`)
      // The transport cannot stop a client that follows redirects on its own (README, Security):
      // it refuses what such a client brings back.
      const following = Layer.effect(HttpClient.HttpClient, Effect.map(HttpClient.HttpClient, HttpClient.followRedirects(3))).pipe(
        Layer.provide(FetchHttpClient.layer)
      )
      const error = yield* Effect.flip(call(following))
      assert.strictEqual(error._tag, "Redirected")
      assert.isTrue((error as { followed: boolean }).followed)
      assert.strictEqual((error as { location: string }).location, `${elsewhere!.url}/steal`)
    }))
})
