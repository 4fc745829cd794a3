/**
 * Issue #19, no key in clear text: a `baseUrl` with `http:` is refused with `InvalidConfig` before
 * any request unless its host is loopback or `allowInsecureHttp` is set (then a warning is logged
 * once). `0.0.0.0` reaches this machine's servers on Linux without being a loopback name, so it
 * stands for a remote host that can still be observed.
 */
import { EvmApi } from "@chainquery/schema"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { Effect, Result } from "effect"
import { FetchHttpClient } from "effect/http"
import { BaseUrl, Endpoint, Transport } from "../src/index.js"
import { capture, closeAll, key, startServer, type TestServer } from "./support/keyWitness.js"

const block = Endpoint.fromHttpApi(EvmApi.EvmGroup.endpoints.getBlock)

let service: TestServer | undefined
beforeAll(async () => {
  service = await startServer("127.0.0.1", (_, response) => {
    response.writeHead(404, { "content-type": "application/json" })
    response.end(JSON.stringify({ message: "No block found" }))
  })
})
afterAll(() => closeAll([service]))

const port = () => new URL(service!.url).port

describe("BaseUrl.check", () => {
  it("accepts https: anywhere and http: to loopback hosts", () => {
    for (const url of ["https://deep-index.moralis.io", "https://10.0.0.1:8443/api/", "http://localhost:4000", "http://127.0.0.1", "http://127.255.0.9:1", "http://[::1]:4000/x"]) {
      assert.isTrue(Result.isSuccess(BaseUrl.check(url)), url)
    }
    assert.deepStrictEqual(BaseUrl.check("http://127.0.0.1:4000//"), Result.succeed({ url: "http://127.0.0.1:4000", insecure: false }))
  })

  it("refuses http: elsewhere, other schemes, text that is not a URL, a query or a fragment", () => {
    for (const url of ["http://api.example.com", "http://10.0.0.1", "http://0.0.0.0:4000", "http://localhost.example.com", "ftp://127.0.0.1", "ws://localhost", "deep-index.moralis.io", "https://x.io/?a=1", "https://x.io/#top"]) {
      const checked = BaseUrl.check(url, { field: "--evm-base-url", insecureOption: "--allow-insecure-http" })
      assert.isTrue(Result.isFailure(checked), url)
      if (Result.isFailure(checked)) {
        assert.strictEqual(checked.failure._tag, "InvalidConfig")
        assert.strictEqual(checked.failure.field, "--evm-base-url")
        assert.match(checked.failure.message, /^Invalid --evm-base-url option: expected an https: URL .*loopback host: localhost, 127\.0\.0\.0\/8, ::1; or with --allow-insecure-http\), got /)
      }
    }
  })

  it("returns the URL requests will go to; refuses an empty query or fragment; knows loopback in other spellings", () => {
    assert.deepStrictEqual(BaseUrl.check(" https://deep-index.moralis.io/api "), Result.succeed({ url: "https://deep-index.moralis.io/api", insecure: false }))
    for (const url of ["https://x.io/?", "https://x.io/#", "https://x.io/api?#"]) assert.isTrue(Result.isFailure(BaseUrl.check(url)), url)
    for (const url of ["http://[::ffff:127.0.0.1]:4000", "http://localhost.:4000", "http://127.1:4000", "HTTP://LOCALHOST:4000"]) {
      assert.isTrue(Result.isSuccess(BaseUrl.check(url)), url)
    }
  })

  it("loopback is the whole host name: 127.0.0.1.example.com is not; an IPv4-mapped 127/8 address with more digits is", () => {
    for (const url of ["http://127.0.0.1.example.com", "http://localhost.example.com", "http://[::ffff:7f00:1].example"]) {
      assert.isTrue(Result.isFailure(BaseUrl.check(url)), url)
    }
    assert.isFalse(BaseUrl.isLoopback("127.0.0.1.example.com"))
    assert.isTrue(BaseUrl.isLoopback(new URL("http://[::ffff:127.1.2.3]").hostname), "[::ffff:7f01:203]")
    assert.isTrue(Result.isSuccess(BaseUrl.check("http://[::ffff:127.0.1.1]:4000")))
  })

  it("names what is accepted, with the default option, and shows at most 200 characters of text that is not a URL", () => {
    const refused = BaseUrl.check("http://api.example.com")
    assert.isTrue(Result.isFailure(refused) && refused.failure.message.includes("or with allowInsecureHttp: true)"))
    const long = `not a url ${"x".repeat(300)}`
    const garbage = BaseUrl.check(long)
    assert.isTrue(Result.isFailure(garbage))
    if (Result.isFailure(garbage)) assert.strictEqual(garbage.failure.value, JSON.stringify(long.slice(0, 200)))
  })

  it("shows a refused URL without its user name or password", () => {
    const checked = BaseUrl.check("http://user:hunter2@api.example.com/v2")
    assert.isTrue(Result.isFailure(checked) && checked.failure.value === "http://api.example.com/v2")
  })

  it("allowInsecureHttp lets http: through, marked insecure", () => {
    assert.deepStrictEqual(BaseUrl.check("http://api.example.com/", { allowInsecureHttp: true }), Result.succeed({ url: "http://api.example.com", insecure: true }))
  })
})

describe("Transport.make", () => {
  it.effect("http: to a host that is not loopback fails with InvalidConfig, and nothing is sent", () =>
    Effect.gen(function*() {
      service!.seen.length = 0
      const error = yield* Effect.flip(Transport.make({ baseUrl: `http://0.0.0.0:${port()}`, apiKey: key }).pipe(Effect.provide(FetchHttpClient.layer)))
      assert.strictEqual(error._tag, "InvalidConfig")
      assert.strictEqual(error.field, "baseUrl")
      assert.include(error.message, `got http://0.0.0.0:${port()}/`)
      assert.deepStrictEqual(service!.seen, [])
    }))

  it.effect("with allowInsecureHttp it sends, and warns once however many calls", () =>
    Effect.gen(function*() {
      service!.seen.length = 0
      const captured = yield* capture(
        Effect.gen(function*() {
          const transport = yield* Transport.make({ baseUrl: `http://0.0.0.0:${port()}`, apiKey: key, allowInsecureHttp: true })
          for (let i = 0; i < 3; i++) yield* Effect.ignore(transport.send(block.build({ block_number_or_hash: 1n }, { chain: "0x1" })))
        }).pipe(Effect.provide(FetchHttpClient.layer))
      )
      assert.strictEqual(captured.exit._tag, "Success")
      assert.strictEqual(service!.seen.length, 3)
      const warnings = captured.logs.filter((line) => line.includes("clear text"))
      assert.strictEqual(warnings.length, 1)
      assert.include(warnings[0]!, "http://0.0.0.0:")
      assert.include(warnings[0]!, "WARN")
    }))
})
