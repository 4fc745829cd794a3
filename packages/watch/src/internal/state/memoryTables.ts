/**
 * The state store in memory, with no SQLite: the reads and the one-transaction commit of
 * `stateTables`, rule for rule (the order of every read, `since` written with a wallet's first
 * checkpoint only, forgotten and pruned blocks, block events replaced or dropped, write-ahead
 * events, backfill progress, the last batch). What SQLite keeps as JSON text is kept as the same
 * text and decoded on every read, and integers must fit SQLite's 64 bits, so both stores hand out
 * equal values and refuse the same batches. A commit builds the next state on copies and swaps it
 * in only once all of it is written: one that throws leaves the previous state.
 *
 * @internal
 */
import type { Chain } from "@chainquery/schema"
import { DateTime } from "effect"
import type { BackfillProgress, Batch, BlockEvents, BlockHash, Checkpoint, DefiSnapshot, LastBatch } from "../../StateStore.js"
import type { EvmWallet, WatchedWallet } from "../../WatchedWallet.js"
import type { WatchEvent } from "../../WatchEvent.js"
import { checkAdvanced } from "./advance.js"
import { decodeEvents, decodePending, decodeSummaries, encodeEvents, encodePending, encodeSummaries, scopeOf, walletOf } from "./stateCodecs.js"
import type { StateTables } from "./tables.js"

const int64Min = -(2n ** 63n)
const int64Max = 2n ** 63n - 1n

/** `value` if it fits a SQLite integer; otherwise the error node:sqlite throws when binding it. */
const int64 = (value: bigint): bigint => {
  if (value < int64Min || value > int64Max) {
    throw Object.assign(new TypeError("BigInt value is too large to bind."), { code: "ERR_INVALID_ARG_VALUE" })
  }
  return value
}

const nullableInt64 = (value: bigint | null): bigint | null => value === null ? null : int64(value)

/** Where a UTF-16 code unit sorts in code point order: surrogates (code points above U+FFFF) last. */
const codePointRank = (unit: number): number => unit >= 0xd800 && unit <= 0xdfff ? unit + 0x2000 : unit >= 0xe000 ? unit - 0x800 : unit

/** Orders strings by their UTF-8 bytes (that is, by code point), as SQLite compares TEXT. */
const byBytes = (a: string, b: string): number => {
  const length = Math.min(a.length, b.length)
  for (let index = 0; index < length; index++) {
    const x = a.charCodeAt(index)
    const y = b.charCodeAt(index)
    if (x !== y) return codePointRank(x) - codePointRank(y)
  }
  return a.length - b.length
}

const byNumber = (a: bigint, b: bigint): number => a < b ? -1 : a > b ? 1 : 0

/** A table with a two-column primary key: its rows by the first column, then by the second. */
type Table<A, B, Row> = Map<A, Map<B, Row>>

/** Writes the row at `(a, b)`, replacing any row there. */
const put = <A, B, Row>(table: Table<A, B, Row>, a: A, b: B, row: Row): void => {
  const rows = table.get(a)
  if (rows === undefined) table.set(a, new Map([[b, row]]))
  else rows.set(b, row)
}

/** Deletes the rows of `a` whose second key passes `test`. */
const removeWhere = <A, B, Row>(table: Table<A, B, Row>, a: A, test: (b: B) => boolean): void => {
  const rows = table.get(a)
  if (rows === undefined) return
  for (const b of rows.keys()) if (test(b)) rows.delete(b)
  if (rows.size === 0) table.delete(a)
}

/** A copy to write on: new maps, the same (never mutated) rows. */
const copyTable = <A, B, Row>(table: Table<A, B, Row>): Table<A, B, Row> =>
  new Map(Array.from(table, ([a, rows]) => [a, new Map(rows)]))

/** The rows of `a`, ordered by their second key. */
const rowsOf = <A, B, Row>(table: Table<A, B, Row>, a: A, order: (x: B, y: B) => number): Array<[B, Row]> =>
  Array.from(table.get(a) ?? []).toSorted(([x], [y]) => order(x, y))

/** Every row with both keys, ordered by the first key, then the second (both strings). */
const allRows = <Row>(table: Table<string, string, Row>): Array<readonly [string, string, Row]> =>
  Array.from(table.keys()).toSorted(byBytes).flatMap((a) => rowsOf(table, a, byBytes).map(([b, row]) => [a, b, row] as const))

