/**
 * Issue #19 through the Aptos client (the transport's own tests cover every status and body): a
 * base URL with `http:` to a host that is not loopback is refused, and a `308` to another origin
 * (127.0.0.2) is a `Redirected` error that never reaches it.
 */
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { FetchHttpClient } from "effect/http"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { LedgerClient } from "../src/index.js"

const requests: Array<string> = []
const origins = ["127.0.0.1", "127.0.0.2"].map((host) => ({
  host,
  server: createServer((request, response) => {
    requests.push(`${host}${request.url}`)
    if (host === "127.0.0.2") return void response.end("{}")
    response.writeHead(308, { location: `http://127.0.0.2:${portOf(1)}/aptos?k=1` }).end()
  })
}))
const portOf = (index: number) => (origins[index]!.server.address() as AddressInfo).port
beforeAll(() => Promise.all(origins.map(({ host, server }) => new Promise<void>((resolve) => server.listen(0, host, resolve)))))
afterAll(() => Promise.all(origins.map(({ server }) => new Promise((resolve) => server.close(resolve)))))

describe("LedgerClient and the API key", () => {
  it.effect("http: to a host that is not loopback is refused (make, layer), https: and loopback are not", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(LedgerClient.make({ network: "testnet", baseUrl: "http://aptos.example.com", apiKey: "ledger-key-0123456789" }))
      assert.strictEqual(error._tag, "InvalidConfig")
      assert.match(error.message, /^Invalid baseUrl option: expected an https: URL/)
      const layered = yield* Effect.flip(Layer.build(LedgerClient.layer({ baseUrl: "http://192.168.1.10/aptos", apiKey: "ledger-key-0123456789" })))
      assert.strictEqual(layered._tag, "InvalidConfig")
      yield* LedgerClient.make({ baseUrl: "http://localhost:4000/aptos/mainnet", apiKey: "ledger-key-0123456789" })
    }).pipe(Effect.scoped, Effect.provide(FetchHttpClient.layer)))

  it.effect("a 308 to another origin is Redirected, naming it without its query; the other origin is never asked", () =>
    Effect.gen(function*() {
      const client = yield* LedgerClient.make({ baseUrl: `http://127.0.0.1:${portOf(0)}`, apiKey: "ledger-key-0123456789" })
      const error = yield* Effect.flip(client.getCoinsByNameRange({ limit: 10 }))
      assert.strictEqual(error._tag, "Redirected")
      assert.deepStrictEqual(error._tag === "Redirected" ? [error.status, error.location] : [], [308, `http://127.0.0.2:${portOf(1)}/aptos`])
      assert.deepStrictEqual(requests.map((request) => request.split("/")[0]), ["127.0.0.1"])
    }).pipe(Effect.provide(FetchHttpClient.layer)))
})
