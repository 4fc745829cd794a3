/**
 * The HttpApi definitions over real HTTP on 127.0.0.1: a server built from `EvmApi`/`LedgerApi`
 * with handlers that record what they were asked and answer with a real (fixture) body, called
 * by the client derived from the same definitions. Checks that every path and query parameter
 * arrives decoded in its canonical form and every success body survives encode -> JSON -> decode.
 */
import { NodeHttpServer } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { DateTime, Effect, Layer, Option, Redacted, Schema } from "effect"
import { HttpClient, HttpClientRequest, HttpRouter } from "effect/http"
import { HttpApiBuilder, HttpApiClient, HttpApiMiddleware } from "effect/http-api"
import {
  ApiKey,
  Block,
  DefiPositions,
  ErrorBody,
  EvmApi,
  EvmPage,
  LedgerApi,
  LedgerPage
} from "../src/index.js"
import { loadFixtures } from "./support/fixtures.js"

const fixtures = loadFixtures()
const body = (key: string): unknown => fixtures.find((f) => `${f.operation}/${f.file}` === key)!.body
const decoded = <S extends Schema.Decoder<unknown>>(schema: S, key: string): S["Type"] =>
  Schema.decodeUnknownSync(schema)(body(key))

const key = "test-key"
const seen: Array<{ readonly operation: string; readonly request: unknown }> = []
const record = (operation: string) => <R, A>(request: R, answer: A) =>
  Effect.sync(() => {
    seen.push({ operation, request })
    return answer
  })

const checkKey = (credential: Redacted.Redacted<string>) =>
  Redacted.value(credential) === key
    ? Effect.void
    : Effect.fail(new ErrorBody.UnauthorizedBody({ message: "Invalid key" }))

const authServer = Layer.succeed(ApiKey.ApiKeyAuth, {
  apiKey: (effect, { credential }) => Effect.andThen(checkKey(credential), effect),
  bearer: (effect, { credential }) => Effect.andThen(checkKey(credential), effect)
})

const evmHandlers = HttpApiBuilder.group(EvmApi.EvmApi, "evm", (handlers) =>
  Effect.succeed(
    handlers
      .handle("getNFTTransfersByBlock", (req) =>
        record("A1")(req, decoded(EvmPage.TransfersByBlockPage, "A1/docs-howto-block-15846571.json")))
      .handle("getWalletNFTTransfers", (req) =>
        record("A2")(req, decoded(EvmPage.TransfersPage, "A2/docs-howto-wallet-0xd8da-2023-11.json")))
      .handle("getNFTTransfers", (req) =>
        record("A3")(req, decoded(EvmPage.TransfersPage, "A3/docs-howto-token-transfers.json")))
      .handle("getNFTTradesByWallet", (req) =>
        record("A4")(req, decoded(EvmPage.TradesPage, "A4/related-nft-contract-trades-docs-howto.json")))
      .handle("getNFTOwners", (req) =>
        record("A5")(req, decoded(EvmPage.OwnersPage, "A5/sdk-mock-200-syncing.json")))
      .handle("getBlock", (req) => record("A6")(req, decoded(Block.Block, "A6/docs-howto-block.json")))
      .handle("getDefiPositionsSummary", (req) =>
        record("A7")(req, decoded(DefiPositions.DefiPositionsSummary, "A7/swagger-example-onchain-skills.json")))
  ))

const ledgerHandlers = HttpApiBuilder.group(LedgerApi.LedgerApi, "ledger", (handlers) =>
  Effect.succeed(
    handlers
      .handle("getNFTOwnersByCollection", (req) => record("B1")(req, decoded(LedgerPage.HoldingsPage, "B1/sdk-mock-200.json")))
      .handle("getNFTTransfersByCreators", (req) =>
        record("B2")(req, decoded(LedgerPage.TransfersPage, "B2/related-wallets-nft-transfers-docs-howto.json")))
      .handle("getWalletsNFTTransfers", (req) =>
        record("B3")(req, decoded(LedgerPage.TransfersPage, "B3/docs-howto-wallets-nft-transfers.json")))
      .handle("getNFTCollections", (req) => record("B4")(req, decoded(LedgerPage.CollectionsPage, "B4/sdk-mock-200.json")))
      .handle("getNFTByOwners", (req) =>
        record("B5")(req, decoded(LedgerPage.HoldingsPage, "B5/related-nft-owners-by-collection-sdk-mock.json")))
      .handle("getNFTOwnersByTokens", (req) =>
        record("B6")(req, decoded(LedgerPage.HoldingsPage, "B6/related-nft-owners-by-collection-sdk-mock.json")))
      .handle("getCoinsByNameRange", (req) =>
        record("B7")(req, decoded(LedgerPage.CoinsPage, "B7/related-latest-coins-docs-howto.json")))
  ))

