/**
 * End to end, "a state file that cannot be opened" is bad input (README, exit codes): the CLI
 * exits 2, names the state file and says why, prints nothing on stdout and starts nothing. A
 * `--state` in a folder that does not exist; a state file held by another running watcher (the
 * first one goes on, unharmed, and the file works again once it stopped).
 */
import { Effect } from "effect"
import { mkdirSync } from "node:fs"
import { join } from "node:path"
import { afterAll, expect, it } from "vitest"
import { busiestEvm } from "../../../../packages/watch/test/support/engineHarness.js"
import {
  compared,
  decodeAll,
  headOf,
  ids,
  runCli,
  simFlags,
  sorted,
  tempDir,
  truthOf,
  walletFlags,
  walletKey,
  Watcher,
  withSimulator
} from "./support/e2e.js"

const dir = tempDir("state-file")
afterAll(() => dir.remove())

it("a --state in a folder that does not exist: exit 2, naming the file and the reason, nothing started", () =>
  withSimulator({ seed: 96, indexing: false, chains: ["0x1"], wallets: 10, history: 5 }, async (sim) => {
    const state = join(dir.path, "no-such-folder", "state.db")
    const result = await runCli([...walletFlags(busiestEvm(sim, "0x1", 1)), ...simFlags(sim, state), "--once"])
    expect(result.code, result.stderr).toBe(2)
    expect(result.stderr).toContain(`cannot open the state file ${state}: unable to open database file`)
    expect(result.stdout).toBe("")
    expect(result.stderr, "nothing was started").not.toMatch(/watching \d+ wallet/)
    expect((await Effect.runPromise(sim.stats)).requests.total, "the service was never asked").toBe(0)
  }), 60_000)

it("a state file in use by another running watcher: the second exits 2, naming the file and the reason; the first goes on", () =>
  withSimulator({ seed: 97, indexing: false, chains: ["0x1"], wallets: 10, history: 5 }, async (sim) => {
    const folder = join(dir.path, "shared")
    mkdirSync(folder)
    const state = join(folder, "state.db")
    const wallets = busiestEvm(sim, "0x1", 3)
    const flags = [...walletFlags(wallets), ...simFlags(sim, state)]
    // The first watcher's baseline is the head when it starts (the simulator advances only when told).
    const head0 = await headOf(sim)
    const baseline = new Map(wallets.map((wallet) => [walletKey(wallet), head0(wallet)]))
    const first = new Watcher([...flags, "--interval", "200ms"])
    try {
      await first.waitFor("the first watcher to start", () => /watching \d+ wallet/.test(first.stderr), 90_000)
      const second = await runCli([...flags, "--once"])
      expect(second.code, second.stderr).toBe(2)
      expect(second.stderr).toContain(
        `cannot open the state file ${state}: database is locked: another process (a second watcher?) is using it`
      )
      expect(second.stdout).toBe("")
      expect(second.stderr, "nothing was started").not.toMatch(/watching \d+ wallet/)

      // The first one goes on: it prints every new event, then stops cleanly.
      await Effect.runPromise(sim.advance(4))
      const truth = ids(await truthOf(sim, wallets, baseline, await headOf(sim)))
      expect(truth.length).toBeGreaterThan(0)
      const missing = () => truth.filter((id) => !ids(compared(first.events())).includes(id))
      await first.waitFor("the first watcher to print the new events", () => missing().length === 0, 90_000)
      expect(await first.stop("SIGTERM"), first.stderr).toEqual({ code: 0, signal: null })
      expect(sorted(ids(compared(decodeAll(first.stdout))))).toEqual(sorted(truth))
    } finally {
      if (first.running) await first.stop("SIGKILL")
    }
    // Once it stopped, the file opens again, with everything committed: nothing more to print.
    const after = await runCli([...flags, "--once"])
    expect(after.code, after.stderr).toBe(0)
    expect(compared(decodeAll(after.stdout))).toEqual([])
  }), 180_000)
