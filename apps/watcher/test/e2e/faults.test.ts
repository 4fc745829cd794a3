/**
 * End to end, check 2 of issue #6: the same as `truth.test.ts` while the simulator answers 20% of
 * the requests with a fault (429, 5xx, dropped connections, truncated and malformed bodies, and
 * answers that stall until the client's attempt timeout), on top of random latency. The process
 * must not die, must not skip a wallet, and must print the ground truth exactly once. The tests
 * run concurrently, each with its own simulator.
 */
import { Effect } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import type { WatchedWallet } from "@chainquery/watch"
import { busiestAptos, busiestEvm } from "../../../../packages/watch/test/support/engineHarness.js"
import { type Sim, tempDir, withSimulator } from "./support/e2e.js"
import { watchAgainstTruth } from "./support/scenario.js"

/** 20% of requests faulted: the kinds that replace an answer add up to 0.2; latency comes on top. */
const faults = {
  rateLimited: { probability: 0.05, retryAfterSeconds: 0 },
  serverError: { probability: 0.065, statuses: [500, 502, 503, 504] },
  reset: { probability: 0.03 },
  truncated: { probability: 0.025 },
  malformed: { probability: 0.025 },
  // A stalled answer costs the request timeout (`--request-timeout 2s` below; 10 s by default).
  stalled: { probability: 0.005 },
  latency: { probability: 0.3, ms: 5, jitterMs: 40 }
} as const

const replacing = ["rateLimited", "serverError", "reset", "truncated", "malformed", "stalled", "huge"] as const

const dir = tempDir("faults")
afterAll(() => dir.remove())

const world = { indexing: false, chains: ["0x1", "0x89"], wallets: 30, history: 20 } as const

/** Switches the faults on once the baseline is taken (a `--once` baseline fails on a fault it cannot retry). */
const faultsOn = (sim: Sim) => () => Effect.runPromise(Effect.andThen(sim.setFaults(faults), sim.resetStats))

const evm = (sim: Sim) => [...busiestEvm(sim, "0x1", 4), ...busiestEvm(sim, "0x89", 4)]

describe.concurrent("the CLI against the ground truth with 20% faults", () => {
  const cases: ReadonlyArray<readonly [string, (sim: Sim) => ReadonlyArray<WatchedWallet.WatchedWallet>, ReadonlyArray<string>, number]> = [
    ["--strategy block-scan", evm, ["--strategy", "block-scan"], 71],
    ["--strategy per-wallet", evm, ["--strategy", "per-wallet"], 72],
    ["--strategy auto", evm, ["--strategy", "auto"], 73],
    ["Aptos wallets", (sim) => busiestAptos(sim, 5), [], 74]
  ]
  for (const [name, walletsOf, flags, seed] of cases) {
    it(`${name}: the process survives, skips no wallet, prints every transfer once`, () =>
      withSimulator({ ...world, seed }, async (sim) => {
        const result = await watchAgainstTruth({
          sim,
          dir: dir.path,
          name: `faults-${seed}`,
          wallets: walletsOf(sim),
          flags: [...flags, "--request-timeout", "2s"],
          seed,
          afterBaseline: faultsOn(sim),
          catchUpMs: 120_000
        })
        expect(result.truth.length).toBeGreaterThan(20)
        const stats = await Effect.runPromise(sim.stats)
        // Faults were really injected while it ran.
        const injected = replacing.reduce((sum, kind) => sum + stats.faults[kind], 0)
        expect(injected).toBeGreaterThan(0)
        if (name !== "Aptos wallets") {
          // Many requests, so faults of several kinds. (Block scanning makes few requests a cycle:
          // `auto` drew 10 faults in one run, so the bound leaves room below that.)
          expect(injected).toBeGreaterThan(4)
          expect(stats.faults.serverError + stats.faults.rateLimited).toBeGreaterThan(0)
          expect(stats.faults.truncated + stats.faults.malformed + stats.faults.reset).toBeGreaterThan(0)
        }
      }), 300_000)
  }
})