const ServerLive = HttpRouter.serve(
  Layer.mergeAll(
    HttpApiBuilder.layer(EvmApi.EvmApi).pipe(Layer.provide(evmHandlers)),
    HttpApiBuilder.layer(LedgerApi.LedgerApi).pipe(Layer.provide(ledgerHandlers))
  ).pipe(Layer.provide(authServer)),
  { disableListenLog: true, disableLogger: true }
).pipe(Layer.provideMerge(NodeHttpServer.layerTest))

const sendKey = HttpApiMiddleware.layerClient(ApiKey.ApiKeyAuth, ({ next, request }) =>
  next(HttpClientRequest.setHeader(request, ApiKey.headerName, key)))

const lastRequest = (operation: string): any => seen.filter((s) => s.operation === operation).at(-1)?.request

const checksummed = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed"
const lower = checksummed.toLowerCase()
const aptosFull = `0x${"1".padStart(64, "0")}`
const hash = "ab".repeat(32)

describe("HttpApi definitions over HTTP", () => {
  it.layer(Layer.mergeAll(ServerLive, sendKey))((test) => {
    test.effect("family A: parameters arrive canonical, bodies decode", () =>
      Effect.gen(function*() {
        const client = yield* HttpApiClient.make(EvmApi.EvmApi)
        const a1 = yield* client.getNFTTransfersByBlock({
          params: { block_number_or_hash: 15846571n },
          query: { chain: "0x1", limit: 100, order: "DESC" }
        })
        assert.strictEqual(a1.result.length, 3)
        assert.deepStrictEqual(lastRequest("A1").params, { block_number_or_hash: 15846571n })
        assert.deepStrictEqual(lastRequest("A1").query, { chain: "0x1", limit: 100, order: "DESC" })

        const from = DateTime.makeUnsafe("2023-01-01T00:00:00Z")
        yield* client.getWalletNFTTransfers({
          params: { address: lower as never },
          query: {
            chain: "0x89",
            contract_addresses: [lower as never, lower as never],
            format: "decimal",
            from_block: 1n,
            to_block: 2n,
            from_date: from,
            to_date: from,
            cursor: "abc"
          }
        })
        const a2 = lastRequest("A2")
        assert.deepStrictEqual(a2.query.contract_addresses, [lower, lower])
        assert.strictEqual(a2.query.from_block, 1n)
        assert.isTrue(DateTime.Equivalence(a2.query.from_date, from))

        yield* client.getWalletNFTTransfers({ params: { address: lower as never }, query: { contract_addresses: [lower as never] } })
        assert.deepStrictEqual(lastRequest("A2").query.contract_addresses, [lower])

        const a3 = yield* client.getNFTTransfers({ params: { address: lower as never, token_id: 2n ** 200n }, query: {} })
        assert.strictEqual(lastRequest("A3").params.token_id, 2n ** 200n)
        assert.isTrue(a3.result.length > 0)

        const a4 = yield* client.getNFTTradesByWallet({ params: { address: lower as never }, query: { chain: "0x2105" } })
        assert.strictEqual(a4.result.length, 1)

        const a5 = yield* client.getNFTOwners({
          params: { address: lower as never },
          query: { normalizeMetadata: true, media_items: false }
        })
        assert.deepStrictEqual(a5.status, Option.some("SYNCING"))
        assert.strictEqual(lastRequest("A5").query.normalizeMetadata, true)
        assert.strictEqual(lastRequest("A5").query.media_items, false)

        const a6 = yield* client.getBlock({
          params: { block_number_or_hash: `0x${hash}` as never },
          query: { include: "internal_transactions" }
        })
        assert.strictEqual(typeof a6.number, "bigint")
        assert.strictEqual(lastRequest("A6").params.block_number_or_hash, `0x${hash}`)

        const a7 = yield* client.getDefiPositionsSummary({ params: { address: lower as never }, query: { chain: "0x89" } })
        assert.strictEqual(a7.length, 1)
        // What the derived client put on the wire: the canonical values, spelled as they are.
        assert.strictEqual(lastRequest("A7").request.url, `/api/v2.2/wallets/${lower}/defi/positions?chain=0x89`)
      }))

    test.effect("family A: an EIP-55, upper-case or lower-case address and any chain spelling arrive canonical", () =>
      Effect.gen(function*() {
        const http = yield* HttpClient.HttpClient
        const get = (path: string) =>
          http.get(`/api/v2.2${path}`, { headers: { [ApiKey.headerName]: key } }).pipe(Effect.map((response) => response.status))
        const upper = `0x${lower.slice(2).toUpperCase()}`
        for (const [spelling, chain, id] of [[checksummed, "Polygon", "0x89"], [upper, "0X01", "0x1"], [lower, "Base", "0x2105"]] as const) {
          assert.strictEqual(yield* get(`/wallets/${spelling}/defi/positions?chain=${chain}`), 200, spelling)
          assert.deepStrictEqual(lastRequest("A7").params, { address: lower })
          assert.deepStrictEqual(lastRequest("A7").query, { chain: id })
          assert.strictEqual(yield* get(`/${spelling}/nft/transfers?contract_addresses=${upper}&contract_addresses=${checksummed}`), 200)
          assert.deepStrictEqual(lastRequest("A2").params, { address: lower })
          assert.deepStrictEqual(lastRequest("A2").query.contract_addresses, [lower, lower])
        }
        // A mistyped checksum is refused, not lower-cased into a different wallet.
        const before = seen.length
        assert.strictEqual(yield* get(`/wallets/${checksummed.slice(0, -1)}D/defi/positions`), 400)
        assert.strictEqual(seen.length, before, "the handler never saw it")
      }))

    test.effect("family B: parameters arrive canonical, bodies decode", () =>
      Effect.gen(function*() {
        const client = yield* HttpApiClient.make(LedgerApi.LedgerApi)
        const b1 = yield* client.getNFTOwnersByCollection({
          params: { collection_data_id_hash: hash as never },
          query: { limit: 10, offset: 20, wallet_blacklist: [aptosFull as never] }
        })
        assert.strictEqual(b1.result.length, 1)
        assert.deepStrictEqual(lastRequest("B1").query, { limit: 10, offset: 20, wallet_blacklist: [aptosFull] })

        yield* client.getNFTTransfersByCreators({ query: { limit: 5, creator_addresses: [aptosFull as never] } })
        assert.deepStrictEqual(lastRequest("B2").query.creator_addresses, [aptosFull])
        yield* client.getWalletsNFTTransfers({ query: { limit: 5, wallet_addresses: [aptosFull as never, aptosFull as never] } })
        assert.strictEqual(lastRequest("B3").query.wallet_addresses.length, 2)
        yield* client.getNFTCollections({ query: { limit: 5, fromName: "A", toName: "M" } })
        assert.deepStrictEqual(lastRequest("B4").query, { limit: 5, fromName: "A", toName: "M" })
        yield* client.getNFTByOwners({ query: { limit: 5, owner_addresses: [aptosFull as never], collection_whitelist: [hash as never] } })
        assert.deepStrictEqual(lastRequest("B5").query.collection_whitelist, [hash])
        yield* client.getNFTOwnersByTokens({ query: { limit: 5, token_ids: [hash as never] } })
        assert.deepStrictEqual(lastRequest("B6").query.token_ids, [hash])
        const b7 = yield* client.getCoinsByNameRange({ query: { limit: 5, from_name: "A", to_name: "C" } })
        assert.strictEqual(b7.result.length, 3)
        assert.isTrue(Option.isNone(b7.cursor) || typeof Option.getOrThrow(b7.cursor) === "string")
      }))

    test.effect("the server accepts short Aptos addresses and every array form", () =>
      Effect.gen(function*() {
        const http = yield* HttpClient.HttpClient
        const get = (query: string) =>
          http.get(`/wallets/nfts?limit=1&${query}`, { headers: { [ApiKey.headerName]: key } }).pipe(
            Effect.map((response) => response.status)
          )
        assert.strictEqual(yield* get("owner_addresses=0x1"), 200)
        assert.deepStrictEqual(lastRequest("B5").query.owner_addresses, [aptosFull])
        assert.strictEqual(yield* get("owner_addresses=0x1&owner_addresses=0x2"), 200)
        assert.strictEqual(lastRequest("B5").query.owner_addresses.length, 2)
        assert.strictEqual(yield* get("owner_addresses=0xzz"), 400)
      }))

    test.effect("the API key is taken from X-API-Key or Authorization: Bearer; without it, 401", () =>
      Effect.gen(function*() {
        const http = yield* HttpClient.HttpClient
        const status = (headers: Record<string, string>) =>
          http.get("/coins/names?limit=1", { headers }).pipe(Effect.map((response) => response.status))
        assert.strictEqual(yield* status({ [ApiKey.headerName]: key }), 200)
        assert.strictEqual(yield* status({ authorization: `Bearer ${key}` }), 200)
        assert.strictEqual(yield* status({ [ApiKey.headerName]: "wrong" }), 401)
        assert.strictEqual(yield* status({}), 401)
      }))
  })
})
