/**
 * The client's overhead on real-shaped pages, as a user would measure it: a bare `node:http`
 * server (its own process) answers every request with the same pre-serialised 100-record A2 page
 * built from a real capture (ERC1155 transfers, 77-digit token ids, null labels, `verified` as a
 * number). Sequential requests, interleaved rounds, ratios of medians, all in one run:
 *
 * - `EvmClient.getWalletNFTTransfers` against `fetch` + `JSON.parse` of the same URL (goal <= 1.3),
 *   with two floors beside it: `fetch` + `JSON.parse` + decode (what rich types cost), and the same
 *   with a timer and an `AbortSignal` (what the attempt timeout costs);
 * - `EvmClient.streamWalletNFTTransfers` over 20 pages against a hand-written `fetch` loop
 *   following the cursor, in items per second (goal <= 1.3).
 */
import { EvmClient } from "@chainquery/evm-client"
import { Decode, EvmPage } from "@chainquery/schema"
import { Effect, Result, Stream } from "effect"
import { startStaticPageServer } from "../../schema/bench/staticPageServer.ts"
import { alternating } from "../../schema/bench/timing.ts"

const pages = 20
const wallet = "0xd8da6bf26964af9d7eed9e03e53415d37aa96045"
const apiKey = "bench-key"
const headers = { "x-api-key": apiKey, accept: "application/json" }

const getJson = async (url: string) => JSON.parse(await (await fetch(url, { headers })).text()) as { result: Array<unknown>; cursor: string | null }

const server = await startStaticPageServer({ pages })
const listing = `${server.url}/api/v2.2/${wallet}/nft/transfers?chain=eth&limit=100`

const program = Effect.gen(function*() {
  const client = yield* EvmClient.EvmClient
  const bare = Effect.promise(() => getJson(listing))
  const decode = Decode.decoder(EvmPage.TransfersPage)
  const bareDecoded = Effect.promise(async () => Result.getOrThrow(decode(await getJson(listing))))
  // What keeping the attempt timeout costs by itself: a timer, and a signal that lets go of the
  // request when it fires.
  const bareGuarded = Effect.promise(async () => {
    const controller = new AbortController()
    const timer = setTimeout(() => controller.abort(), 10_000)
    try {
      const response = await fetch(listing, { headers, signal: controller.signal, redirect: "manual" })
      return Result.getOrThrow(decode(JSON.parse(await response.text())))
    } finally {
      clearTimeout(timer)
    }
  })
  const viaClient = client.getWalletNFTTransfers({ address: wallet, chain: "eth", limit: 100 })
  const first = yield* viaClient
  if (first.result.length !== 100 || first.rejected.length !== 0) throw new Error("the page did not decode to 100 records")

  const bareLoop = Effect.promise(async () => {
    let items = 0
    let page = await getJson(listing)
    items += page.result.length
    while (page.cursor !== null) {
      page = await getJson(`${listing}&cursor=${encodeURIComponent(page.cursor)}`)
      items += page.result.length
    }
    return items
  })
  const viaStream = Stream.runCount(client.streamWalletNFTTransfers({ address: wallet, chain: "eth", limit: 100 }))
  const counted = yield* viaStream
  if (counted !== pages * 100 || (yield* bareLoop) !== pages * 100) throw new Error(`the stream read ${counted} items`)

  yield* alternating({ bare, bareDecoded, bareGuarded, viaClient }, { blocks: 30, perBlock: 10 })
  const single = yield* alternating({ bare, bareDecoded, bareGuarded, viaClient }, { blocks: 150, perBlock: 10 })
  yield* alternating({ bareLoop, viaStream }, { blocks: 5, perBlock: 1 })
  const stream = yield* alternating({ bareLoop, viaStream }, { blocks: 61, perBlock: 1 })
  return { single, stream }
})

const { single, stream } = await Effect.runPromise(
  program.pipe(Effect.provide(EvmClient.layer({ apiKey, baseUrl: server.url })))
)
server.stop()

const itemsPerSecond = (millis: number) => (pages * 100) / (millis / 1000)
const singleRatio = single.viaClient / single.bare
const floorRatio = single.bareDecoded / single.bare
const guardedRatio = single.bareGuarded / single.bare
const streamRatio = itemsPerSecond(stream.bareLoop) / itemsPerSecond(stream.viaStream)
const verdict = (ratio: number) => (ratio <= 1.3 ? "met" : "NOT met")
console.log("evm-client: real-shaped A2 pages of 100 records (80 KB) from a static node:http server")
console.log(`  fetch + JSON.parse            ${single.bare.toFixed(3)} ms per request (median of 150 blocks of 10, alternating)`)
console.log(`  fetch + JSON.parse + decode   ${single.bareDecoded.toFixed(3)} ms per request (${floorRatio.toFixed(2)}x: the floor for rich types)`)
console.log(`    + a timeout that aborts     ${single.bareGuarded.toFixed(3)} ms per request (${guardedRatio.toFixed(2)}x: the floor with the attempt timeout kept)`)
console.log(`  EvmClient                     ${single.viaClient.toFixed(3)} ms per request`)
console.log(`  client / fetch                ${singleRatio.toFixed(2)}x (goal <= 1.3: ${verdict(singleRatio)})`)
console.log(`  fetch loop over ${pages} pages      ${itemsPerSecond(stream.bareLoop).toFixed(0)} items/s (median of 61 walks, alternating)`)
console.log(`  streamWalletNFTTransfers      ${itemsPerSecond(stream.viaStream).toFixed(0)} items/s`)
console.log(`  stream / fetch loop           ${streamRatio.toFixed(2)}x (goal <= 1.3: ${verdict(streamRatio)})`)
