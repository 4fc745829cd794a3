/**
 * One measured backfill for `backfill.bench.ts`: `Backfill.run` of the wallets listed in a JSON
 * file on eth from block FROM, over an `EvmClient` pointed at the simulator, a state store in a
 * SQLite file, the events formatted as NDJSON and written to a stream that drops them (as the
 * CLI writes to stdout). Then one JSON line on stdout: the events written, the time taken (ms),
 * the peak resident set size of the process (bytes, `process.resourceUsage().maxRSS`) and, when
 * run with `node --expose-gc` and `live` as last argument, the largest heap still used after a
 * full garbage collection at the end of each batch (what the backfill keeps alive; the collections
 * change the timing and the resident size, so the bench measures it in runs of its own).
 *
 *   node [--expose-gc] backfill.child.ts <simulator url> <api key> <wallets.json> <state.sqlite> <from block> [live]
 */
import { EvmClient } from "@chainquery/evm-client"
import { EvmAddress } from "@chainquery/schema"
import { Backfill, StateStore, type WatchedWallet } from "@chainquery/watch"
import { EventWriter } from "@chainquery/watcher"
import { Effect, Layer, Schema } from "effect"
import { readFileSync } from "node:fs"
import { Writable } from "node:stream"

const [url, apiKey, walletsFile, stateFile, fromArg, liveArg] = process.argv.slice(2)
if (url === undefined || apiKey === undefined || walletsFile === undefined || stateFile === undefined || fromArg === undefined) {
  throw new Error("usage: backfill.child.ts <simulator url> <api key> <wallets.json> <state.sqlite> <from block>")
}

const decodeAddresses = Schema.decodeUnknownSync(Schema.Array(EvmAddress.EvmAddress))
/** Where the events go: formatted as the CLI formats them, then dropped. */
const sink = new Writable({ write: (_chunk, _encoding, done) => done() })
const print = EventWriter.make(sink, "json")
const gc = liveArg === "live" ? globalThis.gc : undefined
if (liveArg === "live" && gc === undefined) throw new Error("run with node --expose-gc to measure the live heap")
let liveHeap = 0

const program = Effect.gen(function*() {
  const wallets = decodeAddresses(JSON.parse(readFileSync(walletsFile, "utf8")))
    .map((address): WatchedWallet.EvmWallet => ({ family: "evm", chain: "0x1", address }))
  const started = performance.now()
  const summary = yield* Backfill.run({
    wallets,
    from: { _tag: "Block", block: BigInt(fromArg) },
    watch: ["transfers", "trades"],
    write: (events) =>
      Effect.andThen(
        print(events),
        Effect.sync(() => {
          if (gc === undefined) return
          gc()
          liveHeap = Math.max(liveHeap, process.memoryUsage().heapUsed)
        })
      )
  })
  const ms = performance.now() - started
  return { events: summary.events, ms, peakRss: process.resourceUsage().maxRSS * 1024, liveHeap, wallets: wallets.length }
})

const layer = Layer.merge(EvmClient.layer({ apiKey, baseUrl: url }), StateStore.layer(stateFile))
const result = await Effect.runPromise(program.pipe(Effect.provide(layer)))
console.log(JSON.stringify(result))