/**
 * Deletes the rows of `chain` more than `keepBlocks` below its highest block. As in SQLite, where
 * `MAX(number) - ?` with a JS number bound is floating-point arithmetic, the limit is a double.
 */
const prune = <Row>(table: Table<string, bigint, Row>, chain: string, keepBlocks: number): void => {
  const numbers = Array.from(table.get(chain)?.keys() ?? [])
  if (numbers.length === 0) return
  const limit = Number(numbers.reduce((highest, number) => number > highest ? number : highest)) - keepBlocks
  removeWhere(table, chain, (number) => number <= limit)
}

interface CheckpointRow {
  readonly position: bigint
  readonly hash: string | null
  readonly since: bigint
}

interface BlockEventsRow {
  readonly hash: string
  /** The events' JSON. */
  readonly events: string
}

interface DefiRow {
  readonly block: bigint
  /** The summaries' JSON. */
  readonly summaries: string
}

interface BackfillRow {
  readonly label: string
  readonly origin: bigint | null
  readonly through: bigint | null
  /** Epoch millis. */
  readonly fromDate: number | null
  readonly upTo: bigint
  readonly since: bigint | null
}

interface LastBatchRow {
  readonly sequence: number
  /** Epoch millis. */
  readonly committedAt: number
  readonly eventIds: ReadonlyArray<string>
}

/** Everything the store holds. A commit writes on a copy and replaces it whole. */
interface State {
  /** By scope, then wallet address. */
  readonly checkpoints: Table<string, string, CheckpointRow>
  /** Each block's hash, by chain, then block number. */
  readonly blockHashes: Table<string, bigint, string>
  readonly blockEvents: Table<string, bigint, BlockEventsRow>
  /** By chain, then wallet address. */
  readonly defiSnapshots: Table<string, string, DefiRow>
  /** By chain, then wallet address. */
  readonly backfills: Table<string, string, BackfillRow>
  /** Each pending event's JSON, in order. */
  pending: ReadonlyArray<string>
  lastBatch: LastBatchRow | undefined
}

const copyOf = (state: State): State => ({
  checkpoints: copyTable(state.checkpoints),
  blockHashes: copyTable(state.blockHashes),
  blockEvents: copyTable(state.blockEvents),
  defiSnapshots: copyTable(state.defiSnapshots),
  backfills: copyTable(state.backfills),
  pending: state.pending,
  lastBatch: state.lastBatch
})

/** Writes `batch` on `next` in the SQLite store's order; throws (leaving `next` half-written) when a value does not fit. */
const write = (next: State, batch: Batch, keepBlocks: number): void => {
  // Encoded first, as the SQLite store does before its transaction.
  const defi = (batch.defiSnapshots ?? []).map((snapshot) => ({ snapshot, json: encodeSummaries(snapshot.summaries) }))
  const blockEvents = (batch.blockEvents ?? []).map((entry) => ({ entry, json: encodeEvents(entry.events) }))
  const pending = batch.pending?.map((event) => encodePending(event, batch.pendingPhase))
  for (const advance of batch.advances ?? []) {
    const at = int64(advance.from)
    const to = int64(advance.to)
    let moved = 0
    for (const [address, row] of next.checkpoints.get(advance.chain) ?? []) {
      if (row.position !== at) continue
      put(next.checkpoints, advance.chain, address, { ...row, position: to, hash: advance.hash })
      moved++
    }
    checkAdvanced(advance, moved)
  }
  for (const { hash, position, since, wallet } of batch.checkpoints ?? []) {
    const scope = scopeOf(wallet)
    const first = int64(since ?? position)
    const kept = next.checkpoints.get(scope)?.get(wallet.address)
    put(next.checkpoints, scope, wallet.address, { position: int64(position), hash, since: kept?.since ?? first })
  }
  for (const { chain, fromBlock } of batch.forgetBlocks ?? []) {
    const from = int64(fromBlock)
    removeWhere(next.blockHashes, chain, (number) => number >= from)
    removeWhere(next.blockEvents, chain, (number) => number >= from)
  }
  const chains = new Set<string>()
  for (const { chain, number, hash } of batch.blocks ?? []) {
    put(next.blockHashes, chain, int64(number), hash)
    chains.add(chain)
  }
  for (const chain of chains) prune(next.blockHashes, chain, keepBlocks)
  const eventChains = new Set<string>()
  for (const { entry, json } of blockEvents) {
    const number = int64(entry.number)
    if (entry.events.length === 0) removeWhere(next.blockEvents, entry.chain, (other) => other === number)
    else put(next.blockEvents, entry.chain, number, { hash: entry.hash, events: json })
    eventChains.add(entry.chain)
  }
  for (const chain of eventChains) prune(next.blockEvents, chain, keepBlocks)
  for (const { snapshot, json } of defi) {
    put(next.defiSnapshots, snapshot.wallet.chain, snapshot.wallet.address, { block: int64(snapshot.blockNumber), summaries: json })
  }
  for (const { fromDate, label, origin, since, through, upTo, wallet } of batch.backfills ?? []) {
    put(next.backfills, wallet.chain, wallet.address, {
      label,
      origin: nullableInt64(origin),
      through: nullableInt64(through),
      fromDate: fromDate === null ? null : DateTime.toEpochMillis(fromDate),
      upTo: int64(upTo),
      since: nullableInt64(since)
    })
  }
  for (const wallet of batch.backfillsDone ?? []) removeWhere(next.backfills, wallet.chain, (address) => address === wallet.address)
  if (pending !== undefined) next.pending = pending
}

