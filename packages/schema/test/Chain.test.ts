/**
 * Chain facts: the native currency's symbol of each chain, and the native-currency sentinel.
 */
import { assert, describe, it } from "@effect/vitest"
import { Chain } from "../src/index.js"

describe("Chain.nativeSymbolOf", () => {
  it("names the native currency of a chain", () => {
    assert.strictEqual(Chain.nativeSymbolOf("0x1"), "ETH")
    assert.strictEqual(Chain.nativeSymbolOf("0xa4b1"), "ETH")
    assert.strictEqual(Chain.nativeSymbolOf("0x89"), "POL")
    assert.strictEqual(Chain.nativeSymbolOf("0x13882"), "POL")
    assert.strictEqual(Chain.nativeSymbolOf("0x38"), "BNB")
    assert.strictEqual(Chain.nativeSymbolOf("0xa86a"), "AVAX")
    assert.strictEqual(Chain.nativeSymbolOf("0x64"), "XDAI")
    assert.strictEqual(Chain.nativeSymbolOf("0x504"), "GLMR")
    assert.strictEqual(Chain.nativeSymbolOf("0x507"), "DEV")
  })

  it("every chain has a symbol", () => {
    assert.strictEqual(Chain.chains.length, 25)
    for (const [name, id] of Chain.chains) {
      const symbol = Chain.nativeSymbolOf(id)
      assert.match(symbol, /^[A-Z]{3,5}$/, `${name} (${id})`)
    }
  })
})

describe("Chain.nativeCurrencyAddress", () => {
  it("is the lower-case 0xeeee…eeee sentinel", () => {
    assert.strictEqual(Chain.nativeCurrencyAddress, `0x${"e".repeat(40)}`)
  })
})
