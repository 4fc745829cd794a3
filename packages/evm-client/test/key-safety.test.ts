/**
 * Issue #19 through the EVM client (the transport's own tests cover every status and body): a
 * base URL with `http:` to a host that is not loopback is refused by `make` and `layer`, and a
 * redirect to another origin (127.0.0.2) is a `Redirected` error that never reaches it.
 */
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { FetchHttpClient } from "effect/http"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { EvmClient } from "../src/index.js"

const key = "evm-key-0123456789abcdef"
let asked = 0
let elsewhereAsked = 0
const elsewhere: Server = createServer((_, response) => void (elsewhereAsked++, response.end("{}")))
const service: Server = createServer((_, response) => {
  asked++
  response.writeHead(302, { location: `http://127.0.0.2:${(elsewhere.address() as AddressInfo).port}/steal` }).end()
})
const listening = (server: Server, host: string) => new Promise<void>((resolve) => server.listen(0, host, resolve))
beforeAll(() => Promise.all([listening(service, "127.0.0.1"), listening(elsewhere, "127.0.0.2")]))
afterAll(() => Promise.all([service, elsewhere].map((server) => new Promise((resolve) => server.close(resolve)))))

describe("EvmClient and the API key", () => {
  it.effect("make and layer refuse http: to a host that is not loopback, unless allowInsecureHttp", () =>
    Effect.gen(function*() {
      const made = yield* Effect.flip(EvmClient.make({ baseUrl: "http://deep-index.example.com", apiKey: key }))
      assert.strictEqual(made._tag, "InvalidConfig")
      assert.strictEqual(made.field, "baseUrl")
      const layered = yield* Effect.flip(Layer.build(EvmClient.layer({ baseUrl: "http://10.1.2.3:4000/api/v2.2", apiKey: key })))
      assert.strictEqual(layered._tag, "InvalidConfig")
      yield* EvmClient.make({ baseUrl: "http://deep-index.example.com", apiKey: key, allowInsecureHttp: true })
    }).pipe(Effect.scoped, Effect.provide(FetchHttpClient.layer)))

  it.effect("a redirect to another origin is Redirected, and the other origin is never asked", () =>
    Effect.gen(function*() {
      const client = yield* EvmClient.make({ baseUrl: `http://127.0.0.1:${(service.address() as AddressInfo).port}`, apiKey: key })
      const error = yield* Effect.flip(client.getNFTOwners({ address: "0xbc4ca0eda7647a8ab7c2061c2e118a18a936f13d", chain: "eth" }))
      assert.strictEqual(error._tag, "Redirected")
      assert.match(error.message, /HTTP 302\) to http:\/\/127\.0\.0\.2:\d+\/steal; redirects are not followed/)
      assert.strictEqual(asked, 1)
      assert.strictEqual(elsewhereAsked, 0)
    }).pipe(Effect.provide(FetchHttpClient.layer)))
})
