/**
 * The request log: with `requestLog: N` the simulator keeps the latest N API requests (oldest
 * first, the same requests the stats count, control requests left out), `sim.requests` and
 * `GET /__sim/requests` read them, `resetStats` empties them; by default none are kept; a bad
 * capacity fails the layer; the CLI's `--request-log N` turns it on.
 */
import { assert, describe, it, layer } from "@effect/vitest"
import { Effect } from "effect"
import { spawn } from "node:child_process"
import { fileURLToPath } from "node:url"
import { Simulator } from "../src/index.js"
import { get, post } from "./support/http.js"

type Sim = Simulator.Simulator["Service"]

/** The simulator service, for a layer to provide. */
const service = Effect.gen(function*() {
  return yield* Simulator.Simulator
})

/** The path and query a client sends for `url`, as the server sees it. */
const pathOf = (url: string) => {
  const parsed = new URL(url)
  return `${parsed.pathname}${parsed.search}`
}

/** Five API requests, each with a user agent of its own: what is asked and what it is. */
const fiveRequests = (sim: Sim) => {
  const head = sim.world.evm.chain("0x1").head
  const wallet = sim.world.evm.wallets[0]!
  return [
    { url: `${sim.evmUrl}/api/v2.2/block/${head}?chain=eth`, userAgent: "client-1", operation: "getBlock", family: "A", network: undefined },
    {
      url: `${sim.evmUrl}/api/v2.2/wallets/${wallet}/defi/positions?chain=eth`,
      userAgent: "client-2",
      operation: "getDefiPositionsSummary",
      family: "A",
      network: undefined
    },
    {
      url: `${sim.ledgerUrl.mainnet}/collections?limit=2`,
      userAgent: "client-3",
      operation: "getNFTCollections",
      family: "B",
      network: "mainnet"
    },
    {
      url: `${sim.ledgerUrl.testnet}/wallets/nfts?owner_addresses[]=0x1&limit=2`,
      userAgent: "client-4",
      operation: "getNFTByOwners",
      family: "B",
      network: "testnet"
    },
    { url: `${sim.evmUrl}/api/v2.2/no/such/route/here`, userAgent: "client-5", operation: "unknown", family: "A", network: undefined }
  ] as const
}

describe("simulator request log", () => {
  layer(Simulator.layer({ seed: 5, history: 5, indexing: false, requestLog: 3 }))("requestLog: 3", (test) => {
    test.effect("keeps exactly the last 3 API requests, oldest first, as they were asked", () =>
      Effect.gen(function*() {
        const sim = yield* Simulator.Simulator
        yield* sim.resetStats
        const asked = fiveRequests(sim)
        const before = Date.now()
        for (const request of asked) {
          yield* get(request.url, { key: sim.apiKey, headers: { "user-agent": request.userAgent } })
        }
        const after = Date.now()
        const log = yield* sim.requests
        assert.deepStrictEqual(
          log.map(({ at: _at, ...rest }) => rest),
          asked.slice(2).map((request) => ({
            method: "GET",
            path: pathOf(request.url),
            operation: request.operation,
            family: request.family,
            network: request.network,
            userAgent: request.userAgent
          }))
        )
        assert.strictEqual(log[1]!.path, "/aptos/testnet/wallets/nfts?owner_addresses[]=0x1&limit=2", "the path as requested")
        for (const [index, entry] of log.entries()) {
          assert.isTrue(entry.at >= before && entry.at <= after, `at ${entry.at} in [${before}, ${after}]`)
          if (index > 0) assert.isTrue(entry.at >= log[index - 1]!.at, "oldest first")
        }
        const stats = yield* sim.stats
        assert.strictEqual(stats.requests.total, 5, "the log and the counters see the same requests")

        const overHttp = yield* get(`${sim.url}/__sim/requests`)
        assert.strictEqual(overHttp.status, 200)
        assert.deepStrictEqual(overHttp.json, JSON.parse(JSON.stringify({ requests: log })))
        assert.strictEqual(overHttp.json.requests[2].userAgent, "client-5")
        assert.notProperty(overHttp.json.requests[2], "network", "a field without a value is left out of the JSON")
      }))

    test.effect("logs a request a fault answers, before the fault", () =>
      Effect.gen(function*() {
        const sim = yield* Simulator.Simulator
        yield* sim.resetStats
        const block = fiveRequests(sim)[0]
        yield* sim.setFaults({ routes: { getBlock: { serverError: { probability: 1, statuses: [503] } } } })
        const answer = yield* get(block.url, { key: sim.apiKey, headers: { "user-agent": "faulted" } }).pipe(
          Effect.ensuring(sim.setFaults({}).pipe(Effect.ignore))
        )
        assert.strictEqual(answer.status, 503)
        const log = yield* sim.requests
        assert.deepStrictEqual(log.map((entry) => [entry.operation, entry.userAgent]), [["getBlock", "faulted"]])
      }))

    test.effect("does not log control requests", () =>
      Effect.gen(function*() {
        const sim = yield* Simulator.Simulator
        yield* sim.resetStats
        const block = fiveRequests(sim)[0]
        yield* get(block.url, { key: sim.apiKey, headers: { "user-agent": "api" } })
        assert.strictEqual((yield* get(`${sim.url}/__sim/head`, { headers: { "user-agent": "control" } })).status, 200)
        assert.strictEqual((yield* get(`${sim.url}/__sim/stats`)).status, 200)
        assert.strictEqual((yield* post(`${sim.url}/__sim/advance?blocks=1`)).status, 200)
        assert.strictEqual((yield* get(`${sim.url}/__sim/requests`)).status, 200)
        const log = yield* sim.requests
        assert.deepStrictEqual(log.map((entry) => entry.userAgent), ["api"])
        assert.deepStrictEqual((yield* get(`${sim.url}/__sim/requests`)).json.requests.map((entry: any) => entry.path), [
          pathOf(block.url)
        ])
        assert.strictEqual((yield* sim.stats).requests.total, 1)
      }))

    test.effect("resetStats and POST /__sim/stats/reset empty the log", () =>
      Effect.gen(function*() {
        const sim = yield* Simulator.Simulator
        const block = fiveRequests(sim)[0]
        yield* get(block.url, { key: sim.apiKey })
        yield* get(block.url, { key: sim.apiKey })
        assert.isAtLeast((yield* sim.requests).length, 2)
        yield* sim.resetStats
        assert.deepStrictEqual(yield* sim.requests, [])

        yield* get(block.url, { key: sim.apiKey })
        assert.lengthOf(yield* sim.requests, 1)
        assert.strictEqual((yield* post(`${sim.url}/__sim/stats/reset`)).status, 200)
        assert.deepStrictEqual((yield* get(`${sim.url}/__sim/requests`)).json, { requests: [] })
        assert.deepStrictEqual(yield* sim.requests, [])
      }))
  })

  layer(Simulator.layer({ seed: 5, history: 5, indexing: false }))("by default", (test) => {
    test.effect("keeps no request", () =>
      Effect.gen(function*() {
        const sim = yield* Simulator.Simulator
        yield* sim.resetStats
        for (const request of fiveRequests(sim)) {
          yield* get(request.url, { key: sim.apiKey, headers: { "user-agent": request.userAgent } })
        }
        assert.strictEqual((yield* sim.stats).requests.total, 5, "the requests were counted")
        assert.deepStrictEqual(yield* sim.requests, [])
        assert.deepStrictEqual((yield* get(`${sim.url}/__sim/requests`)).json, { requests: [] })
      }))
  })

  it.effect("refuses a requestLog that is not a non-negative integer, with an Error naming it", () =>
    Effect.gen(function*() {
      for (const requestLog of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
        const error = yield* service.pipe(
          Effect.provide(Simulator.layer({ history: 3, indexing: false, requestLog })),
          Effect.flip
        )
        assert.instanceOf(error, Error)
        assert.strictEqual(error.message, `requestLog must be a non-negative integer, got ${requestLog}`)
      }
      const started = yield* service.pipe(
        Effect.provide(Simulator.layer({ history: 3, indexing: false, requestLog: 0 })),
        Effect.map((sim) => sim.url)
      )
      assert.match(started, /^http:\/\/127\.0\.0\.1:\d+$/, "0 is valid")
    }))
})

