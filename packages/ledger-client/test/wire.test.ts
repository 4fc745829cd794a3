/**
 * What each operation puts on the wire: the path, the query in the service's spelling (B4
 * `fromName`, B7 `from_name`, lists as `name[]`), addresses padded to 64 lower-case hex digits,
 * hashes lower-cased without `0x`, absent parameters left out, and the network for the span.
 */
import { Errors } from "@chainquery/schema"
import type { Endpoint, Transport } from "@chainquery/transport"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import {
  GetCoinsByNameRange,
  GetNFTByOwners,
  GetNFTCollections,
  GetNFTOwnersByCollection,
  GetNFTOwnersByTokens,
  GetNFTTransfersByCreators,
  GetWalletsNFTTransfers,
  LedgerClient
} from "../src/index.js"

/** A transport that records the request and answers nothing. */
const recording = () => {
  const sent: Array<Endpoint.Request<unknown>> = []
  const transport: Transport.Transport = {
    send: (request) => {
      sent.push(request as Endpoint.Request<unknown>)
      return Effect.fail(new Errors.ServerError({ status: 599, message: "recorded" }))
    }
  }
  return { sent, transport }
}

/**
 * A server on 127.0.0.1 that writes down each request target exactly as it arrived (path and
 * query, percent-encoded) and answers an empty last page; closed with the scope.
 */
const recordingServer = Effect.acquireRelease(
  Effect.promise(() => {
    const targets: Array<string> = []
    const server = createServer((request, response) => {
      targets.push(request.url ?? "")
      response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ cursor: null, hasNextPage: false, result: [] }))
    })
    return new Promise<{ readonly server: typeof server; readonly targets: ReadonlyArray<string> }>((resolve) =>
      server.listen(0, "127.0.0.1", () => resolve({ server, targets })))
  }),
  ({ server }) => Effect.promise(() => new Promise<void>((resolve) => server.close(() => resolve())))
)

const padded = (hex: string) => `0x${hex.toLowerCase().padStart(64, "0")}`
const hash = "AB".repeat(32)

