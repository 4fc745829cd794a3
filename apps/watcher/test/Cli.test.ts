/**
 * The executable, end to end: `node dist/bin.js` (built before the tests run) with `--help`,
 * against a simulator started in this process (`--once --format json`, twice on one state file)
 * and the `demo` subcommand. Bad input (exit 2, nothing on stdout) is in `e2e/badInput.test.ts`.
 */
import { Simulator } from "@chainquery/simulator"
import { Context, Effect, Exit, Layer, Scope } from "effect"
import { spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, expect, it } from "vitest"
import { Output } from "../src/index.js"
import { type WatchEvent } from "@chainquery/watch"
import { busiestEvm, evmTruth, type Sim } from "../../../packages/watch/test/support/engineHarness.js"

const bin = fileURLToPath(new URL("../dist/bin.js", import.meta.url))

interface Result {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/** Runs the CLI to completion (asynchronously: the simulator shares this event loop). */
const cli = (args: ReadonlyArray<string>, env: Record<string, string> = {}): Promise<Result> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], { env: { ...process.env, MORALIS_API_KEY: "", ...env } })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()))
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()))
    child.on("error", reject)
    child.on("close", (code) => resolve({ code, stdout, stderr }))
  })

const decodeLines = (stdout: string): Promise<Array<WatchEvent.WatchEvent>> =>
  Promise.all(stdout.split("\n").filter((line) => line !== "").map((line) => Effect.runPromise(Output.fromJson(line))))

const head = async (sim: Sim, chain: string): Promise<bigint> => {
  const response = await fetch(`${sim.url}/__sim/head`)
  const body = (await response.json()) as { evm: Record<string, number> }
  return BigInt(body.evm[chain] ?? 0)
}

let dir = ""
let scope: Scope.Closeable | undefined
let sim: Sim

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "watcher-cli-"))
  const opened = Effect.runSync(Scope.make())
  scope = opened
  const context = await Effect.runPromise(Layer.buildWithScope(Simulator.layer({ seed: 11, indexing: false }), opened))
  sim = Context.get(context, Simulator.Simulator)
})

afterAll(async () => {
  if (scope !== undefined) await Effect.runPromise(Scope.close(scope, Exit.void))
  rmSync(dir, { recursive: true, force: true })
})

it("--help exits 0 and mentions every flag", async () => {
  const result = await cli(["--help"])
  expect(result.code).toBe(0)
  for (
    const flag of [
      "--wallet",
      "--wallets-file",
      "--interval",
      "--once",
      "--format",
      "--state",
      "--confirmations",
      "--strategy",
      "--evm-base-url",
      "--ledger-base-url",
      "--ledger-testnet-base-url",
      "--allow-insecure-http",
      "--api-key",
      "demo"
    ]
  ) expect(result.stdout).toContain(flag)
}, 120_000)

it("--once --format json prints NDJSON, then only the new events after an advance", async () => {
  const state = join(dir, "state.db")
  const wallets = busiestEvm(sim, "0x1", 1)
  const wallet = wallets[0]!
  const args = [
    "--wallet",
    `eth:${wallet.address}`,
    "--once",
    "--format",
    "json",
    "--state",
    state,
    "--evm-base-url",
    sim.evmUrl,
    "--api-key",
    sim.apiKey
  ]
  const first = await cli(args)
  expect(first.stderr).not.toMatch(/cycle failed/)
  expect(first.code).toBe(0)
  const firstEvents = await decodeLines(first.stdout)
  // The first cycle of a fresh state file is a baseline: it may print nothing, and what it
  // prints must decode.
  const before = await head(sim, "0x1")

  const advanced = await fetch(`${sim.url}/__sim/advance?blocks=5`, { method: "POST" })
  expect(advanced.ok).toBe(true)
  const after = await head(sim, "0x1")
  expect(after).toBe(before + 5n)

  const second = await cli(args)
  expect(second.code).toBe(0)
  const secondEvents = await decodeLines(second.stdout)
  const old = new Set(firstEvents.map((event) => event.id))
  expect(secondEvents.filter((event) => old.has(event.id))).toEqual([])
  const truth = await Effect.runPromise(evmTruth(sim, "0x1", wallets, before, after))
  expect(truth.length).toBeGreaterThan(0)
  expect(secondEvents.length).toBeGreaterThan(0)
  const nft = secondEvents.filter((event) => event.kind === "nft.received" || event.kind === "nft.sent")
  expect(nft.map((event) => event.id).toSorted()).toEqual(truth.map((event) => event.id).toSorted())
}, 180_000)

it("demo prints an event within 90 s and stops on SIGINT with exit code 0", async () => {
  const child = spawn(process.execPath, [bin, "demo"])
  let stdout = ""
  child.stderr.resume()
  const printed = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no event within 90 s; stdout: ${stdout}`)), 90_000)
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString()
      if (/\b(nft|trade|defi|aptos)\.[a-z.]+\b/.test(stdout)) {
        clearTimeout(timer)
        resolve()
      }
    })
  })
  const closed = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)))
  try {
    await printed
  } finally {
    child.kill("SIGINT")
  }
  expect(await closed).toBe(0)
}, 180_000)
