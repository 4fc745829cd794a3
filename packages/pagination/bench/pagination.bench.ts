/**
 * Pagination speed-ups, measured in one run against the simulator with 20 ms of latency injected
 * on every page: prefetch(2) against sequential when the consumer spends ~20 ms per page (goal
 * >= 1.8x), family B offset windows read 8 at a time against a sequential cursor walk (goal >= 5x),
 * an A2 block range split in 8 against the sequential walk (goal >= 4x); and heap growth while
 * streaming 200,000 items.
 */
import { Decode, EvmPage, LedgerPage } from "@chainquery/schema"
import { Envelope, Paginate, Parallel } from "@chainquery/pagination"
import { Simulator } from "@chainquery/simulator"
import { Duration, Effect, Option, Result, Schema, Stream } from "effect"
import v8 from "node:v8"
import vm from "node:vm"

const latency = 20

const getJson = (url: string, key: string) =>
  Effect.promise(async () => {
    const response = await fetch(url, { headers: { "x-api-key": key } })
    if (!response.ok) throw new Error(`${response.status} ${await response.text()}`)
    return response.json() as Promise<unknown>
  })

const decodeWith = <S extends Schema.Decoder<unknown>>(schema: S) => {
  const decode = Decode.decoder(schema)
  return (body: unknown): S["Type"] => Result.getOrThrow(decode(body))
}
const transfersPage = decodeWith(EvmPage.TransfersPage)
const coinsPage = decodeWith(LedgerPage.CoinsPage)

const program = Effect.gen(function*() {
  const sim = yield* Simulator.Simulator
  const key = sim.apiKey
  const chain = sim.world.evm.chain("0x89")
  const [wallet, ids] = [...chain.transfersByWallet].toSorted((a, b) => b[1].length - a[1].length)[0]!
  const head = chain.head
  const fetchA2 = (range: readonly [bigint, bigint] | undefined, limit: number) => (cursor: Option.Option<string>) =>
    Effect.map(
      getJson(`${sim.evmUrl}/api/v2.2/${wallet}/nft/transfers?chain=polygon&limit=${limit}${range === undefined ? "" : `&from_block=${range[0]}&to_block=${range[1]}`}${Option.isSome(cursor) ? `&cursor=${cursor.value}` : ""}`, key),
      transfersPage
    )
  yield* sim.setFaults({ latency: { probability: 1, ms: latency } })

  // 1. prefetch(2) vs sequential, consumer ~20 ms per page.
  const consume = (prefetch: number) =>
    Paginate.pages(fetchA2(undefined, 25), Envelope.evm(), { prefetch, maxPages: 30 }).pipe(
      Stream.runForEach(() => Effect.sleep(`${latency} millis`))
    )
  const sequential = yield* Effect.timed(consume(0))
  const prefetched = yield* Effect.timed(consume(2))

  // 2. family B: offset windows 8 at a time vs a sequential cursor walk.
  const coinsByCursor = (cursor: Option.Option<string>) =>
    Effect.map(getJson(`${sim.ledgerUrl.mainnet}/coins/names?limit=5${Option.isSome(cursor) ? `&cursor=${cursor.value}` : ""}`, key), coinsPage)
  const coinsByOffset = (offset: number) => Effect.map(getJson(`${sim.ledgerUrl.mainnet}/coins/names?limit=5&offset=${offset}`, key), coinsPage)
  const ledgerSequential = yield* Effect.timed(Stream.runCollect(Paginate.items(coinsByCursor, Envelope.ledger())))
  const ledgerParallel = yield* Effect.timed(Stream.runCollect(Parallel.byOffset(coinsByOffset, Envelope.ledger(), { pageSize: 5, concurrency: 8 })))
  const sameCoins = JSON.stringify(ledgerParallel[1].flatMap((p) => p.items.map((c) => c.coin_type))) ===
    JSON.stringify(ledgerSequential[1].map((c) => c.coin_type))

  // 3. A2 over a block range: 8 sub-ranges at once vs the sequential walk.
  const first = BigInt(chain.transfers[ids[0]!]!.block)
  const whole: readonly [bigint, bigint] = [first, BigInt(head)]
  const rangeSequential = yield* Effect.timed(Stream.runCollect(Paginate.items(fetchA2(whole, 20), Envelope.evm())))
  const rangeParallel = yield* Effect.timed(Stream.runCollect(
    Parallel.byBlockRange((range) => fetchA2(range, 20), Envelope.evm(), { fromBlock: whole[0], toBlock: whole[1], parts: 8, order: "DESC" })
  ))
  const sameTransfers = rangeParallel[1].flatMap((p) => p.items).length === rangeSequential[1].length
  yield* sim.setFaults({})

  return {
    prefetch: [sequential[0], prefetched[0]],
    ledger: [ledgerSequential[0], ledgerParallel[0], ledgerSequential[1].length, sameCoins],
    range: [rangeSequential[0], rangeParallel[0], rangeSequential[1].length, sameTransfers]
  } as const
})

const result = await Effect.runPromise(program.pipe(
  Effect.provide(Simulator.layer({ seed: "pagination-bench", history: 400, indexing: false, activityScale: 3, chains: ["0x89"] }))
))

// 4. Heap growth while streaming 200,000 items (~1 KiB each) from memory.
v8.setFlagsFromString("--expose-gc")
const gc = vm.runInNewContext("gc") as () => void
const total = 200_000
const fetchMemory = (cursor: Option.Option<string>) =>
  Effect.sync(() => {
    const offset = Number(Option.getOrElse(cursor, () => "0"))
    return {
      result: Array.from({ length: 100 }, (_, i) => ({ n: offset + i, payload: `${"x".repeat(1000)}${offset + i}` })),
      cursor: offset + 100 < total ? Option.some(String(offset + 100)) : Option.none<string>()
    }
  })
gc()
const baseline = process.memoryUsage().heapUsed
let peak = baseline
let count = 0
await Effect.runPromise(Paginate.items(fetchMemory, Envelope.evm(), { prefetch: 2 }).pipe(
  Stream.runForEach(() => Effect.sync(() => {
    if (++count % 2000 === 0) peak = Math.max(peak, process.memoryUsage().heapUsed)
  }))
))

const line = (label: string, slow: Duration.Duration, fast: Duration.Duration, goal: number, note: string) => {
  const [a, b] = [Duration.toMillis(slow), Duration.toMillis(fast)]
  const ratio = a / b
  console.log(`  ${label.padEnd(34)} ${a.toFixed(0).padStart(6)} ms -> ${b.toFixed(0).padStart(5)} ms  ${ratio.toFixed(2)}x (goal >= ${goal}: ${ratio >= goal ? "met" : "NOT met"}) ${note}`)
}
console.log(`pagination: ${latency} ms latency injected per page`)
line("prefetch(2) vs sequential", result.prefetch[0], result.prefetch[1], 1.8, "(30 pages, consumer 20 ms/page)")
line("B offset-parallel(8) vs sequential", result.ledger[0], result.ledger[1], 5, `(${result.ledger[2]} coins, same order: ${result.ledger[3]})`)
line("A2 range-split(8) vs sequential", result.range[0], result.range[1], 4, `(${result.range[2]} transfers, same records: ${result.range[3]})`)
console.log(`  heap growth streaming 200,000 items: ${((peak - baseline) / 1024 / 1024).toFixed(1)} MiB (items ~1 KiB each)`)
