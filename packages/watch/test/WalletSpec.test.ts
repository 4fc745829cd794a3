/**
 * Wallet specs: each form, EIP-55 checksums, unknown chains (the message lists the valid ones),
 * wallet files with line numbers, de-duplication, unreadable files.
 */
import { NodeFileSystem } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Schema } from "effect"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { WalletSpec, WatchedWallet } from "../src/index.js"

const checksummed = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed"
const lower = checksummed.toLowerCase()
const badChecksum = "0x5AAeb6053F3E94C9b9A09f33669435E7Ef1BeAed"

/** Compares wallets with plain expected objects (the addresses are branded strings). */
const same = (actual: ReadonlyArray<WatchedWallet.WatchedWallet>, expected: ReadonlyArray<Record<string, string>>) =>
  assert.deepStrictEqual<unknown>(actual, expected)

const failureOf = <A, R>(effect: Effect.Effect<A, WalletSpec.InvalidWalletSpec, R>) =>
  Effect.gen(function*() {
    const exit = yield* Effect.exit(effect)
    assert.isTrue(Exit.isFailure(exit), "expected the spec to be rejected")
    return yield* Effect.flip(effect)
  })

describe("WalletSpec.parse", () => {
  it.effect("one EVM chain, by name or hex id, normalised to the lower-case address", () =>
    Effect.gen(function*() {
      same(yield* WalletSpec.parse(`eth:${checksummed}`), [{ family: "evm", chain: "0x1", address: lower }])
      same(yield* WalletSpec.parse(`0x89:${lower}`), [{ family: "evm", chain: "0x89", address: lower }])
      same(yield* WalletSpec.parse(`  Base : ${lower} `), [{ family: "evm", chain: "0x2105", address: lower }])
      same(yield* WalletSpec.parse(`polygon-amoy:${lower}`), [{ family: "evm", chain: "0x13882", address: lower }])
      same(yield* WalletSpec.parse(`137:${lower}`), [{ family: "evm", chain: "0x89", address: lower }])
    }))

  it.effect("several EVM chains give one wallet per chain, repeated chains once", () =>
    Effect.gen(function*() {
      const wallets = yield* WalletSpec.parse(`polygon,base,0x89:${checksummed}`)
      same(wallets, [
        { family: "evm", chain: "0x89", address: lower },
        { family: "evm", chain: "0x2105", address: lower }
      ])
    }))

  it.effect("Aptos mainnet and testnet, addresses padded to 64 hex digits", () =>
    Effect.gen(function*() {
      const framework = `0x${"0".repeat(63)}1`
      same(yield* WalletSpec.parse("aptos:0x1"), [{ family: "aptos", network: "mainnet", address: framework }])
      same(yield* WalletSpec.parse("aptos-mainnet:0x1"), [{ family: "aptos", network: "mainnet", address: framework }])
      same(yield* WalletSpec.parse("APTOS-TESTNET:0x1"), [{ family: "aptos", network: "testnet", address: framework }])
      assert.strictEqual((yield* WalletSpec.parse("aptos,aptos-testnet:0xAB")).length, 2)
    }))

  it.effect("a mixed-case address with a wrong EIP-55 checksum is rejected, saying so", () =>
    Effect.gen(function*() {
      const error = yield* failureOf(WalletSpec.parse(`eth:${badChecksum}`))
      assert.strictEqual(error._tag, "InvalidWalletSpec")
      assert.strictEqual(error.spec, `eth:${badChecksum}`)
      assert.include(error.reason, "EIP-55 checksum")
      assert.include(error.message, `Invalid wallet spec "eth:${badChecksum}"`)
      assert.isUndefined(error.line)
    }))

  it.effect("an unknown chain is rejected with the list of valid chains", () =>
    Effect.gen(function*() {
      const error = yield* failureOf(WalletSpec.parse(`ethereum-classic:${lower}`))
      assert.include(error.reason, `unknown chain "ethereum-classic"`)
      for (const name of ["eth (0x1)", "polygon (0x89)", "base (0x2105)", "polygon-amoy (0x13882)", "moonbase (0x507)", "aptos", "aptos-testnet"]) {
        assert.include(error.message, name)
      }
    }))

  it.effect("malformed specs say what was wrong and what is valid", () =>
    Effect.gen(function*() {
      assert.include((yield* failureOf(WalletSpec.parse(lower))).reason, "CHAINS:ADDRESS")
      assert.include((yield* failureOf(WalletSpec.parse(`:${lower}`))).reason, "no chain")
      assert.include((yield* failureOf(WalletSpec.parse("eth:"))).reason, "no address")
      assert.include((yield* failureOf(WalletSpec.parse(`eth,,base:${lower}`))).reason, "empty chain")
      assert.include((yield* failureOf(WalletSpec.parse("eth:0x1234"))).reason, "0x followed by 40 hex digits")
      assert.include((yield* failureOf(WalletSpec.parse("aptos:0xnothex"))).reason, "0x followed by 1 to 64 hex digits")
      assert.include((yield* failureOf(WalletSpec.parse(`eth,aptos:${lower}`))).reason, "not both")
    }))
})

