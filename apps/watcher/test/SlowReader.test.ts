/**
 * A slow reader on stdout (a pipe, as with `| consumer`): SIGTERM while the reader is stalled
 * loses nothing that was committed: every event up to the committed checkpoints (or, when the
 * backfill was stopped in the middle, up to where its committed batches got) reaches the reader,
 * and the watcher exits 0.
 */
import { Simulator } from "@chainquery/simulator"
import { Context, Effect, Exit, Layer, Option, Scope } from "effect"
import { spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, expect, it } from "vitest"
import { StateStore } from "@chainquery/watch"
import { busiestEvm, evmTruth, type Sim } from "../../../packages/watch/test/support/engineHarness.js"

const bin = fileURLToPath(new URL("../dist/bin.js", import.meta.url))
const sleep = (millis: number) => new Promise((resolve) => setTimeout(resolve, millis))

let dir = ""
let scope: Scope.Closeable | undefined
let sim: Sim

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "watcher-slow-reader-"))
  const opened = Effect.runSync(Scope.make())
  scope = opened
  const context = await Effect.runPromise(Layer.buildWithScope(Simulator.layer({ seed: 41, indexing: false, chains: ["0x1"], history: 300 }), opened))
  sim = Context.get(context, Simulator.Simulator)
})

afterAll(async () => {
  if (scope !== undefined) await Effect.runPromise(Scope.close(scope, Exit.void))
  rmSync(dir, { recursive: true, force: true })
})

it("SIGTERM while the reader is stalled: every committed event is delivered, exit 0", async () => {
  const wallets = busiestEvm(sim, "0x1", 4)
  const state = join(dir, "state.db")
  const from = BigInt(sim.world.evm.chain("0x1").profile.firstBlock)
  const args = [
    ...wallets.flatMap((wallet) => ["--wallet", `eth:${wallet.address}`]),
    "--backfill",
    String(from),
    "--watch",
    "transfers",
    "--format",
    "json",
    "--interval",
    "200ms",
    "--state",
    state,
    "--evm-base-url",
    sim.evmUrl,
    "--api-key",
    sim.apiKey
  ]
  const child = spawn(process.execPath, [bin, ...args], { stdio: ["ignore", "pipe", "pipe"] })
  let stderr = ""
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()))
  const chunks: Array<Buffer> = []
  let lines = 0
  const read = new Promise<void>((resolve, reject) => {
    child.stdout.on("data", (chunk: Buffer) => {
      chunks.push(chunk)
      lines += chunk.toString().split("\n").length - 1
      if (lines >= 300) resolve()
    })
    child.on("close", () => reject(new Error(`the watcher exited after ${lines} lines; stderr:\n${stderr.slice(-2000)}`)))
  })
  const closed = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)))
  try {
    // Read 300 lines (each printed after its batch was committed), then stall the reader while the
    // watcher has far more to write than a pipe holds.
    await read
    child.stdout.pause()
    await sleep(1500)
    child.kill("SIGTERM")
    await sleep(1000)
    child.stdout.resume()
    const code = await closed
    expect(code, stderr.slice(-2000)).toBe(0)
  } finally {
    child.kill("SIGKILL")
  }

  const ids = new Set(
    Buffer.concat(chunks).toString().split("\n").filter((line) => line !== "").map((line) => (JSON.parse(line) as { id: string }).id)
  )
  // What was committed: a wallet's checkpoint, or how far its backfill got (the backfill is
  // committed batch by batch, so SIGTERM may well stop it in the middle).
  const committed = await Effect.runPromise(
    Effect.gen(function*() {
      const store = yield* StateStore.StateStore
      const backfills = yield* store.backfills
      return yield* Effect.forEach(wallets, (wallet) =>
        Effect.map(store.checkpoint(wallet), (checkpoint) =>
          Option.isSome(checkpoint)
            ? checkpoint.value.position
            : backfills.find((progress) => progress.wallet.address === wallet.address)?.through ?? 0n
        ))
    }).pipe(Effect.provide(StateStore.layer(state)))
  )
  const upTo = committed.reduce((a, b) => (b < a ? b : a))
  const truth = await Effect.runPromise(evmTruth(sim, "0x1", wallets, from - 1n, upTo))
  // More than a pipe's 64 KiB was committed, and all of it arrived.
  expect(truth.length).toBeGreaterThan(300)
  expect(truth.filter((event) => !ids.has(event.id)).map((event) => event.id)).toEqual([])
}, 180_000)
