/**
 * The scenario most end-to-end checks share: a baseline (`--once`) on a fresh state file, then one
 * long-running watcher (`--interval 100ms`) while the test advances the simulator 100+ blocks,
 * then SIGTERM. What the watcher printed must equal the simulator's ground truth from the
 * baseline checkpoints to the final heads: every event once, nothing else.
 */
import { join } from "node:path"
import { expect } from "vitest"
import type { WatchedWallet, WatchEvent } from "@chainquery/watch"
import {
  compared,
  decodeAll,
  drive,
  duplicates,
  headOf,
  ids,
  positionsOf,
  runCli,
  seeded,
  type Sim,
  simFlags,
  sleep,
  sorted,
  truthOf,
  walletFlags,
  walletKey,
  Watcher
} from "./e2e.js"

export interface ScenarioOptions {
  readonly sim: Sim
  /** A directory for the state file. */
  readonly dir: string
  readonly name: string
  readonly wallets: ReadonlyArray<WatchedWallet.WatchedWallet>
  /** Further flags, e.g. `--strategy per-wallet`. */
  readonly flags?: ReadonlyArray<string>
  /** Blocks to advance while the watcher runs (default 108). */
  readonly blocks?: number
  /** Each step advances this many blocks (drawn at random, default 1..12). */
  readonly step?: readonly [number, number]
  /** Time between steps (default 150 ms). */
  readonly everyMs?: number
  /** The seed of the step sizes. */
  readonly seed: number
  /** How long the watcher may take to print every event of the ground truth (default 40 s). */
  readonly catchUpMs?: number
  /** Checks the checkpoints right after the baseline, before the watcher starts. */
  readonly afterBaseline?: (baseline: ReadonlyMap<string, bigint>) => void | Promise<void>
}

export interface ScenarioResult {
  readonly printed: ReadonlyArray<WatchEvent.WatchEvent>
  readonly truth: ReadonlyArray<WatchEvent.WatchEvent>
  readonly baseline: ReadonlyMap<string, bigint>
  readonly final: ReadonlyMap<string, bigint>
  readonly head: (wallet: WatchedWallet.WatchedWallet) => bigint
  readonly stderr: string
}

/** Runs the scenario and asserts that the printed events equal the ground truth. */
export const watchAgainstTruth = async (options: ScenarioOptions): Promise<ScenarioResult> => {
  const { sim, wallets } = options
  const state = join(options.dir, `${options.name}.db`)
  const flags = [...walletFlags(wallets), ...simFlags(sim, state), ...(options.flags ?? [])]

  const first = await runCli([...flags, "--once"])
  expect(first.stderr).not.toMatch(/cycle failed/)
  expect(first.code, first.stderr).toBe(0)
  // A fresh state file starts with a baseline: nothing old is printed.
  expect(compared(decodeAll(first.stdout))).toEqual([])
  const baseline = await positionsOf(state, wallets)
  await options.afterBaseline?.(baseline)

  const watcher = new Watcher([...flags, "--interval", "100ms"])
  try {
    await watcher.waitFor("the watcher to start", () => /watching \d+ wallet/.test(watcher.stderr), 90_000)
    const advanced = await drive(sim, {
      total: options.blocks ?? 108,
      minStep: options.step?.[0] ?? 1,
      maxStep: options.step?.[1] ?? 12,
      everyMs: options.everyMs ?? 150,
      random: seeded(options.seed)
    })
    expect(advanced).toBeGreaterThanOrEqual(100)
    const head = await headOf(sim)
    const truth = await truthOf(sim, wallets, baseline, head)
    const wanted = new Set(ids(truth))
    await watcher.waitFor(
      `all ${wanted.size} events of the ground truth`,
      () => {
        const seen = new Set(ids(compared(watcher.events())))
        for (const id of wanted) if (!seen.has(id)) return false
        return true
      },
      options.catchUpMs ?? 120_000
    )
    // A few more cycles: nothing more may come.
    await sleep(600)
    const exit = await watcher.stop("SIGTERM")
    expect(exit, watcher.stderr).toEqual({ code: 0, signal: null })
    const printed = compared(decodeAll(watcher.stdout))
    expect(duplicates(ids(printed))).toEqual([])
    expect(sorted(ids(printed))).toEqual(sorted(ids(truth)))
    // Not one wallet skipped: every wallet had events, and all of them were printed.
    for (const wallet of wallets) {
      expect(truth.filter((event) => event.wallet === wallet.address).length, `${walletKey(wallet)} had no transfers`).toBeGreaterThan(0)
    }
    const final = await positionsOf(state, wallets)
    return { printed, truth, baseline, final, head, stderr: watcher.stderr }
  } finally {
    if (watcher.running) await watcher.stop("SIGKILL")
  }
}
