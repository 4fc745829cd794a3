/**
 * Wallet specs: how an operator names the wallets to watch. A spec is `CHAINS:ADDRESS`, where
 * `CHAINS` is one or more EVM chains (names or hex ids, as `Chain.Chain` of `@chainquery/schema`
 * accepts them, comma-separated) or an Aptos network (`aptos` = `aptos-mainnet`,
 * `aptos-testnet`). Addresses are validated and normalised with the schema package: EVM
 * addresses in mixed case must carry a valid EIP-55 checksum and become lower case, Aptos
 * addresses are padded to 64 hex digits. A wallet file holds one spec per line; `#` starts a
 * comment and blank lines are ignored. The result is a de-duplicated list of `WatchedWallet`s,
 * one per wallet and chain; every bad input is an {@link InvalidWalletSpec} that says what was
 * wrong and what is valid.
 *
 * @since 0.1.0
 */
import { AptosAddress, Chain, EvmAddress } from "@chainquery/schema"
import { Effect, FileSystem, Option, Result, Schema } from "effect"
import { type AptosNetwork, dedupe, type WatchedWallet } from "./WatchedWallet.js"

const aptosNetworks = new Map<string, AptosNetwork>([
  ["aptos", "mainnet"],
  ["aptos-mainnet", "mainnet"],
  ["aptos-testnet", "testnet"]
])

/**
 * Every accepted chain, in words, for error messages and `--help`.
 *
 * @example
 * ```ts
 * import { WalletSpec } from "@chainquery/watch"
 *
 * WalletSpec.validChains // "eth (0x1), sepolia (0xaa36a7), …, aptos (or aptos-mainnet), aptos-testnet"
 * ```
 * @since 0.1.0
 */
export const validChains: string = [
  ...Chain.chains.map(([name, id]) => `${name.replace(/ /g, "-")} (${id})`),
  "aptos (or aptos-mainnet)",
  "aptos-testnet"
].join(", ")

/**
 * The spec syntax, in words, with examples.
 *
 * @example
 * ```ts
 * import { WalletSpec } from "@chainquery/watch"
 *
 * console.log(WalletSpec.syntax)
 * ```
 * @since 0.1.0
 */
export const syntax = "CHAINS:ADDRESS, e.g. eth:0x…, polygon,base:0x…, aptos:0x1 or aptos-testnet:0x…"

/**
 * A wallet spec (or a wallet file) was rejected: `spec` is the offending text, `reason` says what
 * was wrong and what is valid, `line` (1-based) and `file` locate it in a wallet file.
 *
 * @example
 * ```ts
 * import { WalletSpec } from "@chainquery/watch"
 *
 * const error = new WalletSpec.InvalidWalletSpec({ spec: "eht:0x1", reason: "unknown chain \"eht\"", line: 3 })
 * error.message // 'Invalid wallet spec "eht:0x1" on line 3: unknown chain "eht"'
 * ```
 * @since 0.1.0
 */
export class InvalidWalletSpec extends Schema.TaggedError<InvalidWalletSpec>()("InvalidWalletSpec", {
  spec: Schema.String,
  reason: Schema.String,
  line: Schema.optional(Schema.Int),
  file: Schema.optional(Schema.String)
}) {
  override get message(): string {
    const where = this.line === undefined
      ? this.file === undefined ? "" : ` in ${this.file}`
      : this.file === undefined
      ? ` on line ${this.line}`
      : ` on line ${this.line} of ${this.file}`
    return `Invalid wallet spec ${JSON.stringify(this.spec)}${where}: ${this.reason}`
  }
}

type Target =
  | { readonly family: "evm"; readonly chain: Chain.ChainId }
  | { readonly family: "aptos"; readonly network: AptosNetwork }

const decodeChain = Schema.decodeUnknownOption(Chain.Chain)
const decodeEvmAddress = Schema.decodeUnknownOption(EvmAddress.EvmAddress)
const decodeAptosAddress = Schema.decodeUnknownOption(AptosAddress.AptosAddress)