describe("WalletSpec.parseAll and parseFile", () => {
  it.effect("parseAll de-duplicates across specs and spellings", () =>
    Effect.gen(function*() {
      const wallets = yield* WalletSpec.parseAll([`eth:${checksummed}`, `0x1,polygon:${lower}`, "aptos:0x1", `aptos:0x${"0".repeat(63)}1`])
      assert.deepStrictEqual(wallets.map(WatchedWallet.key), [
        `evm:0x1:${lower}`,
        `evm:0x89:${lower}`,
        `aptos:mainnet:0x${"0".repeat(63)}1`
      ])
    }))

  it.effect("a wallet file: comments and blank lines ignored, wallets de-duplicated", () =>
    Effect.gen(function*() {
      const text = [
        "# the team's wallets",
        "",
        `eth:${checksummed}   # treasury`,
        "   ",
        `polygon,base:${lower}`,
        `eth:${lower}`,
        "aptos-testnet:0x1\r"
      ].join("\n")
      const wallets = yield* WalletSpec.parseFile(text)
      assert.deepStrictEqual(wallets.map(WalletSpec.toSpec), [
        `eth:${lower}`,
        `polygon:${lower}`,
        `base:${lower}`,
        `aptos-testnet:0x${"0".repeat(63)}1`
      ])
    }))

  it.effect("an error in a wallet file names its line (and the file)", () =>
    Effect.gen(function*() {
      const text = `# wallets\neth:${lower}\n\nfoo:${lower}\n`
      const error = yield* failureOf(WalletSpec.parseFile(text, "wallets.txt"))
      assert.strictEqual(error.line, 4)
      assert.strictEqual(error.spec, `foo:${lower}`)
      assert.include(error.message, "on line 4 of wallets.txt")
      assert.include(error.message, "valid chains: eth (0x1)")
      const checksum = yield* failureOf(WalletSpec.parseFile(`eth:${lower}\neth:${badChecksum}`))
      assert.strictEqual(checksum.line, 2)
      assert.include(checksum.message, "on line 2:")
    }))

  it.effect("readFile reads a file; an unreadable one is an InvalidWalletSpec", () =>
    Effect.gen(function*() {
      const dir = mkdtempSync(join(tmpdir(), "wallet-spec-"))
      const path = join(dir, "wallets.txt")
      writeFileSync(path, `base:${lower}\naptos:0x1\n`)
      assert.strictEqual((yield* WalletSpec.readFile(path)).length, 2)
      const error = yield* failureOf(WalletSpec.readFile(join(dir, "missing.txt")))
      assert.include(error.reason, "cannot read the wallet file")
      assert.strictEqual(error.file, join(dir, "missing.txt"))
    }).pipe(Effect.provide(NodeFileSystem.layer)))

  it("toSpec gives back a spec that parses to the same wallet", () => {
    for (const spec of [`polygon-amoy:${lower}`, "aptos-testnet:0x1", `bsc-testnet:${lower}`]) {
      const [wallet] = Effect.runSync(WalletSpec.parse(spec))
      assert.deepStrictEqual(Effect.runSync(WalletSpec.parse(WalletSpec.toSpec(wallet!))), [wallet!])
    }
  })

  it("a watched wallet round-trips through its schema (how the state store keeps it)", () => {
    for (const wallet of Effect.runSync(WalletSpec.parseAll([`polygon,base:${lower}`, "aptos-testnet:0x1"]))) {
      const encoded = Schema.encodeSync(WatchedWallet.WatchedWallet)(wallet)
      assert.deepStrictEqual(Schema.decodeUnknownSync(WatchedWallet.WatchedWallet)(JSON.parse(JSON.stringify(encoded))), wallet)
    }
  })
})
