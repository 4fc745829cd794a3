/**
 * Issue #19, server text: whatever a server echoes of the API key (in an error body, a message, a
 * record the decoder rejects), the key is scrubbed before it reaches an error, a log line or a
 * span. Over real HTTP on 127.0.0.1, with a property over generated error bodies.
 */
import { Decode, EvmApi, Rejected } from "@chainquery/schema"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { Effect, Redacted, Result, Schema } from "effect"
import { HttpClient } from "effect/http"
import * as fc from "fast-check"
import type { ServerResponse } from "node:http"
import { Endpoint, Scrub } from "../src/index.js"
import { type Path, paths } from "./support/paths.js"
import { capture, closeAll, key, keyFoundIn, startServer, type TestServer } from "./support/keyWitness.js"

const wallet = "0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed"
const transfers = Endpoint.fromHttpApi(EvmApi.EvmGroup.endpoints.getWalletNFTTransfers)

let service: TestServer | undefined
let answer: (response: ServerResponse) => void = (response) => response.end("{}")
beforeAll(async () => {
  service = await startServer("127.0.0.1", (_, response) => answer(response))
})
afterAll(() => closeAll([service]))

const respond = (status: number, body: string, contentType = "application/json") => (response: ServerResponse) => {
  response.writeHead(status, { "content-type": contentType })
  response.end(body)
}

const send = <A>(request: Endpoint.Request<A>, path: Path) =>
  Effect.gen(function*() {
    const transport = yield* path.make({ baseUrl: service!.url, apiKey: Redacted.make(key), retry: { times: 0 } })
    return yield* transport.send(request)
  })

const call = (path: Path) => send(transfers.build({ address: wallet }, {}), path)

/** Records keyed by names the server chooses (as metadata maps are): the decoder's paths hold them. */
const byName = Schema.Record(Schema.String, Schema.Number)
const balances: Endpoint.Request<{ readonly balances: Record<string, number> }> = {
  operation: "getBalances",
  path: "/balances",
  query: [],
  decode: Decode.decoder(Schema.Struct({ balances: byName }))
}
const partitionByName = Rejected.partition(byName)
const balancesPage: Endpoint.Request<Rejected.Partitioned<Record<string, number>>> = {
  operation: "getBalancesPage",
  path: "/balances-page",
  query: [],
  decode: (body) => Result.succeed(partitionByName((body as { readonly result: ReadonlyArray<unknown> }).result))
}

describe("Scrub.make", () => {
  const scrub = Scrub.make(key)
  it("replaces the key, its URL-encoding, and their leading pieces of 8 characters or more", () => {
    assert.strictEqual(scrub(`Invalid key ${key}.`), "Invalid key <redacted>.")
    assert.strictEqual(scrub(`/v1?key=${encodeURIComponent(key)}&x=1`), "/v1?key=<redacted>&x=1")
    assert.strictEqual(scrub(`key ${key.slice(0, 12)}... refused`), "key <redacted>... refused")
    assert.strictEqual(scrub(`${encodeURIComponent(key).slice(0, 10)}|${key}${key}`), "<redacted>|<redacted><redacted>")
  })

  it("where the key and its URL-encoding share a head, the longer match goes: no tail is left", () => {
    // The key's 8th character is '/', so the two forms part there.
    const shared = Scrub.make("abcdefgh/rest-of-it")
    assert.strictEqual(shared("[abcdefgh%2Frest-of-it] [abcdefgh/rest-of-it] [abcdefgh]"), "[<redacted>] [<redacted>] [<redacted>]")
  })

  it("a key that starts inside an earlier piece of it is replaced with it, whole", () => {
    const odd = "QwertyuiQzxcvbnm123456"
    assert.strictEqual(Scrub.make(odd)(`key ${odd.slice(0, 8)}${odd} end`), "key <redacted> end")
  })

  it("with ignoreCase, the key with its case changed too (a host name the URL parser lowercased)", () => {
    assert.strictEqual(Scrub.make(key, { ignoreCase: true })(`https://${key.toUpperCase()}.example`), "https://<redacted>.example")
    assert.strictEqual(scrub(`https://${key.toUpperCase()}.example`), `https://${key.toUpperCase()}.example`)
  })

  it("does not catch what it says it does not: pieces under 8 characters, other encodings, other case", () => {
    assert.strictEqual(scrub(key.slice(0, 7)), key.slice(0, 7))
    assert.strictEqual(scrub(Buffer.from(key).toString("base64")), Buffer.from(key).toString("base64"))
    assert.strictEqual(scrub(key.toUpperCase()), key.toUpperCase())
  })

  it("a short key (tests, demos) is replaced only where it stands alone; an empty one never", () => {
    const short = Scrub.make("k")
    assert.strictEqual(short("block_number: k is wrong"), "block_number: <redacted> is wrong")
    assert.strictEqual(Scrub.make("")("nothing to hide"), "nothing to hide")
  })
})

