/**
 * Support for the end-to-end tests: the built CLI (`dist/bin.js`) run as a child process with
 * `--format json`, a simulator started in the test process on 127.0.0.1, the simulator's ground
 * truth, the state file read back after the process exited, and a seeded random generator.
 *
 * Only the transfer kinds are compared (`nft.received`, `nft.sent`, `aptos.token.in`,
 * `aptos.token.out`) and the retractions of them: the tests pass `--watch transfers`, and other
 * kinds are ignored even if the engine prints them.
 */
import type { Chain } from "@chainquery/schema"
import { Simulator } from "@chainquery/simulator"
import { type ChildProcess, spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { Context, Effect, Exit, Layer, Scope } from "effect"
import { Output } from "../../../src/index.js"
import { StateStore, WalletSpec, type WatchedWallet, type WatchEvent } from "@chainquery/watch"
import { aptosTruth, evmTruth, type Sim } from "../../../../../packages/watch/test/support/engineHarness.js"

export type { Sim }

/** The executable under test, built before the tests run. */
export const bin = fileURLToPath(new URL("../../../dist/bin.js", import.meta.url))

// ---------------------------------------------------------------------------------------------
// Simulator and temporary files
// ---------------------------------------------------------------------------------------------

/** A simulator started in this process, and its release. */
export interface RunningSim {
  readonly sim: Sim
  readonly close: () => Promise<void>
}

/** Starts a simulator in this process on 127.0.0.1 (a free port); blocks advance only when told. */
export const startSimulator = async (options: Simulator.Options): Promise<RunningSim> => {
  const scope = Effect.runSync(Scope.make())
  const context = await Effect.runPromise(Layer.buildWithScope(Simulator.layer({ host: "127.0.0.1", ...options }), scope))
  return { sim: Context.get(context, Simulator.Simulator), close: () => Effect.runPromise(Scope.close(scope, Exit.void)) }
}

/** Runs `body` with a simulator of its own, closed afterwards. */
export const withSimulator = async <A>(options: Simulator.Options, body: (sim: Sim) => Promise<A>): Promise<A> => {
  const running = await startSimulator(options)
  try {
    return await body(running.sim)
  } finally {
    await running.close()
  }
}

/** A fresh temporary directory, and its removal. */
export const tempDir = (prefix: string) => {
  const path = mkdtempSync(join(tmpdir(), `watcher-e2e-${prefix}-`))
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) }
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

// ---------------------------------------------------------------------------------------------
// The CLI
// ---------------------------------------------------------------------------------------------

/** How a CLI process ended, and everything it printed. */
export interface Exited {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
  readonly stdout: string
  readonly stderr: string
}

const childEnv = (env: Record<string, string>) => ({ ...process.env, MORALIS_API_KEY: "", CHAINQUERY_WATCHER_TEST_HOLD: "", NO_COLOR: "1", ...env })

const holdModule = fileURLToPath(new URL("../../support/hold.mjs", import.meta.url))

/** Node's flags and the bin: the test hold is loaded first when `env` asks for one (`../../support/hold.mjs`). */
const nodeArgs = (args: ReadonlyArray<string>, env: Record<string, string>): Array<string> =>
  (env["CHAINQUERY_WATCHER_TEST_HOLD"] ?? "") === "" ? [bin, ...args] : ["--import", holdModule, bin, ...args]

/** A run of the CLI that has not ended by then is killed: its test fails with what it printed. */
const runLimit = 240_000

/** Runs the CLI to completion (asynchronously: the simulator shares this event loop). */
export const runCli = (args: ReadonlyArray<string>, env: Record<string, string> = {}): Promise<Exited> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, nodeArgs(args, env), { env: childEnv(env), stdio: ["ignore", "pipe", "pipe"] })
    const limit = setTimeout(() => child.kill("SIGKILL"), runLimit)
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()))
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()))
    child.on("error", (error) => {
      clearTimeout(limit)
      reject(error)
    })
    child.on("close", (code, signal) => {
      clearTimeout(limit)
      resolve({ code, signal, stdout, stderr })
    })
  })

/** The flags every watching run in these tests passes: the simulator's URLs and key, NDJSON, transfers only. */
export const simFlags = (sim: Sim, state: string): Array<string> => [
  "--format",
  "json",
  "--watch",
  "transfers",
  "--state",
  state,
  "--evm-base-url",
  sim.evmUrl,
  "--ledger-base-url",
  sim.ledgerUrl.mainnet,
  "--api-key",
  sim.apiKey
]

