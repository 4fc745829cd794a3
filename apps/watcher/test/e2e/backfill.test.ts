/**
 * End to end, the checks of issue #22 on the real CLI over HTTP: `--backfill FROM --once` of four
 * busy eth wallets over the last 40 blocks, against a simulator that cuts 4% of the bodies short,
 * answers 8% of the requests with a 5xx and 4% with a 429, prints every transfer exactly once, in
 * ten runs in a row (each on a state file of its own); and a backfill of over 2,000 events
 * killed with `kill -9` after its first batch, then started again with the same command, loses
 * nothing and prints again at most the batch it was writing, not the range.
 */
import { Effect } from "effect"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { StateStore, type WatchEvent } from "@chainquery/watch"
import { busiestEvm } from "../../../../packages/watch/test/support/engineHarness.js"
import { standing } from "../../../../packages/watch/test/support/standing.js"
import {
  compared,
  completeLines,
  decode,
  decodeAll,
  duplicates,
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

const dir = tempDir("backfill")
afterAll(() => dir.remove())


const blockOf = (event: WatchEvent.WatchEvent) => ("blockNumber" in event ? event.blockNumber : -1n)

/** The fault mix: bodies cut in half, 5xx and 429 answers. */
const faults = {
  truncated: { probability: 0.04 },
  serverError: { probability: 0.08, statuses: [500, 502, 503, 504] },
  rateLimited: { probability: 0.04, retryAfterSeconds: 0 }
} as const

describe("--backfill on the CLI", () => {
  it("4 busy wallets, the last 40 blocks, 4% cut-short bodies, 8% 5xx, 4% 429: every transfer exactly once, 10 runs in a row", () =>
    withSimulator({ seed: 221, indexing: false, chains: ["0x1"] }, async (sim) => {
      const wallets = busiestEvm(sim, "0x1", 4)
      const head = (await headOf(sim))(wallets[0]!)
      const from = head - 39n
      const truth = await truthOf(sim, wallets, new Map(wallets.map((wallet) => [walletKey(wallet), from - 1n])), () => head)
      expect(truth.length).toBeGreaterThan(60)
      await Effect.runPromise(Effect.andThen(sim.setFaults(faults), sim.resetStats))
      const notes: Array<string> = []
      let tries = 0
      for (let run = 0; run < 10; run++) {
        const flags = [...walletFlags(wallets), ...simFlags(sim, join(dir.path, `faults-${run}.db`)), "--backfill", String(from), "--once"]
        // Run again, as an operator would, if a call still failed after its retries (each fails
        // with a probability of about 0.16^4 here): the backfill goes on from its last batch.
        const printed: Array<WatchEvent.WatchEvent> = []
        for (let attempt = 1; ; attempt++) {
          tries++
          const result = await runCli(flags)
          printed.push(...compared(decodeAll(result.stdout)))
          if (result.code === 0) break
          notes.push(`run ${run} try ${attempt} exited ${result.code}: ${result.stderr.trim().split("\n").at(-1)}`)
          expect(attempt, `run ${run} failed 3 times: ${notes.join("; ")}`).toBeLessThan(3)
        }
        expect(duplicates(ids(printed)), `run ${run} printed an id twice`).toEqual([])
        expect(sorted(ids(standing(printed))), `run ${run}`).toEqual(sorted(ids(truth)))
      }
      const stats = await Effect.runPromise(sim.stats)
      expect(stats.faults.truncated).toBeGreaterThan(0)
      expect(stats.faults.serverError + stats.faults.rateLimited).toBeGreaterThan(0)
      // A call fails after 4 attempts rarely; the old code failed on the first cut-short page.
      expect(tries, notes.join("; ")).toBeLessThanOrEqual(13)
      console.info(`10 backfills, ${tries} runs; faults: ${JSON.stringify(stats.faults)}; ${notes.join("; ")}`)
    }), 300_000)

  it("kill -9 after the first batch, then the same command again: nothing lost, at most the batch in flight printed again, not the range", () =>
    withSimulator({ seed: 222, indexing: false, chains: ["0x1"], history: 800 }, async (sim) => {
      const wallets = busiestEvm(sim, "0x1", 8)
      const head = (await headOf(sim))(wallets[0]!)
      const from = head - 780n
      const truth = await truthOf(sim, wallets, new Map(wallets.map((wallet) => [walletKey(wallet), from - 1n])), () => head)
      // Several batches after the kill's moment: it cannot land in the last one.
      expect(truth.length).toBeGreaterThan(2000)
      const state = join(dir.path, "killed.db")
      const flags = [...walletFlags(wallets), ...simFlags(sim, state), "--backfill", String(from), "--once"]

      const killed = new Watcher(flags)
      try {
        // Past the first batch (about 500 events, never 800): the kill lands in a later one.
        await killed.waitFor("800 lines", () => completeLines(killed.stdout).length >= 800, 120_000)
      } finally {
        await killed.stop("SIGKILL")
      }
      const first = ids(compared(decode(completeLines(killed.stdout))))
      expect(first.length).toBeGreaterThan(0)
      expect(first.length, "killed before the backfill was over").toBeLessThan(truth.length)
      // How far its committed batches got: the next run goes on from there.
      const reached = await Effect.runPromise(
        Effect.map(Effect.flatMap(StateStore.StateStore, (store) => store.backfills), (progress) => progress.map((p) => p.through ?? -1n))
          .pipe(Effect.provide(StateStore.layer(state)))
      )
      expect(reached.length, "the killed run committed how far it got").toBe(wallets.length)
      const committedUpTo = reached.reduce((low, through) => (through < low ? through : low))
      expect(committedUpTo).toBeGreaterThanOrEqual(from)

      const again = await runCli(flags)
      expect(again.code, again.stderr).toBe(0)
      expect(again.stderr).toMatch(/resuming the interrupted backfill of 8 wallet\(s\)/)
      const secondEvents = compared(decodeAll(again.stdout))
      const second = ids(secondEvents)
      expect(sorted([...new Set([...first, ...second])])).toEqual(sorted(ids(truth)))
      // The next run first prints the batch that was in flight (committed as pending, in blocks up
      // to where the committed batches got), then goes on after it: nothing else that was
      // committed is printed again, and what is printed twice is the end of the killed run.
      const inFlight = secondEvents.findIndex((event) => blockOf(event) > committedUpTo)
      const batch = inFlight === -1 ? secondEvents.length : inFlight
      expect(batch, "at most one batch (about 500 events) before the resumed part").toBeLessThanOrEqual(1000)
      for (const event of secondEvents.slice(batch)) expect(blockOf(event) > committedUpTo, `${event.id} was committed before the kill`).toBe(true)
      const seen = new Set(first)
      const repeated = second.filter((id) => seen.has(id))
      expect(repeated.every((id) => second.slice(0, batch).includes(id))).toBe(true)
      expect(repeated).toEqual(first.slice(first.length - repeated.length))
      expect(first.length + second.length - repeated.length).toBe(truth.length)
      expect(second.length, "the next run did not start over").toBeLessThan(truth.length - 400)
      console.info(`kill -9 after ${first.length} of ${truth.length} lines; the next run printed ${second.length}, ${repeated.length} of them again`)
    }), 240_000)
})