describe("simulator CLI --request-log", () => {
  const bin = fileURLToPath(new URL("../dist/bin.js", import.meta.url))

  /** Starts the CLI; once it prints its URL, runs `use` against it, then stops it with SIGINT. */
  const serve = <A>(args: ReadonlyArray<string>, use: (url: string) => Promise<A>) =>
    new Promise<{ readonly result: A | undefined; readonly code: number | null; readonly stderr: string }>((resolve, reject) => {
      const child = spawn(process.execPath, [bin, ...args], { stdio: ["ignore", "pipe", "pipe"] })
      let out = "", err = "", result: A | undefined, started = false
      child.stdout.on("data", (chunk: Buffer) => {
        out += chunk.toString()
        const url = /^listening on (\S+)$/m.exec(out)?.[1]
        if (url === undefined || started) return
        started = true
        use(url).then((value) => {
          result = value
          child.kill("SIGINT")
        }, (error: unknown) => {
          child.kill("SIGINT")
          reject(error)
        })
      })
      child.stderr.on("data", (chunk: Buffer) => (err += chunk.toString()))
      child.on("exit", (code) => resolve({ result, code, stderr: err }))
    })

  it("--request-log 2 keeps the last 2 API requests for GET /__sim/requests", async () => {
    const { result, code, stderr } = await serve(["--port", "0", "--history", "3", "--request-log", "2"], async (url) => {
      for (const agent of ["a", "b", "c"]) {
        await fetch(`${url}/api/v2.2/block/1?chain=eth`, { headers: { "x-api-key": "chainquery-simulator-key", "user-agent": agent } })
      }
      const response = await fetch(`${url}/__sim/requests`)
      return await response.json() as { readonly requests: ReadonlyArray<{ readonly userAgent: string; readonly operation: string }> }
    })
    assert.strictEqual(code, 0, stderr)
    assert.deepStrictEqual(result?.requests.map((entry) => [entry.userAgent, entry.operation]), [["b", "getBlock"], ["c", "getBlock"]])
  }, 30_000)

  it("refuses --request-log 1.5 with exit code 2 and a message", async () => {
    const { result, code, stderr } = await serve(["--request-log", "1.5"], async () => "started")
    assert.isUndefined(result, "it did not start")
    assert.strictEqual(code, 2)
    assert.include(stderr, `chainquery-simulator: --request-log must be an integer >= 0, got "1.5"`)
    assert.include(stderr, "Usage: chainquery-simulator")
  }, 30_000)
})
