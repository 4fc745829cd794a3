/**
 * The examples of the root README and this package's README, run as written (with assertions on
 * what the docs claim they give).
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Option, Result, Schema } from "effect"
import { Chain, Decode, EvmAddress, EvmPage, Input } from "../src/index.js"

describe("README examples", () => {
  it.effect("inputs are validated into canonical values", () =>
    Effect.gen(function*() {
      const chain = yield* Input.validate(Chain.Chain, "chain", "Polygon")
      const wallet = yield* Input.validate(EvmAddress.EvmAddress, "address", "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed")
      assert.strictEqual(chain, "0x89")
      assert.strictEqual(wallet, "0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed")
    }))

  it.effect("a chain without trades is a typed InvalidInput", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(Input.validate(Chain.TradeChain, "chain", "fantom"))
      assert.strictEqual(error._tag, "InvalidInput")
      assert.match(error.message, /^Invalid chain: expected a chain that offers NFT trades: eth \(0x1\)/)
    }))

  it("an empty last page decodes and encodes back", () => {
    const body = { page: 0, page_size: 100, cursor: "", result: [] }
    const page = Result.getOrThrow(Decode.decoder(EvmPage.TransfersPage)(body))
    assert.isTrue(Option.isNone(page.cursor))
    assert.deepStrictEqual(page.rejected, [])
    const wire = Schema.encodeSync(EvmPage.TransfersPage)(page)
    assert.deepStrictEqual({ ...wire }, { total: null, ...body, block_exists: null, index_complete: null })
  })

  it("an odd record is reported in rejected, not dropped silently", () => {
    const decodePage = Decode.decoder(EvmPage.TransfersPage)
    const page = Result.getOrThrow(decodePage({ page: 0, page_size: 100, cursor: "", result: [{ oops: 1 }] }))
    assert.strictEqual(page.result.length, 0)
    assert.strictEqual(page.rejected[0]?.path, "token_address")
    assert.deepStrictEqual(page.rejected[0]?.raw, { oops: 1 })
  })
})
