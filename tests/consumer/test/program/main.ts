/**
 * A user's program, as an Effect developer would write it after `npm install` of our tarballs:
 * it imports the public API of every package, starts the packed simulator through its `bin`,
 * calls one operation of each family through the packed clients, walks one stream, decodes one
 * record with the packed schema, turns it into a watcher event and watches the wallet as a
 * stream (`@chainquery/watch`, its history from that record's block). It checks what it gets and
 * prints a JSON summary as its last line; any failure exits 1 with the reason.
 *
 * The consumer test copies this file into a scratch project outside the workspace, type-checks it
 * (moduleResolution nodenext and bundler) and runs it.
 */
import { EvmClient } from "@chainquery/evm-client"
import { LedgerClient } from "@chainquery/ledger-client"
import { Paginate } from "@chainquery/pagination"
import { Chain, Decode, EvmAddress, EvmPage, Input } from "@chainquery/schema"
import type { Simulator } from "@chainquery/simulator"
import { RetryPolicy, Version } from "@chainquery/transport"
import { NftEvents, StateStore, WalletSpec, Watch } from "@chainquery/watch"
import { Output } from "@chainquery/watcher"
import { Effect, Result, Stream } from "effect"
import { apiKey, startSimulator, type Urls } from "./startSimulator.js"

const check = (condition: boolean, what: string): Effect.Effect<void, Error> =>
  condition ? Effect.void : Effect.fail(new Error(`consumer check failed: ${what}`))

const getJson = (url: string, headers: Record<string, string> = {}) =>
  Effect.tryPromise({
    try: async () => {
      const response = await fetch(url, { headers })
      if (!response.ok) throw new Error(`GET ${url}: ${response.status} ${await response.text()}`)
      return (await response.json()) as unknown
    },
    catch: (error) => error instanceof Error ? error : new Error(String(error))
  })

const program = (urls: Urls) =>
  Effect.gen(function*() {
    const sample = (yield* getJson(`${urls.url}/__sim/sample?chain=0x1`)) as { readonly wallets: ReadonlyArray<string> }
    const aptos = (yield* getJson(`${urls.url}/__sim/sample?chain=aptos-mainnet`)) as { readonly wallets: ReadonlyArray<string> }
    const wallet = yield* Input.validate(EvmAddress.EvmAddress, "wallet", sample.wallets[0])

    // Family A through the packed EvmClient: one call, one stream walk.
    const evm = yield* EvmClient.EvmClient
    const page = yield* evm.getWalletNFTTransfers({ address: wallet, chain: "eth", limit: 5 })
    yield* check(page.result.length > 0, "A2 answered no transfer for a sample wallet")
    const streamed = yield* Stream.runCollect(evm.streamWalletNFTTransfers({ address: wallet, chain: "eth", limit: 10 }, { maxItems: 25 }))
    yield* check(streamed.length > page.result.length, `the A2 stream gave ${streamed.length} transfers`)
    yield* check(streamed[0]?.transaction_hash === page.result[0]?.transaction_hash, "the stream's first transfer is the page's first")

    // Family B through the packed LedgerClient.
    const ledger = yield* LedgerClient.LedgerClient
    const aptosPage = yield* ledger.getWalletsNFTTransfers({ walletAddresses: [aptos.wallets[0]!], limit: 5 })
    yield* check(aptosPage.result.length > 0, "B3 answered no transfer for a sample Aptos wallet")

    // The same A2 page read with bare fetch and decoded with the packed schema.
    const body = yield* getJson(`${urls.evm}/api/v2.2/${wallet}/nft/transfers?chain=eth&limit=1`, { "X-API-Key": apiKey })
    const decoded = Decode.decoder(EvmPage.TransfersPage)(body)
    yield* check(Result.isSuccess(decoded), "the packed schema did not decode an A2 page")
    const record = Result.getOrThrow(decoded).result[0]
    yield* check(record?.transaction_hash === page.result[0]?.transaction_hash, "the decoded record is the client's first")

    // The watcher's public API: a wallet spec, and the record as NDJSON events.
    const watched = yield* WalletSpec.parse(`eth:${wallet}`)
    const events = NftEvents.fromNftTransfer(Chain.chains[0][1], wallet, record!)
    yield* check(watched.length === 1 && events.length > 0, "the watcher's API made no event")
    const line = Output.json(events[0]!)
    const back = yield* Output.fromJson(line)
    yield* check(back.id === events[0]!.id, "an event did not survive NDJSON")

    // The watcher's engine as a stream: the wallet's history from the record's block, acknowledged as pulled.
    const watchedEvents = yield* Stream.runCollect(
      Watch.events({ wallets: watched, backfill: { _tag: "Block", block: record!.block_number }, watch: ["transfers"], once: true })
    ).pipe(Effect.provide(StateStore.layerMemory))
    yield* check(watchedEvents.some((event) => event.id === events[0]!.id), "Watch.events did not produce the record's event")

    return {
      transport: Version.version,
      retries: RetryPolicy.defaults.times,
      paginate: typeof Paginate.items,
      a2: page.result.length,
      streamed: streamed.length,
      b3: aptosPage.result.length,
      decodedHash: record!.transaction_hash,
      event: events[0]!.kind,
      watched: watchedEvents.length
    }
  }).pipe(
    Effect.provide(EvmClient.layer({ apiKey, baseUrl: urls.evm })),
    Effect.provide(LedgerClient.layer({ apiKey, network: "mainnet", baseUrl: urls.ledgerMainnet }))
  )

/** What the simulator's package exports, used in a type position: its service. */
export type SimulatorService = Simulator.Simulator

// The simulator is stopped however the program ends (the test also kills the process group).
const simulator = startSimulator()
try {
  const summary = await Effect.runPromise(program(await simulator.urls))
  console.log(JSON.stringify(summary))
} catch (error) {
  console.error(error instanceof Error ? error.message : error)
  process.exitCode = 1
} finally {
  simulator.child.kill("SIGTERM")
}
