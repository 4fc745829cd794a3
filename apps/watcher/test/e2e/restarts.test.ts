/**
 * End to end, check 3 of issue #6: a long-running watcher on one state file, killed with
 * SIGKILL 5 times while the simulator advances (3 at random moments from a seeded generator, so
 * the run repeats, and 2 inside a batch's write-ahead, held there by the executable's test hold),
 * restarted each time, and finally stopped with SIGTERM (exit 0). The union of the
 * outputs equals the ground truth. An id may be printed twice only if it belongs to the batch
 * being written when the process was killed: it is among the last lines of that run (every line
 * after it is repeated too), and the next run starts by printing that batch again, in the same
 * order.
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
  duplicates,
  headOf,
  ids,
  positionsOf,
  runCli,
  seeded,
  simFlags,
  sleep,
  sorted,
  tempDir,
  truthOf,
  walletFlags,
  walletKey,
  Watcher,
  withSimulator
} from "./support/e2e.js"

const dir = tempDir("restarts")
afterAll(() => dir.remove())

/** One run of the watcher: the ids of its complete lines (compared kinds only), and how it ended. */
interface Run {
  readonly ids: ReadonlyArray<string>
  readonly killed: boolean
  /** A last line cut by the kill (left out of `ids`). */
  readonly cut: string
  /** Killed once its whole batch was written, before it was settled: later runs must print all of it again. */
  readonly writtenNotSettled?: boolean
}

/**
 * Checks the repeats across runs: for each killed run, the ids printed again by later runs are
 * exactly its last lines (a suffix), and the next run prints them first, in the same order. A
 * run killed before it printed the whole repeated batch passes it on to the run after it.
 * Returns how many ids were repeated.
 */
const checkRepeats = (runs: ReadonlyArray<Run>): number => {
  let repeated = 0
  /** The batch the next run must start with (what the killed runs before it printed but did not commit). */
  let carry: ReadonlyArray<string> = []
  for (const [index, run] of runs.entries()) {
    expect(duplicates(run.ids), `run ${index} printed an id twice`).toEqual([])
    // It starts with what the previous runs left uncommitted (or is cut within it).
    const head = run.ids.slice(0, carry.length)
    expect(head, `run ${index} does not start with the batch the killed run before it was writing`).toEqual(
      carry.slice(0, head.length)
    )
    const later = new Set(runs.slice(index + 1).flatMap((other) => other.ids))
    const again = run.ids.filter((id) => later.has(id))
    if (run.writtenNotSettled === true) {
      expect(again, `run ${index} was killed after its batch was written, before it was settled: it must be printed again`).toEqual(run.ids)
    }
    if (!run.killed) {
      expect(again, `run ${index} was not killed, yet a later run printed its ids again`).toEqual([])
    }
    // The ids printed again are the last lines of this run.
    expect(again, `run ${index}: ids printed again that are not its last lines`).toEqual(run.ids.slice(run.ids.length - again.length))
    repeated += again.length
    if (run.ids.length < carry.length) {
      // Killed while printing the repeated batch again: nothing committed, the next run repeats it all.
      expect(again).toEqual(run.ids)
    } else {
      carry = again
    }
  }
  return repeated
}

