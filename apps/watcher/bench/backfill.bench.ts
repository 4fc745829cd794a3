/**
 * The backfill's speed and memory: `--backfill FROM` of the 100 busiest wallets on eth (transfers
 * and trades), over the last 5,000 blocks against over the last 500, each in a process of its own
 * (`backfill.child.ts`) against an in-process simulator over HTTP; medians of interleaved pairs of
 * runs, measured in one run. Printed: events per second, the peak resident memory of the process
 * and, from runs of their own that collect garbage after each batch, the largest heap the
 * backfill keeps alive. Goal: the backfill streams its range, so the peak of the 5,000-block
 * backfill is within 1.5x of the 500-block one, although it writes about ten times the events.
 */
import { Simulator } from "@chainquery/simulator"
import { Effect } from "effect"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import os from "node:os"
import path from "node:path"
import { fileURLToPath } from "node:url"
import { measureChild, median } from "./support/measured.ts"

const ranges = [500, 5_000] as const
const walletCount = 100
const pairs = 3
const child = fileURLToPath(new URL("./backfill.child.ts", import.meta.url))

interface Measured {
  readonly events: number
  readonly ms: number
  readonly peakRss: number
  readonly liveHeap: number
  readonly wallets: number
}

/** Runs one measured backfill process (with `live`, collecting garbage after each batch); rejects when it backfilled another count of wallets. */
const measure = (args: ReadonlyArray<string>, live = false): Promise<Measured> =>
  (live ? measureChild<Measured>(child, [...args, "live"], ["--expose-gc"]) : measureChild<Measured>(child, args)).then((measured) => {
    if (measured.wallets !== walletCount) throw new Error(`backfill.child.ts backfilled ${measured.wallets} wallets, not ${walletCount}`)
    return measured
  })

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`
const line = (label: string, cells: ReadonlyArray<string>) => console.log(`  ${label.padEnd(22)}${cells.map((cell) => cell.padStart(16)).join("")}`)

const started = Date.now()
const dir = mkdtempSync(path.join(os.tmpdir(), "watcher-backfill-"))
const { results: runs, live } = await Effect.runPromise(
  Effect.gen(function*() {
    const sim = yield* Simulator.Simulator
    const chain = sim.world.evm.chain("0x1")
    const head = chain.head
    // The busiest wallets of the longer range.
    const busiest = [...chain.transfersByWallet]
      .map(([address, transfers]) => [address, transfers.filter((index) => chain.transfers[index]!.block > head - ranges[1]).length] as const)
      .toSorted((a, b) => b[1] - a[1])
      .slice(0, walletCount)
      .map(([address]) => address)
    const walletsFile = path.join(dir, "wallets.json")
    writeFileSync(walletsFile, JSON.stringify(busiest))
    const args = (range: number, run: string) => [sim.url, sim.apiKey, walletsFile, path.join(dir, `state-${range}-${run}.sqlite`), String(head - range + 1)]
    const results: Array<Record<number, Measured>> = []
    for (let pair = 0; pair < pairs; pair++) {
      const result: Record<number, Measured> = {}
      for (const range of ranges) result[range] = yield* Effect.promise(() => measure(args(range, String(pair))))
      results.push(result)
    }
    const collected: Record<number, Measured> = {}
    for (const range of ranges) collected[range] = yield* Effect.promise(() => measure(args(range, "live"), true))
    return { results, live: collected }
  }).pipe(
    Effect.provide(Simulator.layer({ seed: "watcher-backfill", history: ranges[1] + 200, indexing: false, chains: ["0x1"] })),
    Effect.ensuring(Effect.sync(() => rmSync(dir, { recursive: true, force: true })))
  )
)

console.log(`watcher: backfill of the ${walletCount} busiest eth wallets, transfers and trades (medians of ${pairs} runs each, interleaved)`)
line("", ["events", "events / s", "peak resident", "live heap"])
for (const range of ranges) {
  const of = (field: (m: Measured) => number) => median(runs.map((run) => field(run[range]!)))
  line(`last ${range.toLocaleString("en")} blocks`, [
    of((m) => m.events).toLocaleString("en"),
    Math.round(of((m) => m.events / (m.ms / 1000))).toLocaleString("en"),
    mb(of((m) => m.peakRss)),
    mb(live[range]!.liveHeap)
  ])
}
const ratio = median(runs.map((run) => run[ranges[1]]!.peakRss / run[ranges[0]]!.peakRss))
console.log(`  peak resident, ${ranges[1].toLocaleString("en")} blocks / ${ranges[0]} blocks: ${ratio.toFixed(2)}x (median of the ${pairs} pairs; goal <= 1.5x: ${ratio <= 1.5 ? "goal met" : "NOT met"})`)
console.log("  (live heap: the largest V8 heap still used after a full collection at the end of a batch, one run each;")
console.log("   it includes what any process of the watcher holds, e.g. its code, before the first event)")
console.log(`  ran in ${((Date.now() - started) / 1000).toFixed(0)} s`)
