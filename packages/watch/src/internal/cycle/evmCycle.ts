/**
 * One EVM chain's part of a cycle: baseline, block scanning or per-wallet polling, and the `auto`
 * choice between the two. Both strategies keep the same record of the recent blocks (see
 * `recentBlocks`), so that a cycle of one strategy picks up where a cycle of the other left off,
 * reorganisations included.
 *
 * @internal
 */
import type { Chain } from "@chainquery/schema"
import { Effect } from "effect"
import type { Checkpoint } from "../../StateStore.js"
import type { EvmWallet, WatchedWallet } from "../../WatchedWallet.js"
import { blockScan } from "./blockScan.js"
import { behind, type ChainIndex } from "./chainIndex.js"
import type { ChainInput } from "./chainInput.js"
import { emptyStep, maxOf, type Step } from "./cycleStep.js"
import { evmStart } from "./baseline.js"
import { safeHead } from "./evmReads.js"
import { perWallet } from "./perWallet.js"
import { chainedCycle, chains } from "./parentHashes.js"
import { loadRecent, nothingRecorded, type Recent } from "./recentBlocks.js"
import { stands, witnessedHead } from "./witness.js"
import { recordHeadLag } from "./watchMetrics.js"

/** The first checkpoint of wallets seen for the first time: at `position`, reporting what comes after it. */
const baselineOf = (wallets: ReadonlyArray<EvmWallet>, position: bigint): Array<Checkpoint> =>
  wallets.map((wallet) => ({ wallet, position, hash: null, since: position }))

export const chainCycle = Effect.fnUntraced(function*(input: ChainInput) {
  const { chain, client, confirmations } = input
  // Made once per state of the chain's wallets and checkpoints: nothing here is per wallet.
  const { fresh, tracked } = input.index

  if (tracked.length === 0) {
    // First start: a block that exists (the newest transfer of a few wallets), then the safe head.
    const safe = yield* evmStart(client, chain, fresh, confirmations)
    return { ...emptyStep, checkpoints: baselineOf(fresh, safe) } satisfies Step
  }

  const recording = input.reorgWindow > 0
  // The record of recent blocks, read once for whichever strategy runs.
  const recent = recording ? yield* loadRecent(input.store, chain) : nothingRecorded
  // At the head, by parent hashes when asked (see `parentHashes`); the witness protocol otherwise.
  const chained = chains(input) ? yield* chainedCycle(input, recent) : undefined
  const step = chained ?? (yield* witnessedCycle(input, recent))
  // How many blocks it moved the wallets: what the next cycle chains by (see `parentHashes`).
  input.pace.moved = reachedBy(step, input.index.start) - input.index.start
  return step
})

/** The furthest block a step moves the wallets to from `start` (`start` when none moves). */
const reachedBy = (step: Step, start: bigint): bigint => {
  const moved = step.advances.reduce((a, c) => (c.to > a ? c.to : a), start)
  return step.checkpoints.reduce((a, c) => (c.position > a ? c.position : a), moved)
}

/** A cycle of the witness protocol (see `witness`), or without a record of recent blocks. */
const witnessedCycle = Effect.fnUntraced(function*(input: ChainInput, recent: Recent) {
  const { chain, client, confirmations } = input
  const { fresh, highest, start, tracked } = input.index
  const recording = input.reorgWindow > 0
  // Block scanning that does not follow reorganisations needs no head: it stops at the first
  // unreadable block. Otherwise the head comes first, with the cycle's witness (see `witness`).
  if (input.strategy === "block-scan" && confirmations <= 0 && !recording) {
    return withFresh(yield* blockScan(input, recent, start, undefined), start, fresh)
  }
  const { safe: head, witness } = recording
    ? yield* witnessedHead(client, chain, start, confirmations)
    : { safe: yield* safeHead(client, chain, start, confirmations), witness: undefined }
  // The newest block fully indexed: the safe head and the blocks it must be under.
  const newest = head + BigInt(Math.max(0, confirmations))
  if (recording && witness === undefined) return yield* dropped(chain, newest)
  // At most `maxBlocks` past the lowest checkpoint per cycle (a long stop is caught up over several
  // cycles, each committed), but never short of a wallet's own checkpoint.
  const cap = maxOf([start + BigInt(input.maxBlocks), highest])
  const safe = head < cap ? head : cap
  // Per-wallet polling reads every wallet each cycle when it watches reorgs, only those behind otherwise.
  const walletCost = confirmations <= 0 && input.reorgWindow > 0 ? tracked.length : behind(input.index, safe)
  const scanCost = Number(safe - start)
  const strategy = input.strategy === "auto" ? (scanCost <= walletCost ? "block-scan" : "per-wallet") : input.strategy
  const step = strategy === "per-wallet" ? yield* perWallet(input, tracked, recent, safe) : yield* blockScan(input, recent, start, safe)
  if (witness !== undefined && !(yield* stands(client, chain, witness))) return yield* dropped(chain, witness.block)
  yield* recordHeadLag(chain, newest - furthestBehind(input.index, step, head))
  yield* input.onHead(newest)
  return withFresh(step, start, fresh)
})

/** The block of the wallet furthest behind (at most `head`) once `step` is committed: its new checkpoint, or the one it had. */
const furthestBehind = (index: ChainIndex, step: Step, head: bigint): bigint => {
  let lowest = head
  if (step.checkpoints.length === 0) {
    // Only whole checkpoints moved (or none): counted by checkpoint, not by wallet.
    for (const at of index.crowds.keys()) {
      const position = step.advances.find((a) => a.from === at)?.to ?? at
      if (position < lowest) lowest = position
    }
    return lowest
  }
  // By the wallet itself (the steps' checkpoints carry the tracked wallet): no key per wallet.
  const moved = new Map<WatchedWallet, bigint>()
  for (const c of step.checkpoints) moved.set(c.wallet, c.position)
  for (const t of index.tracked) {
    const position = moved.get(t.wallet) ?? step.advances.find((a) => a.from === t.position)?.to ?? t.position
    if (position < lowest) lowest = position
  }
  return lowest
}

/** A cycle whose reads cannot be vouched for (see `witness`): nothing of it is kept. */
const dropped = (chain: Chain.ChainId, block: bigint) =>
  Effect.as(
    Effect.logInfo(`chain ${chain}: block ${block} changed or could not be read again while this cycle read the chain (a reorganisation); the cycle's reads are dropped and made again next cycle`),
    emptyStep
  )

/**
 * Adds the baseline of wallets first seen this cycle: the block the others reached, which is also
 * their `since` (a reorganisation of a block at or before it is none of theirs).
 */
const withFresh = (step: Step, start: bigint, fresh: ReadonlyArray<EvmWallet>): Step => {
  if (fresh.length === 0) return step
  return { ...step, checkpoints: [...step.checkpoints, ...baselineOf(fresh, reachedBy(step, start))] }
}


