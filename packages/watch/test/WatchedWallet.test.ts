/**
 * `WatchedWallet.fromScope`: a canonical scope and address (as the stores keep them) give the
 * very wallet the decoder gives; anything else goes through the decoder, which puts it in
 * canonical form or throws its `SchemaError`.
 */
import { assert, describe, it } from "@effect/vitest"
import { Schema } from "effect"
import { WatchedWallet } from "../src/index.js"
import { alice, aptosAlice } from "./fixtures.js"

const decode = Schema.decodeUnknownSync(WatchedWallet.WatchedWallet)

describe("WatchedWallet.fromScope", () => {
  it("a canonical EVM or Aptos wallet is the decoder's wallet", () => {
    assert.deepStrictEqual(WatchedWallet.fromScope("0x2105", alice), decode({ family: "evm", chain: "0x2105", address: alice }))
    assert.deepStrictEqual(WatchedWallet.fromScope("aptos:testnet", aptosAlice), decode({ family: "aptos", network: "testnet", address: aptosAlice }))
    assert.strictEqual(WatchedWallet.scopeOf(WatchedWallet.fromScope("0x1", alice)), "0x1")
  })

  it("a checksummed address or a chain name is put in canonical form by the decoder", () => {
    assert.deepStrictEqual(WatchedWallet.fromScope("base", alice.toUpperCase().replace("0X", "0x")), { family: "evm", chain: "0x2105", address: alice })
  })

  it("an address, chain or network that is not valid throws the decoder's SchemaError", () => {
    for (const [scope, address] of [["0x1", "0x1234"], ["0x7a69", alice], ["aptos:devnet", aptosAlice], ["0x1", `${alice}00`]] as const) {
      let thrown: unknown
      try {
        WatchedWallet.fromScope(scope, address)
      } catch (error) {
        thrown = error
      }
      assert.isTrue(Schema.isSchemaError(thrown), `${scope} ${address}`)
    }
  })
})
