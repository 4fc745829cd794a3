/**
 * End to end, check 1 of issue #6: the CLI (`--format json --watch transfers`) against a
 * simulator in this process, one long-running process per test (`--interval 100ms`) while the
 * test advances the simulator 100+ blocks in random steps, then SIGTERM (exit 0). What it printed
 * equals the simulator's ground truth from the baseline on: 0 lost, 0 duplicated, for each EVM
 * strategy (busy wallets on eth and polygon) and for Aptos wallets. The tests run concurrently,
 * each with its own simulator.
 */
import { Effect } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import { busiestAptos, busiestEvm } from "../../../../packages/watch/test/support/engineHarness.js"
import { headOf, tempDir, walletKey, withSimulator } from "./support/e2e.js"
import { watchAgainstTruth } from "./support/scenario.js"

const dir = tempDir("truth")
afterAll(() => dir.remove())

const world = { indexing: false, chains: ["0x1", "0x89"], wallets: 30, history: 20 } as const

describe.concurrent("the CLI against the ground truth, 100+ blocks", () => {
  // `auto` watches more wallets, so that block scanning is the cheaper way for a few new blocks
  // (it costs the new blocks plus the reorg window of 6) and per-wallet polling for many.
  for (const [strategy, perChain, seed] of [["block-scan", 4, 61], ["per-wallet", 4, 62], ["auto", 12, 63]] as const) {
    it(`--strategy ${strategy}: every transfer of ${perChain} wallets on each of eth and polygon once, nothing else`, () =>
      withSimulator({ ...world, seed }, async (sim) => {
        const wallets = [...busiestEvm(sim, "0x1", perChain), ...busiestEvm(sim, "0x89", perChain)]
        const result = await watchAgainstTruth({
          sim,
          dir: dir.path,
          name: strategy,
          wallets,
          flags: ["--strategy", strategy],
          seed,
          // The baseline reads a few wallets' latest transfer (A2) whatever the strategy: count after it.
          afterBaseline: () => Effect.runPromise(sim.resetStats)
        })
        expect(result.truth.length).toBeGreaterThan(50)
        // The watcher read up to the head of each chain.
        for (const wallet of wallets) expect(result.final.get(walletKey(wallet))).toBe(result.head(wallet))
        const byOperation = (await Effect.runPromise(sim.stats)).requests.byOperation
        if (strategy === "block-scan") expect(byOperation.getWalletNFTTransfers).toBe(0)
        else expect(byOperation.getWalletNFTTransfers).toBeGreaterThan(0)
        expect(byOperation.getNFTTransfersByBlock).toBeGreaterThan(0)
      }), 300_000)
  }

  it("Aptos mainnet wallets (--ledger-base-url): every token transfer once, nothing else", () =>
    withSimulator({ ...world, seed: 64 }, async (sim) => {
      const wallets = busiestAptos(sim, 5)
      const result = await watchAgainstTruth({ sim, dir: dir.path, name: "aptos", wallets, seed: 64 })
      expect(result.truth.length).toBeGreaterThan(20)
      expect(result.printed.every((event) => event.kind === "aptos.token.in" || event.kind === "aptos.token.out")).toBe(true)
      const head = await headOf(sim)
      for (const wallet of wallets) expect(result.final.get(walletKey(wallet))! <= head(wallet)).toBe(true)
    }), 300_000)
})
