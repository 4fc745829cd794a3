/**
 * The watcher's request cost: requests per cycle on one EVM chain (eth) for 10, 100, 1,000 and
 * 10,000 watched wallets, for each strategy (`block-scan`, also with `confirmations: 3`,
 * `per-wallet`, `auto`) and for naive per-wallet polling (one A2 listing per wallet per cycle
 * from its last block, written here as the baseline), as counts and as ratios naive/strategy.
 * Real cycles against an in-process simulator over HTTP on 127.0.0.1, counted by the
 * simulator's own stats; the world advances one block between cycles; the first (baseline)
 * cycle and the warm-up cycles that fill the engine's reorg window are left out, and the median
 * of the steady cycles is printed (fewer of them where a cycle is slow: the output says how many).
 * An engine whose checkpoints did not reach the safe head fails the bench.
 * Goal: block scanning at 10,000 wallets >= 1,000x fewer requests than naive polling.
 */
import { EvmClient, type GetWalletNFTTransfers } from "@chainquery/evm-client"
import { EvmAddress } from "@chainquery/schema"
import { Simulator } from "@chainquery/simulator"
import { Engine, StateStore, type WatchedWallet } from "@chainquery/watch"
import { Effect, Option, Schema } from "effect"
import { median } from "./support/measured.ts"

const chain = "0x1" as const
const sizes = [10, 100, 1_000, 10_000] as const
/** Steady cycles per configuration: at most `maxCycles`, fewer (never under `minCycles`) once `budgetMs` is spent. */
const maxCycles = 5
const minCycles = 3
const budgetMs = 12_000
/**
 * Cycles run after the baseline and before counting, so that block scanning re-reads its whole
 * reorg window (6 blocks, filled one block per cycle): the engine's default window + 1, fewer
 * once `warmupBudgetMs` is spent (per-wallet polling at 10,000 wallets; its count does not depend
 * on the window, which the smaller sizes show).
 */
const warmupCycles = 7
const warmupBudgetMs = 6_000
/** As many A2 listings in flight as the engine's per-wallet polling has. */
const concurrency = 4

const decodeAddress = Schema.decodeUnknownSync(EvmAddress.EvmAddress)

type Sim = Simulator.Simulator["Service"]
type Client = EvmClient.Service

interface Measure {
  readonly requests: number
  readonly byOperation: Record<string, number>
  readonly millis: number
  readonly cycles: number
  readonly warmup: number
}

class BenchFailure extends Schema.TaggedError<BenchFailure>()("BenchFailure", { message: Schema.String }) {}

/**
 * Runs `cycle` once as the baseline and up to `warmup` times more (not counted), then steady
 * cycles, each after the world advanced one block: the median requests (and requests per
 * operation, of the median cycle) and milliseconds of a steady cycle.
 */
const measure = Effect.fnUntraced(function*<E, R>(sim: Sim, cycle: Effect.Effect<void, E, R>, warmup: number) {
  yield* cycle
  let warm = 0
  const warmStart = Date.now()
  while (warm < warmup && Date.now() - warmStart < warmupBudgetMs) {
    yield* sim.advance(1)
    yield* cycle
    warm++
  }
  const counted: Array<{ readonly total: number; readonly byOperation: Record<string, number> }> = []
  const times: Array<number> = []
  const started = Date.now()
  while (counted.length < maxCycles && (counted.length < minCycles || Date.now() - started < budgetMs)) {
    yield* sim.advance(1)
    yield* sim.resetStats
    const start = performance.now()
    yield* cycle
    times.push(performance.now() - start)
    const { requests } = yield* sim.stats
    counted.push({ total: requests.total, byOperation: Object.fromEntries(Object.entries(requests.byOperation).filter(([, n]) => n > 0)) })
  }
  const middle = counted.toSorted((a, b) => a.total - b.total)[Math.floor(counted.length / 2)]!
  return { requests: middle.total, byOperation: middle.byOperation, millis: median(times), cycles: counted.length, warmup: warm } satisfies Measure
})

/**
 * Naive polling: per wallet, the block of its newest transfer (the baseline cycle: one A2 page
 * of one record), then each cycle every page of its A2 listing from the block after it.
 */
const naive = (sim: Sim, client: Client, wallets: ReadonlyArray<WatchedWallet.EvmWallet>) => {
  const last = new Map<string, bigint>()
  const poll = (address: string) =>
    Effect.gen(function*() {
      const known = last.get(address)
      if (known === undefined) {
        const page = yield* client.getWalletNFTTransfers({ address, chain, limit: 1, order: "DESC" })
        last.set(address, page.result[0]?.block_number ?? 0n)
        return
      }
      let cursor: string | undefined = undefined
      let newest = known
      do {
        const page: GetWalletNFTTransfers.ReturnType = yield* pageOf(address, known + 1n, cursor)
        for (const transfer of page.result) if (transfer.block_number > newest) newest = transfer.block_number
        cursor = Option.getOrUndefined(page.cursor)
      } while (cursor !== undefined)
      last.set(address, newest)
    })
  const pageOf = (address: string, fromBlock: bigint, cursor: string | undefined) =>
    client.getWalletNFTTransfers({ address, chain, fromBlock, order: "ASC", limit: 100, ...(cursor === undefined ? {} : { cursor }) })
  return measure(sim, Effect.forEach(wallets, (wallet) => poll(wallet.address), { concurrency, discard: true }), 0)
}

