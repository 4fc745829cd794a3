/**
 * End to end, check 6 of issue #6: each bad input makes the CLI exit 2 before it starts anything,
 * with its message on stderr and nothing on stdout (stdout carries events only, so a script
 * reading it never mistakes a usage text for output).
 */
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Exited, runCli, tempDir } from "./support/e2e.js"

const dir = tempDir("bad-input")
afterAll(() => dir.remove())

const good = "eth:0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed"
/** Flags that are fine, around the one bad input of each case. */
const rest = ["--wallet", good, "--api-key", "k", "--once", "--format", "json", "--state", join(dir.path, "unused.db")]

const badFile = join(dir.path, "wallets.txt")
writeFileSync(badFile, ["# the watched wallets", good, "", "base:0x12 # not an address", "aptos:0x1"].join("\n"))

interface Case {
  readonly name: string
  readonly args: ReadonlyArray<string>
  readonly env?: Record<string, string>
  readonly message: RegExp
}

const cases: ReadonlyArray<Case> = [
  {
    name: "a malformed address",
    args: ["--wallet", "eth:0x5aaeb6053f3e94c9b9a09f", "--api-key", "k", "--once"],
    message: /Invalid wallet spec "eth:0x5aaeb6053f3e94c9b9a09f": "0x5aaeb6053f3e94c9b9a09f" is not an EVM address: expected 0x followed by 40 hex digits/
  },
  {
    name: "a bad EIP-55 checksum",
    args: ["--wallet", "eth:0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAEd", "--api-key", "k", "--once"],
    message: /not a valid EIP-55 checksum/
  },
  {
    name: "an unknown chain, listing the valid ones",
    args: ["--wallet", "eht:0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed", "--api-key", "k", "--once"],
    message: /unknown chain "eht"; valid chains: eth \(0x1\).*polygon \(0x89\).*aptos \(or aptos-mainnet\), aptos-testnet/
  },
  {
    name: "an unreadable wallet file",
    args: ["--wallets-file", join(dir.path, "missing.txt"), "--api-key", "k", "--once"],
    message: /cannot read the wallet file.*one spec per line/
  },
  {
    name: "a wallet file with a bad line, named by its number",
    args: ["--wallets-file", badFile, "--api-key", "k", "--once"],
    message: /Invalid wallet spec "base:0x12" on line 4 of .*wallets\.txt: "0x12" is not an EVM address/
  },
  {
    name: "--interval soon",
    args: ["--interval", "soon", ...rest],
    message: /--interval.*expected a duration such as 10s, 500ms, 2m or 1h, got "soon"/
  },
  { name: "--format xml", args: ["--format", "xml", ...rest.slice(0, 5)], message: /--format: "xml"\. Expected: "pretty" \| "json"/ },
  { name: "--confirmations -1", args: ["--confirmations", "-1", ...rest], message: /--confirmations must be 0 or more, got -1/ },
  {
    name: "--strategy fastest",
    args: ["--strategy", "fastest", ...rest],
    message: /--strategy: "fastest"\. Expected: "auto" \| "block-scan" \| "per-wallet"/
  },
  {
    name: "--watch foo",
    args: ["--watch", "foo", ...rest],
    message: /--watch: unknown "foo"; valid: transfers, trades, defi, holdings/
  },
  {
    name: "--defi-threshold abc",
    args: ["--defi-threshold", "abc", ...rest],
    message: /--defi-threshold: expected a percentage such as 5 or 2\.5%, got "abc"/
  },
  {
    name: "--request-timeout 10ms",
    args: ["--request-timeout", "10ms", ...rest],
    message: /--request-timeout must be at least 100ms, got "10ms"/
  },
  {
    name: "--compute-units 0",
    args: ["--compute-units", "0", ...rest],
    message: /--compute-units: expected a positive number of compute units per second, got "0"/
  },
  { name: "an unknown flag", args: ["--frobnicate", ...rest], message: /unknown flag --frobnicate/ },
  {
    name: "--evm-base-url over http: to a host that is not loopback",
    args: ["--evm-base-url", "http://deep-index.example.com", ...rest],
    message: /Invalid --evm-base-url option: expected an https: URL .*loopback host.*or with --allow-insecure-http\), got http:\/\/deep-index\.example\.com\//
  },
  {
    name: "--ledger-base-url over http: to a private address",
    args: ["--ledger-base-url", "http://10.0.0.7/aptos/mainnet", ...rest],
    message: /Invalid --ledger-base-url option: .*got http:\/\/10\.0\.0\.7\/aptos\/mainnet/
  },
  {
    name: "--ledger-testnet-base-url that is not http(s)",
    args: ["--ledger-testnet-base-url", "ftp://127.0.0.1/aptos/testnet", ...rest],
    message: /Invalid --ledger-testnet-base-url option: expected an https: URL/
  },
  {
    name: "no wallets",
    args: ["--api-key", "k", "--once"],
    message: /no wallets to watch: give --wallet SPEC .* or --wallets-file PATH/
  },
  {
    name: "no API key (none given, MORALIS_API_KEY empty)",
    args: ["--wallet", good, "--once"],
    env: { MORALIS_API_KEY: "" },
    message: /no API key.*give --api-key-file PATH or set the MORALIS_API_KEY environment variable/
  },
  {
    name: "an empty --api-key",
    args: ["--wallet", good, "--once", "--api-key", ""],
    message: /no API key.*give --api-key-file PATH or set the MORALIS_API_KEY environment variable/
  }
]

/** Every case run once, three at a time (each is a Node start-up; the machine has 2 cores). */
const results = new Map<string, Exited>()

beforeAll(async () => {
  const queue = [...cases]
  const worker = async () => {
    for (let next = queue.shift(); next !== undefined; next = queue.shift()) results.set(next.name, await runCli(next.args, next.env))
  }
  await Promise.all([worker(), worker(), worker()])
}, 240_000)

describe("each bad input exits 2 with its message, and prints nothing on stdout", () => {
  for (const { message, name } of cases) {
    it(name, () => {
      const result = results.get(name)
      expect(result).toBeDefined()
      expect(result!.code, result!.stderr).toBe(2)
      expect(result!.stderr).toMatch(message)
      expect(result!.stdout, "stdout is for events only").toBe("")
    })
  }
})
