/**
 * One Aptos network's part of a backfill: wallets batched 50 to a B3 listing, read newest first
 * down to FROM (a ledger version, or a transaction timestamp), emitted oldest first. A wallet
 * with a checkpoint gets the transfers up to it; a wallet without one gets them up to the
 * newest version its batch's listing showed, which becomes its checkpoint (the engine's
 * baseline of a first start, 0 when the batch has no transfer at all).
 *
 * @internal
 */
import type { LedgerClient } from "@chainquery/ledger-client"
import type { AptosToken } from "@chainquery/schema"
import { DateTime, Effect, Stream } from "effect"
import { type AptosEvent, fromAptosTransfer } from "../../AptosEvents.js"
import { type EngineError, fromClient as failed } from "../../EngineError.js"
import type { Checkpoint } from "../../StateStore.js"
import { type AptosNetwork, type AptosWallet, key } from "../../WatchedWallet.js"
import { chunks } from "../chunks.js"
import { aptosBatchSize as batchSize } from "../cycle/baseline.js"
import type { From } from "./backfillPlan.js"
import type { Progress } from "./progressBar.js"

/**
 * What {@link backfillNetwork} reads: one network's wallets, the checkpoints and FROM.
 *
 * `Backfill.run` makes one per watched network, with that network's ledger client, the
 * checkpoints of every wallet by key, its concurrency and its progress bar.
 */
export interface AptosInput {
  readonly client: LedgerClient.Service
  readonly network: AptosNetwork
  readonly wallets: ReadonlyArray<AptosWallet>
  readonly checkpoints: ReadonlyMap<string, Checkpoint>
  readonly from: From
  readonly concurrency: number
  readonly progress: Progress
}

const pageSize = 100

/** Whether a transfer is older than FROM. */
const before = (from: From) => {
  if (from._tag === "Block") return (transfer: AptosToken.TokenTransfer) => transfer.transaction_version < from.block
  const millis = DateTime.toEpochMillis(from.date)
  return (transfer: AptosToken.TokenTransfer) => DateTime.toEpochMillis(transfer.transaction_timestamp) < millis
}

/** One batch: its events oldest first, and the checkpoints of its wallets that had none. */
const readBatch = Effect.fnUntraced(function*(input: AptosInput, batch: ReadonlyArray<AptosWallet>) {
  const old = before(input.from)
  // Newest first, down to and including the first transfer older than FROM: the listing's first
  // record is the newest version seen, even when none is recent enough to print.
  const newestFirst = yield* input.client.streamWalletsNFTTransfers({ walletAddresses: batch.map((w) => w.address), limit: pageSize }).pipe(
    Stream.takeUntil(old),
    Stream.runCollect,
    Effect.mapError(failed("getWalletsNFTTransfers"))
  )
  const newest = newestFirst[0]?.transaction_version ?? 0n
  const bounds = batch.map((wallet) => ({ wallet, upTo: input.checkpoints.get(key(wallet))?.position ?? newest }))
  const events: Array<AptosEvent> = []
  for (const transfer of newestFirst.filter((record) => !old(record)).toReversed()) {
    for (const { upTo, wallet } of bounds) {
      if (transfer.transaction_version <= upTo) events.push(...fromAptosTransfer(input.network, wallet.address, transfer))
    }
  }
  input.progress.found(events.length)
  input.progress.advance(batch.length)
  const checkpoints = batch
    .filter((wallet) => !input.checkpoints.has(key(wallet)))
    .map((wallet): Checkpoint => ({ wallet, position: newest, hash: null }))
  return { events, checkpoints }
})

/**
 * The network's history for the backfill, oldest first, and the checkpoints of its wallets that
 * had none.
 *
 * `Backfill.run` writes the `events`, then commits the `checkpoints`, before it reads the next
 * network.
 */
export const backfillNetwork = Effect.fnUntraced(function*(
  input: AptosInput
): Effect.fn.Return<{ readonly events: ReadonlyArray<AptosEvent>; readonly checkpoints: ReadonlyArray<Checkpoint> }, EngineError> {
  const results = yield* Effect.forEach(chunks(input.wallets, batchSize), (batch) => readBatch(input, batch), {
    concurrency: input.concurrency
  })
  // Batches are read apart: order the network's events by version (stable: a version's events
  // keep their order in the listing).
  const events = results
    .flatMap((result) => result.events)
    .toSorted((a, b) => (a.version === b.version ? 0 : a.version < b.version ? -1 : 1))
  return { events, checkpoints: results.flatMap((result) => result.checkpoints) }
})