/** The engine with a fresh in-memory state store; checks that every checkpoint reached the safe head. */
const engine = (sim: Sim, wallets: ReadonlyArray<WatchedWallet.EvmWallet>, strategy: Engine.Strategy, confirmations: number) =>
  Effect.gen(function*() {
    const watcher = yield* Engine.make({ wallets, strategy, confirmations, watch: ["transfers"] })
    const result = yield* measure(sim, Effect.asVoid(watcher.step(() => Effect.void)), warmupCycles)
    const store = yield* StateStore.StateStore
    const positions = (yield* store.checkpoints).map((checkpoint) => checkpoint.position)
    const expected = BigInt(sim.world.evm.chain(chain).head - confirmations)
    if (positions.length !== wallets.length || positions.some((position) => position !== expected)) {
      const lowest = positions.reduce((a, b) => (b < a ? b : a), expected)
      return yield* new BenchFailure({
        message: `${strategy} (confirmations ${confirmations}, ${wallets.length} wallets): ${positions.length} checkpoints, lowest ${lowest}, expected all at ${expected}`
      })
    }
    return result
  }).pipe(Effect.provide(StateStore.layerMemory))

const columns = [
  { name: "naive", label: "naive A2 polling" },
  { name: "block-scan", label: "block-scan" },
  { name: "block-scan c3", label: "block-scan, confirmations 3" },
  { name: "per-wallet", label: "per-wallet" },
  { name: "auto", label: "auto" }
] as const
type Column = typeof columns[number]["name"]

const program = Effect.gen(function*() {
  const sim = yield* Simulator.Simulator
  const client = yield* EvmClient.EvmClient
  const world = sim.world.evm.wallets.map((address): WatchedWallet.EvmWallet => ({ family: "evm", chain, address: decodeAddress(address) }))
  const rows: Array<{ readonly size: number; readonly cells: Record<Column, Measure> }> = []
  for (const size of sizes) {
    const wallets = world.slice(0, size)
    const cells: Record<Column, Measure> = {
      "naive": yield* naive(sim, client, wallets),
      "block-scan": yield* engine(sim, wallets, "block-scan", 0),
      "block-scan c3": yield* engine(sim, wallets, "block-scan", 3),
      "per-wallet": yield* engine(sim, wallets, "per-wallet", 0),
      "auto": yield* engine(sim, wallets, "auto", 0)
    }
    rows.push({ size, cells })
  }
  return rows
})

const started = Date.now()
const rows = await Effect.runPromise(
  Effect.gen(function*() {
    const sim = yield* Simulator.Simulator
    return yield* Effect.provide(program, EvmClient.layer({ apiKey: sim.apiKey, baseUrl: sim.evmUrl }))
  }).pipe(Effect.provide(Simulator.layer({ seed: "watcher-requests", wallets: 10_000, indexing: false, chains: [chain] })))
)

const fmt = (n: number) => n.toLocaleString("en")
const ratio = (naiveCount: number, count: number) => {
  const r = naiveCount / count
  return `${r >= 100 ? fmt(Math.round(r)) : r.toFixed(1)}x`
}
const operations: Record<string, string> = { getNFTTransfersByBlock: "A1", getWalletNFTTransfers: "A2" }
const line = (label: string, cells: ReadonlyArray<string>) => console.log(`  ${label.padEnd(30)}${cells.map((cell) => cell.padStart(20)).join("")}`)

console.log("watcher: requests per cycle, eth only, one new block per cycle, world of 10,000 wallets, over HTTP")
console.log("  median of the steady cycles (baseline and warm-up cycles left out); (ratio) = naive / strategy; watch: transfers")
line("requests per cycle", sizes.map((size) => `${fmt(size)} wallets`))
for (const column of columns) {
  line(column.label, rows.map((row) => {
    const cell = row.cells[column.name]
    return column.name === "naive" ? fmt(cell.requests) : `${fmt(cell.requests)} (${ratio(row.cells.naive.requests, cell.requests)})`
  }))
}
console.log("  time per cycle (median), steady cycles measured / warm-up cycles before them")
for (const column of columns) {
  line(`  ${column.label}`, rows.map((row) => {
    const cell = row.cells[column.name]
    return `${fmt(Math.round(cell.millis))} ms ${cell.cycles}/${cell.warmup}`
  }))
}
const last = rows.at(-1)!
console.log(`  by operation at ${fmt(last.size)} wallets (A1 getNFTTransfersByBlock, A2 getWalletNFTTransfers)`)
for (const column of columns) {
  const parts = Object.entries(last.cells[column.name].byOperation).map(([op, n]) => `${fmt(n)} ${operations[op] ?? op}`)
  console.log(`    ${column.label.padEnd(28)}${parts.join(" + ")}`)
}
const scanRatio = last.cells.naive.requests / last.cells["block-scan"].requests
console.log(
  `  goal: block-scan at ${fmt(last.size)} wallets >= 1,000x fewer requests than naive: ${ratio(last.cells.naive.requests, last.cells["block-scan"].requests)} (${scanRatio >= 1_000 ? "goal met" : "NOT met"})`
)
console.log(`  ran in ${((Date.now() - started) / 1000).toFixed(0)} s`)
