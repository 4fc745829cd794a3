/**
 * The client's own cost: per-request time of `EvmClient.getWalletNFTTransfers` (100 records:
 * validation, the transport pipeline, decoding to rich types) against a bare `fetch` +
 * `JSON.parse` of the same URL, both against the simulator, measured in one run, interleaved,
 * as a ratio of medians. Goal: <= 1.3.
 */
import { EvmClient } from "@chainquery/evm-client"
import { Simulator } from "@chainquery/simulator"
import { Duration, Effect } from "effect"

const median = (values: ReadonlyArray<number>) => values.toSorted((a, b) => a - b)[Math.floor(values.length / 2)]!

const program = Effect.gen(function*() {
  const sim = yield* Simulator.Simulator
  const chain = sim.world.evm.chain("0x89")
  const wallet = [...chain.transfersByWallet].toSorted((a, b) => b[1].length - a[1].length)[0]![0]
  const client = yield* EvmClient.EvmClient
  const url = `${sim.evmUrl}/api/v2.2/${wallet}/nft/transfers?chain=0x89&limit=100`
  const bare = () =>
    Effect.promise(async () => {
      const response = await fetch(url, { headers: { "x-api-key": sim.apiKey, accept: "application/json" } })
      return JSON.parse(await response.text()) as { result: Array<unknown> }
    })
  const viaClient = () => client.getWalletNFTTransfers({ address: wallet, chain: "polygon", limit: 100 })
  const check = yield* viaClient()
  if (check.result.length !== 100) throw new Error("the benchmark wallet has fewer than 100 transfers")
  for (let i = 0; i < 100; i++) {
    yield* bare()
    yield* viaClient()
  }
  const bareTimes: Array<number> = []
  const clientTimes: Array<number> = []
  for (let round = 0; round < 15; round++) {
    const [a] = yield* Effect.timed(Effect.repeat(bare(), { times: 29 }))
    const [b] = yield* Effect.timed(Effect.repeat(viaClient(), { times: 29 }))
    bareTimes.push(Duration.toMillis(a) / 30)
    clientTimes.push(Duration.toMillis(b) / 30)
  }
  return { bare: median(bareTimes), client: median(clientTimes) }
})

const layer = Effect.gen(function*() {
  const sim = yield* Simulator.Simulator
  return EvmClient.layer({ apiKey: sim.apiKey, baseUrl: sim.evmUrl })
})

const result = await Effect.runPromise(
  Effect.gen(function*() {
    const clientLayer = yield* layer
    return yield* Effect.provide(program, clientLayer)
  }).pipe(Effect.provide(Simulator.layer({ seed: "client-bench", history: 200, indexing: false, chains: ["0x89"] })))
)
const ratio = result.client / result.bare
console.log("evm-client: getWalletNFTTransfers, 100 records, against the simulator")
console.log(`  fetch + JSON.parse        ${result.bare.toFixed(2)} ms per request (median of 15 rounds of 30)`)
console.log(`  EvmClient                 ${result.client.toFixed(2)} ms per request`)
console.log(`  ratio                     ${ratio.toFixed(2)}x (goal <= 1.3: ${ratio <= 1.3 ? "met" : "NOT met"})`)
