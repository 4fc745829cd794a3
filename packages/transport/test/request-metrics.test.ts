/**
 * The transport counts every answer in the Effect metric registry, on both ways of sending:
 * `chainquery_requests_total` by operation and status, `chainquery_compute_units_total` by the
 * operation's default weight for each 2xx, `chainquery_rate_limited_total` for each 429. Over real
 * HTTP on 127.0.0.1 (a node:http server answers 200, then 429, then 500).
 */
import { ComputeUnits, EvmApi } from "@chainquery/schema"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { Effect, Metric } from "effect"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { Endpoint } from "../src/index.js"
import { paths } from "./support/paths.js"

const page = JSON.stringify({ page: 0, page_size: 100, cursor: "", result: [] })
let statuses: Array<number> = []
let server: Server
let baseUrl = ""
beforeAll(async () => {
  server = createServer((_req, res) => {
    const status = statuses.shift() ?? 200
    res.writeHead(status, { "content-type": "application/json" })
    res.end(status === 200 ? page : JSON.stringify({ message: "no" }))
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

const transfers = Endpoint.fromHttpApi(EvmApi.EvmGroup.endpoints.getWalletNFTTransfers)
const operation = "getWalletNFTTransfers"

/** The value of a counter series with these attributes, 0 when absent. */
const counter = (id: string, attributes: Record<string, string>) =>
  Effect.map(Metric.snapshot, (all) => {
    const found = all.find((m) =>
      m.id === id && Object.entries(attributes).every(([key, value]) => m.attributes?.[key] === value) &&
      Object.keys(m.attributes ?? {}).length === Object.keys(attributes).length
    )
    return found === undefined ? 0 : Number((found.state as { readonly count: number | bigint }).count)
  })

const counts = Effect.all({
  ok: counter("chainquery_requests_total", { operation, status: "200" }),
  limited: counter("chainquery_requests_total", { operation, status: "429" }),
  failed: counter("chainquery_requests_total", { operation, status: "500" }),
  units: counter("chainquery_compute_units_total", { operation }),
  rateLimited: counter("chainquery_rate_limited_total", { operation })
})

describe.each(paths)("request metrics, $name", (path) => {
  it.live("count each answer by operation and status, the compute units of the 2xx, and the 429s", () =>
    Effect.gen(function*() {
      const before = yield* counts
      statuses = [200, 429, 500]
      const transport = yield* path.make({ baseUrl, apiKey: "k", retry: { times: 0 } })
      const call = transport.send(transfers.build({ address: "0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed" }, {}))
      yield* call
      yield* Effect.flip(call)
      yield* Effect.flip(call)
      const after = yield* counts
      assert.deepStrictEqual(
        { ok: after.ok - before.ok, limited: after.limited - before.limited, failed: after.failed - before.failed, units: after.units - before.units, rateLimited: after.rateLimited - before.rateLimited },
        { ok: 1, limited: 1, failed: 1, units: ComputeUnits.defaultWeights[operation], rateLimited: 1 }
      )
    }))
})
