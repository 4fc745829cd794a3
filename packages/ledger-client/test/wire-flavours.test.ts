/**
 * The client decodes both wire flavours of the simulator (`spec`, service.md's JSON types, and
 * `real`, the captured responses' types: booleans for the `*_mutable` flags, an object for
 * `token_properties`) to the same values, over real HTTP, for the seven operations.
 */
import { Simulator } from "@chainquery/simulator"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { LedgerClient } from "../src/index.js"
import { sampleOf } from "./support.js"

/** The seven operations, with inputs that have data, read through the client. */
const readAll = Effect.gen(function*() {
  const ledger = yield* LedgerClient.LedgerClient
  const sample = yield* sampleOf("mainnet")
  return {
    B1: yield* ledger.getNFTOwnersByCollection({ collectionDataIdHash: sample.collections[0]!, limit: 50 }),
    B2: yield* ledger.getNFTTransfersByCreators({ creatorAddresses: [sample.creators[0]!], limit: 50 }),
    B3: yield* ledger.getWalletsNFTTransfers({ walletAddresses: [sample.wallets[0]!], limit: 50 }),
    B4: yield* ledger.getNFTCollections({ limit: 50 }),
    B5: yield* ledger.getNFTByOwners({ ownerAddresses: [sample.wallets[0]!], limit: 50 }),
    B6: yield* ledger.getNFTOwnersByTokens({ tokenIds: sample.tokens.slice(0, 2), limit: 50 }),
    B7: yield* ledger.getCoinsByNameRange({ limit: 50 })
  }
})

const flavour = (wire: Simulator.WireFlavour) =>
  readAll.pipe(
    Effect.provide(
      Layer.unwrap(Effect.map(Simulator.Simulator, (sim) =>
        LedgerClient.layer({ network: "mainnet", baseUrl: sim.ledgerUrl.mainnet, apiKey: sim.apiKey }))).pipe(
          Layer.provideMerge(Simulator.layer({ seed: 21, indexing: false, history: 30, wire }))
        )
    )
  )

describe("LedgerClient, both wire flavours", () => {
  it.live("reads the same values from the spec and the real flavour", () =>
    Effect.gen(function*() {
      const spec = yield* flavour("spec")
      const real = yield* flavour("real")
      for (const page of Object.values(real)) {
        assert.isAbove(page.result.length, 0)
        assert.deepStrictEqual(page.rejected, [])
      }
      assert.deepStrictEqual(real, spec)
    }), 60_000)
})
