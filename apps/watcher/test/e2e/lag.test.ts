/**
 * End to end, check 4 of issue #6: with the simulator's indexing lag on (the newest block of a
 * chain is often not fully indexed yet: A1/A2 say `index_complete: false` and leave out its
 * transfers), repeated `--once` runs on one state file while the test advances the simulator
 * 100+ blocks. After every run the checkpoint of every wallet is the newest fully indexed block,
 * never past it, and nothing was printed from a block past it; the union of the runs is the
 * ground truth, with no event lost or printed twice. The tests run concurrently, each with its
 * own simulator.
 */
import { Effect } from "effect"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import type { WatchEvent } from "@chainquery/watch"
import { busiestEvm } from "../../../../packages/watch/test/support/engineHarness.js"
import {
  compared,
  decodeAll,
  duplicates,
  ids,
  positionsOf,
  runCli,
  seeded,
  simFlags,
  sorted,
  tempDir,
  truthOf,
  walletFlags,
  walletKey,
  withSimulator
} from "./support/e2e.js"

const dir = tempDir("lag")
afterAll(() => dir.remove())

const chains = ["0x1", "0x89"] as const

describe.concurrent("indexing lag: --once runs over 100+ blocks", () => {
  // `auto` watches more wallets, so that it scans blocks after a small advance and polls wallets
  // after a large one.
  for (const [strategy, perChain, seed] of [["block-scan", 3, 31], ["per-wallet", 3, 32], ["auto", 10, 33]] as const) {
    it(`--strategy ${strategy}: the checkpoint never passes an incompletely indexed block, no event lost or repeated`, () =>
      withSimulator(
        { seed, indexing: { lagProbability: 0.5, syncBlocks: 0 }, chains: [...chains], wallets: 30, history: 20 },
        async (sim) => {
          const random = seeded(seed)
          const wallets = chains.flatMap((chain) => busiestEvm(sim, chain, perChain))
          const state = join(dir.path, `${strategy}.db`)
          const flags = [...walletFlags(wallets), ...simFlags(sim, state), "--strategy", strategy, "--once"]
          const indexed = (chain: string) => BigInt(sim.world.evm.indexedHead(chain as (typeof chains)[number]))
          const headOf = (chain: string) => BigInt(sim.world.evm.chain(chain as (typeof chains)[number]).head)

          /** One run: exit 0, printed events only from indexed blocks, checkpoints at the indexed head. */
          const once = async (): Promise<Array<WatchEvent.WatchEvent>> => {
            const result = await runCli(flags)
            expect(result.code, result.stderr).toBe(0)
            expect(result.stderr).not.toMatch(/cycle failed/)
            const events = compared(decodeAll(result.stdout))
            for (const event of events) {
              if ("blockNumber" in event) {
                expect(event.blockNumber <= indexed(event.chain), `${event.id} is from a block past the indexed head`).toBe(true)
              }
            }
            const positions = await positionsOf(state, wallets)
            for (const wallet of wallets) {
              if (wallet.family !== "evm") continue
              const position = positions.get(walletKey(wallet))!
              expect(position <= indexed(wallet.chain), `${walletKey(wallet)}: checkpoint ${position} past the indexed head ${indexed(wallet.chain)}`).toBe(true)
              expect(position, `${walletKey(wallet)} did not read up to the indexed head`).toBe(indexed(wallet.chain))
            }
            return events
          }

          expect(await once()).toEqual([])
          const baseline = await positionsOf(state, wallets)
          const printed: Array<WatchEvent.WatchEvent> = []
          let advanced = 0
          let lagged = 0
          let runs = 0
          while (advanced < 108) {
            const step = random.int(12, 24)
            await Effect.runPromise(sim.advance(step))
            advanced += step
            // Most runs meet a newest block not yet indexed: a block more, a few times, until one chain lags.
            const isLagging = () => chains.some((chain) => indexed(chain) < headOf(chain))
            for (let extra = 0; extra < 4 && !isLagging(); extra++) {
              await Effect.runPromise(sim.advance(1))
              advanced += 1
            }
            runs++
            if (isLagging()) lagged++
            printed.push(...(await once()))
          }
          // The lag was really there, on most runs.
          expect(lagged).toBeGreaterThan(runs / 2)
          const truth = await truthOf(sim, wallets, baseline, (wallet) => (wallet.family === "evm" ? indexed(wallet.chain) : 0n))
          expect(truth.length).toBeGreaterThan(50)
          expect(duplicates(ids(printed))).toEqual([])
          expect(sorted(ids(printed))).toEqual(sorted(ids(truth)))
        }
      ), 300_000)
  }
})
