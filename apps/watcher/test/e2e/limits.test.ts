/**
 * End to end, the operator's limits: `--compute-units` keeps the watcher within a service's
 * compute-unit rate (the simulator enforces one and counts its 429s), and `--request-timeout`
 * gives up a request that gets no complete answer (the simulator stalls every answer).
 */
import { join } from "node:path"
import { Effect } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import { busiestEvm } from "../../../../packages/watch/test/support/engineHarness.js"
import { runCli, type Sim, simFlags, tempDir, walletFlags, Watcher, withSimulator } from "./support/e2e.js"

const dir = tempDir("limits")
afterAll(() => dir.remove())

/** A baseline, 20 new blocks, one more cycle: per-wallet polling, one A2 listing per wallet. */
const twoCycles = async (sim: Sim, name: string, extra: ReadonlyArray<string>) => {
  const flags = [...walletFlags(busiestEvm(sim, "0x1", 16)), ...simFlags(sim, join(dir.path, `${name}.db`)), "--strategy", "per-wallet", "--once", ...extra]
  const baseline = await runCli(flags)
  expect(baseline.code, baseline.stderr).toBe(0)
  await Effect.runPromise(sim.advance(20))
  const cycle = await runCli(flags)
  expect(cycle.code, cycle.stderr).toBe(0)
}

describe("operator limits", () => {
  it("--compute-units 20 stays under a service that allows 40 per second; without it, the service answers 429", () =>
    withSimulator({ seed: 81, indexing: false, chains: ["0x1"], rateLimit: { unitsPerSecond: 40 } }, async (sim) => {
      await twoCycles(sim, "limited", ["--compute-units", "20"])
      const limited = await Effect.runPromise(sim.stats)
      // Enough requests that the service's limit matters: more than two seconds' worth of units.
      expect(limited.computeUnits.total).toBeGreaterThan(80)
      expect(limited.rateLimited).toBe(0)
      await Effect.runPromise(sim.resetStats)
      await twoCycles(sim, "unlimited", [])
      const unlimited = await Effect.runPromise(sim.stats)
      expect(unlimited.rateLimited).toBeGreaterThan(0)
    }), 240_000)

  it("--request-timeout 300ms gives up a stalled answer after 300 ms (and its retries), then exits 1 with --once", () =>
    withSimulator({ seed: 82, indexing: false, chains: ["0x1"], faults: { stalled: { probability: 1 } } }, async (sim) => {
      const flags = [...walletFlags(busiestEvm(sim, "0x1", 1)), ...simFlags(sim, join(dir.path, "stalled.db")), "--once"]
      const watcher = new Watcher([...flags, "--request-timeout", "300ms"])
      try {
        // Timed from the first cycle, not from the process start (slow on a loaded machine).
        await watcher.waitFor("the watcher to start", () => /watching \d+ wallet/.test(watcher.stderr), 90_000)
        const started = Date.now()
        const result = await watcher.closed
        // Four attempts of 300 ms and the backoff between them (about 3 s), where the default
        // (four attempts of 10 s) would take over 40 s.
        expect(Date.now() - started).toBeLessThan(20_000)
        expect(result.code).toBe(1)
        expect(watcher.stderr).toMatch(/no complete answer within 300ms/)
        expect(watcher.stdout).toBe("")
      } finally {
        await watcher.stop("SIGKILL")
      }
    }), 180_000)
})
