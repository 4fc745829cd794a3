/**
 * One measured watcher process for `memory.bench.ts` (run with `node --expose-gc`): the modules
 * of the CLI loaded (as in a `chainquery-watcher` process: its fixed memory sets how V8 grows the
 * heap, so the per-wallet figure compares with the runs before the engine moved into
 * `@chainquery/watch`), the wallets in a `WatchSet` (what `Watch.batches` holds per wallet), an
 * engine (`auto`, no confirmations, transfers) over an `EvmClient` pointed at the simulator and a
 * state store in a SQLite file, watching the wallets listed in a JSON file; after `cycles` cycles (the
 * world advanced one block before each), a full garbage collection, then one JSON line on
 * stdout: `{ "rss", "heapUsed", "external", "peakHeap" }` in bytes, `peakHeap` being the largest
 * V8 heap (committed) seen at the end of a cycle, before any forced collection.
 *
 *   node --expose-gc memory.child.ts <simulator url> <api key> <wallets.json> <state.sqlite> <cycles>
 */
import { EvmClient } from "@chainquery/evm-client"
import { EvmAddress } from "@chainquery/schema"
import { Engine, StateStore, type WatchedWallet, WatchSet } from "@chainquery/watch"
import "@chainquery/watcher"
import { Effect, Layer, Schema } from "effect"
import { readFileSync } from "node:fs"

const [url, apiKey, walletsFile, stateFile, cyclesArg] = process.argv.slice(2)
if (url === undefined || apiKey === undefined || walletsFile === undefined || stateFile === undefined || cyclesArg === undefined) {
  throw new Error("usage: memory.child.ts <simulator url> <api key> <wallets.json> <state.sqlite> <cycles>")
}
const gc = globalThis.gc
if (gc === undefined) throw new Error("run with node --expose-gc")

const decodeAddresses = Schema.decodeUnknownSync(Schema.Array(EvmAddress.EvmAddress))
/** What the measurement must not let be collected: the set and the engine (and, through them, the wallets). */
const kept: Array<unknown> = []

const collect = async () => {
  for (let i = 0; i < 4; i++) {
    gc()
    await new Promise((resolve) => setImmediate(resolve))
  }
}

const program = Effect.gen(function*() {
  yield* Effect.promise(collect)
  const wallets = decodeAddresses(JSON.parse(readFileSync(walletsFile, "utf8")))
    .map((address): WatchedWallet.EvmWallet => ({ family: "evm", chain: "0x1", address }))
  const set = yield* WatchSet.make(wallets)
  const engine = yield* Engine.make({ wallets, strategy: "auto", confirmations: 0, watch: ["transfers"] })
  kept.push(set, engine)
  let peakHeap = 0
  for (let cycle = 0; cycle < Number(cyclesArg); cycle++) {
    if (cycle > 0) yield* Effect.promise(() => fetch(`${url}/__sim/advance?blocks=1`, { method: "POST" }).then((response) => response.text()))
    yield* engine.step(() => Effect.void)
    peakHeap = Math.max(peakHeap, process.memoryUsage().heapTotal)
  }
  const store = yield* StateStore.StateStore
  const checkpoints = (yield* store.checkpoints).length
  if (checkpoints !== wallets.length) throw new Error(`${checkpoints} checkpoints for ${wallets.length} wallets`)
  yield* Effect.promise(collect)
  const usage = process.memoryUsage()
  return { rss: usage.rss, heapUsed: usage.heapUsed, external: usage.external, peakHeap, wallets: wallets.length }
})

const layer = Layer.merge(EvmClient.layer({ apiKey, baseUrl: url }), StateStore.layer(stateFile))
const result = await Effect.runPromise(program.pipe(Effect.provide(layer)))
console.log(JSON.stringify(result))
