/**
 * The state store's reads and its one-transaction commit, as plain synchronous functions over an
 * open database (they throw on failure; `StateStore` turns that into typed errors).
 *
 * @internal
 */
import type { Chain } from "@chainquery/schema"
import { DateTime } from "effect"
import type { DatabaseSync, SQLOutputValue } from "node:sqlite"
import type { BackfillProgress, Batch, BlockEvents, BlockHash, Checkpoint, DefiSnapshot, LastBatch } from "../../StateStore.js"
import type { EvmWallet, WatchedWallet } from "../../WatchedWallet.js"
import type { WatchEvent } from "../../WatchEvent.js"
import { checkAdvanced } from "./advance.js"
import { transaction } from "./sqlite.js"
import { decodeEvents, decodePending, decodeSummaries, encodeEvents, encodePending, encodeSummaries, scopeOf, walletOf } from "./stateCodecs.js"

const bigintOf = (value: SQLOutputValue | undefined): bigint => typeof value === "bigint" ? value : BigInt(String(value))
const stringOf = (value: SQLOutputValue | undefined): string => String(value)
/** A checkpoint's `since`; a row of an older watcher has none: every block before it is the wallet's. */
const sinceOf = (value: SQLOutputValue | undefined): bigint => value === null || value === undefined ? 0n : bigintOf(value)
const nullableBigint = (value: SQLOutputValue | undefined): bigint | null => value === null || value === undefined ? null : bigintOf(value)
const hashOf = (value: SQLOutputValue | undefined): string | null => value === null || value === undefined ? null : String(value)

