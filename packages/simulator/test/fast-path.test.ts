/**
 * The fast path against the HttpApi path: two simulators over the same world (same seed, same
 * faults), one answering the paged family A listings on its fast path and one with the fast path
 * switched off, are sent the same raw requests (valid ones, bad parameters, wrong or missing keys,
 * cursor walks, odd URLs, other operations, family B, faults). Every answer must be the same:
 * status, headers (but the date) and body bytes, and so must the stats. The requests the fast path
 * is meant to take are checked to have been answered by it, and the others to have fallen back.
 */
import { NodeHttpServer } from "@effect/platform-node"
import { assert, describe, layer } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import http from "node:http"
import { type Running, type ServerOptions, start } from "../src/internal/Server.js"

const key = "fast-path-key"

const options: ServerOptions = {
  seed: "fast-path",
  host: "127.0.0.1",
  port: 0,
  apiKey: key,
  blockTime: undefined,
  history: 40,
  wallets: 50,
  activityScale: 1,
  indexing: { lagProbability: 0.3, syncBlocks: 3 },
  activeChains: undefined,
  faults: { truncated: { probability: 0.1 }, latency: { probability: 0.1, ms: 1 } },
  rateLimit: undefined
}

class Pair extends Context.Service<Pair, { readonly fast: Running; readonly plain: Running }>()("test/FastPathPair") {}

const pair = Layer.effect(
  Pair,
  Effect.all({ fast: start({ ...options, fastPath: true }), plain: start({ ...options, fastPath: false }) })
).pipe(Layer.provide(NodeHttpServer.layerHttpServices))

interface Raw {
  readonly status: number
  readonly headers: Record<string, unknown>
  readonly body: Buffer
}

/** One request with a raw target (no URL normalisation on the way), on its own connection. */
const send = (base: string, method: string, target: string, headers: Record<string, string>) =>
  Effect.callback<Raw>((resume) => {
    const { hostname, port } = new URL(base)
    const req = http.request({ hostname, port, method, path: target, headers, agent: false }, (res) => {
      const chunks: Array<Buffer> = []
      res.on("data", (chunk: Buffer) => chunks.push(chunk))
      res.on("end", () => {
        const { date: _date, ...rest } = res.headers
        resume(Effect.succeed({ status: res.statusCode ?? 0, headers: rest, body: Buffer.concat(chunks) }))
      })
    })
    req.end()
    return Effect.sync(() => req.destroy())
  })

interface Case {
  readonly target: string
  readonly headers?: Record<string, string>
  readonly method?: string
  /** Whether the fast path should answer it itself. */
  readonly fast: boolean
}

const withKey = { "x-api-key": key }

/** Sends `cases` to both simulators and checks the answers and who answered. */
const compare = (cases: ReadonlyArray<Case>) =>
  Effect.gen(function*() {
    const { fast, plain } = yield* Pair
    const answers: Array<Raw> = []
    for (const c of cases) {
      const headers = c.headers ?? withKey
      const before = fast.fastPath!.served()
      const a = yield* send(fast.url, c.method ?? "GET", c.target, headers)
      const servedFast = fast.fastPath!.served() > before
      const b = yield* send(plain.url, c.method ?? "GET", c.target, headers)
      const label = `${c.method ?? "GET"} ${c.target} ${JSON.stringify(headers)}`
      assert.strictEqual(a.status, b.status, `${label}: status`)
      assert.deepStrictEqual(a.headers, b.headers, `${label}: headers`)
      assert.isTrue(a.body.equals(b.body), `${label}: body\n${a.body.toString().slice(0, 300)}\n${b.body.toString().slice(0, 300)}`)
      const answered = `${a.status} ${a.body.toString().slice(0, 200)}`
      assert.strictEqual(servedFast, c.fast, `${label}: ${c.fast ? "not answered by" : "answered by"} the fast path (${answered})`)
      answers.push(a)
    }
    const { since: _fastSince, ...fastStats } = fast.frontDoor.stats.snapshot()
    const { since: _plainSince, ...plainStats } = plain.frontDoor.stats.snapshot()
    assert.deepStrictEqual(fastStats, plainStats)
    return answers
  })

const cursorOf = (answer: Raw): string => JSON.parse(answer.body.toString()).cursor

/** The key of the longest list in a map. */
const busiest = (map: Map<string, Array<number>>) => [...map].toSorted((a, b) => b[1].length - a[1].length)[0]![0]