/** `--wallet SPEC` for each wallet. */
export const walletFlags = (wallets: ReadonlyArray<WatchedWallet.WatchedWallet>): Array<string> =>
  wallets.flatMap((wallet) => ["--wallet", WalletSpec.toSpec(wallet)])

/** Splits NDJSON output into its complete lines (a last line without its newline is left out). */
export const completeLines = (stdout: string): Array<string> => {
  const lines = stdout.split("\n")
  lines.pop()
  return lines.filter((line) => line !== "")
}

/** Decodes NDJSON lines with `Output.fromJson`; a line that does not decode fails the test. */
export const decode = (lines: ReadonlyArray<string>): Array<WatchEvent.WatchEvent> =>
  lines.map((line) => Effect.runSync(Output.fromJson(line)))

/** Decodes the whole output of a process that exited normally (every line must be complete). */
export const decodeAll = (stdout: string): Array<WatchEvent.WatchEvent> => {
  if (stdout !== "" && !stdout.endsWith("\n")) throw new Error(`the output ends with an incomplete line: ${stdout.slice(-200)}`)
  return decode(completeLines(stdout))
}

/**
 * A long-running CLI process: its output is collected as it comes; the test waits for
 * conditions on it, then stops it with a signal.
 */
export class Watcher {
  readonly child: ChildProcess
  stdout = ""
  stderr = ""
  /** The stdout chunks as they arrived (a kill may be timed on them). */
  chunks = 0
  readonly closed: Promise<{ readonly code: number | null; readonly signal: NodeJS.Signals | null }>
  private decoded: Array<WatchEvent.WatchEvent> = []
  private decodedLines = 0

  constructor(args: ReadonlyArray<string>, env: Record<string, string> = {}) {
    this.child = spawn(process.execPath, nodeArgs(args, env), { env: childEnv(env), stdio: ["ignore", "pipe", "pipe"] })
    this.child.stdout!.on("data", (chunk: Buffer) => {
      this.stdout += chunk.toString()
      this.chunks++
    })
    this.child.stderr!.on("data", (chunk: Buffer) => (this.stderr += chunk.toString()))
    this.closed = new Promise((resolve, reject) => {
      this.child.on("error", reject)
      this.child.on("close", (code, signal) => resolve({ code, signal }))
    })
  }

  /** The events of the complete lines printed so far. */
  events(): ReadonlyArray<WatchEvent.WatchEvent> {
    const lines = completeLines(this.stdout)
    if (lines.length > this.decodedLines) {
      this.decoded = [...this.decoded, ...decode(lines.slice(this.decodedLines))]
      this.decodedLines = lines.length
    }
    return this.decoded
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null
  }

