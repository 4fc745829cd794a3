/**
 * What each operation puts on the wire: the path, the query in the service's spelling (B4
 * `fromName`, B7 `from_name`, lists as `name[]`), addresses padded to 64 lower-case hex digits,
 * hashes lower-cased without `0x`, absent parameters left out, and the network for the span.
 */
import { Errors } from "@chainquery/schema"
import type { Endpoint, Transport } from "@chainquery/transport"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import {
  GetCoinsByNameRange,
  GetNFTByOwners,
  GetNFTCollections,
  GetNFTOwnersByCollection,
  GetNFTOwnersByTokens,
  GetNFTTransfersByCreators,
  GetWalletsNFTTransfers
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
 * The query with list keys written `name[]` throughout. The transport spells a list of two or
 * more as `name[]=a&name[]=b` but a list of one as `name=a` (the endpoints' `ArrayEnsure` encodes
 * a single element as a bare value); the service reads both alike.
 */
const normalised = (query: ReadonlyArray<readonly [string, string]>, lists: ReadonlyArray<string>) =>
  query.map(([key, value]) => [lists.includes(key) ? `${key}[]` : key, value] as const)

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
      const lists = ["creator_addresses", "wallet_addresses", "owner_addresses", "token_ids", "collection_whitelist", "collection_blacklist"]
      assert.deepStrictEqual(sent.map((r) => [r.operation, r.path, normalised(r.query, lists)]), [
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
})
