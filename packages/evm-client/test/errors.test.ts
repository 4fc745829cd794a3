/**
 * Failures the caller can cause: bad inputs fail with `InvalidInput` naming the parameter before
 * anything is sent (the simulator counts no request), the service's 400 and 401 come back typed
 * with its message, and the headers and list parameters go out as the service expects.
 */
import { Simulator } from "@chainquery/simulator"
import { assert, describe, layer } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
import { FetchHttpClient, HttpClient, type HttpClientRequest } from "effect/http"
import { EvmClient } from "../src/index.js"
import { busiest, clientOn, clientWays, simulatorWithClient, stats } from "./support/fixtures.js"
import { wireRecorder } from "./support/wire.js"

const checksummed = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed"
const badChecksum = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD"
const hash = `0x${"ab".repeat(32)}`
/** An address in capitals: not a checksum, but a spelling EIP-55 accepts (as it does all lower case). */
const upper = (address: string) => `0x${address.slice(2).toUpperCase()}`

describe("EvmClient errors", () => {
  layer(simulatorWithClient({ seed: 3, indexing: false, history: 20 }), { excludeTestServices: true })((it) => {
    it.effect("every bad input fails with InvalidInput naming the parameter, and sends nothing", () =>
      Effect.gen(function*() {
        const sim = yield* Simulator.Simulator
        const client = yield* EvmClient.EvmClient
        const { wallet, contract } = busiest(sim)
        // Parameters the types would reject are passed through `as never`, as plain JavaScript could.
        const cases: ReadonlyArray<readonly [string, Effect.Effect<unknown, { readonly _tag: string }>]> = [
          // A1
          ["block", client.getNFTTransfersByBlock({ block: "latest" })],
          ["block", client.getNFTTransfersByBlock({ block: -1 })],
          ["chain", client.getNFTTransfersByBlock({ block: 1, chain: "solana" })],
          ["limit", client.getNFTTransfersByBlock({ block: 1, limit: 0 })],
          ["limit", client.getNFTTransfersByBlock({ block: 1, limit: 101 })],
          ["order", client.getNFTTransfersByBlock({ block: 1, order: "up" as never })],
          ["cursor", client.getNFTTransfersByBlock({ block: 1, cursor: "" })],
          // A2
          ["address", client.getWalletNFTTransfers({ address: "0x123" })],
          ["address", client.getWalletNFTTransfers({ address: badChecksum })],
          ["chain", client.getWalletNFTTransfers({ address: wallet, chain: "0x2" })],
          ["contractAddresses[1]", client.getWalletNFTTransfers({ address: wallet, contractAddresses: [contract, "0xzz"] })],
          ["contractAddresses", client.getWalletNFTTransfers({ address: wallet, contractAddresses: [] })],
          ["format", client.getWalletNFTTransfers({ address: wallet, format: "octal" as never })],
          ["fromBlock", client.getWalletNFTTransfers({ address: wallet, fromBlock: -5 })],
          ["toBlock", client.getWalletNFTTransfers({ address: wallet, toBlock: hash })],
          ["fromDate", client.getWalletNFTTransfers({ address: wallet, fromDate: "yesterday" })],
          ["toDate", client.getWalletNFTTransfers({ address: wallet, toDate: "2024-02-30" })],
          ["toDate", client.getWalletNFTTransfers({ address: wallet, toDate: new Date("not a date") })],
          ["fromDate", client.getWalletNFTTransfers({ address: wallet, fromDate: 1700000000 as never })],
          ["fromDate", client.getWalletNFTTransfers({ address: wallet, fromBlock: 1, fromDate: "2024-01-01" } as never)],
          ["toDate", client.getWalletNFTTransfers({ address: wallet, toBlock: 9, toDate: "2024-01-01" } as never)],
          ["limit", client.getWalletNFTTransfers({ address: wallet, limit: 101 })],
          ["limit", client.getWalletNFTTransfers({ address: wallet, limit: 0 })],
          ["limit", client.getWalletNFTTransfers({ address: wallet, limit: 2.5 })],
          // A3
          ["address", client.getNFTTransfers({ address: "nope", tokenId: 1 })],
          ["address", client.getNFTTransfers({ address: badChecksum, tokenId: 1 })],
          ["tokenId", client.getNFTTransfers({ address: contract, tokenId: "abc" })],
          ["tokenId", client.getNFTTransfers({ address: contract, tokenId: -1n })],
          ["tokenId", client.getNFTTransfers({ address: contract, tokenId: 1n << 256n })],
          ["chain", client.getNFTTransfers({ address: contract, tokenId: 1, chain: "mainnet" })],
          ["limit", client.getNFTTransfers({ address: contract, tokenId: 1, limit: 101 })],
          // A4
          ["address", client.getNFTTradesByWallet({ address: "0x" })],
          ["chain", client.getNFTTradesByWallet({ address: wallet, chain: "fantom" })],
          ["chain", client.getNFTTradesByWallet({ address: wallet, chain: "0xfa" })],
          ["chain", client.getNFTTradesByWallet({ address: wallet, chain: 250 })],
          ["fromDate", client.getNFTTradesByWallet({ address: wallet, fromDate: "soon" })],
          ["toDate", client.getNFTTradesByWallet({ address: wallet, toDate: -1 })],
          ["fromBlock", client.getNFTTradesByWallet({ address: wallet, fromBlock: 1.5 })],
          ["limit", client.getNFTTradesByWallet({ address: wallet, limit: 0 })],
          // A5
          ["address", client.getNFTOwners({ address: badChecksum })],
          ["chain", client.getNFTOwners({ address: contract, chain: "" })],
          ["format", client.getNFTOwners({ address: contract, format: "HEX" as never })],
          ["normalizeMetadata", client.getNFTOwners({ address: contract, normalizeMetadata: "yes" as never })],
          ["mediaItems", client.getNFTOwners({ address: contract, mediaItems: 1 as never })],
          ["limit", client.getNFTOwners({ address: contract, limit: 101 })],
          // A6
          ["block", client.getBlock({ block: "0x1234" })],
          ["block", client.getBlock({ block: 1.5 })],
          ["chain", client.getBlock({ block: 1, chain: "ethereum classic" })],
          ["includeInternalTransactions", client.getBlock({ block: 1, includeInternalTransactions: "true" as never })],
          // A7
          ["address", client.getDefiPositionsSummary({ address: badChecksum })],
          ["address", client.getDefiPositionsSummary({ address: `${checksummed}00` })],
          ["chain", client.getDefiPositionsSummary({ address: checksummed, chain: 999 })]
        ]
        for (const [field, call] of cases) {
          const before = (yield* stats(sim)).requests.total
          const error = yield* Effect.flip(call)
          assert.strictEqual(error._tag, "InvalidInput", field)
          if (error._tag !== "InvalidInput") continue
          const invalid = error as unknown as { readonly field: string; readonly expected: string; readonly message: string }
          assert.strictEqual(invalid.field, field)
          assert.include(invalid.message, `Invalid ${field}: expected`)
          assert.strictEqual((yield* stats(sim)).requests.total, before, `no request sent for a bad ${field}`)
        }
      }))

    it.effect("checksummed and upper-case addresses and any chain spelling are sent canonical: lower case, hex id", () =>
      Effect.gen(function*() {
        const sim = yield* Simulator.Simulator
        const { chain, wallet, contract, tokenId, trader } = busiest(sim)
        const held = chain.transfers[chain.transfersByWallet.get(wallet)![0]!]!.contract
        const lower = checksummed.toLowerCase()
        const recorder = yield* wireRecorder(sim.evmUrl)
        for (const way of clientWays) {
          const client = yield* way.make({ baseUrl: recorder.url, apiKey: sim.apiKey })
          const sent = (): string => recorder.targets.at(-1)!
          const direct = yield* EvmClient.EvmClient
          // Each call gets the simulator's answer for the lower-case address, and the exact target.
          assert.deepStrictEqual(
            yield* client.getDefiPositionsSummary({ address: checksummed, chain: "0X01" }),
            yield* direct.getDefiPositionsSummary({ address: lower, chain: "eth" })
          )
          assert.strictEqual(sent(), `/api/v2.2/wallets/${lower}/defi/positions?chain=0x1`, way.name)
          const a2 = yield* client.getWalletNFTTransfers({ address: upper(wallet), chain: "ETH", contractAddresses: [upper(held), checksummed], limit: 3 })
          assert.isTrue(a2.result.length > 0, "the wallet's transfers were found")
          assert.strictEqual(sent(), `/api/v2.2/${wallet}/nft/transfers?chain=0x1&contract_addresses%5B%5D=${held}&contract_addresses%5B%5D=${lower}&limit=3`)
          const a3 = yield* client.getNFTTransfers({ address: upper(contract), tokenId, chain: 1, limit: 2 })
          assert.isTrue(a3.result.length > 0, "the token's transfers were found")
          assert.strictEqual(sent(), `/api/v2.2/nft/${contract}/${tokenId}/transfers?chain=0x1&limit=2`)
          const a4 = yield* client.getNFTTradesByWallet({ address: upper(trader), chain: "0x001", limit: 2 })
          assert.isTrue(a4.result.length > 0, "the trader's trades were found")
          assert.strictEqual(sent(), `/api/v2.2/wallets/${trader}/nfts/trades?chain=0x1&limit=2`)
          const a5 = yield* client.getNFTOwners({ address: upper(contract), chain: " Eth ", limit: 1 })
          assert.isTrue(a5.result.length > 0, "the collection's owners were found")
          assert.strictEqual(sent(), `/api/v2.2/nft/${contract}/owners?chain=0x1&limit=1`)
        }
        assert.strictEqual(recorder.targets.length, 2 * 5)
      }).pipe(Effect.scoped))

    it.effect("a 400 from the service comes back as BadRequest with its message", () =>
      Effect.gen(function*() {
        const sim = yield* Simulator.Simulator
        const client = yield* EvmClient.EvmClient
        const { wallet, contract } = busiest(sim)
        const page = yield* client.getWalletNFTTransfers({ address: wallet, chain: "eth", limit: 1 })
        const cursor = Option.getOrThrow(page.cursor)
        const before = (yield* stats(sim)).requests.total
        const error = yield* Effect.flip(client.getNFTOwners({ address: contract, chain: "eth", cursor }))
        assert.strictEqual(error._tag, "BadRequest")
        assert.include(error.message, "Invalid cursor")
        assert.strictEqual((yield* stats(sim)).requests.total, before + 1, "a 400 is not retried")
        const forged = yield* Effect.flip(client.getWalletNFTTransfers({ address: wallet, cursor: "not-ours" }))
        assert.strictEqual(forged._tag, "BadRequest")
        assert.include(forged.message, "Invalid cursor")
      }))

    it.effect("a wrong key is Unauthorized (401), not retried", () =>
      Effect.gen(function*() {
        const sim = yield* Simulator.Simulator
        const wrong = yield* clientOn(sim, { apiKey: "not-the-key" })
        const before = (yield* stats(sim)).requests.total
        const error = yield* Effect.flip(wrong.getBlock({ block: 1, chain: "eth" }))
        assert.strictEqual(error._tag, "Unauthorized")
        if (error._tag === "Unauthorized") assert.strictEqual(error.status, 401)
        // The simulator answers a wrong X-API-Key with "API KEY missing from x-api-key header" (its
        // bearer scheme, tried last, sees no credential): any service message is surfaced as is.
        assert.isTrue(error.message.length > 0)
        assert.strictEqual((yield* stats(sim)).requests.total, before + 1)
      }))

    it.effect("sends X-API-Key, Accept and User-Agent, and lists as name[]=", () =>
      Effect.gen(function*() {
        const sim = yield* Simulator.Simulator
        const { chain, wallet } = busiest(sim)
        const contracts = [...new Set((chain.transfersByWallet.get(wallet) ?? []).map((i) => chain.transfers[i]!.contract))].slice(0, 2)
        const sent: Array<HttpClientRequest.HttpClientRequest> = []
        const recording = Layer.effect(
          HttpClient.HttpClient,
          Effect.map(HttpClient.HttpClient, (client) => HttpClient.tapRequest(client, (request) => Effect.sync(() => sent.push(request))))
        ).pipe(Layer.provide(FetchHttpClient.layer))
        const client = yield* EvmClient.make({ baseUrl: `${sim.evmUrl}/api/v2.2/`, apiKey: sim.apiKey, userAgent: "tests" }).pipe(
          Effect.provide(recording)
        )
        const page = yield* client.getWalletNFTTransfers({ address: wallet, chain: "eth", contractAddresses: contracts })
        assert.isTrue(page.result.length > 0, "the simulator accepted the key")
        assert.strictEqual(sent.length, 1)
        const request = sent[0]!
        assert.strictEqual(request.headers["x-api-key"], sim.apiKey)
        assert.strictEqual(request.headers["accept"], "application/json")
        assert.match(request.headers["user-agent"] ?? "", /^chainquery\/\d+\.\d+\.\d+ tests$/)
        const url = new URL(request.url)
        assert.strictEqual(url.pathname, `/api/v2.2/${wallet}/nft/transfers`)
        assert.deepStrictEqual(url.searchParams.getAll("contract_addresses[]"), contracts)
        assert.strictEqual(url.searchParams.get("chain"), "0x1")

        const single = yield* client.getWalletNFTTransfers({ address: wallet, chain: "eth", contractAddresses: [contracts[0]!] })
        assert.isTrue(single.result.length > 0 && single.result.every((t) => t.token_address === contracts[0]))
        assert.deepStrictEqual(new URL(sent[1]!.url).searchParams.getAll("contract_addresses[]"), [contracts[0]!], "one element too")
      }))
  })
})