  /** Waits until `condition` holds (checked every 25 ms); fails after `timeoutMs` or if the process ends. */
  async waitFor(what: string, condition: () => boolean, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs
    while (!condition()) {
      if (!this.running) throw new Error(`the watcher exited while waiting for ${what}; stderr:\n${this.stderr.slice(-2000)}`)
      if (Date.now() > deadline) {
        throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}; ${this.events().length} events so far; stderr:\n${this.stderr.slice(-2000)}`)
      }
      await sleep(25)
    }
  }

  /** Sends `signal` and waits for the process to end. */
  async stop(signal: NodeJS.Signals): Promise<{ readonly code: number | null; readonly signal: NodeJS.Signals | null }> {
    if (this.running) this.child.kill(signal)
    return this.closed
  }
}

// ---------------------------------------------------------------------------------------------
// Events and ground truth
// ---------------------------------------------------------------------------------------------

const comparedKinds: ReadonlySet<string> = new Set(["nft.received", "nft.sent", "aptos.token.in", "aptos.token.out"])

/**
 * The events these tests compare: the transfer kinds, and the retractions that do not retract an
 * event of another kind printed in the same output (a trade, should the engine print one).
 */
export const compared = (events: ReadonlyArray<WatchEvent.WatchEvent>): Array<WatchEvent.WatchEvent> => {
  const ignored = new Set(events.filter((event) => event.kind !== "retracted" && !comparedKinds.has(event.kind)).map((event) => event.id))
  return events.filter((event) => comparedKinds.has(event.kind) || (event.kind === "retracted" && !ignored.has(event.retracts)))
}

export const ids = (events: ReadonlyArray<{ readonly id: string }>): Array<string> => events.map((event) => event.id)

export const sorted = (values: ReadonlyArray<string>): Array<string> => values.toSorted()

/** The ids that occur more than once. */
export const duplicates = (values: ReadonlyArray<string>): Array<string> => {
  const seen = new Set<string>()
  const twice = new Set<string>()
  for (const value of values) (seen.has(value) ? twice : seen).add(value)
  return [...twice]
}

/** The current heads: EVM blocks per chain id, Aptos ledger versions per network. */
export const heads = async (sim: Sim) => {
  const response = await fetch(`${sim.url}/__sim/head`)
  const body = (await response.json()) as { evm: Record<string, number>; aptos: Record<string, number> }
  return {
    evm: (chain: Chain.ChainId) => BigInt(body.evm[chain] ?? Number.NaN),
    aptos: BigInt(body.aptos["mainnet"] ?? Number.NaN)
  }
}

/** A wallet's key in the state store's checkpoints. */
export const walletKey = (wallet: WatchedWallet.WatchedWallet): string =>
  wallet.family === "evm" ? `evm:${wallet.chain}:${wallet.address}` : `aptos:${wallet.network}:${wallet.address}`

/** The checkpoint position of every wallet in a state file (read once no process holds it). */
export const readCheckpoints = (state: string): Promise<Map<string, bigint>> =>
  Effect.runPromise(
    Effect.gen(function*() {
      const store = yield* StateStore.StateStore
      const checkpoints = yield* store.checkpoints
      return new Map(checkpoints.map((checkpoint) => [walletKey(checkpoint.wallet), checkpoint.position]))
    }).pipe(Effect.provide(StateStore.layer(state)))
  )

/** The checkpoint of each of `wallets`; throws if one has none. */
export const positionsOf = async (state: string, wallets: ReadonlyArray<WatchedWallet.WatchedWallet>): Promise<Map<string, bigint>> => {
  const all = await readCheckpoints(state)
  for (const wallet of wallets) {
    if (!all.has(walletKey(wallet))) throw new Error(`no checkpoint for ${walletKey(wallet)} in ${state}`)
  }
  return all
}

/**
 * The events the watcher should have printed for `wallets`: for each wallet, its transfers after
 * its position in `from` up to `upTo` (its chain's block or its network's ledger version).
 */
export const truthOf = async (
  sim: Sim,
  wallets: ReadonlyArray<WatchedWallet.WatchedWallet>,
  from: ReadonlyMap<string, bigint>,
  upTo: (wallet: WatchedWallet.WatchedWallet) => bigint
): Promise<Array<WatchEvent.WatchEvent>> => {
  const out: Array<WatchEvent.WatchEvent> = []
  for (const wallet of wallets) {
    const after = from.get(walletKey(wallet))
    if (after === undefined) throw new Error(`no starting position for ${walletKey(wallet)}`)
    if (wallet.family === "evm") out.push(...(await Effect.runPromise(evmTruth(sim, wallet.chain, [wallet], after, upTo(wallet)))))
    else out.push(...aptosTruth(sim, [wallet], after, upTo(wallet)))
  }
  return out
}

/** Each wallet's head: its chain's head block, or its network's ledger version. */
export const headOf = async (sim: Sim) => {
  const now = await heads(sim)
  return (wallet: WatchedWallet.WatchedWallet) => (wallet.family === "evm" ? now.evm(wallet.chain) : now.aptos)
}

// ---------------------------------------------------------------------------------------------
// Seeded randomness
// ---------------------------------------------------------------------------------------------

/** mulberry32: a small seeded generator of numbers in [0, 1), so a test's random choices repeat. */
export const seeded = (seed: number) => {
  let state = seed >>> 0
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  return { next, int: (min: number, max: number) => min + Math.floor(next() * (max - min + 1)) }
}

/**
 * Advances the simulator by about `total` blocks in random steps of `minStep..maxStep` blocks,
 * one step every `everyMs`, while a watcher runs; returns the blocks advanced.
 */
export const drive = async (
  sim: Sim,
  options: { readonly total: number; readonly minStep: number; readonly maxStep: number; readonly everyMs: number; readonly random: ReturnType<typeof seeded> }
): Promise<number> => {
  let advanced = 0
  while (advanced < options.total) {
    const step = Math.min(options.random.int(options.minStep, options.maxStep), options.total - advanced)
    await Effect.runPromise(sim.advance(step))
    advanced += step
    await sleep(options.everyMs)
  }
  return advanced
}