const resolveTarget = (key: string): Target | undefined => {
  const network = aptosNetworks.get(key)
  if (network !== undefined) return { family: "aptos", network }
  const chain = decodeChain(/^\d+$/.test(key) ? Number(key) : key)
  return Option.isSome(chain) ? { family: "evm", chain: chain.value } : undefined
}

/** The targets of the chain names seen so far: a bulk request names the same few thousands of times. */
const knownTargets = new Map<string, Target>()
const maxKnownTargets = 1_000

const targetOf = (token: string): Target | undefined => {
  const key = token.trim().toLowerCase()
  const known = knownTargets.get(key)
  if (known !== undefined) return known
  const target = resolveTarget(key)
  // Valid names only, and a bounded number of spellings of them (`0x01`, `0x0001`… all name eth).
  if (target !== undefined && knownTargets.size < maxKnownTargets) knownTargets.set(key, target)
  return target
}

/** An address already lower-case is its own decoding (no checksum to check): the common case, kept cheap. */
const evmAddressOf = (address: string): Option.Option<EvmAddress.EvmAddress> => EvmAddress.is(address) ? Option.some(address) : decodeEvmAddress(address)

const evmAddressReason = (address: string): string =>
  /^0x[0-9a-fA-F]{40}$/.test(address)
    ? `${JSON.stringify(address)} has mixed case but is not a valid EIP-55 checksum (a typo?); ` +
      "check the address, or write it all in lower case"
    : `${JSON.stringify(address)} is not an EVM address: expected 0x followed by 40 hex digits`

/** Parses one spec to its wallets, or the reason it is wrong. */
const parseOne = (spec: string): Result.Result<ReadonlyArray<WatchedWallet>, string> => {
  const text = spec.trim()
  const colon = text.lastIndexOf(":")
  if (colon < 0) return Result.fail(`expected ${syntax}`)
  const tokens = text.slice(0, colon).split(",").map((token) => token.trim())
  const address = text.slice(colon + 1).trim()
  if (tokens.every((token) => token === "")) return Result.fail(`no chain before the colon; expected ${syntax}`)
  if (address === "") return Result.fail(`no address after the colon; expected ${syntax}`)
  const targets: Array<Target> = []
  for (const token of tokens) {
    if (token === "") return Result.fail(`an empty chain name in the list; expected ${syntax}`)
    const target = targetOf(token)
    if (target === undefined) return Result.fail(`unknown chain ${JSON.stringify(token)}; valid chains: ${validChains}`)
    targets.push(target)
  }
  const families = new Set(targets.map((target) => target.family))
  if (families.size > 1) {
    return Result.fail("a spec names either EVM chains or Aptos networks, not both; write one spec for each")
  }
  if (targets[0]?.family === "aptos") {
    const decoded = decodeAptosAddress(address)
    if (Option.isNone(decoded)) {
      return Result.fail(`${JSON.stringify(address)} is not an Aptos address: expected 0x followed by 1 to 64 hex digits`)
    }
    return Result.succeed(targets.flatMap((target) =>
      target.family === "aptos" ? [{ family: "aptos", network: target.network, address: decoded.value }] : []
    ))
  }
  const decoded = evmAddressOf(address)
  if (Option.isNone(decoded)) return Result.fail(evmAddressReason(address))
  return Result.succeed(targets.flatMap((target) =>
    target.family === "evm" ? [{ family: "evm", chain: target.chain, address: decoded.value }] : []
  ))
}

/**
 * Writes a wallet back as a spec (`eth:0x…`, `aptos-testnet:0x…`) that {@link parse} accepts.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { WalletSpec } from "@chainquery/watch"
 *
 * const [wallet] = Effect.runSync(WalletSpec.parse("Polygon:0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed"))
 * WalletSpec.toSpec(wallet!) // "polygon:0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed"
 * ```
 * @since 0.1.0
 */