/** The operations of a state store in memory, keeping `keepBlocks` blocks (hashes and events) per chain. */
export const memoryTables = (keepBlocks: number): StateTables => {
  let state: State = {
    checkpoints: new Map(),
    blockHashes: new Map(),
    blockEvents: new Map(),
    defiSnapshots: new Map(),
    backfills: new Map(),
    pending: [],
    lastBatch: undefined
  }

  return {
    checkpoints: (): Array<Checkpoint> =>
      allRows(state.checkpoints).map(([scope, address, row]) => ({
        wallet: walletOf(scope, address),
        position: row.position,
        hash: row.hash,
        since: row.since
      })),

    checkpoint: (wallet: WatchedWallet): Checkpoint | undefined => {
      const row = state.checkpoints.get(scopeOf(wallet))?.get(wallet.address)
      return row === undefined ? undefined : { wallet, position: row.position, hash: row.hash, since: row.since }
    },

    blockHashes: (chain: Chain.ChainId): Array<BlockHash> =>
      rowsOf(state.blockHashes, chain, byNumber).map(([number, hash]) => ({ chain, number, hash })),

    blockEvents: (chain: Chain.ChainId): Array<BlockEvents> =>
      rowsOf(state.blockEvents, chain, byNumber).map(([number, row]) => ({
        chain,
        number,
        hash: row.hash,
        events: decodeEvents(row.events)
      })),

    defiSnapshot: (wallet: EvmWallet): DefiSnapshot | undefined => {
      const row = state.defiSnapshots.get(wallet.chain)?.get(wallet.address)
      return row === undefined ? undefined : { wallet, blockNumber: row.block, summaries: decodeSummaries(row.summaries) }
    },

    pendingEvents: (): Array<WatchEvent> => state.pending.map((json) => decodePending(json)),

    backfills: (): Array<BackfillProgress> =>
      allRows(state.backfills).map(([chain, address, row]) => ({
        wallet: walletOf(chain, address) as EvmWallet,
        label: row.label,
        origin: row.origin,
        through: row.through,
        fromDate: row.fromDate === null ? null : DateTime.makeUnsafe(row.fromDate),
        upTo: row.upTo,
        since: row.since
      })),

    clearPending: (): void => {
      state = { ...state, pending: [] }
    },

    settle: (sequence: number): void => {
      if (state.lastBatch?.sequence === sequence) state = { ...state, pending: [] }
    },

    lastBatch: (): LastBatch | undefined => {
      const row = state.lastBatch
      return row === undefined
        ? undefined
        : { sequence: row.sequence, committedAt: DateTime.makeUnsafe(row.committedAt), eventIds: [...row.eventIds] }
    },

    commit: (batch: Batch, now: number): LastBatch => {
      const next = copyOf(state)
      write(next, batch, keepBlocks)
      const sequence = (state.lastBatch?.sequence ?? 0) + 1
      const committed = { sequence, committedAt: DateTime.makeUnsafe(now), eventIds: [...batch.eventIds] }
      next.lastBatch = { sequence, committedAt: now, eventIds: [...batch.eventIds] }
      state = next
      return committed
    }
  }
}
