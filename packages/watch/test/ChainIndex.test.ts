/**
 * A chain's index (`internal/cycle/chainIndex.ts`), which the engine keeps between cycles: made
 * from the wallets and their checkpoints, and moved in place by an advance, it answers the same
 * as an index made again from the moved checkpoints; extended with wallets added (`extendIndex`), it
 * answers as one made from all of them.
 */
import { assert, describe, it } from "@effect/vitest"
import { advanceIndex, behind, chainIndex, type ChainIndex, extendIndex } from "../src/internal/cycle/chainIndex.js"
import type { Checkpoint } from "../src/StateStore.js"
import { type EvmWallet, key } from "../src/WatchedWallet.js"

const walletAt = (index: number): EvmWallet => ({
  family: "evm",
  chain: "0x1",
  address: `0x${index.toString(16).padStart(40, "0")}` as EvmWallet["address"]
})

const checkpointsOf = (placed: ReadonlyArray<readonly [EvmWallet, bigint]>) =>
  new Map(placed.map(([wallet, position]): [string, Checkpoint] => [key(wallet), { wallet, position, hash: null, since: 10n }]))

/** What an index answers, in a form to compare. */
const answers = (index: ChainIndex) => ({
  tracked: index.tracked.map((t) => [t.wallet.address, t.position]),
  fresh: index.fresh.map((wallet) => wallet.address),
  start: index.start,
  highest: index.highest,
  crowds: [...index.crowds].toSorted(([a], [b]) => (a < b ? -1 : 1)),
  byAddress: [...index.byAddress()].map(([address, t]) => [address, t.position]),
  behind: [100n, 101n, 104n, 106n].map((block) => behind(index, block))
})

describe("a chain's index", () => {
  it("extended with wallets added, it answers as one made from all of them (the maps by address too)", () => {
    const wallets = Array.from({ length: 7 }, (_, index) => walletAt(index + 1))
    // Three at 100 and 103; added: one below them (97), one above (108), one at 100, one fresh.
    const checkpoints = checkpointsOf([[wallets[0]!, 100n], [wallets[1]!, 103n], [wallets[2]!, 100n], [wallets[3]!, 97n], [wallets[4]!, 108n], [
      wallets[5]!,
      100n
    ]])
    const resting = [{ wallet: walletAt(99), position: 90n, since: 10n, resting: true as const }]
    const index = chainIndex(wallets.slice(0, 3), checkpoints, resting)
    // Looked up before: the maps by address must take the added wallets too.
    index.byAddress()
    index.everyone()
    extendIndex(index, wallets.slice(3), checkpoints)
    const whole = chainIndex(wallets, checkpoints, resting)
    assert.deepStrictEqual(answers(index), answers(whole))
    assert.deepStrictEqual([...index.everyone().keys()].toSorted(), [...whole.everyone().keys()].toSorted())
  })

  it("moved in place by advances, it answers as one made again from the moved checkpoints", () => {
    const wallets = Array.from({ length: 6 }, (_, index) => walletAt(index + 1))
    const placed = (positions: ReadonlyArray<bigint>) => wallets.slice(0, 5).map((wallet, index) => [wallet, positions[index]!] as const)
    // Five wallets tracked (three at 100, two at 103), the sixth fresh.
    const index = chainIndex(wallets, checkpointsOf(placed([100n, 100n, 103n, 100n, 103n])), [])
    // Looked up before the move: the maps by address must follow it too.
    index.byAddress()
    assert.strictEqual(advanceIndex(index, 100n, 105n), 3)
    assert.deepStrictEqual(answers(index), answers(chainIndex(wallets, checkpointsOf(placed([105n, 105n, 103n, 105n, 103n])), [])))
    assert.strictEqual(advanceIndex(index, 103n, 105n), 2, "onto a block others stand at")
    assert.deepStrictEqual(answers(index), answers(chainIndex(wallets, checkpointsOf(placed([105n, 105n, 105n, 105n, 105n])), [])))
    assert.deepStrictEqual([index.start, index.highest, [...index.crowds]], [105n, 105n, [[105n, 5]]])
    assert.strictEqual(advanceIndex(index, 90n, 91n), 0, "nobody stands there: nothing moves")
  })
})
