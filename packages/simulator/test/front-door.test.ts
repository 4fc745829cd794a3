/**
 * The simulator's front door over real HTTP on 127.0.0.1 (URL normalisation, network prefix,
 * every fault kind seen from the client, determinism, rate limiting, stats), plus unit tests of
 * the route table, the normaliser, the fault config parser and the rate limiter.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { parseFaultConfig } from "../src/internal/front/Faults.js"
import { type FrontDoor, type FrontDoorOptions, makeFrontDoor } from "../src/internal/front/FrontDoor.js"
import { normaliseQuery, normaliseUrl } from "../src/internal/front/Normalise.js"
import { RateLimiter } from "../src/internal/front/RateLimit.js"
import { defaultWeights, matchRoute, operationIds } from "../src/internal/front/Routes.js"

interface Running {
  readonly url: string
  readonly frontDoor: FrontDoor
  readonly close: () => Promise<void>
}

const echo = (req: IncomingMessage, res: ServerResponse) => {
  const text = JSON.stringify({
    url: req.url,
    network: req.headers["x-chainquery-network"] ?? null,
    wrapped: Object.hasOwn(res, "end"),
    padding: "p".repeat(64)
  })
  res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(text) })
  res.end(text)
}

const controlEcho = (_req: IncomingMessage, res: ServerResponse, url: URL) => {
  res.writeHead(200, { "content-type": "application/json" })
  res.end(JSON.stringify({ control: url.pathname + url.search }))
}

const start = async (options: Partial<FrontDoorOptions> = {}): Promise<Running> => {
  const frontDoor = makeFrontDoor({ seed: "front-door-test", next: echo, control: controlEcho, ...options })
  const server: Server = createServer(frontDoor.handle)
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    frontDoor,
    close: () =>
      new Promise<void>((resolve) => {
        frontDoor.close()
        server.close(() => resolve())
        server.closeAllConnections()
      })
  }
}

const getJson = async (url: string, init: RequestInit = {}) => {
  const response = await fetch(url, init)
  return { status: response.status, headers: response.headers, json: await response.json() as any }
}

const a = (path: string) => matchRoute("GET", "A", `/api/v2.2${path}`)
const b = (path: string) => matchRoute("GET", "B", path)
const settled = (promise: Promise<unknown>) => promise.then(() => "answered", () => "failed")

describe("route table", () => {
  it("maps every operation, resolving the overlaps", () => {
    expect(a("/block/123/nft/transfers")).toBe("getNFTTransfersByBlock")
    expect(a("/0xabc/nft/transfers")).toBe("getWalletNFTTransfers")
    expect(a("/block/nft/transfers")).toBe("getWalletNFTTransfers")
    expect(a("/nft/0xabc/7/transfers")).toBe("getNFTTransfers")
    expect(a("/wallets/0xabc/nfts/trades")).toBe("getNFTTradesByWallet")
    expect(a("/nft/0xabc/owners")).toBe("getNFTOwners")
    expect(a("/block/0xhash")).toBe("getBlock")
    expect(a("/block/123/")).toBe("getBlock")
    expect(a("/wallets/0xabc/defi/positions")).toBe("getDefiPositionsSummary")
    expect(b("/nfts/collections/abc/owners")).toBe("getNFTOwnersByCollection")
    expect(b("/nfts/transfers/creators")).toBe("getNFTTransfersByCreators")
    expect(b("/wallets/nfts/transfers")).toBe("getWalletsNFTTransfers")
    expect(b("/collections")).toBe("getNFTCollections")
    expect(b("/wallets/nfts")).toBe("getNFTByOwners")
    expect(b("/nfts/owners")).toBe("getNFTOwnersByTokens")
    expect(b("/coins/names")).toBe("getCoinsByNameRange")
    for (const miss of ["/block", "/block//nft/transfers", "/nft/0xabc", "/wallets/0xabc/nfts"]) expect(a(miss)).toBeUndefined()
    expect(b("/collections/x")).toBeUndefined()
    expect(matchRoute("POST", "A", "/api/v2.2/block/1")).toBeUndefined()
    expect(matchRoute("GET", "B", "/api/v2.2/block/1")).toBeUndefined()
    expect(operationIds).toHaveLength(14)
    expect(defaultWeights.getBlock).toBe(10)
  })
})

describe("URL normalisation", () => {
  it("rewrites every array form to repeated plain keys, in order", () => {
    expect(normaliseQuery("x[]=a&x[]=b&y=1")).toBe("x=a&x=b&y=1")
    expect(normaliseQuery("x%5B%5D=a&x%5b%5d=b")).toBe("x=a&x=b")
    expect(normaliseQuery("x[1]=b&y=1&x[0]=a")).toBe("x=a&y=1&x=b")
    expect(normaliseQuery("x%5B1%5D=b&x%5B0%5D=a")).toBe("x=a&x=b")
    expect(normaliseQuery("x[10]=c&x[2]=b&x[0]=a")).toBe("x=a&x=b&x=c")
    expect(normaliseQuery("x=a&x=b")).toBe("x=a&x=b")
    expect(normaliseQuery("x[a]=1&y[0][1]=2&z=%5B")).toBe("x[a]=1&y[0][1]=2&z=%5B")
    expect(normaliseQuery("x[]=a%26b")).toBe("x=a%26b")
  })

  it("classifies families and strips the network prefix", () => {
    expect(normaliseUrl("/aptos/testnet/wallets/nfts?owner_addresses[0]=0x1")).toEqual({
      family: "B",
      network: "testnet",
      url: "/wallets/nfts?owner_addresses=0x1",
      pathname: "/wallets/nfts"
    })
    expect(normaliseUrl("/api/v2.2/block/1")).toEqual({ family: "A", url: "/api/v2.2/block/1", pathname: "/api/v2.2/block/1" })
    expect(normaliseUrl("/__sim/head").family).toBe("control")
    expect(normaliseUrl("/aptos/devnet/collections").family).toBe("unknown")
    expect(normaliseUrl("/api/v2.20/block/1").family).toBe("unknown")
    expect(normaliseUrl("http://host/aptos/mainnet/collections?limit=1")).toMatchObject({ family: "B", url: "/collections?limit=1" })
  })

  describe("over HTTP", () => {
    let sim: Running
    beforeAll(async () => {
      sim = await start()
    })
    afterAll(() => sim.close())

    it.each([
      ["bracket", "x[]=a&x[]=b"],
      ["percent-encoded bracket", "x%5B%5D=a&x%5B%5D=b"],
      ["indexed", "x[1]=b&x[0]=a"],
      ["percent-encoded indexed", "x%5B0%5D=a&x%5B1%5D=b"],
      ["plain repeated", "x=a&x=b"]
    ])("%s keys reach the service as repeated keys", async (_name, query) => {
      const { json } = await getJson(`${sim.url}/api/v2.2/0xabc/nft/transfers?chain=eth&${query}&limit=2`)
      expect(json.url).toBe("/api/v2.2/0xabc/nft/transfers?chain=eth&x=a&x=b&limit=2")
      expect(json.wrapped).toBe(false)
    })

    it("strips the family B prefix and passes the network in a header, never the client's", async () => {
      const spoof = { headers: { "x-chainquery-network": "mainnet" } }
      const testnet = await getJson(`${sim.url}/aptos/testnet/nfts/owners?limit=1&token_ids[]=t1`, spoof)
      expect(testnet.json).toMatchObject({ url: "/nfts/owners?limit=1&token_ids=t1", network: "testnet" })
      const mainnet = await getJson(`${sim.url}/aptos/mainnet/collections?limit=1`)
      expect(mainnet.json).toMatchObject({ url: "/collections?limit=1", network: "mainnet" })
      const familyA = await getJson(`${sim.url}/api/v2.2/block/1`, { headers: { "x-chainquery-network": "testnet" } })
      expect(familyA.json).toMatchObject({ url: "/api/v2.2/block/1", network: null })
    })
  })
})

describe("fault config", () => {
  it("normalises shorthands and labels", () => {
    expect(parseFaultConfig({ reset: 0.1, routes: { A6: { reset: 0, latency: { probability: 1, ms: 5 } } } })).toEqual({
      reset: { probability: 0.1 },
      routes: { getBlock: { reset: { probability: 0 }, latency: { probability: 1, ms: 5 } } }
    })
  })

  it("names the bad field", () => {
    expect(parseFaultConfig(null)).toMatch(/^faults must be/)
    expect(parseFaultConfig({ reste: 0.1 })).toMatch(/^faults\.reste is not a fault kind/)
    expect(parseFaultConfig({ reset: { probability: 2 } })).toMatch(/^faults\.reset\.probability must be between 0 and 1/)
    expect(parseFaultConfig({ serverError: { probability: 1, statuses: [500, 404] } })).toMatch(/^faults\.serverError\.statuses\[1\]/)
    expect(parseFaultConfig({ latency: { probability: 1, ms: "5" } })).toMatch(/^faults\.latency\.ms must be a number/)
    expect(parseFaultConfig({ huge: { probability: 1, size: 3 } })).toMatch(/^faults\.huge\.size is not a setting of huge/)
    expect(parseFaultConfig({ routes: { nope: {} } })).toMatch(/^faults\.routes\.nope is not an operation id/)
    expect(parseFaultConfig({ reset: 0.6, malformed: 0.6 })).toMatch(/add up to 1\.2/)
    expect(parseFaultConfig({ reset: 0.6, routes: { A1: { malformed: 0.6 } } })).toMatch(/^faults\.routes\.A1: /)
  })
})

describe("faults over HTTP", () => {
  let sim: Running
  const api = () => `${sim.url}/api/v2.2`
  beforeAll(async () => {
    sim = await start()
  })
  afterAll(() => sim.close())

  it("rateLimited: 429 with Retry-After and the service's message", async () => {
    sim.frontDoor.faults.set({ rateLimited: { probability: 1, retryAfterSeconds: 3 } })
    const { status, headers, json } = await getJson(`${api()}/block/1`)
    expect(status).toBe(429)
    expect(headers.get("retry-after")).toBe("3")
    expect(json).toEqual({ message: "Rate Limit exceeded" })
  })

  it.each([[500, "Internal Server Error"], [502, "Bad Gateway"], [503, "Service Unavailable"]])(
    "serverError: %i",
    async (status, message) => {
      sim.frontDoor.faults.set({ serverError: { probability: 1, statuses: [status] } })
      expect(await getJson(`${api()}/block/1`)).toMatchObject({ status, json: { message } })
    }
  )

  it("serverError picks from the default statuses", async () => {
    expect(sim.frontDoor.faults.setFromJson({ serverError: 1 })).toBeUndefined()
    const statuses = new Set<number>()
    for (let i = 0; i < 30; i++) statuses.add((await fetch(`${api()}/block/1`)).status)
    expect([...statuses].toSorted()).toEqual([500, 502, 503])
  })

  it("reset: the connection drops without a response", async () => {
    sim.frontDoor.faults.set({ reset: { probability: 1 } })
    await expect(fetch(`${api()}/block/1`)).rejects.toThrow()
  })

  it("truncated: half the real body, with a Content-Length matching what was sent", async () => {
    sim.frontDoor.faults.set({ truncated: { probability: 1 } })
    const response = await fetch(`${api()}/block/1`)
    const bytes = Buffer.from(await response.arrayBuffer())
    expect(response.status).toBe(200)
    expect(Number(response.headers.get("content-length"))).toBe(bytes.length)
    expect(bytes.length).toBeGreaterThan(40)
    expect(bytes.toString()).toMatch(/^\{"url":"\/api\/v2\.2\/block\/1"/)
    expect(() => JSON.parse(bytes.toString())).toThrow()
  })

  it("malformed: a 200 whose body is not JSON", async () => {
    sim.frontDoor.faults.set({ malformed: { probability: 1 } })
    const response = await fetch(`${api()}/block/1`)
    const text = await response.text()
    expect(response.status).toBe(200)
    expect(text.startsWith("{\"result\": [")).toBe(true)
    expect(() => JSON.parse(text)).toThrow()
  })

  it("stalled: head and part of the body arrive, then nothing until the client gives up", async () => {
    sim.frontDoor.faults.set({ stalled: { probability: 1 } })
    const response = await fetch(`${api()}/block/1`, { signal: AbortSignal.timeout(300) })
    expect(response.status).toBe(200)
    expect(Number(response.headers.get("content-length"))).toBeGreaterThan(0)
    await expect(response.text()).rejects.toThrow(/timeout|aborted/i)
  })

  it("huge: a valid JSON body larger than the configured size", async () => {
    const size = 2 * 1024 * 1024
    sim.frontDoor.faults.set({ huge: { probability: 1, bytes: size } })
    const response = await fetch(`${api()}/block/1`)
    const text = await response.text()
    expect(response.status).toBe(200)
    expect(text.length).toBeGreaterThan(size)
    expect(Number(response.headers.get("content-length"))).toBe(text.length)
    expect(JSON.parse(text).result.length).toBeGreaterThan(1000)
  })

  it("latency: the response takes at least the fixed delay, alone or with another fault", async () => {
    sim.frontDoor.faults.set({ latency: { probability: 1, ms: 150, jitterMs: 20 } })
    let started = performance.now()
    const { json } = await getJson(`${api()}/block/1`)
    expect(performance.now() - started).toBeGreaterThanOrEqual(150)
    expect(json).toMatchObject({ url: "/api/v2.2/block/1", wrapped: true })
    sim.frontDoor.faults.set({ latency: { probability: 1, ms: 100 }, serverError: { probability: 1, statuses: [502] } })
    started = performance.now()
    expect((await fetch(`${api()}/block/1`)).status).toBe(502)
    expect(performance.now() - started).toBeGreaterThanOrEqual(100)
  })

  it("a route's probability overrides the global one, both ways", async () => {
    sim.frontDoor.faults.set({
      serverError: { probability: 1, statuses: [503] },
      routes: { getBlock: { serverError: 0 }, getNFTCollections: { malformed: 1, serverError: 0 } }
    })
    expect((await fetch(`${api()}/block/1`)).status).toBe(200)
    expect((await fetch(`${api()}/block/1/nft/transfers`)).status).toBe(503)
    expect(sim.frontDoor.faults.setFromJson({ routes: { B4: { serverError: { probability: 1, statuses: [500] } } } })).toBeUndefined()
    expect((await fetch(`${sim.url}/aptos/mainnet/collections?limit=1`)).status).toBe(500)
    expect((await fetch(`${sim.url}/aptos/mainnet/coins/names?limit=1`)).status).toBe(200)
    expect(sim.frontDoor.faults.get()).toEqual({ routes: { getNFTCollections: { serverError: { probability: 1, statuses: [500] } } } })
  })

  it("control requests get no faults", async () => {
    sim.frontDoor.faults.set({ reset: { probability: 1 } })
    expect((await getJson(`${sim.url}/__sim/head?x[]=1`)).json).toEqual({ control: "/__sim/head?x[]=1" })
    sim.frontDoor.faults.set({})
  })
})

describe("altering responses written like the Effect platform does", () => {
  const body = Buffer.from(JSON.stringify({ result: Array.from({ length: 50 }, (_, i) => ({ i, name: `item ${i}` })) }))
  // writeHead(status, undefined, headers), strict Content-Length, several writes, end(callback)
  const effectStyle = (_req: IncomingMessage, res: ServerResponse) => {
    res.strictContentLength = true
    res.writeHead(200, undefined, { "content-type": "application/json", "content-length": String(body.length) })
    res.write(body.subarray(0, 100))
    res.write(body.subarray(100), () => res.end(() => undefined))
  }
  let sim: Running
  beforeAll(async () => {
    sim = await start({ next: effectStyle })
  })
  afterAll(() => sim.close())

  it("truncates to exactly the first half", async () => {
    expect(sim.frontDoor.faults.setFromJson({ truncated: 1 })).toBeUndefined()
    const response = await fetch(`${sim.url}/api/v2.2/block/1`)
    const bytes = Buffer.from(await response.arrayBuffer())
    expect(response.headers.get("content-type")).toBe("application/json")
    expect(response.headers.get("content-length")).toBe(String(Math.floor(body.length / 2)))
    expect(bytes.equals(body.subarray(0, Math.floor(body.length / 2)))).toBe(true)
  })

  it("delays the whole body unchanged", async () => {
    sim.frontDoor.faults.set({ latency: { probability: 1, ms: 30 } })
    const response = await fetch(`${sim.url}/api/v2.2/block/1`)
    expect(Buffer.from(await response.arrayBuffer()).equals(body)).toBe(true)
    expect(response.headers.get("content-length")).toBe(String(body.length))
    sim.frontDoor.faults.set({})
    const plain = await fetch(`${sim.url}/api/v2.2/block/1`)
    expect(Buffer.from(await plain.arrayBuffer()).equals(body)).toBe(true)
  })
})

describe("determinism", () => {
  const config = {
    serverError: { probability: 0.2 },
    rateLimited: { probability: 0.1 },
    malformed: { probability: 0.1 },
    truncated: { probability: 0.1 }
  }
  const outcomes = async (seed: string) => {
    const sim = await start({ seed, faults: config })
    try {
      const seen: Array<string> = []
      const paths = ["/api/v2.2/block/1", "/api/v2.2/0xabc/nft/transfers", "/aptos/testnet/collections?limit=1"]
      for (let i = 0; i < 60; i++) {
        const response = await fetch(sim.url + paths[i % paths.length])
        const text = await response.text()
        let parses = true
        try {
          JSON.parse(text)
        } catch {
          parses = false
        }
        seen.push(`${response.status}:${parses}`)
      }
      return { seen, faults: sim.frontDoor.stats.snapshot().faults }
    } finally {
      await sim.close()
    }
  }

  it("the same seed and requests give the same faults; another seed, others", async () => {
    const first = await outcomes("seed-1")
    const again = await outcomes("seed-1")
    const other = await outcomes("seed-2")
    expect(again).toEqual(first)
    expect(other.seen).not.toEqual(first.seen)
    expect(first.faults.total).toBeGreaterThan(10)
    expect(new Set(first.seen).size).toBeGreaterThanOrEqual(4)
  })
})

describe("rate limiter", () => {
  it("refuses with exact Retry-After values and refills continuously", () => {
    let t = 0
    const limiter = new RateLimiter({ unitsPerSecond: 10 }, () => t)
    expect(limiter.check("k", "getNFTOwners")).toBeUndefined()
    expect(limiter.check("k", "getNFTOwners")).toBeUndefined()
    expect(limiter.check("k", "getNFTOwners")).toBe(1)
    t = 250
    expect(limiter.available("k")).toBeCloseTo(2.5)
    expect(limiter.check("k", "getNFTOwners")).toBe(1)
    t = 500
    expect(limiter.check("k", "getNFTOwners")).toBeUndefined()
    t = 10_000
    expect(limiter.available("k")).toBe(10)
  })

  it("keeps a budget per key and honours weights, with debt past the capacity", () => {
    let t = 0
    const limiter = new RateLimiter({ unitsPerSecond: 5, weights: { getNFTOwners: 1 } }, () => t)
    expect(limiter.check("a", "getDefiPositionsSummary")).toBeUndefined()
    expect(limiter.available("a")).toBe(-15)
    expect(limiter.check("a", "getNFTOwners")).toBe(4)
    expect(limiter.check("b", "getNFTOwners")).toBeUndefined()
    expect(limiter.available("b")).toBe(4)
    t = 3_200
    expect(limiter.check("a", "getNFTOwners")).toBeUndefined()
    expect(limiter.check("a", "getBlock")).toBe(1)
    expect(limiter.weightOf(undefined)).toBe(1)
    expect(() => new RateLimiter({ unitsPerSecond: 5, weights: { nope: 1 } as never })).toThrow(/rateLimit\.weights\.nope/)
    expect(new RateLimiter({}).check("a", "getBlock")).toBeUndefined()
  })

  describe("over HTTP", () => {
    let sim: Running
    let t = 0
    beforeAll(async () => {
      sim = await start({ rateLimit: { unitsPerSecond: 10, weights: { getBlock: 4 } }, now: () => t })
    })
    afterAll(() => sim.close())

    it("answers 429 with Retry-After per key (X-API-Key or Bearer) and refills with the clock", async () => {
      const asKey = { headers: { "x-api-key": "alice" } }
      const asBearer = { headers: { authorization: "Bearer alice" } }
      expect((await fetch(`${sim.url}/api/v2.2/block/1`, asKey)).status).toBe(200)
      expect((await fetch(`${sim.url}/api/v2.2/block/2`, asBearer)).status).toBe(200)
      const refused = await getJson(`${sim.url}/api/v2.2/wallets/0xabc/defi/positions`, asKey)
      expect(refused).toMatchObject({ status: 429, json: { message: "Rate Limit exceeded" } })
      expect(refused.headers.get("retry-after")).toBe("1")
      expect((await fetch(`${sim.url}/aptos/mainnet/collections?limit=1`)).status).toBe(200)
      t = 1_000
      expect((await fetch(`${sim.url}/api/v2.2/wallets/0xabc/defi/positions`, asKey)).status).toBe(200)
      const stats = sim.frontDoor.stats.snapshot()
      expect(stats.rateLimited).toBe(1)
      expect(stats.computeUnits).toMatchObject({ total: 4 + 4 + 5 + 20, byOperation: { getBlock: 8, getDefiPositionsSummary: 20 } })
    })
  })
})

describe("stats and shutdown", () => {
  it("counts requests per operation, family and network, and faults per kind", async () => {
    const sim = await start({ faults: { routes: { getCoinsByNameRange: { malformed: 1 } } } })
    try {
      await fetch(`${sim.url}/api/v2.2/block/1`).then((r) => r.text())
      await fetch(`${sim.url}/api/v2.2/nope`).then((r) => r.text())
      await fetch(`${sim.url}/aptos/testnet/coins/names?limit=1`).then((r) => r.text())
      await fetch(`${sim.url}/elsewhere`).then((r) => r.text())
      await fetch(`${sim.url}/__sim/stats`).then((r) => r.text())
      const snapshot = sim.frontDoor.stats.snapshot()
      expect(snapshot.requests).toMatchObject({
        total: 4,
        byFamily: { A: 2, B: 1, unknown: 1 },
        byNetwork: { mainnet: 0, testnet: 1 },
        byOperation: { getBlock: 1, getCoinsByNameRange: 1, unknown: 2 }
      })
      expect(snapshot.faults).toMatchObject({ malformed: 1, total: 1 })
      expect(snapshot.computeUnits.total).toBe(10 + 1 + 1)
      sim.frontDoor.stats.reset()
      expect(sim.frontDoor.stats.snapshot().requests.total).toBe(0)
    } finally {
      await sim.close()
    }
  })

  it("close() ends stalled and delayed responses", async () => {
    const sim = await start({ faults: { stalled: { probability: 1 } } })
    const stalled = await fetch(`${sim.url}/api/v2.2/block/1`)
    const body = settled(stalled.text())
    sim.frontDoor.faults.set({ latency: { probability: 1, ms: 60_000 } })
    const delayed = settled(fetch(`${sim.url}/api/v2.2/block/1`))
    await new Promise((resolve) => setTimeout(resolve, 50))
    // the front door's close alone ends them (the server's closeAllConnections would hide a leak)
    sim.frontDoor.close()
    expect(await body).toBe("failed")
    expect(await delayed).toBe("failed")
    await sim.close()
  })
})