export const toSpec = (wallet: WatchedWallet): string =>
  wallet.family === "evm"
    ? `${Chain.nameOf(wallet.chain).replace(/ /g, "-")}:${wallet.address}`
    : `aptos-${wallet.network}:${wallet.address}`

/**
 * Parses one spec: `eth:0x…`, `polygon,base:0x…`, `aptos:0x1`, `aptos-testnet:0x…`.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { WalletSpec } from "@chainquery/watch"
 *
 * const wallets = Effect.runSync(WalletSpec.parse("polygon,base:0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed"))
 * // [{ family: "evm", chain: "0x89", address: "0x5aae…" }, { family: "evm", chain: "0x2105", … }]
 * ```
 * @since 0.1.0
 */
export const parse = (spec: string): Effect.Effect<ReadonlyArray<WatchedWallet>, InvalidWalletSpec> => {
  const result = parseOne(spec)
  return Result.isSuccess(result)
    ? Effect.succeed(dedupe(result.success))
    : Effect.fail(new InvalidWalletSpec({ spec, reason: result.failure }))
}

/**
 * Parses several specs (e.g. repeated `--wallet` flags); the wallets are de-duplicated. Fails on
 * the first bad spec.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { WalletSpec } from "@chainquery/watch"
 *
 * Effect.runSync(WalletSpec.parseAll(["eth:0x" + "ab".repeat(20), "eth,0x1:0x" + "ab".repeat(20)])).length // 1
 * ```
 * @since 0.1.0
 */
export const parseAll = Effect.fnUntraced(function*(specs: Iterable<string>) {
  const wallets: Array<WatchedWallet> = []
  for (const spec of specs) wallets.push(...(yield* parse(spec)))
  return dedupe(wallets)
})

/**
 * Parses the text of a wallet file: one spec per line, `#` comments and blank lines ignored.
 * The error names the line (1-based) and, when given, the file.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { WalletSpec } from "@chainquery/watch"
 *
 * const text = "# team wallets\neth:0x" + "ab".repeat(20) + "\n\naptos:0x1  # the framework\n"
 * Effect.runSync(WalletSpec.parseFile(text)).length // 2
 * ```
 * @since 0.1.0
 */
export const parseFile = (
  text: string,
  file?: string
): Effect.Effect<ReadonlyArray<WatchedWallet>, InvalidWalletSpec> => {
  const wallets: Array<WatchedWallet> = []
  const lines = text.split(/\r?\n/)
  for (const [index, raw] of lines.entries()) {
    const hash = raw.indexOf("#")
    const spec = (hash < 0 ? raw : raw.slice(0, hash)).trim()
    if (spec === "") continue
    const result = parseOne(spec)
    if (Result.isFailure(result)) {
      return Effect.fail(
        new InvalidWalletSpec({ spec, reason: result.failure, line: index + 1, ...(file === undefined ? {} : { file }) })
      )
    }
    wallets.push(...result.success)
  }
  return Effect.succeed(dedupe(wallets))
}

/**
 * Reads and parses a wallet file. An unreadable file is an {@link InvalidWalletSpec} too.
 *
 * @example
 * ```ts
 * import { NodeFileSystem } from "@effect/platform-node"
 * import { Effect } from "effect"
 * import { WalletSpec } from "@chainquery/watch"
 *
 * const wallets = WalletSpec.readFile("wallets.txt").pipe(Effect.provide(NodeFileSystem.layer))
 * ```
 * @since 0.1.0
 */
export const readFile = Effect.fnUntraced(function*(path: string) {
  const fs = yield* FileSystem.FileSystem
  const text = yield* fs.readFileString(path).pipe(
    Effect.mapError((error) =>
      new InvalidWalletSpec({
        spec: path,
        file: path,
        reason: `cannot read the wallet file (${error.message}); give a readable text file with one spec per line: ${syntax}`
      })
    )
  )
  return yield* parseFile(text, path)
})
