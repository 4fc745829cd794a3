/**
 * The watcher's memory per watched wallet: a watcher process (engine `auto`, no confirmations,
 * state in a SQLite file, `memory.child.ts`) watching 10,000 wallets on eth against one watching
 * 10, each after 8 cycles against an in-process simulator over HTTP and a full GC; the
 * difference in resident set size divided by 9,990, median of interleaved pairs of runs,
 * measured in one run. Also printed: the V8 heap still used after the GC (what the watcher
 * keeps alive) and the largest V8 heap seen at the end of a cycle (what a cycle allocates, which
 * the process keeps resident afterwards). Goal: <= 2 KB of resident memory per wallet-chain.
 */
import { Simulator } from "@chainquery/simulator"
import { Effect } from "effect"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import os from "node:os"
import path from "node:path"
import { fileURLToPath } from "node:url"
import { measureChild, median } from "./support/measured.ts"

const small = 10
const large = 10_000
const pairs = 5
const cycles = 8
const child = fileURLToPath(new URL("./memory.child.ts", import.meta.url))

interface Usage {
  readonly rss: number
  readonly heapUsed: number
  readonly peakHeap: number
  readonly wallets: number
}

/** Runs one measured watcher process; rejects when it fails, prints no measurement or watched another count. */
const measure = (wallets: number, args: ReadonlyArray<string>): Promise<Usage> =>
  measureChild<Usage>(child, args, ["--expose-gc"]).then((usage) => {
    if (usage.wallets !== wallets) throw new Error(`memory.child.ts watched ${usage.wallets} wallets, not ${wallets}`)
    return usage
  })

const kb = (bytes: number) => `${(bytes / 1024).toFixed(2)} KB`
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`
const line = (label: string, cells: ReadonlyArray<string>, note = "") =>
  console.log(`  ${label.padEnd(26)}${cells.map((cell) => cell.padStart(18)).join("")}${note}`)
const fields = [["rss", "resident (rss)"], ["heapUsed", "heap used"], ["peakHeap", "peak heap"]] as const

const started = Date.now()
const dir = mkdtempSync(path.join(os.tmpdir(), "watcher-memory-"))
const runs = await Effect.runPromise(
  Effect.gen(function*() {
    const sim = yield* Simulator.Simulator
    const files = new Map([small, large].map((n) => {
      const file = path.join(dir, `wallets-${n}.json`)
      writeFileSync(file, JSON.stringify(sim.world.evm.wallets.slice(0, n)))
      return [n, file] as const
    }))
    const results: Array<{ readonly small: Usage; readonly large: Usage }> = []
    for (let pair = 0; pair < pairs; pair++) {
      const run = (n: number) =>
        Effect.promise(() => measure(n, [sim.url, sim.apiKey, files.get(n)!, path.join(dir, `state-${n}-${pair}.sqlite`), String(cycles)]))
      results.push({ small: yield* run(small), large: yield* run(large) })
    }
    return results
  }).pipe(
    Effect.provide(Simulator.layer({ seed: "watcher-memory", wallets: large, indexing: false, chains: ["0x1"] })),
    Effect.ensuring(Effect.sync(() => rmSync(dir, { recursive: true, force: true })))
  )
)

const perWallet = (field: typeof fields[number][0]) => runs.map((run) => (run.large[field] - run.small[field]) / (large - small))
console.log(`watcher: memory per watched wallet-chain (eth, auto, state in a SQLite file, after ${cycles} cycles; medians of ${pairs} runs each)`)
line("", fields.map(([, label]) => label))
line(`${small} wallets`, fields.map(([field]) => mb(median(runs.map((run) => run.small[field])))))
line(`${large.toLocaleString("en")} wallets`, fields.map(([field]) => mb(median(runs.map((run) => run.large[field])))))
line("per wallet", fields.map(([field]) => kb(median(perWallet(field)))), `   (difference / ${(large - small).toLocaleString("en")}, median of ${pairs} pairs)`)
line("  lowest-highest pair (KB)", fields.map(([field]) => `${(Math.min(...perWallet(field)) / 1024).toFixed(2)}-${(Math.max(...perWallet(field)) / 1024).toFixed(2)}`))
const rss = median(perWallet("rss"))
console.log(`  goal: <= 2 KB resident per wallet-chain: ${kb(rss)} (${rss <= 2048 ? "goal met" : "NOT met"})`)
console.log("  (heap used: what the watcher keeps alive; peak heap: the V8 heap at the end of a cycle, before a GC,")
console.log("   whose pages the process keeps resident after the GC)")
console.log(`  ran in ${((Date.now() - started) / 1000).toFixed(0)} s`)
