/**
 * End to end, secrets from files (README, SERVE.md): `--api-key-file` (the watching CLI and
 * `serve`) and `--api-token-file` and `--secrets-key-file` (`serve`) are read, a trailing newline
 * left out, and the key read is the one used (the simulator takes it; a file with another key is
 * refused by it). A missing, unreadable or empty file, or a secret given both on the command line
 * and in a file, exits 2 naming the flag before anything starts; so does a secrets key that is not
 * 32 bytes of base64 or hex. No secret is ever in the message.
 */
import { Effect } from "effect"
import { chmodSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { busiestEvm } from "../../../../packages/watch/test/support/engineHarness.js"
import { runCli, tempDir, walletFlags, withSimulator } from "./support/e2e.js"

const dir = tempDir("secret-files")
afterAll(() => dir.remove())

/** Writes a file (mode 600) in the test's folder; its path. */
const file = (name: string, text: string): string => {
  const path = join(dir.path, name)
  writeFileSync(path, text)
  chmodSync(path, 0o600)
  return path
}

const token = "file-token-0123456789abcdef"

describe("--api-key-file (watching)", () => {
  it("the key in the file, its trailing newline left out, is the one the service takes; another key in it is refused", () =>
    withSimulator({ seed: 3101, indexing: false, chains: ["0x1"], wallets: 10, history: 5, apiKey: "sim-key-from-a-file-4821" }, async (sim) => {
      const flags = (keyFile: string, state: string) => [
        ...walletFlags(busiestEvm(sim, "0x1", 1)),
        "--format", "json", "--watch", "transfers", "--once", "--state", join(dir.path, state),
        "--evm-base-url", sim.evmUrl, "--ledger-base-url", sim.ledgerUrl.mainnet,
        "--api-key-file", keyFile
      ]
      const good = await runCli(flags(file("key", `${sim.apiKey}\n`), "good.db"))
      expect(good.code, good.stderr).toBe(0)
      const served = (await Effect.runPromise(sim.stats)).requests.total
      expect(served, "the service answered the watcher").toBeGreaterThan(0)

      const wrong = await runCli(flags(file("wrong-key", "not-the-simulator-key\n"), "wrong.db"))
      expect(wrong.code, "the service refused another key").not.toBe(0)
      expect(wrong.stdout).toBe("")
      expect(wrong.stderr).not.toContain("not-the-simulator-key")
      expect(wrong.stderr).not.toContain(sim.apiKey)
    }), 120_000)
})

interface Case {
  readonly name: string
  readonly args: ReadonlyArray<string>
  readonly env?: Record<string, string>
  readonly message: RegExp
  /** What must not appear in the output. */
  readonly secret?: string
}

const wallet = ["--wallet", "eth:0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed", "--once", "--state", join(dir.path, "never.db")]
const serve = ["serve", "--data-dir", "/nonexistent/never-created"]
const keyFile = file("api-key", "a-key\n")
const tokenFile = file("token", `${token}\n`)
const emptyFile = file("empty", "\n")
const shortKey = "c2hvcnQta2V5LW9mLTIwLWJ5dGVz"
const shortKeyFile = file("short-secrets-key", `${shortKey}\n`)
const longHexKey = "ab".repeat(33)

const cases: ReadonlyArray<Case> = [
  { name: "watch: a missing --api-key-file", args: [...wallet, "--api-key-file", join(dir.path, "missing")], message: /--api-key-file: cannot read ".*missing" \(ENOENT\)/ },
  {
    name: "watch: the key itself given to --api-key-file by mistake is not printed",
    args: [...wallet, "--api-key-file", "eyJhbGciOiJIUzI1NiJ9.secret-key-by-mistake"],
    message: /--api-key-file: cannot read the file given \(not shown: .*\) \(ENOENT\)/,
    secret: "secret-key-by-mistake"
  },
  { name: "watch: --api-key-file of a folder", args: [...wallet, "--api-key-file", dir.path], message: /--api-key-file: cannot read .* \(EISDIR\)/ },
  { name: "watch: an empty --api-key-file", args: [...wallet, "--api-key-file", emptyFile], message: /--api-key-file: ".*empty" is empty/ },
  {
    name: "watch: --api-key and --api-key-file",
    args: [...wallet, "--api-key", "key-on-the-line", "--api-key-file", keyFile],
    message: /--api-key and --api-key-file were both given: give only --api-key-file/,
    secret: "key-on-the-line"
  },
  { name: "serve: a missing --api-key-file", args: [...serve, "--api-token", token, "--api-key-file", join(dir.path, "missing")], message: /--api-key-file: cannot read/ },
  { name: "serve: an empty --api-token-file", args: [...serve, "--api-key-file", keyFile, "--api-token-file", emptyFile], message: /--api-token-file: ".*" is empty/ },
  { name: "serve: a missing --api-token-file", args: [...serve, "--api-key-file", keyFile, "--api-token-file", join(dir.path, "nope")], message: /--api-token-file: cannot read ".*nope" \(ENOENT\)/ },
  {
    name: "serve: --api-token and --api-token-file",
    args: [...serve, "--api-key-file", keyFile, "--api-token", "token-on-the-line-0123456789", "--api-token-file", tokenFile],
    message: /--api-token and --api-token-file were both given/,
    secret: "token-on-the-line-0123456789"
  },
  {
    name: "serve: a secrets key of 20 bytes in its file",
    args: [...serve, "--api-key-file", keyFile, "--api-token-file", tokenFile, "--secrets-key-file", shortKeyFile],
    message: /--secrets-key-file: expected 32 bytes as base64 \(44 characters, e\.g\. made by `openssl rand -base64 32`\) or as hex \(64 hex digits\), got 28 characters/,
    secret: shortKey
  },
  {
    name: "serve: a secrets key of 33 bytes of hex in CHAINQUERY_SECRETS_KEY",
    args: [...serve, "--api-key-file", keyFile, "--api-token-file", tokenFile],
    env: { CHAINQUERY_SECRETS_KEY: longHexKey },
    message: /CHAINQUERY_SECRETS_KEY: expected 32 bytes as base64 .* or as hex \(64 hex digits\), got 66 characters/,
    secret: longHexKey
  },
  {
    name: "serve: --secrets-key and --secrets-key-file",
    args: [...serve, "--api-key-file", keyFile, "--api-token-file", tokenFile, "--secrets-key", "ab".repeat(32), "--secrets-key-file", shortKeyFile],
    message: /--secrets-key and --secrets-key-file were both given/,
    secret: "ab".repeat(32)
  },
  { name: "serve: a missing --secrets-key-file", args: [...serve, "--api-key-file", keyFile, "--api-token-file", tokenFile, "--secrets-key-file", join(dir.path, "nokey")], message: /--secrets-key-file: cannot read ".*nokey" \(ENOENT\)/ }
]

describe("secret files: bad input exits 2 naming the flag", () => {
  for (const testCase of cases) {
    it(testCase.name, async () => {
      const result = await runCli(testCase.args, testCase.env ?? {})
      expect(result.code, result.stderr).toBe(2)
      expect(result.stderr).toMatch(testCase.message)
      expect(result.stdout).toBe("")
      if (testCase.secret !== undefined) expect(result.stderr).not.toContain(testCase.secret)
    }, 60_000)
  }
})
