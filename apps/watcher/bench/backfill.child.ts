/**
 * One measured backfill for `backfill.bench.ts`: `Backfill.run` of the wallets listed in a JSON
 * file on eth from block FROM, over an `EvmClient` pointed at the simulator, a state store in a
 * SQLite file, the events formatted as NDJSON and written to a stream that drops them (as the
 * CLI writes to stdout). Then one JSON line on stdout: the events written, the time taken (ms)
 * and the peak resident set size of the process (bytes, `process.resourceUsage().maxRSS`).
 *
 *   node backfill.child.ts <simulator url> <api key> <wallets.json> <state.sqlite> <from block>
 */
import { EvmClient } from "@chainquery/evm-client"
import { EvmAddress } from "@chainquery/schema"
import { Backfill, EventWriter, StateStore, type WatchedWallet } from "@chainquery/watcher"
import { Effect, Layer, Schema } from "effect"
import { readFileSync } from "node:fs"
import { Writable } from "node:stream"

const [url, apiKey, walletsFile, stateFile, fromArg] = process.argv.slice(2)
if (url === undefined || apiKey === undefined || walletsFile === undefined || stateFile === undefined || fromArg === undefined) {
  throw new Error("usage: backfill.child.ts <simulator url> <api key> <wallets.json> <state.sqlite> <from block>")
}

const decodeAddresses = Schema.decodeUnknownSync(Schema.Array(EvmAddress.EvmAddress))
/** Where the events go: formatted as the CLI formats them, then dropped. */
const sink = new Writable({ write: (_chunk, _encoding, done) => done() })

const program = Effect.gen(function*() {
  const wallets = decodeAddresses(JSON.parse(readFileSync(walletsFile, "utf8")))
    .map((address): WatchedWallet.EvmWallet => ({ family: "evm", chain: "0x1", address }))
  const started = performance.now()
  const summary = yield* Backfill.run({
    wallets,
    from: { _tag: "Block", block: BigInt(fromArg) },
    watch: ["transfers", "trades"],
    write: EventWriter.make(sink, "json")
  })
  const ms = performance.now() - started
  return { events: summary.events, ms, peakRss: process.resourceUsage().maxRSS * 1024, wallets: wallets.length }
})

const layer = Layer.merge(EvmClient.layer({ apiKey, baseUrl: url }), StateStore.layer(stateFile))
const result = await Effect.runPromise(program.pipe(Effect.provide(layer)))
console.log(JSON.stringify(result))
