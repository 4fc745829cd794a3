/**
 * The chains of the API by name (SERVE.md: `chains` takes `eth`, `base`, `aptos`, `aptos-testnet`,
 * …, or a chain id): a name with a space is written with a dash, a chain id is taken as its name,
 * case and surrounding blanks do not matter; what the API shows back is the dashed name, and the
 * list of valid names names them all. Wallets are grouped by scope in their order of arrival.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Scopes from "../src/model/Scopes.js"

/** An EVM wallet of `chain`, its address made of `n`. */
const evm = (chain: string, n: number) => ({ family: "evm", chain, address: `0x${String(n).padStart(40, "0")}` }) as never

describe("Scopes", () => {
  it("fromName: dashed names, chain ids, Aptos networks; case and blanks ignored; unknown names are undefined", () => {
    const cases: ReadonlyArray<readonly [string, string | undefined]> = [
      ["eth", "0x1"],
      ["ETH", "0x1"],
      ["  base ", "0x2105"],
      ["polygon-amoy", "0x13882"],
      ["polygon amoy", undefined],
      ["0x89", "0x89"],
      ["0X89", "0x89"],
      ["aptos", "aptos:mainnet"],
      ["aptos-mainnet", "aptos:mainnet"],
      ["Aptos-Testnet", "aptos:testnet"],
      ["aptos:mainnet", undefined],
      ["eht", undefined],
      ["", undefined]
    ]
    for (const [name, scope] of cases) assert.strictEqual(Scopes.fromName(name), scope, JSON.stringify(name))
  })

  it("nameOf: the dashed name of every scope, read back by fromName", () => {
    assert.deepStrictEqual(["0x1", "0x13882", "0x61", "aptos:mainnet", "aptos:testnet"].map(Scopes.nameOf), ["eth", "polygon-amoy", "bsc-testnet", "aptos", "aptos-testnet"])
    assert.strictEqual(Scopes.all.length, 27)
    for (const scope of Scopes.all) assert.strictEqual(Scopes.fromName(Scopes.nameOf(scope)), scope, scope)
  })

  it("validNames lists every name, dashed, and says a chain id is taken", () => {
    assert.isTrue(Scopes.validNames.startsWith("eth, sepolia, holesky, polygon, polygon-amoy, "), Scopes.validNames)
    assert.isTrue(Scopes.validNames.endsWith(", moonbase, aptos, aptos-testnet (or a chain id such as 0x1)"), Scopes.validNames)
    for (const scope of Scopes.all) assert.include(Scopes.validNames.split(/, | \(/), Scopes.nameOf(scope))
  })

  it("positionsByScope: each scope's wallets' positions, scopes and positions in order of arrival", () => {
    const wallets = [evm("0x89", 1), evm("0x1", 2), evm("0x89", 3), { family: "aptos", network: "testnet", address: "0x1" } as never, evm("0x1", 4)]
    assert.deepStrictEqual([...Scopes.positionsByScope(wallets)], [["0x89", [0, 2]], ["0x1", [1, 4]], ["aptos:testnet", [3]]])
  })
})
