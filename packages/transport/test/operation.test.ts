/**
 * `Operation.define` over real HTTP on 127.0.0.1: a `prepare` written with `Input.checked` (an
 * `Exit`, read at once) or as an `Effect` gives the same call; parameters are checked when the call
 * runs, each time it runs, never when it is built; bad ones fail with `InvalidInput` before
 * anything is sent.
 */
import { EvmAddress, EvmApi, Errors, Input } from "@chainquery/schema"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { Operation, Transport } from "../src/index.js"

const page = JSON.stringify({ page: 0, page_size: 100, cursor: "", result: [] })
const wallet = "0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed"
/** The wallet the server answers 404 for. */
const missing = "0x00000000000000000000000000000000000000aa"

/** The paths the service was asked for. */
const asked: Array<string> = []
let server: Server
let baseUrl: string
beforeAll(async () => {
  server = createServer((req, res) => {
    asked.push(req.url ?? "")
    if (req.url?.includes(missing) === true) res.writeHead(404, { "content-type": "application/json" }).end('{"message":"No such wallet"}')
    else res.writeHead(200, { "content-type": "application/json" }).end(page)
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(async () => {
  server.closeAllConnections()
  await new Promise<void>((resolve) => server.close(() => resolve()))
})

const endpoint = EvmApi.EvmGroup.endpoints.getWalletNFTTransfers
let prepared = 0
const checkedWay = Operation.define(endpoint, (params: { address: string }) =>
  Input.checked((check) => {
    prepared++
    return { params: { address: check.value(EvmAddress.EvmAddress, "address", params.address) }, query: { chain: "0x1" } }
  }))
const effectWay = Operation.define(endpoint, (params: { address: string }) =>
  Effect.map(Input.validate(EvmAddress.EvmAddress, "address", params.address), (address) => ({ params: { address }, query: { chain: "0x1" } })))

describe("Operation.define", () => {
  it.live("a prepare made with Input.checked runs when the call runs, once per run", () =>
    Effect.gen(function*() {
      const transport = yield* Transport.makeOnFetch({ baseUrl, apiKey: "key" })
      const params = { address: wallet }
      prepared = 0
      const call = checkedWay.make(transport)(params)
      assert.strictEqual(prepared, 0, "nothing is checked when the call is built")
      yield* call
      params.address = wallet.toUpperCase().replace("0X", "0x")
      yield* call
      assert.strictEqual(prepared, 2)
      assert.deepStrictEqual(asked.slice(-2), [
        `/api/v2.2/${wallet}/nft/transfers?chain=0x1`,
        `/api/v2.2/${wallet}/nft/transfers?chain=0x1`
      ], "the parameters of each run, canonical")
    }))

  it.live("bad parameters fail with InvalidInput before anything is sent, either way of preparing", () =>
    Effect.gen(function*() {
      const transport = yield* Transport.makeOnFetch({ baseUrl, apiKey: "key" })
      const before = asked.length
      for (const way of [checkedWay, effectWay]) {
        const exit = yield* Effect.exit(way.withNotFound(transport)({ address: "0x12" }))
        assert.isTrue(Exit.isFailure(exit))
        const error = Exit.isFailure(exit) ? exit.cause.reasons[0] : undefined
        assert.isTrue(error?._tag === "Fail" && error.error instanceof Errors.InvalidInput && error.error.field === "address")
      }
      assert.strictEqual(asked.length, before, "no request")
      const ok = yield* effectWay.make(transport)({ address: wallet })
      assert.deepStrictEqual(ok.result, [])
    }))

  it.live("a 404 is NotFound where the operation has one, else a ServerError with status 404 and the service's message", () =>
    Effect.gen(function*() {
      const transport = yield* Transport.makeOnFetch({ baseUrl, apiKey: "key" })
      const own = yield* Effect.flip(checkedWay.withNotFound(transport)({ address: missing }))
      assert.strictEqual(own._tag, "NotFound")
      const mapped = yield* Effect.flip(checkedWay.make(transport)({ address: missing }))
      assert.strictEqual(mapped._tag, "ServerError")
      assert.strictEqual((mapped as Errors.ServerError).status, 404)
      assert.strictEqual(mapped.message, "No such wallet")
    }))
})
