/**
 * One Aptos network's part of a cycle: wallets batched into B3 requests (up to 50 wallets each),
 * read newest first until the transfers reach the batch's lowest checkpoint, emitted oldest
 * first; a wallet's checkpoint is the highest ledger version seen.
 *
 * @internal
 */
import type { LedgerClient } from "@chainquery/ledger-client"
import { Effect, Stream } from "effect"
import { type AptosEvent, fromAptosTransfer } from "../../AptosEvents.js"
import type { Checkpoint } from "../../StateStore.js"
import { type AptosNetwork, type AptosWallet, key } from "../../WatchedWallet.js"
import { fromClient as failed } from "../../EngineError.js"
import { chunks } from "../chunks.js"
import { aptosBatchSize, aptosStart } from "./baseline.js"
import { emptyStep, maxOf, minOf, type Step } from "./cycleStep.js"

const pageSize = 100

export interface NetworkInput {
  readonly client: LedgerClient.Service
  readonly network: AptosNetwork
  readonly wallets: ReadonlyArray<AptosWallet>
  readonly checkpoints: ReadonlyMap<string, Checkpoint>
}

export const networkCycle = Effect.fnUntraced(function*(input: NetworkInput) {
  const { client, network } = input
  const tracked: Array<{ readonly wallet: AptosWallet; readonly position: bigint }> = []
  const fresh: Array<AptosWallet> = []
  for (const wallet of input.wallets) {
    const checkpoint = input.checkpoints.get(key(wallet))
    if (checkpoint === undefined) fresh.push(wallet)
    else tracked.push({ wallet, position: checkpoint.position })
  }
  const events: Array<AptosEvent> = []
  const checkpoints: Array<Checkpoint> = []

  // Baseline: the newest ledger version known, from the newest transfer of each batch of new
  // wallets and the checkpoints of the others. (Per batch, a batch of wallets without any transfer
  // would start at 0, and the batch it joins later would read the whole history of the others.)
  if (fresh.length > 0) {
    const newest = yield* aptosStart(client, fresh)
    const position = maxOf([newest, ...tracked.map((t) => t.position)])
    for (const wallet of fresh) checkpoints.push({ wallet, position, hash: null })
  }

  for (const batch of chunks(tracked, aptosBatchSize)) {
    const floor = minOf(batch.map((t) => t.position))
    const newestFirst = yield* client.streamWalletsNFTTransfers({ walletAddresses: batch.map((t) => t.wallet.address), limit: pageSize }).pipe(
      Stream.takeWhile((transfer) => transfer.transaction_version > floor),
      Stream.runCollect,
      Effect.mapError(failed("getWalletsNFTTransfers"))
    )
    const ascending = [...newestFirst].toReversed()
    for (const transfer of ascending) {
      for (const t of batch) {
        if (transfer.transaction_version > t.position) events.push(...fromAptosTransfer(network, t.wallet.address, transfer))
      }
    }
    const newest = ascending.at(-1)?.transaction_version
    if (newest === undefined) continue
    for (const t of batch) {
      if (newest > t.position) checkpoints.push({ wallet: t.wallet, position: maxOf([newest, t.position]), hash: null })
    }
  }
  // Batches are read one after another: order all of the network's events by version (stable).
  const ordered = events.toSorted((a, b) => (a.version === b.version ? 0 : a.version < b.version ? -1 : 1))
  return { ...emptyStep, events: ordered, checkpoints } satisfies Step
})
