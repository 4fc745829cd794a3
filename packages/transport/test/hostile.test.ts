/**
 * Hostile responses over real HTTP on 127.0.0.1 (a tiny node:http server that sends crafted
 * bodies): every one ends in a typed error or a page with its odd records reported, never a crash.
 */
import { EvmApi } from "@chainquery/schema"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { FetchHttpClient } from "effect/http"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { readFileSync } from "node:fs"
import { Endpoint, ResponseBody, type Transport, Version } from "../src/index.js"
import { type Path, paths } from "./support/paths.js"

const wallet = "0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed"
const record = {
  token_address: "0x1", token_id: "1", from_address: "0x2", to_address: "0x3", value: "0", amount: "1",
  block_number: "5", block_timestamp: "2023-07-17T21:27:59.000Z", block_hash: "0xb", transaction_hash: "0xt",
  transaction_index: 1, log_index: 2
}

const bodies: Record<string, (res: import("node:http").ServerResponse) => void> = {
  "/wrong-type": (res) => res.end(JSON.stringify({ page: "first", page_size: 100, cursor: "", result: [] })),
  "/odd-record": (res) => res.end(JSON.stringify({ page: 0, page_size: 100, cursor: "", result: [record, { ...record, block_number: "five" }] })),
  "/truncated": (res) => res.end(JSON.stringify({ page: 0, page_size: 100, cursor: "", result: [record] }).slice(0, 60)),
  "/huge-chunked": (res) => {
    res.writeHead(200, { "content-type": "application/json" })
    const chunk = "x".repeat(64 * 1024)
    let sent = 0
    const write = () => {
      while (sent < 64) {
        sent++
        if (!res.write(chunk)) return void res.once("drain", write)
      }
      res.end()
    }
    write()
  },
  "/huge-declared": (res) => {
    res.writeHead(200, { "content-type": "application/json", "content-length": String(50 * 1024 * 1024) })
    res.write("{")
    setTimeout(() => res.destroy(), 50)
  },
  // Declares 20 bytes and sends 5 MB: HTTP framing ends the body at 20 bytes, which are not JSON.
  "/lying-length": (res) => {
    res.writeHead(200, { "content-type": "application/json", "content-length": "20" })
    res.end(`{"page":0,"pad":"${"x".repeat(5 * 1024 * 1024)}"}`)
  },
  // Declares 10,000 bytes, sends 100 and hangs up.
  "/cut-mid-body": (res) => {
    res.writeHead(200, { "content-type": "application/json", "content-length": "10000" })
    res.write(`{"page":0,"page_size":100,"cursor":"","result":[${" ".repeat(50)}`)
    setTimeout(() => res.destroy(), 20)
  },
  // Declares 10,000 bytes, sends 100 and then nothing, keeping the connection open.
  "/stall-mid-body": (res) => {
    stalled.push(res)
    res.writeHead(200, { "content-type": "application/json", "content-length": "10000" })
    res.write(`{"page":0,"page_size":100,"cursor":"","result":[${" ".repeat(50)}`)
  },
  // A 503 to the first request of each test, then the page.
  "/flaky": (res) => {
    flakyServed++
    if (flakyServed === 1) {
      res.writeHead(503, { "content-type": "application/json" })
      res.end(`{"message":"try again"}`)
    } else res.end(JSON.stringify({ page: 0, page_size: 100, cursor: "", result: [record] }))
  },
  "/proto-deep": (res) =>
    res.end(
      `{"page":0,"page_size":1,"cursor":"","result":[{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}},` +
        `${JSON.stringify(record).slice(1, -1)},"\\u005f_proto__":{"polluted":true}}]}`
    ),
  "/proto": (res) => res.end(`{"__proto__":{"polluted":true},"page":0,"page_size":1,"cursor":"","result":[]}`),
  "/text-500": (res) => {
    res.writeHead(500, { "content-type": "text/plain" })
    res.end("upstream exploded")
  }
}

/** Answers of `/stall-mid-body` still open; `flakyServed` counts `/flaky` requests. */
const stalled: Array<import("node:http").ServerResponse> = []
let flakyServed = 0

