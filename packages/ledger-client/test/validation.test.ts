/**
 * Every parameter of every operation is validated before anything is sent: a bad value fails
 * with `InvalidInput` naming the (camelCase) field, and the simulator sees no request at all.
 */
import { assert, describe, layer } from "@effect/vitest"
import type { Errors } from "@chainquery/schema"
import { Effect } from "effect"
import { LedgerClient } from "../src/index.js"
import { stats, TestLayer } from "./support.js"

const hash = "ab".repeat(32)
const address = `0x${"cd".repeat(32)}`

type Client = LedgerClient.LedgerClient["Service"]
type Call = (client: Client, params: Record<string, unknown>) => Effect.Effect<unknown, Errors.ChainqueryError>

/** Per operation: how to call it, parameters that are valid, and bad values of its own parameters. */
const operations: ReadonlyArray<{
  readonly name: string
  readonly call: Call
  readonly valid: Record<string, unknown>
  readonly bad: ReadonlyArray<readonly [Record<string, unknown>, string]>
}> = [
  {
    name: "getNFTOwnersByCollection",
    call: (client, params) => client.getNFTOwnersByCollection(params as never),
    valid: { collectionDataIdHash: hash, limit: 10 },
    bad: [
      [{ collectionDataIdHash: "not-a-hash" }, "collectionDataIdHash"],
      [{ collectionDataIdHash: hash.slice(1) }, "collectionDataIdHash"],
      [{ collectionDataIdHash: undefined }, "collectionDataIdHash"],
      [{ walletBlacklist: [address, "0xnothex"] }, "walletBlacklist[1]"],
      [{ walletWhitelist: [`0x${"1".repeat(65)}`] }, "walletWhitelist[0]"],
      [{ walletWhitelist: address }, "walletWhitelist"]
    ]
  },
  {
    name: "getNFTTransfersByCreators",
    call: (client, params) => client.getNFTTransfersByCreators(params as never),
    valid: { creatorAddresses: [address], limit: 10 },
    bad: [
      [{ creatorAddresses: [] }, "creatorAddresses"],
      [{ creatorAddresses: undefined }, "creatorAddresses"],
      [{ creatorAddresses: ["cd".repeat(32)] }, "creatorAddresses[0]"],
      [{ collectionBlacklist: ["0x1"] }, "collectionBlacklist[0]"],
      [{ collectionWhitelist: [hash, "xyz"] }, "collectionWhitelist[1]"]
    ]
  },
  {
    name: "getWalletsNFTTransfers",
    call: (client, params) => client.getWalletsNFTTransfers(params as never),
    valid: { walletAddresses: [address], limit: 10 },
    bad: [
      [{ walletAddresses: [] }, "walletAddresses"],
      [{ walletAddresses: ["0x"] }, "walletAddresses[0]"],
      [{ walletAddresses: [address, "0xg"] }, "walletAddresses[1]"],
      [{ collectionWhitelist: ["0xnothex"] }, "collectionWhitelist[0]"]
    ]
  },
  {
    name: "getNFTCollections",
    call: (client, params) => client.getNFTCollections(params as never),
    valid: { limit: 10 },
    bad: [
      [{ fromName: "x".repeat(129) }, "fromName"],
      [{ toName: "y".repeat(129) }, "toName"],
      [{ fromName: 42 }, "fromName"]
    ]
  },
  {
    name: "getNFTByOwners",
    call: (client, params) => client.getNFTByOwners(params as never),
    valid: { ownerAddresses: [address], limit: 10 },
    bad: [
      [{ ownerAddresses: [] }, "ownerAddresses"],
      [{ ownerAddresses: ["not an address"] }, "ownerAddresses[0]"],
      [{ collectionBlacklist: ["ab"] }, "collectionBlacklist[0]"],
      [{ collectionWhitelist: [address.slice(0, 40)] }, "collectionWhitelist[0]"]
    ]
  },
  {
    name: "getNFTOwnersByTokens",
    call: (client, params) => client.getNFTOwnersByTokens(params as never),
    valid: { tokenIds: [hash], limit: 10 },
    bad: [
      [{ tokenIds: [] }, "tokenIds"],
      [{ tokenIds: [hash, "abc"] }, "tokenIds[1]"],
      [{ tokenIds: [`0x${"z".repeat(64)}`] }, "tokenIds[0]"]
    ]
  },
  {
    name: "getCoinsByNameRange",
    call: (client, params) => client.getCoinsByNameRange(params as never),
    valid: { limit: 10 },
    bad: [
      [{ fromName: "B".repeat(33) }, "fromName"],
      [{ toName: "D".repeat(33) }, "toName"]
    ]
  }
]

/** Bad paging values, for every operation. */
const badPaging: ReadonlyArray<readonly [Record<string, unknown>, string]> = [
  [{ limit: undefined }, "limit"],
  [{ limit: 0 }, "limit"],
  [{ limit: 101 }, "limit"],
  [{ limit: 2.5 }, "limit"],
  [{ limit: "10" }, "limit"],
  [{ offset: -1 }, "offset"],
  [{ offset: 1.5 }, "offset"],
  [{ cursor: "" }, "cursor"]
]

describe("LedgerClient input validation", () => {
  layer(TestLayer, { excludeTestServices: true })((it) => {
    for (const operation of operations) {
      it.effect(`${operation.name}: every bad parameter fails with InvalidInput naming it, and nothing is sent`, () =>
        Effect.gen(function*() {
          const client = yield* LedgerClient.LedgerClient
          const before = (yield* stats).requests.total
          for (const [override, field] of [...operation.bad, ...badPaging]) {
            const params = { ...operation.valid, ...override }
            const error = yield* Effect.flip(operation.call(client, params))
            assert.strictEqual(error._tag, "InvalidInput", `${JSON.stringify(override)}: ${error.message}`)
            if (error._tag !== "InvalidInput") continue
            assert.strictEqual(error.field, field, JSON.stringify(override))
            assert.include(error.message, `Invalid ${field}: expected `)
          }
          assert.strictEqual((yield* stats).requests.total, before, "no request reached the simulator")
          // The valid parameters themselves are sent (and answered).
          yield* operation.call(client, operation.valid)
          assert.strictEqual((yield* stats).requests.total, before + 1)
        }))
    }

    it.effect("short addresses are padded to 64 hex digits and accepted", () =>
      Effect.gen(function*() {
        const client = yield* LedgerClient.LedgerClient
        const page = yield* client.getNFTByOwners({ ownerAddresses: ["0x1", "0xABC"], limit: 5 })
        assert.deepStrictEqual(page.result, [])
      }))
  })
})
