/**
 * The ledger client's overhead on a real-shaped page, as a user would measure it: a bare
 * `node:http` server (its own process) answers every request with the same pre-serialised
 * 100-record B3 page built from a real capture. `LedgerClient.getWalletsNFTTransfers` against
 * `fetch` + `JSON.parse` of the same URL, sequential requests, interleaved rounds, ratio of
 * medians. Goal: <= 1.3.
 */
import { LedgerClient } from "@chainquery/ledger-client"
import { Effect } from "effect"
import { startStaticPageServer } from "../../schema/bench/staticPageServer.ts"
import { alternating } from "../../schema/bench/timing.ts"

const wallet = "0x274c398a921b8e2ba345feac3039e1c8b196a7eb1395cdd3584af3a85eb9ec50"
const apiKey = "bench-key"
const headers = { "x-api-key": apiKey, accept: "application/json" }

const server = await startStaticPageServer({ pages: 1 })
const url = `${server.url}/wallets/nfts/transfers?limit=100&wallet_addresses%5B%5D=${wallet}`

const program = Effect.gen(function*() {
  const ledger = yield* LedgerClient.LedgerClient
  const bare = Effect.promise(async () => JSON.parse(await (await fetch(url, { headers })).text()) as { result: Array<unknown> })
  const viaClient = ledger.getWalletsNFTTransfers({ walletAddresses: [wallet], limit: 100 })
  const first = yield* viaClient
  if (first.result.length !== 100 || first.rejected.length !== 0) throw new Error("the page did not decode to 100 records")
  yield* alternating({ bare, viaClient }, { blocks: 30, perBlock: 10 })
  return yield* alternating({ bare, viaClient }, { blocks: 150, perBlock: 10 })
})

const { bare, viaClient: client } = await Effect.runPromise(program.pipe(Effect.provide(LedgerClient.layer({ apiKey, baseUrl: server.url }))))
server.stop()

const ratio = client / bare
console.log("ledger-client: real-shaped B3 pages of 100 records (87 KB) from a static node:http server")
console.log(`  fetch + JSON.parse            ${bare.toFixed(3)} ms per request (median of 150 blocks of 10, alternating)`)
console.log(`  LedgerClient                  ${client.toFixed(3)} ms per request`)
console.log(`  client / fetch                ${ratio.toFixed(2)}x (goal <= 1.3: ${ratio <= 1.3 ? "met" : "NOT met"})`)