it("5 kill -9 (2 inside a batch's write-ahead, 3 at random moments), restarted on one state file: the union is the ground truth, repeats only of the batch being written", () =>
  withSimulator({ seed: 91, indexing: false, chains: ["0x1"], wallets: 30, history: 20 }, async (sim) => {
    // Two generators: the kill moments do not depend on how many steps the driver took meanwhile.
    const random = seeded(2024)
    const steps = seeded(7)
    const wallets = busiestEvm(sim, "0x1", 6)
    const state = join(dir.path, "state.db")
    // Block scanning: a batch read again after a restart comes in the same order (chain order,
    // then the order of the transfer's parties), so the repeated lines can be compared in order.
    const flags = [...walletFlags(wallets), ...simFlags(sim, state), "--strategy", "block-scan", "--interval", "100ms"]

    const first = await runCli([...flags, "--once"])
    expect(first.code, first.stderr).toBe(0)
    expect(compared(decodeAll(first.stdout))).toEqual([])
    const baseline = await positionsOf(state, wallets)

    // The simulator advances all along, 1 to 6 blocks every 150 ms, until the kills are done and
    // 100+ blocks were made.
    const drivingUntil = { killsDone: false }
    let advanced = 0
    const driving = (async () => {
      while (!drivingUntil.killsDone || advanced < 108) {
        const step = steps.int(1, 6)
        await Effect.runPromise(sim.advance(step))
        advanced += step
        await sleep(150)
      }
    })()

    const runs: Array<Run> = []
    const moments: Array<string> = []
    try {
      for (let kill = 0; kill < 5; kill++) {
        // Kills 2 and 4 land inside a batch's write-ahead for sure: the executable's test hold
        // stops its first write before the text is written (committed, not printed), or after it
        // (printed, not settled).
        const held = kill === 1 ? "before" : kill === 3 ? "after" : undefined
        const watcher = new Watcher(flags, held === undefined ? {} : { CHAINQUERY_WATCHER_TEST_HOLD: `${held}:1` })
        try {
          if (held !== undefined) {
            // Held at its first write (maybe of the batch a killed run left pending, before it
            // logs its start): killed with that batch committed but not printed, or printed but
            // not settled.
            moments.push(`held ${held} its first write`)
            const marker = new RegExp(`test hold: write 1 \\((\\d+) line\\(s\\)\\) held ${held}`)
            await watcher.waitFor(`the first write held ${held} it was written`, () => marker.test(watcher.stderr), 90_000)
            const lines = Number(marker.exec(watcher.stderr)![1])
            const printed = held === "before" ? 0 : lines
            await watcher.waitFor(`${printed} lines on stdout`, () => completeLines(watcher.stdout).length >= printed, 30_000)
            expect(completeLines(watcher.stdout).length).toBe(printed)
          } else {
            await watcher.waitFor("the watcher to start", () => /watching \d+ wallet/.test(watcher.stderr), 90_000)
            // A random moment: either a random time after the start, or right when a chosen batch
            // of output arrives.
            if (random.next() < 0.5) {
              const ms = random.int(0, 1500)
              moments.push(`${ms} ms after start`)
              await sleep(ms)
            } else {
              const chunks = watcher.chunks + random.int(1, 3)
              moments.push(`on output chunk ${chunks}`)
              await watcher.waitFor(`output chunk ${chunks}`, () => watcher.chunks >= chunks, 10_000).catch(() => undefined)
            }
          }
          const ended = await watcher.stop("SIGKILL")
          expect(ended.signal).toBe("SIGKILL")
        } finally {
          if (watcher.running) await watcher.stop("SIGKILL")
        }
        const lines = completeLines(watcher.stdout)
        const cut = watcher.stdout.endsWith("\n") || watcher.stdout === "" ? "" : watcher.stdout.slice(watcher.stdout.lastIndexOf("\n") + 1)
        runs.push({ ids: ids(compared(decode(lines))), killed: true, cut, writtenNotSettled: held === "after" })
      }
    } finally {
      drivingUntil.killsDone = true
      await driving
    }
    expect(advanced).toBeGreaterThanOrEqual(100)

    // The last run catches up, then is stopped with SIGTERM.
    const head = await headOf(sim)
    const truth = await truthOf(sim, wallets, baseline, head)
    const last = new Watcher(flags)
    try {
      const before = new Set(runs.flatMap((run) => run.ids))
      await last.waitFor("the watcher to start", () => /watching \d+ wallet/.test(last.stderr), 90_000)
      const missing = () => {
        const seen = new Set([...before, ...ids(compared(last.events()))])
        return truth.filter((event) => !seen.has(event.id))
      }
      await last.waitFor("the union of the outputs to hold the ground truth", () => missing().length === 0, 120_000).catch((error) => {
        const lost = missing()
        throw new Error(
          `${lost.length} events of the ground truth were never printed (e.g. ${lost.slice(0, 3).map((event) => event.id).join(", ")}); kills: ${moments.join(", ")}; lines per run: ${runs.map((run) => run.ids.length).join(", ")}; ${String(error)}`
        )
      })
      // A few cycles more: it reads up to the head (checked below) and prints nothing more.
      await sleep(1000)
      const exit = await last.stop("SIGTERM")
      expect(exit, last.stderr).toEqual({ code: 0, signal: null })
    } finally {
      if (last.running) await last.stop("SIGKILL")
    }
    runs.push({ ids: ids(compared(decodeAll(last.stdout))), killed: false, cut: "" })

    expect(truth.length).toBeGreaterThan(50)
    expect(sorted([...new Set(runs.flatMap((run) => run.ids))])).toEqual(sorted(ids(truth)))
    const repeated = checkRepeats(runs)
    const final = await positionsOf(state, wallets)
    for (const wallet of wallets) expect(final.get(walletKey(wallet))).toBe(head(wallet))
    // What the run did, for the record (the kill moments repeat with the seed; what they hit may vary).
    console.info(
      `kills: ${moments.join(", ")}; lines per run: ${runs.map((run) => run.ids.length).join(", ")}; repeated ids: ${repeated}; cut lines: ${runs.filter((run) => run.cut !== "").length}`
    )
  }), 240_000)