describe("the fast path answers exactly as the HttpApi path", () => {
  layer(pair)((test) => {
    test.effect("family A listings, bad parameters, keys, cursors, odd URLs, other operations and family B", () =>
      Effect.gen(function*() {
        const { fast } = yield* Pair
        const chain = fast.world.evm.chain("0x1")
        const wallet = busiest(chain.transfersByWallet)
        const [contract, tokenId] = busiest(chain.transfersByToken).split(":") as [string, string]
        const trader = busiest(chain.tradesByWallet)
        const block = chain.transfers[0]!.block
        const hash = chain.block(block)!.hash
        const a2 = `/api/v2.2/${wallet}/nft/transfers`
        const a3 = `/api/v2.2/nft/${contract}/${tokenId}/transfers`
        const a4 = `/api/v2.2/wallets/${trader}/nfts/trades`
        const first = yield* compare([
          { target: `${a2}?limit=3`, fast: true },
          { target: `${a2}?chain=eth&limit=3&order=ASC`, fast: true }
        ])
        const [page2] = yield* compare([{ target: `${a2}?limit=3&cursor=${cursorOf(first[0]!)}`, fast: true }])
        yield* compare([
          { target: `${a2}?limit=3&cursor=${cursorOf(page2!)}`, fast: true },
          // a cursor of another listing, or none of ours
          { target: `${a2}?limit=3&order=ASC&cursor=${cursorOf(first[0]!)}`, fast: false },
          { target: `${a3}?cursor=${cursorOf(first[0]!)}`, fast: false },
          { target: `${a2}?cursor=garbage`, fast: false },
          // valid variants
          { target: a2, fast: true },
          { target: `${a2}/?chain=0x1`, fast: true },
          { target: `${a2}?chain=polygon&limit=100`, fast: true },
          { target: `${a2}?from_block=5&to_block=30&limit=4`, fast: true },
          { target: `${a2}?from_date=2020-01-01T00:00:00Z&to_date=2030-01-01&limit=4`, fast: true },
          { target: `${a2}?contract_addresses=${contract}&limit=2`, fast: true },
          { target: `${a2}?contract_addresses[]=${contract}&contract_addresses[]=${wallet}`, fast: true },
          { target: `${a2}?format=decimal&limit=2`, fast: true },
          { target: `/api/v2.2/${wallet.toUpperCase().replace("0X", "0x")}/nft/transfers?limit=2`, fast: true },
          { target: `/api/v2.2//${wallet}/nft/transfers?limit=2`, fast: false },
          { target: `/api/v2.2/${encodeURIComponent(wallet)}%2F/nft/transfers`, fast: false },
          // bad parameters
          { target: `${a2}?limit=0`, fast: false },
          { target: `${a2}?limit=101`, fast: false },
          { target: `${a2}?limit=ten`, fast: false },
          { target: `${a2}?chain=nowhere`, fast: false },
          { target: `${a2}?order=UP`, fast: false },
          { target: `${a2}?from_date=yesterday`, fast: false },
          { target: `${a2}?limit=1&limit=2`, fast: false },
          { target: `/api/v2.2/0xnothex/nft/transfers`, fast: false },
          // keys
          { target: `${a2}?limit=2`, headers: {}, fast: false },
          { target: `${a2}?limit=2`, headers: { "x-api-key": "wrong" }, fast: false },
          { target: `${a2}?limit=2`, headers: { "x-api-key": "" }, fast: false },
          { target: `${a2}?limit=2`, headers: { authorization: `Bearer ${key}` }, fast: true },
          { target: `${a2}?limit=2`, headers: { authorization: `bearer ${key}` }, fast: true },
          { target: `${a2}?limit=2`, headers: { "x-api-key": "wrong", authorization: `Bearer ${key}` }, fast: true },
          { target: `${a2}?limit=2`, headers: { authorization: "Bearer wrong" }, fast: false },
          { target: `${a2}?limit=0`, headers: { "x-api-key": "wrong" }, fast: false },
          // methods and bodies
          { target: `${a2}?limit=2`, method: "HEAD", fast: false },
          { target: `${a2}?limit=2`, method: "POST", fast: false },
          { target: `${a2}?limit=2`, headers: { ...withKey, "content-length": "0" }, fast: false },
          // the other paged listings
          { target: `/api/v2.2/block/${block}/nft/transfers`, fast: true },
          { target: `/api/v2.2/block/${hash}/nft/transfers?limit=1&order=DESC`, fast: true },
          { target: `/api/v2.2/block/99999999/nft/transfers`, fast: true },
          { target: `/api/v2.2/block/nope/nft/transfers`, fast: false },
          { target: `${a3}?limit=2`, fast: true },
          { target: `${a3.replace(tokenId, "x")}`, fast: false },
          { target: `${a4}?chain=eth&limit=2`, fast: true },
          { target: `${a4}?chain=eth&from_date=2020-01-01`, fast: true },
          { target: `${a4}?chain=eth&from_date=1577836800&to_date=1900000000`, fast: true },
          { target: `${a4}?chain=eth&from_date=1577836800x`, fast: false },
          { target: `${a4}?chain=polygon`, fast: true },
          { target: `${a4}?chain=nowhere`, fast: false },
          // the operations it leaves to the HttpApi, family B, unknown routes
          { target: `/api/v2.2/nft/${contract}/owners?limit=2`, fast: false },
          { target: `/api/v2.2/block/${block}`, fast: false },
          { target: `/api/v2.2/block/99999999`, fast: false },
          { target: `/api/v2.2/wallets/${wallet}/defi/positions`, fast: false },
          { target: `/aptos/mainnet/collections?limit=2`, fast: false },
          { target: `/aptos/testnet/collections?limit=-1`, fast: false },
          { target: `/aptos/mainnet/collections?limit=2`, headers: {}, fast: false },
          { target: `/api/v2.2/${wallet}/nft/nothing`, fast: false },
          { target: `/elsewhere`, fast: false }
        ])
        // the same URLs again (the fast path keeps decoded URLs), now after the world moved on
        fast.world.advance(3)
        const { plain } = yield* Pair
        plain.world.advance(3)
        yield* compare([
          { target: `${a2}?limit=3`, fast: true },
          { target: `${a2}?limit=3&cursor=${cursorOf(first[0]!)}`, fast: true },
          { target: `${a2}?limit=0`, fast: false },
          { target: `${a4}?chain=eth&limit=2`, fast: true }
        ])
        // the faults drawn along the way altered answers of both paths alike
        const { faults } = fast.frontDoor.stats.snapshot()
        assert.isAbove(faults.truncated ?? 0, 0)
        assert.isAbove(faults.latency ?? 0, 0)
      }))
  })
})