/** The operations of the state store over `db`, keeping `keepBlocks` block hashes per chain. */
export const stateTables = (db: DatabaseSync, keepBlocks: number) => {
  const sql = {
    checkpoints: db.prepare("SELECT scope, wallet, position, hash, since FROM checkpoints ORDER BY scope, wallet"),
    checkpoint: db.prepare("SELECT position, hash, since FROM checkpoints WHERE scope = ? AND wallet = ?"),
    blockHashes: db.prepare("SELECT number, hash FROM block_hashes WHERE chain = ? ORDER BY number"),
    defi: db.prepare("SELECT block, summaries FROM defi_snapshots WHERE chain = ? AND wallet = ?"),
    batch: db.prepare("SELECT sequence, committed_at FROM last_batch WHERE id = 1"),
    batchEvents: db.prepare("SELECT event_id FROM last_batch_events ORDER BY position"),
    putCheckpoint: db.prepare(
      "INSERT INTO checkpoints (scope, wallet, position, hash, since) VALUES (?, ?, ?, ?, ?) " +
        "ON CONFLICT (scope, wallet) DO UPDATE SET position = excluded.position, hash = excluded.hash"
    ),
    advance: db.prepare("UPDATE checkpoints SET position = ?, hash = ? WHERE scope = ? AND position = ?"),
    forgetBlocks: db.prepare("DELETE FROM block_hashes WHERE chain = ? AND number >= ?"),
    putBlock: db.prepare("INSERT OR REPLACE INTO block_hashes (chain, number, hash) VALUES (?, ?, ?)"),
    pruneBlocks: db.prepare(
      "DELETE FROM block_hashes WHERE chain = ? AND number <= (SELECT MAX(number) FROM block_hashes WHERE chain = ?) - ?"
    ),
    blockEvents: db.prepare("SELECT number, hash, events FROM block_events WHERE chain = ? ORDER BY number"),
    forgetBlockEvents: db.prepare("DELETE FROM block_events WHERE chain = ? AND number >= ?"),
    putBlockEvents: db.prepare("INSERT OR REPLACE INTO block_events (chain, number, hash, events) VALUES (?, ?, ?, ?)"),
    dropBlockEvents: db.prepare("DELETE FROM block_events WHERE chain = ? AND number = ?"),
    pruneBlockEvents: db.prepare(
      "DELETE FROM block_events WHERE chain = ? AND number <= (SELECT MAX(number) FROM block_events WHERE chain = ?) - ?"
    ),
    putDefi: db.prepare("INSERT OR REPLACE INTO defi_snapshots (chain, wallet, block, summaries) VALUES (?, ?, ?, ?)"),
    clearEvents: db.prepare("DELETE FROM last_batch_events"),
    pending: db.prepare("SELECT event FROM pending_events ORDER BY position"),
    clearPending: db.prepare("DELETE FROM pending_events"),
    settle: db.prepare("DELETE FROM pending_events WHERE (SELECT sequence FROM last_batch WHERE id = 1) = ?"),
    putPending: db.prepare("INSERT INTO pending_events (position, event) VALUES (?, ?)"),
    putEvent: db.prepare("INSERT INTO last_batch_events (position, event_id) VALUES (?, ?)"),
    backfills: db.prepare("SELECT chain, wallet, label, origin, through, from_date, up_to, since FROM backfills ORDER BY chain, wallet"),
    putBackfill: db.prepare(
      "INSERT OR REPLACE INTO backfills (chain, wallet, label, origin, through, from_date, up_to, since) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
    ),
    dropBackfill: db.prepare("DELETE FROM backfills WHERE chain = ? AND wallet = ?"),
    putBatch: db.prepare(
      "INSERT INTO last_batch (id, sequence, committed_at) VALUES (1, 1, ?) " +
        "ON CONFLICT (id) DO UPDATE SET sequence = sequence + 1, committed_at = excluded.committed_at"
    )
  }

  return {
    checkpoints: (): Array<Checkpoint> =>
      sql.checkpoints.all().map((row) => ({
        wallet: walletOf(stringOf(row["scope"]), stringOf(row["wallet"])),
        position: bigintOf(row["position"]),
        hash: hashOf(row["hash"]),
        since: sinceOf(row["since"])
      })),

    checkpoint: (wallet: WatchedWallet): Checkpoint | undefined => {
      const row = sql.checkpoint.get(scopeOf(wallet), wallet.address)
      return row === undefined ? undefined : { wallet, position: bigintOf(row["position"]), hash: hashOf(row["hash"]), since: sinceOf(row["since"]) }
    },

    blockHashes: (chain: Chain.ChainId): Array<BlockHash> =>
      sql.blockHashes.all(chain).map((row) => ({ chain, number: bigintOf(row["number"]), hash: stringOf(row["hash"]) })),

    blockEvents: (chain: Chain.ChainId): Array<BlockEvents> =>
      sql.blockEvents.all(chain).map((row) => ({
        chain,
        number: bigintOf(row["number"]),
        hash: stringOf(row["hash"]),
        events: decodeEvents(stringOf(row["events"]))
      })),

    defiSnapshot: (wallet: EvmWallet): DefiSnapshot | undefined => {
      const row = sql.defi.get(wallet.chain, wallet.address)
      return row === undefined
        ? undefined
        : { wallet, blockNumber: bigintOf(row["block"]), summaries: decodeSummaries(stringOf(row["summaries"])) }
    },

    pendingEvents: (): Array<WatchEvent> => sql.pending.all().map((row) => decodePending(stringOf(row["event"]))),

    backfills: (): Array<BackfillProgress> =>
      sql.backfills.all().map((row) => ({
        wallet: walletOf(stringOf(row["chain"]), stringOf(row["wallet"])) as EvmWallet,
        label: stringOf(row["label"]),
        origin: nullableBigint(row["origin"]),
        through: nullableBigint(row["through"]),
        fromDate: row["from_date"] === null || row["from_date"] === undefined ? null : DateTime.makeUnsafe(Number(row["from_date"])),
        upTo: bigintOf(row["up_to"]),
        since: nullableBigint(row["since"])
      })),

    clearPending: (): void => {
      sql.clearPending.run()
    },

    settle: (sequence: number): void => {
      sql.settle.run(sequence)
    },

    lastBatch: (): LastBatch | undefined => {
      const row = sql.batch.get()
      return row === undefined ? undefined : {
        sequence: Number(row["sequence"]),
        committedAt: DateTime.makeUnsafe(Number(row["committed_at"])),
        eventIds: sql.batchEvents.all().map((event) => stringOf(event["event_id"]))
      }
    },

    /**
     * Writes `batch` in one transaction, committed at `now` (epoch millis): advances and checkpoints, then
     * forgotten and new block hashes (pruned to the last `keepBlocks` per chain), DeFi snapshots,
     * and the event ids, which replace the previous batch's. Any failure rolls all of it back.
     */
    commit: (batch: Batch, now: number): LastBatch => {
      const defi = (batch.defiSnapshots ?? []).map((snapshot) => ({ snapshot, json: encodeSummaries(snapshot.summaries) }))
      const blockEvents = (batch.blockEvents ?? []).map((entry) => ({ entry, json: encodeEvents(entry.events) }))
      const pending = batch.pending?.map((event) => encodePending(event, batch.pendingPhase))
      return transaction(db, () => {
        for (const advance of batch.advances ?? []) {
          checkAdvanced(advance, Number(sql.advance.run(advance.to, advance.hash, advance.chain, advance.from).changes))
        }
        for (const { hash, position, since, wallet } of batch.checkpoints ?? []) {
          sql.putCheckpoint.run(scopeOf(wallet), wallet.address, position, hash, since ?? position)
        }
        for (const { chain, fromBlock } of batch.forgetBlocks ?? []) {
          sql.forgetBlocks.run(chain, fromBlock)
          sql.forgetBlockEvents.run(chain, fromBlock)
        }
        const chains = new Set<string>()
        for (const { chain, number, hash } of batch.blocks ?? []) {
          sql.putBlock.run(chain, number, hash)
          chains.add(chain)
        }
        for (const chain of chains) sql.pruneBlocks.run(chain, chain, keepBlocks)
        const eventChains = new Set<string>()
        for (const { entry, json } of blockEvents) {
          if (entry.events.length === 0) sql.dropBlockEvents.run(entry.chain, entry.number)
          else sql.putBlockEvents.run(entry.chain, entry.number, entry.hash, json)
          eventChains.add(entry.chain)
        }
        for (const chain of eventChains) sql.pruneBlockEvents.run(chain, chain, keepBlocks)
        for (const { snapshot, json } of defi) {
          sql.putDefi.run(snapshot.wallet.chain, snapshot.wallet.address, snapshot.blockNumber, json)
        }
        for (const { fromDate, label, origin, since, through, upTo, wallet } of batch.backfills ?? []) {
          const date = fromDate === null ? null : DateTime.toEpochMillis(fromDate)
          sql.putBackfill.run(wallet.chain, wallet.address, label, origin, through, date, upTo, since)
        }
        for (const wallet of batch.backfillsDone ?? []) sql.dropBackfill.run(wallet.chain, wallet.address)
        if (pending !== undefined) {
          sql.clearPending.run()
          pending.forEach((json, index) => sql.putPending.run(index, json))
        }
        sql.clearEvents.run()
        batch.eventIds.forEach((id, index) => sql.putEvent.run(index, id))
        sql.putBatch.run(now)
        const sequence = Number(sql.batch.get()?.["sequence"])
        return { sequence, committedAt: DateTime.makeUnsafe(now), eventIds: [...batch.eventIds] }
      })
    }
  }
}