it("kill -9 while the reader of stdout is slow: no event is lost", () =>
  withSimulator({ seed: 92, indexing: false, chains: ["0x1"], wallets: 30, history: 20 }, async (sim) => {
    const wallets = busiestEvm(sim, "0x1", 6)
    const state = join(dir.path, "slow-reader.db")
    const flags = [...walletFlags(wallets), ...simFlags(sim, state), "--strategy", "block-scan", "--interval", "100ms"]
    const first = await runCli([...flags, "--once"])
    expect(first.code, first.stderr).toBe(0)
    const baseline = await positionsOf(state, wallets)
    // One batch of about a thousand lines (~600 KB): more than the stdout socket holds (~200 KB).
    await Effect.runPromise(sim.advance(150))
    const head = await headOf(sim)
    const truth = await truthOf(sim, wallets, baseline, head)
    expect(truth.length).toBeGreaterThan(700)

    // The consumer stops reading for a while, as a busy supervisor may (stdout is a socket, as
    // Node's child_process and systemd's journal give): the watcher's first cycle fills the
    // socket, the rest of its batch waits in the process. It is killed once the socket holds
    // several lines (printed after their batch was committed); what it held is read afterwards.
    const slow = new Watcher(flags)
    slow.child.stdout!.pause()
    try {
      await slow.waitFor("the watcher to start", () => /watching \d+ wallet/.test(slow.stderr), 90_000)
      await slow.waitFor("the first batch in the socket", () => slow.child.stdout!.readableLength > 8192, 90_000)
      await sleep(500)
    } finally {
      slow.child.kill("SIGKILL")
      slow.child.stdout!.resume()
      await slow.stop("SIGKILL")
    }
    const killed = ids(compared(decode(completeLines(slow.stdout))))
    expect(killed.length).toBeGreaterThan(0)

    const next = new Watcher(flags)
    try {
      await next.waitFor("the watcher to start", () => /watching \d+ wallet/.test(next.stderr), 90_000)
      await sleep(1500)
      expect(await next.stop("SIGTERM"), next.stderr).toEqual({ code: 0, signal: null })
    } finally {
      if (next.running) await next.stop("SIGKILL")
    }
    const restarted = ids(compared(decodeAll(next.stdout)))
    const seen = new Set([...killed, ...restarted])
    const lost = truth.filter((event) => !seen.has(event.id))
    expect(
      lost.length,
      `${lost.length} of ${truth.length} events never printed: the killed run got ${killed.length} lines out, the next run printed ${restarted.length}`
    ).toBe(0)
    expect(sorted([...seen])).toEqual(sorted(ids(truth)))
    checkRepeats([
      { ids: killed, killed: true, cut: "" },
      { ids: restarted, killed: false, cut: "" }
    ])
  }), 180_000)
