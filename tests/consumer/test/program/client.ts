/**
 * A user's program driving a real `serve` with the typed client of `@chainquery/watch-service`:
 * it starts the packed simulator and the packed watcher's `chainquery-watcher serve` (an embedded
 * PostgreSQL in ./serve-data, the API token and the data API key in its environment, never its
 * argv), then, over `ManagementClient`, creates a stream, adds a wallet, lists the stream's
 * deliveries, asks for a replay and reads a stream that does not exist (a typed `NotFound`). It
 * prints a JSON summary as its last line and stops the service (SIGTERM: it must exit 0); any
 * failure exits 1 with the reason.
 *
 * The consumer test copies this file into the scratch project, type-checks it and runs it.
 */
import { ManagementApi, ManagementClient } from "@chainquery/watch-service"
import { Effect, Redacted } from "effect"
import { FetchHttpClient } from "effect/http"
import { type ChildProcess, spawn } from "node:child_process"
import { fileURLToPath } from "node:url"
import { apiKey, startSimulator, type Urls } from "./startSimulator.js"

const watcher = fileURLToPath(new URL("../node_modules/.bin/chainquery-watcher", import.meta.url))
const dataDir = fileURLToPath(new URL("../serve-data", import.meta.url))
const apiToken = Redacted.make("consumer-check-api-token-0123456789")

/** `serve`, started; `url` settles once it printed where it listens. */
const startServe = (urls: Urls): { readonly child: ChildProcess; readonly url: Promise<string> } => {
  const child = spawn(
    watcher,
    ["serve", "--port", "0", "--data-dir", dataDir, "--evm-base-url", urls.evm, "--ledger-base-url", urls.ledgerMainnet, "--allow-private-webhooks", "--interval", "1s"],
    {
      env: { ...process.env, CHAINQUERY_API_TOKEN: Redacted.value(apiToken), MORALIS_API_KEY: apiKey },
      stdio: ["ignore", "pipe", "inherit"]
    }
  )
  const url = new Promise<string>((resolve, reject) => {
    let stdout = ""
    const timer = setTimeout(() => reject(new Error(`serve printed no address within 120 s: ${stdout}`)), 120_000)
    child.once("error", reject)
    child.once("exit", (code) => reject(new Error(`serve exited with ${code} before it listened: ${stdout}`)))
    child.stdout!.on("data", (chunk: Buffer) => {
      stdout += chunk.toString()
      const match = /^listening on (http:\/\/\S+)$/m.exec(stdout)
      if (match !== null) {
        clearTimeout(timer)
        resolve(match[1]!)
      }
    })
  })
  return { child, url }
}

const check = (condition: boolean, what: string): Effect.Effect<void, Error> =>
  condition ? Effect.void : Effect.fail(new Error(`consumer check failed: ${what}`))

const program = (url: string, wallet: string) =>
  Effect.gen(function*() {
    const client = yield* ManagementClient.make({ baseUrl: url, apiToken })
    const stream = yield* client.streams.create({ payload: { url: "http://127.0.0.1:9/hook", chains: ["eth"] } })
    yield* check(/^str_[0-9a-z]{21}$/.test(stream.id) && stream.secret.startsWith("whsec_"), "the created stream has no id or secret")
    const added = yield* client.streams.addWallets({ params: { id: stream.id }, payload: { wallets: [`eth:${wallet}`] } })
    yield* check(added.added === 1 && added.coverage[0]?.coveredFrom !== null, "the wallet was not added with its first block")
    const { deliveries } = yield* client.streams.listDeliveries({ params: { id: stream.id }, query: { limit: 10 } })
    const replayed = yield* client.streams.replay({ params: { id: stream.id }, payload: { fromTime: "2026-01-01T00:00:00Z" } })
    const missing = yield* Effect.flip(client.streams.get({ params: { id: "str_000000000000000000000" } }))
    yield* check(missing instanceof ManagementApi.NotFound, `a stream that does not exist answered ${String(missing)}`)
    return { stream: stream.id, added: added.added, deliveries: deliveries.length, replayed: replayed.deliveries, missing: "NotFound" }
  }).pipe(Effect.provide(FetchHttpClient.layer))

/** Stops `child` with SIGTERM; resolves with its exit code. */
const stop = (child: ChildProcess): Promise<number | null> =>
  new Promise((resolve) => {
    if (child.exitCode !== null) return resolve(child.exitCode)
    child.once("exit", (code) => resolve(code))
    child.kill("SIGTERM")
  })

// Both are stopped however the program ends (the test also kills the process group).
const simulator = startSimulator()
let serve: ReturnType<typeof startServe> | undefined
try {
  const urls = await simulator.urls
  const sample = (await (await fetch(`${urls.url}/__sim/sample?chain=0x1`)).json()) as { readonly wallets: ReadonlyArray<string> }
  serve = startServe(urls)
  const summary = await Effect.runPromise(program(await serve.url, sample.wallets[0]!))
  const code = await stop(serve.child)
  if (code !== 0) throw new Error(`serve exited with ${code} on SIGTERM`)
  console.log(JSON.stringify({ ...summary, stopped: code }))
} catch (error) {
  console.error(error instanceof Error ? error.message : error)
  process.exitCode = 1
} finally {
  if (serve !== undefined) serve.child.kill("SIGKILL")
  simulator.child.kill("SIGTERM")
}