describe("requests on the wire", () => {
  it.effect("B1: the hash in the path, wallet filters as lists of padded addresses", () =>
    Effect.gen(function*() {
      const { sent, transport } = recording()
      yield* Effect.flip(GetNFTOwnersByCollection.operation.make(transport)({
        network: "testnet",
        params: { collectionDataIdHash: `0x${hash}`, limit: 10, offset: 20, walletBlacklist: ["0x1", "0xAbC"] }
      }))
      const request = sent[0]!
      assert.strictEqual(request.operation, "getNFTOwnersByCollection")
      assert.strictEqual(request.path, `/nfts/collections/${hash.toLowerCase()}/owners`)
      assert.deepStrictEqual(request.query, [
        ["limit", "10"],
        ["offset", "20"],
        ["wallet_blacklist[]", padded("1")],
        ["wallet_blacklist[]", padded("abc")]
      ])
      assert.strictEqual(request.chain, "testnet")
    }))

  it.effect("B2, B3, B5, B6: the required lists and collection filters in snake case", () =>
    Effect.gen(function*() {
      const { sent, transport } = recording()
      yield* Effect.flip(GetNFTTransfersByCreators.operation.make(transport)({
        network: "mainnet",
        params: { creatorAddresses: ["0x2"], limit: 5, cursor: "abc", collectionWhitelist: [hash] }
      }))
      yield* Effect.flip(GetWalletsNFTTransfers.operation.make(transport)({
        network: "mainnet",
        params: { walletAddresses: ["0x3", "0x4"], limit: 5, collectionBlacklist: [hash] }
      }))
      yield* Effect.flip(GetNFTByOwners.operation.make(transport)({ network: "mainnet", params: { ownerAddresses: ["0x5"], limit: 1 } }))
      yield* Effect.flip(GetNFTOwnersByTokens.operation.make(transport)({ network: "mainnet", params: { tokenIds: [hash], limit: 100 } }))
      // Every list is spelled `name[]`, one pair per element, a list of one element included (as
      // the transport's own endpoint test pins it): never `name=a`, `name[0]=a` or `name=a,b`.
      assert.deepStrictEqual(sent.map((r) => [r.operation, r.path, r.query]), [
        ["getNFTTransfersByCreators", "/nfts/transfers/creators", [
          ["limit", "5"],
          ["cursor", "abc"],
          ["creator_addresses[]", padded("2")],
          ["collection_whitelist[]", hash.toLowerCase()]
        ]],
        ["getWalletsNFTTransfers", "/wallets/nfts/transfers", [
          ["limit", "5"],
          ["wallet_addresses[]", padded("3")],
          ["wallet_addresses[]", padded("4")],
          ["collection_blacklist[]", hash.toLowerCase()]
        ]],
        ["getNFTByOwners", "/wallets/nfts", [["limit", "1"], ["owner_addresses[]", padded("5")]]],
        ["getNFTOwnersByTokens", "/nfts/owners", [["limit", "100"], ["token_ids[]", hash.toLowerCase()]]]
      ])
    }))

  it.effect("B4 sends fromName/toName, B7 from_name/to_name", () =>
    Effect.gen(function*() {
      const { sent, transport } = recording()
      yield* Effect.flip(GetNFTCollections.operation.make(transport)({ network: "mainnet", params: { limit: 3, fromName: "A b", toName: "Z" } }))
      yield* Effect.flip(GetCoinsByNameRange.operation.make(transport)({ network: "mainnet", params: { limit: 3, fromName: "B", toName: "D" } }))
      yield* Effect.flip(GetCoinsByNameRange.operation.make(transport)({ network: "mainnet", params: { limit: 3 } }))
      assert.deepStrictEqual(sent.map((r) => [r.path, r.query]), [
        ["/collections", [["limit", "3"], ["fromName", "A b"], ["toName", "Z"]]],
        ["/coins/names", [["limit", "3"], ["from_name", "B"], ["to_name", "D"]]],
        ["/coins/names", [["limit", "3"]]]
      ])
    }))

  it.live("on the wire over HTTP: every list as repeated name[]= (percent-encoded), a list of one too", () =>
    Effect.gen(function*() {
      const { server, targets } = yield* recordingServer
      const client = yield* LedgerClient.makeOnFetch({ baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, apiKey: "ledger-key-0123456789" })
      const list = "%5B%5D="
      yield* client.getNFTByOwners({ ownerAddresses: ["0x5"], limit: 1 })
      yield* client.getNFTByOwners({ ownerAddresses: ["0x5", "0xA"], collectionWhitelist: [hash], limit: 2 })
      yield* client.getWalletsNFTTransfers({ walletAddresses: ["0x3"], collectionBlacklist: [hash, hash.toLowerCase()], limit: 3 })
      yield* client.getNFTOwnersByTokens({ tokenIds: [hash], limit: 4 })
      yield* client.getNFTOwnersByCollection({ collectionDataIdHash: hash, walletBlacklist: ["0x1"], limit: 5 })
      const h = hash.toLowerCase()
      assert.deepStrictEqual(targets, [
        `/wallets/nfts?limit=1&owner_addresses${list}${padded("5")}`,
        `/wallets/nfts?limit=2&owner_addresses${list}${padded("5")}&owner_addresses${list}${padded("a")}&collection_whitelist${list}${h}`,
        `/wallets/nfts/transfers?limit=3&wallet_addresses${list}${padded("3")}&collection_blacklist${list}${h}&collection_blacklist${list}${h}`,
        `/nfts/owners?limit=4&token_ids${list}${h}`,
        `/nfts/collections/${h}/owners?limit=5&wallet_blacklist${list}${padded("1")}`
      ])
    }).pipe(Effect.scoped))
})