describe.each(paths)("server text with the key, over HTTP, $name", (path) => {
  it.effect("a 500 with an HTML body holding the key: ServerError without the key", () =>
    Effect.gen(function*() {
      answer = respond(500, `<html><body><h1>Upstream error</h1><pre>X-API-Key: ${key}</pre></body></html>`, "text/html")
      const captured = yield* capture(call(path))
      const error = yield* Effect.flip(call(path))
      assert.strictEqual(error._tag, "ServerError")
      assert.include(error.message, "X-API-Key: <redacted>")
      assert.isTrue(captured.spans.some((span) => span.includes("ServerError")), "the call's span records the error")
      assert.deepStrictEqual(keyFoundIn(captured), [])
    }))

  it.effect("a 401 with {message: \"Invalid key <key>\"}: Unauthorized: Invalid key <redacted>", () =>
    Effect.gen(function*() {
      answer = respond(401, JSON.stringify({ message: `Invalid key ${key}` }))
      const captured = yield* capture(call(path))
      const error = yield* Effect.flip(call(path))
      assert.strictEqual(error._tag, "Unauthorized")
      assert.strictEqual(error.message, "Invalid key <redacted>")
      assert.deepStrictEqual(keyFoundIn(captured), [])
    }))

  it.effect("a response header echoing the key never reaches a span, even with every header traced", () =>
    Effect.gen(function*() {
      answer = (response) => {
        response.writeHead(503, { "content-type": "application/json", "x-echo": key })
        response.end("{}")
      }
      const captured = yield* capture(call(path).pipe(Effect.provideService(HttpClient.TracerHeaderFilter, () => true)))
      if (path.clientSpans) {
        assert.isTrue(captured.spans.some((span) => span.includes("http.request.header.x-api-key")), "request headers are traced")
      } else assert.isTrue(captured.spans.some((span) => span.includes("chainquery.getWalletNFTTransfers")), "the call's span was seen")
      assert.isFalse(captured.spans.some((span) => span.includes("http.response.header")), "response headers are not")
      assert.deepStrictEqual(keyFoundIn(captured), [])
    }))

  it.effect("a record rejected at a key the server chose: its path and the warning are scrubbed", () =>
    Effect.gen(function*() {
      answer = respond(200, JSON.stringify({ result: [{ eth: 1 }, { [key]: "one" }] }))
      const captured = yield* capture(send(balancesPage, path))
      assert.isTrue(captured.exit._tag === "Success")
      const page = yield* send(balancesPage, path)
      assert.strictEqual(page.rejected.length, 1)
      assert.strictEqual(page.rejected[0]!.path, `["<redacted>"]`)
      assert.isAbove(captured.logs.length, 0, "the rejected record is logged")
      assert.deepStrictEqual(keyFoundIn(captured), [])
    }))

  it.effect("a success body that is not JSON (MalformedBody), or wrong at a key the server chose (ResponseDecode): without the key", () =>
    Effect.gen(function*() {
      answer = respond(200, `${key} is not JSON`, "text/plain")
      const notJson = yield* capture(call(path))
      const notJsonError = yield* Effect.flip(call(path))
      assert.include(notJsonError.message, "<redacted>")
      answer = respond(200, JSON.stringify({ balances: { [key]: "one" } }))
      const wrongShape = yield* capture(send(balances, path))
      const wrongShapeError = yield* Effect.flip(send(balances, path))
      assert.strictEqual((wrongShapeError as { path: string }).path, `balances["<redacted>"]`)
      assert.include(notJson.failure, "MalformedBody")
      assert.include(wrongShape.failure, "ResponseDecode")
      for (const captured of [notJson, wrongShape]) assert.deepStrictEqual(keyFoundIn(captured), [])
    }))
})

/** Where a generated body puts the key (as it is, URL-encoded, or cut short). */
const bodies = (piece: string, before: string, after: string): Record<string, [body: string, contentType: string]> => ({
  message: [JSON.stringify({ message: `${before}${piece}${after}` }), "application/json"],
  error: [JSON.stringify({ error: `${before}${piece}${after}`, statusCode: 1 }), "application/json"],
  detail: [JSON.stringify({ detail: { reason: `${before}${piece}${after}` } }), "application/json"],
  text: [`${before}${piece}${after}`, "text/plain"],
  html: [`<html><title>${before}</title><p>${piece}</p>${after}</html>`, "text/html"]
})

describe.each(paths)("property: any error status, any body, the key is never in the error, a log or a span, $name", (path) => {
  it.effect("statuses 400-599, the key in five shapes of body, three forms", () =>
    Effect.promise(() =>
      fc.assert(
        fc.asyncProperty(
          fc.integer({ min: 400, max: 599 }),
          fc.constantFrom("message", "error", "detail", "text", "html"),
          fc.constantFrom("whole", "encoded", "cut"),
          fc.integer({ min: 8, max: key.length }),
          fc.string({ maxLength: 30 }),
          fc.string({ maxLength: 30 }),
          async (status, shape, form, cut, before, after) => {
            const piece = form === "whole" ? key : form === "encoded" ? encodeURIComponent(key) : key.slice(0, cut)
            const [body, contentType] = bodies(piece, before, after)[shape]!
            answer = respond(status, body, contentType)
            const captured = await Effect.runPromise(capture(call(path)))
            assert.isTrue(captured.exit._tag === "Failure", `status ${status} fails`)
            assert.deepStrictEqual(keyFoundIn(captured), [], `status ${status}, ${shape}, ${form}: ${captured.failure}`)
          }
        ),
        { numRuns: 150, seed: 19 }
      )
    ))
})
