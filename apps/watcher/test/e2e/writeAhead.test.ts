/**
 * End to end, the write-ahead of a batch ("Never lose, never repeat" in the README): a batch is
 * committed with its events pending, written to stdout, then settled. The executable's test hold
 * (`CHAINQUERY_WATCHER_TEST_HOLD`, see `test/support/hold.mjs`) stops it at an exact point of that window, and
 * the test sends `kill -9` there. Killed after the commit but before the batch was written, the
 * next run prints it: nothing is lost. Killed after it was written but before it was settled, the
 * next run prints it again first, with the same ids in the same order, and nothing else.
 */
import { Effect } from "effect"
import { join } from "node:path"
import { afterAll, expect, it } from "vitest"
import { busiestEvm } from "../../../../packages/watch/test/support/engineHarness.js"
import {
  compared,
  completeLines,
  decode,
  decodeAll,
  headOf,
  ids,
  positionsOf,
  runCli,
  simFlags,
  sorted,
  truthOf,
  tempDir,
  walletFlags,
  walletKey,
  Watcher,
  withSimulator
} from "./support/e2e.js"

const dir = tempDir("write-ahead")
afterAll(() => dir.remove())

/**
 * Runs the CLI with `args` until its first write to stdout is held `when` it was written, then
 * kills it with SIGKILL (in a finaliser too); returns what it printed and the held write's lines.
 */
const killedAtHold = async (args: ReadonlyArray<string>, when: "before" | "after") => {
  const watcher = new Watcher(args, { CHAINQUERY_WATCHER_TEST_HOLD: `${when}:1` })
  const marker = new RegExp(`test hold: write 1 \\((\\d+) line\\(s\\)\\) held ${when} it was written`)
  try {
    await watcher.waitFor(`the first batch held ${when} it was written`, () => marker.test(watcher.stderr), 90_000)
    const lines = Number(marker.exec(watcher.stderr)![1])
    // Held after the write: its lines reached the pipe; wait until they were all read here.
    if (when === "after") await watcher.waitFor(`${lines} lines on stdout`, () => completeLines(watcher.stdout).length >= lines, 30_000)
    const ended = await watcher.stop("SIGKILL")
    expect(ended.signal).toBe("SIGKILL")
    return { lines, stdout: watcher.stdout, stderr: watcher.stderr }
  } finally {
    if (watcher.running) await watcher.stop("SIGKILL")
  }
}

it("kill -9 between a batch's commit and its write, then between its write and its settling: nothing lost, only that batch repeated", () =>
  withSimulator({ seed: 93, indexing: false, chains: ["0x1"], wallets: 30, history: 20 }, async (sim) => {
    const wallets = busiestEvm(sim, "0x1", 6)
    const state = join(dir.path, "state.db")
    const flags = [...walletFlags(wallets), ...simFlags(sim, state), "--strategy", "block-scan", "--once"]
    const first = await runCli(flags)
    expect(first.code, first.stderr).toBe(0)
    expect(compared(decodeAll(first.stdout))).toEqual([])
    const baseline = await positionsOf(state, wallets)

    // 1. Committed, not written: the killed run printed nothing, yet its checkpoints moved on.
    await Effect.runPromise(sim.advance(4))
    const head1 = await headOf(sim)
    const truth1 = await truthOf(sim, wallets, baseline, head1)
    expect(truth1.length).toBeGreaterThan(0)
    const before = await killedAtHold(flags, "before")
    expect(before.stdout, "nothing was written before the hold").toBe("")
    expect(before.lines).toBe(truth1.length)
    const committed = await positionsOf(state, wallets)
    for (const wallet of wallets) expect(committed.get(walletKey(wallet)), "the batch was committed before the kill").toBe(head1(wallet))

    // The next run prints the batch the killed run never wrote: nothing is lost.
    const second = await runCli(flags)
    expect(second.code, second.stderr).toBe(0)
    expect(sorted(ids(compared(decodeAll(second.stdout)))), "the batch committed before the kill is printed").toEqual(sorted(ids(truth1)))
    expect(second.stderr).toMatch(new RegExp(`writing again the ${truth1.length} event\\(s\\) of the last batch`))

    // 2. Written, not settled: every line reached stdout, then the kill.
    await Effect.runPromise(sim.advance(4))
    const head2 = await headOf(sim)
    const truth2 = await truthOf(sim, wallets, committed, head2)
    expect(truth2.length).toBeGreaterThan(0)
    const after = await killedAtHold(flags, "after")
    const written = ids(compared(decode(completeLines(after.stdout))))
    expect(after.lines).toBe(truth2.length)
    expect(sorted(written)).toEqual(sorted(ids(truth2)))

    // The next run prints that batch again first, with the same ids in the same order, and nothing else.
    const third = await runCli(flags)
    expect(third.code, third.stderr).toBe(0)
    expect(ids(compared(decodeAll(third.stdout))), "the batch written before the kill is printed again, as it was").toEqual(written)

    // A clean run after that repeats nothing, and every wallet is at the head.
    const fourth = await runCli(flags)
    expect(fourth.code, fourth.stderr).toBe(0)
    expect(compared(decodeAll(fourth.stdout))).toEqual([])
    const final = await positionsOf(state, wallets)
    for (const wallet of wallets) expect(final.get(walletKey(wallet))).toBe(head2(wallet))
  }), 240_000)