let server: Server
let baseUrl = ""
beforeAll(async () => {
  server = createServer((req, res) => {
    const answer = bodies[String(req.headers["x-test-case"])]
    if (answer === undefined) res.end("{}")
    else answer(res)
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(() =>
  new Promise<void>((resolve) => {
    server.closeAllConnections()
    server.close(() => resolve())
  })
)

const transfers = Endpoint.fromHttpApi(EvmApi.EvmGroup.endpoints.getWalletNFTTransfers)

const call = (testCase: string, options: Partial<Transport.Options>, path: Path) =>
  Effect.gen(function*() {
    const transport = yield* path.make({
      baseUrl,
      apiKey: "k",
      retry: { times: 0 },
      ...options
    })
    return yield* transport.send(transfers.build({ address: wallet }, {}))
  }).pipe(Effect.provideService(FetchHttpClient.RequestInit, { headers: { "x-test-case": testCase } }))

describe.each(paths)("hostile responses, $name", (path) => {
  it.effect("a field of the wrong type in the envelope: ResponseDecode naming the path", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(call("/wrong-type", {}, path))
      assert.strictEqual(error._tag, "ResponseDecode")
      assert.strictEqual((error as { path: string }).path, "page")
    }))

  it.effect("an odd record does not fail the page: it is reported in rejected", () =>
    Effect.gen(function*() {
      const page = yield* call("/odd-record", {}, path)
      assert.strictEqual(page.result.length, 1)
      assert.strictEqual(page.rejected.length, 1)
      assert.strictEqual(page.rejected[0]!.index, 1)
      assert.strictEqual(page.rejected[0]!.path, "block_number")
    }))

  it.effect("truncated JSON: Transport MalformedBody", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(call("/truncated", {}, path))
      assert.strictEqual(error._tag, "Transport")
      assert.strictEqual((error as { reason: string }).reason, "MalformedBody")
      assert.match(error.message, /not valid JSON/)
    }))

  it.effect("a body past the cap, streamed without Content-Length: Transport BodyTooLarge", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(call("/huge-chunked", { maxBodyBytes: 1024 * 1024 }, path))
      assert.strictEqual(error._tag, "Transport")
      assert.strictEqual((error as { reason: string }).reason, "BodyTooLarge")
    }))

  it.effect("a declared Content-Length past the cap fails before reading", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(call("/huge-declared", { maxBodyBytes: 1024 * 1024 }, path))
      assert.strictEqual((error as { reason: string }).reason, "BodyTooLarge")
    }))

  it.effect("__proto__ keys cannot pollute prototypes", () =>
    Effect.gen(function*() {
      const page = yield* call("/proto", {}, path)
      assert.strictEqual(page.result.length, 0)
      assert.isUndefined(({} as { polluted?: boolean }).polluted)
      assert.isUndefined(Object.getPrototypeOf(ResponseBody.parseJson('{"__proto__":{"a":1}}')).a)
      assert.deepStrictEqual(Object.keys(ResponseBody.parseJson('{"\\u005f_proto__":{"a":1},"b":2}') as object), ["b"])
    }))

  it.effect("a Content-Length that lies short of a 5 MB body: the read stops at the declared bytes (MalformedBody)", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(call("/lying-length", { maxBodyBytes: 1024 * 1024 }, path))
      assert.strictEqual(error._tag, "Transport")
      assert.strictEqual((error as { reason: string }).reason, "MalformedBody")
      assert.match(error.message, /20 characters/)
    }))

  it.effect("a body cut short by a hang-up: Transport Network", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(call("/cut-mid-body", {}, path))
      assert.strictEqual(error._tag, "Transport")
      assert.strictEqual((error as { reason: string }).reason, "Network")
    }))

  it.live("a body that stalls half way: Transport Timeout, and the connection is closed", () =>
    Effect.gen(function*() {
      stalled.length = 0
      const error = yield* Effect.flip(call("/stall-mid-body", { attemptTimeout: "300 millis" }, path))
      assert.strictEqual(error._tag, "Transport")
      assert.strictEqual((error as { reason: string }).reason, "Timeout")
      assert.strictEqual(stalled.length, 1)
      // The attempt let go of its socket: the server sees it closed (waited for, not timed).
      const answer = stalled[0]!
      yield* Effect.promise(() => new Promise<void>((resolve) => answer.socket === null || answer.socket.destroyed ? resolve() : answer.socket.once("close", () => resolve())))
      assert.isTrue(answer.socket === null || answer.socket.destroyed)
    }))

  it.live("a 503 is retried and the call then succeeds", () =>
    Effect.gen(function*() {
      flakyServed = 0
      const page = yield* call("/flaky", { retry: { times: 2, base: "5 millis" } }, path)
      assert.strictEqual(page.result.length, 1)
      assert.strictEqual(flakyServed, 2)
    }))

  it.effect("__proto__ and constructor keys inside a record (also spelled with \\u escapes) are dropped", () =>
    Effect.gen(function*() {
      const page = yield* call("/proto-deep", {}, path)
      assert.strictEqual(page.result.length, 1)
      assert.strictEqual(page.rejected.length, 0)
      assert.isUndefined(({} as { polluted?: boolean }).polluted)
      const parsed = ResponseBody.parseJson(`{"a":[{"b":{"__proto__":{"x":1},"c":1}},{"constructor":{"prototype":{}}}],"\\u0063onstructor":2}`)
      assert.deepStrictEqual(parsed, { a: [{ b: { c: 1 } }, {}] })
    }))

  it.effect("a non-JSON error body keeps the status and the text", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(call("/text-500", {}, path))
      assert.strictEqual(error._tag, "ServerError")
      assert.strictEqual(error.message, "upstream exploded")
    }))
})

describe("version", () => {
  it("the User-Agent version is package.json's", () => {
    const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string }
    assert.strictEqual(Version.version, pkg.version)
  })
})
