/**
 * End to end, check 5 of issue #6: `--once` runs on one state file, every wallet of the world
 * watched through `--wallets-file`. A reorganisation of depth 2 between two runs (without
 * `--confirmations`) yields one `retracted` event per orphaned event (`retracts` = its id),
 * before the replacement events; once the retractions are applied, what was printed is the
 * ground truth of the new chain. With `--confirmations 3` the same reorganisation retracts
 * nothing and nothing orphaned is ever printed. The tests run concurrently, each with its own
 * simulator.
 */
import { Effect } from "effect"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { WalletSpec, type WatchEvent } from "@chainquery/watch"
import { allEvm } from "../../../../packages/watch/test/support/engineHarness.js"
import {
  compared,
  decodeAll,
  duplicates,
  ids,
  positionsOf,
  runCli,
  type Sim,
  simFlags,
  sorted,
  tempDir,
  truthOf,
  walletKey,
  withSimulator
} from "./support/e2e.js"

const dir = tempDir("reorg")
afterAll(() => dir.remove())

const world = { indexing: false, chains: ["0x1"], wallets: 30, history: 20 } as const

/** Every wallet of the world on eth, in a wallet file; the `--once` run over it. */
const setUp = (sim: Sim, name: string, flags: ReadonlyArray<string>) => {
  const wallets = allEvm(sim, "0x1")
  const file = join(dir.path, `${name}.txt`)
  writeFileSync(file, ["# every wallet of the simulated world", ...wallets.map(WalletSpec.toSpec)].join("\n"))
  const state = join(dir.path, `${name}.db`)
  const once = async (): Promise<Array<WatchEvent.WatchEvent>> => {
    const result = await runCli(["--wallets-file", file, ...simFlags(sim, state), ...flags, "--once"])
    expect(result.code, result.stderr).toBe(0)
    return compared(decodeAll(result.stdout))
  }
  return { wallets, state, once }
}

const head = (sim: Sim) => BigInt(sim.world.evm.chain("0x1").head)
const advance = (sim: Sim, blocks: number) => Effect.runPromise(sim.advance(blocks))
const blockOf = (event: WatchEvent.WatchEvent): bigint => ("blockNumber" in event ? event.blockNumber : -1n)

describe.concurrent("a reorganisation of depth 2 between two runs", () => {
  for (const [strategy, seed] of [["block-scan", 41], ["per-wallet", 42], ["auto", 43]] as const) {
    it(`--strategy ${strategy}: one retraction per orphaned event, before the new events; then the truth of the new chain`, () =>
      withSimulator({ ...world, seed }, async (sim) => {
        const { once, state, wallets } = setUp(sim, strategy, ["--strategy", strategy])
        expect(await once()).toEqual([])
        const baseline = await positionsOf(state, wallets)

        await advance(sim, 6)
        const before = await once()
        // Before the reorganisation, the ground truth of the old chain.
        const oldTruth = await truthOf(sim, wallets, baseline, () => head(sim))
        expect(sorted(ids(before))).toEqual(sorted(ids(oldTruth)))

        const fromBlock = BigInt(await Effect.runPromise(sim.reorg("0x1", 2)))
        expect(fromBlock).toBe(head(sim) - 1n)
        const orphaned = before.filter((event) => blockOf(event) >= fromBlock)
        expect(orphaned.length).toBeGreaterThan(0)

        const after = await once()
        const retractions = after.filter((event) => event.kind === "retracted")
        // One retraction per orphaned event, naming it, for its wallet and block.
        expect(sorted(retractions.map((event) => event.retracts))).toEqual(sorted(ids(orphaned)))
        expect(duplicates(ids(retractions))).toEqual([])
        const byId = new Map(orphaned.map((event) => [event.id, event]))
        for (const retraction of retractions) {
          const original = byId.get(retraction.retracts)!
          expect(retraction.wallet).toBe(original.wallet)
          expect(retraction.blockNumber).toBe(blockOf(original))
        }
        // The retractions come first, then the new events (the replaced blocks' transfers).
        const replacements = after.filter((event) => event.kind !== "retracted")
        expect(after.slice(0, retractions.length)).toEqual(retractions)
        expect(replacements.length).toBeGreaterThan(0)
        for (const event of replacements) expect(blockOf(event) >= fromBlock).toBe(true)

        await advance(sim, 3)
        const later = await once()
        expect(later.filter((event) => event.kind === "retracted")).toEqual([])

        // Applied in order, the retractions leave the ground truth of the new chain.
        const all = [...before, ...after, ...later]
        const gone = new Set(all.flatMap((event) => (event.kind === "retracted" ? [event.retracts] : [])))
        const standing = all.filter((event) => event.kind !== "retracted" && !gone.has(event.id))
        const final = await positionsOf(state, wallets)
        for (const wallet of wallets) expect(final.get(walletKey(wallet))).toBe(head(sim))
        const truth = await truthOf(sim, wallets, baseline, () => head(sim))
        expect(duplicates(ids(standing))).toEqual([])
        expect(sorted(ids(standing))).toEqual(sorted(ids(truth)))
        // Nothing orphaned stands.
        for (const event of orphaned) expect(gone.has(event.id)).toBe(true)
      }), 180_000)
  }

  it("--confirmations 3: nothing is retracted and nothing orphaned is printed", () =>
    withSimulator({ ...world, seed: 44 }, async (sim) => {
      const { once, state, wallets } = setUp(sim, "confirmations", ["--confirmations", "3"])
      expect(await once()).toEqual([])
      const baseline = await positionsOf(state, wallets)
      for (const wallet of wallets) expect(baseline.get(walletKey(wallet))).toBe(head(sim) - 3n)

      await advance(sim, 6)
      const before = await once()
      // The two newest blocks, about to be orphaned: their transfers of the watched wallets.
      const doomed = (await truthOf(sim, wallets, new Map(wallets.map((w) => [walletKey(w), head(sim) - 2n])), () => head(sim)))
      expect(doomed.length).toBeGreaterThan(0)
      expect(await Effect.runPromise(sim.reorg("0x1", 2))).toBe(Number(head(sim) - 1n))
      const after = await once()
      await advance(sim, 3)
      const later = await once()

      const all = [...before, ...after, ...later]
      expect(all.filter((event) => event.kind === "retracted")).toEqual([])
      const doomedIds = new Set(ids(doomed))
      expect(all.filter((event) => doomedIds.has(event.id))).toEqual([])
      // What was printed is the new chain's truth up to 3 blocks below its head (the replaced
      // blocks included, in their new form).
      const final = await positionsOf(state, wallets)
      for (const wallet of wallets) expect(final.get(walletKey(wallet))).toBe(head(sim) - 3n)
      const truth = await truthOf(sim, wallets, baseline, () => head(sim) - 3n)
      expect(truth.some((event) => blockOf(event) >= head(sim) - 4n)).toBe(true)
      expect(duplicates(ids(all))).toEqual([])
      expect(sorted(ids(all))).toEqual(sorted(ids(truth)))
    }), 180_000)
})
