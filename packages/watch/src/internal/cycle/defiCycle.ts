/**
 * DeFi positions in a cycle: A7 per watched wallet and chain (a few at a time), compared with
 * the wallet's last snapshot, which keeps each position's last reported value (a slow drift adds
 * up). The first read of a wallet is its baseline (no event). The events
 * carry the block the wallet's checkpoint had reached when the cycle started, so that a cycle
 * repeated after a crash derives the same ids; the new snapshots are committed with the cycle.
 *
 * @internal
 */
import type { EvmClient } from "@chainquery/evm-client"
import { DateTime, Effect, Option } from "effect"
import { baselineAfter, defiChanges, type DefiEvent } from "../../DefiChanges.js"
import { fromClient as failed } from "../../EngineError.js"
import type { Checkpoint, DefiSnapshot, StateStore } from "../../StateStore.js"
import { type EvmWallet, key } from "../../WatchedWallet.js"

export interface DefiInput {
  readonly client: EvmClient.Service
  readonly store: StateStore["Service"]
  readonly wallets: ReadonlyArray<EvmWallet>
  readonly checkpoints: ReadonlyMap<string, Checkpoint>
  readonly threshold: number
}

export interface DefiStep {
  readonly events: ReadonlyArray<DefiEvent>
  readonly snapshots: ReadonlyArray<DefiSnapshot>
}

const readOne = Effect.fnUntraced(function*(input: DefiInput, wallet: EvmWallet, now: DateTime.Utc) {
  const summaries = yield* input.client.getDefiPositionsSummary({ address: wallet.address, chain: wallet.chain }).pipe(
    Effect.mapError(failed("getDefiPositionsSummary"))
  )
  const previous = yield* input.store.defiSnapshot(wallet)
  const blockNumber = input.checkpoints.get(key(wallet))?.position ?? 0n
  if (Option.isNone(previous)) return { events: [], snapshot: { wallet, blockNumber, summaries } }
  const context = { chain: wallet.chain, wallet: wallet.address, blockNumber, timestamp: now }
  const events = defiChanges(context, previous.value.summaries, summaries, input.threshold)
  const snapshot: DefiSnapshot = { wallet, blockNumber, summaries: baselineAfter(previous.value.summaries, summaries, events) }
  return { events, snapshot }
})

/** Reads every wallet's positions and derives the changes since its last snapshot. */
export const defiCycle = Effect.fnUntraced(function*(input: DefiInput) {
  const now = yield* DateTime.now
  const results = yield* Effect.forEach(input.wallets, (wallet) => readOne(input, wallet, now), { concurrency: 4 })
  return {
    events: results.flatMap((result) => result.events),
    snapshots: results.map((result) => result.snapshot)
  } satisfies DefiStep
})
