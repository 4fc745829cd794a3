/**
 * The client decodes both wire flavours of the simulator (`spec`, service.md's JSON types, and
 * `real`, the captured responses' types: numbers for `log_index`, booleans for `possible_spam`, a
 * string for A6's `number`, ...) to the same values, over real HTTP, for the seven operations.
 */
import { Simulator } from "@chainquery/simulator"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import { EvmClient } from "../src/index.js"
import { busiest, simulatorWithClient } from "./support/fixtures.js"

/** The seven operations, with inputs that have data, read through the client. */
const readAll = Effect.gen(function*() {
  const sim = yield* Simulator.Simulator
  const client = yield* EvmClient.EvmClient
  const { wallet, contract, tokenId, trader, block } = busiest(sim)
  return {
    A1: yield* client.getNFTTransfersByBlock({ block, chain: "eth", limit: 100 }),
    A2: yield* client.getWalletNFTTransfers({ address: wallet, chain: "eth", limit: 100 }),
    A3: yield* client.getNFTTransfers({ address: contract, tokenId, chain: "eth" }),
    A4: yield* client.getNFTTradesByWallet({ address: trader, chain: "eth", limit: 100 }),
    A5: yield* client.getNFTOwners({ address: contract, chain: "eth", normalizeMetadata: true, limit: 100 }),
    A6: yield* client.getBlock({ block, chain: "eth", includeInternalTransactions: true }),
    A7: yield* client.getDefiPositionsSummary({ address: wallet, chain: "eth" })
  }
})

const flavour = (wire: Simulator.WireFlavour) => readAll.pipe(Effect.provide(simulatorWithClient({ seed: 11, indexing: false, history: 40, wire })))

describe("EvmClient, both wire flavours", () => {
  it.live("reads the same values from the spec and the real flavour", () =>
    Effect.gen(function*() {
      const spec = yield* flavour("spec")
      const real = yield* flavour("real")
      for (const page of [real.A1, real.A2, real.A3, real.A4, real.A5]) {
        assert.isAbove(page.result.length, 0)
        assert.deepStrictEqual(page.rejected, [])
      }
      assert.isTrue(Option.isSome(real.A6))
      assert.deepStrictEqual(real, spec)
    }), 60_000)
})
