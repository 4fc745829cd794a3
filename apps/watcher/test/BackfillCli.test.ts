/**
 * `--backfill` end to end: `node dist/bin.js` (built before the tests run) against a simulator
 * started in this process. With `--once --format json`, stdout holds exactly the history's
 * events (NDJSON) and the progress bar is on stderr; a bad FROM exits 2 with what is valid,
 * before anything starts.
 */
import { Simulator } from "@chainquery/simulator"
import { Context, Effect, Exit, Layer, Scope } from "effect"
import { spawn } from "node:child_process"
import { existsSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Output } from "../src/index.js"
import { type WatchEvent } from "@chainquery/watch"
import { aptosTruth, busiestAptos, busiestEvm, evmTruth, type Sim } from "../../../packages/watch/test/support/engineHarness.js"

const bin = fileURLToPath(new URL("../dist/bin.js", import.meta.url))

interface Result {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/** Runs the CLI to completion (asynchronously: the simulator shares this event loop). */
const cli = (args: ReadonlyArray<string>): Promise<Result> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], { env: { ...process.env, MORALIS_API_KEY: "" } })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()))
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()))
    child.on("error", reject)
    child.on("close", (code) => resolve({ code, stdout, stderr }))
  })

const decodeLines = (stdout: string): Promise<Array<WatchEvent.WatchEvent>> =>
  Promise.all(stdout.split("\n").filter((line) => line !== "").map((line) => Effect.runPromise(Output.fromJson(line))))

let dir = ""
let scope: Scope.Closeable | undefined
let sim: Sim

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "watcher-backfill-cli-"))
  const opened = Effect.runSync(Scope.make())
  scope = opened
  const context = await Effect.runPromise(Layer.buildWithScope(Simulator.layer({ seed: 39, indexing: false }), opened))
  sim = Context.get(context, Simulator.Simulator)
})

afterAll(async () => {
  if (scope !== undefined) await Effect.runPromise(Scope.close(scope, Exit.void))
  rmSync(dir, { recursive: true, force: true })
})

describe("chainquery-watcher --backfill", () => {
  it("--backfill N --once --format json: stdout is exactly the history, each line saying phase history, stderr has the progress lines", async () => {
    const evm = busiestEvm(sim, "0x1", 2)
    const aptos = busiestAptos(sim, 2)
    const head = BigInt(sim.world.evm.chain("0x1").head)
    const from = head - 30n
    const state = join(dir, "history.db")
    const result = await cli([
      ...evm.flatMap((wallet) => ["--wallet", `eth:${wallet.address}`]),
      ...aptos.flatMap((wallet) => ["--wallet", `aptos:${wallet.address}`]),
      "--backfill",
      String(from),
      "--watch",
      "transfers",
      "--once",
      "--format",
      "json",
      "--state",
      state,
      "--evm-base-url",
      sim.evmUrl,
      "--ledger-base-url",
      sim.ledgerUrl.mainnet,
      "--api-key",
      sim.apiKey
    ])
    expect(result.stderr).not.toMatch(/cycle failed|Error/)
    expect(result.code).toBe(0)
    const events = await decodeLines(result.stdout)
    // History, said as the service's history batches say it.
    const lines = result.stdout.trim().split("\n")
    expect(lines.filter((line) => (JSON.parse(line) as { phase?: string }).phase !== "history")).toEqual([])
    // Block N on eth; on Aptos N is a ledger version, older than the whole simulated ledger.
    const evmHistory = await Effect.runPromise(evmTruth(sim, "0x1", evm, from - 1n, head))
    const aptosHistory = aptosTruth(sim, aptos, from - 1n, 2n ** 62n)
    expect(evmHistory.length).toBeGreaterThan(0)
    expect(aptosHistory.length).toBeGreaterThan(0)
    const ids = events.map((event) => event.id)
    expect(new Set(ids).size).toBe(ids.length)
    expect(ids.toSorted()).toEqual([...evmHistory, ...aptosHistory].map((event) => event.id).toSorted())
    // Chain by chain: eth first (the order of the wallets), then Aptos mainnet.
    expect(events.findLastIndex((event) => event.kind.startsWith("nft."))).toBeLessThan(
      events.findIndex((event) => event.kind.startsWith("aptos."))
    )
    // Not a terminal: plain lines, the first and the last.
    expect(result.stderr).not.toContain("\r")
    expect(result.stderr).toMatch(new RegExp(`^backfill from block ${from} \\[-{20}\\] 0/4 wallets 0%`, "m"))
    expect(result.stderr).toMatch(new RegExp(`^backfill from block ${from} done: 4/4 wallets, ${ids.length} events in \\S+$`, "m"))
    expect(result.stdout).not.toMatch(/backfill|wallets/)
  }, 180_000)

  it("--backfill yesterday-ish exits 2 with what FROM may be, starting nothing", async () => {
    const state = join(dir, "never.db")
    const wallet = busiestEvm(sim, "0x1", 1)[0]!
    const result = await cli([
      "--wallet",
      `eth:${wallet.address}`,
      "--backfill",
      "yesterday-ish",
      "--once",
      "--state",
      state,
      "--evm-base-url",
      sim.evmUrl,
      "--api-key",
      sim.apiKey
    ])
    expect(result.code).toBe(2)
    expect(result.stderr).toMatch(/--backfill/)
    expect(result.stderr).toMatch(/"yesterday-ish"/)
    expect(result.stderr).toMatch(/a block number \(e\.g\. 19000000.*\) or an ISO 8601 date \(e\.g\. 2026-11-01 or 2026-11-01T12:00:00Z/)
    expect(existsSync(state)).toBe(false)
    const impossible = await cli(["--wallet", `eth:${wallet.address}`, "--backfill", "2026-02-30", "--state", state, "--api-key", "k"])
    expect(impossible.code).toBe(2)
    expect(impossible.stderr).toMatch(/a date on the calendar \("2026-02-30" is not one\), i\.e\. a block number/)
    expect(existsSync(state)).toBe(false)
  }, 180_000)

  it("--help describes --backfill", async () => {
    const result = await cli(["--help"])
    expect(result.code).toBe(0)
    expect(result.stdout).toMatch(/--backfill FROM\s+Before watching, print each wallet's history from FROM \(inclusive\)/)
    expect(result.stdout).toMatch(/ISO 8601 date/)
  }, 120_000)
})
