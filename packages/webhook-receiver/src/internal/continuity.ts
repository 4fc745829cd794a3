/**
 * A batch's place in the stream, against the receiver's state: the same stream, the next
 * sequence, and per chain a coverage that starts right after the covered-to (or restates the end
 * of it through `replaces`). Pure: the outcome is the next state, or the first kind of problem
 * found in this order: wrong stream, processed already, gaps (sequences and blocks together),
 * overlaps. A gap or an overlap still carries the state to store if the batch is accepted anyway.
 *
 * Per chain, with `covered` the state's range (`from`..`to`) as each step leaves it:
 * - `replaces r`: the chain must be covered, with `r.to` = `to` (after it: a gap of
 *   `to + 1..r.to`; before it: `r.to + 1..to` overlap) and `r.from` >= `from` (else
 *   `r.from..from - 1` overlap); then `to` = `r.from - 1`;
 * - `coverage c`: a chain not covered yet starts at `c`; otherwise `c.from` must be `to + 1`
 *   (after it: a gap of `to + 1..c.from - 1`; at or before it: `c.from..min(c.to, to)` overlap);
 *   then `to` = max(`to`, `c.to`).
 * Replays (their coverage is empty) move the sequence only.
 *
 * Histories, per wallet: a wallet announced with `historyFrom` starts its history there (`to` =
 * `historyFrom - 1`, `until` = its `coveredFrom`; announced again with another `historyFrom`, it
 * starts a new one); each `history` range must start at `to + 1` (after it: missing history; at or
 * before it: an overlap, named by the wallet's key) and end before `until` (else an overlap with
 * its live events); then `to` = max(`to`, range's `to`). A wallet's first range, unannounced,
 * starts its history.
 *
 * A test event (`test`, sequence 0) of the same stream (or of any, before the first batch) leaves
 * the state as it is.
 *
 * Holes: a `Gap` carries the state with what is missing added (`missing`); a batch of a sequence
 * at most the state's is a batch sent again: if its sequence is missing, or its coverage fills
 * missing blocks, it heals them (the sequence and covered-to stay; `healed` says what it filled),
 * otherwise it was processed already. Any batch's coverage fills the missing blocks it meets.
 */
import { Result } from "effect"
import type { Batch } from "../Batch.js"
import { boundsOf, historyBoundsOf, walletKeyOf } from "../Batch.js"
import * as Missing from "../Missing.js"
import type { ReceiverState } from "../ReceiverState.js"
import { AlreadyProcessed, type Blocks, Gap, Overlap, type Sequences, WrongStream } from "../ReceiveError.js"

interface Span {
  readonly from: bigint
  readonly to: bigint
}

const min = (a: bigint, b: bigint): bigint => (a < b ? a : b)
const max = (a: bigint, b: bigint): bigint => (a > b ? a : b)

const blocks = (scope: string, from: bigint, to: bigint): Blocks => ({ scope, from: String(from), to: String(to) })

const span = (from: number | string, to: number | string): string => (String(from) === String(to) ? String(from) : `${from}..${to}`)
const listed = (all: ReadonlyArray<Blocks>): string => all.map((entry) => `${entry.scope} ${span(entry.from, entry.to)}`).join(", ")

/** The coverage after the batch, and what was missing or covered twice on the way. */
const walk = (state: ReceiverState, batch: Batch) => {
  const coverage = new Map<string, Span>(Object.entries(state.coverage).map(([scope, covered]) => [scope, { from: BigInt(covered.from), to: BigInt(covered.to) }]))
  const missing: Array<Blocks> = []
  const overlaps: Array<Blocks> = []
  for (const range of batch.replaces) {
    const { scope, ...bounds } = boundsOf(range)
    const from = BigInt(bounds.from)
    const to = BigInt(bounds.to)
    const covered = coverage.get(scope)
    if (covered === undefined) {
      overlaps.push(blocks(scope, from, to))
      continue
    }
    if (to > covered.to) missing.push(blocks(scope, covered.to + 1n, to))
    else if (to < covered.to) overlaps.push(blocks(scope, to + 1n, covered.to))
    if (from < covered.from) overlaps.push(blocks(scope, from, min(to, covered.from - 1n)))
    coverage.set(scope, { from: min(covered.from, from), to: from - 1n })
  }
  for (const range of batch.coverage) {
    const { scope, ...bounds } = boundsOf(range)
    const from = BigInt(bounds.from)
    const to = BigInt(bounds.to)
    const covered = coverage.get(scope)
    if (covered === undefined) {
      coverage.set(scope, { from, to })
      continue
    }
    if (from > covered.to + 1n) missing.push(blocks(scope, covered.to + 1n, from - 1n))
    else if (from <= covered.to) overlaps.push(blocks(scope, from, min(to, covered.to)))
    coverage.set(scope, { from: min(covered.from, from), to: max(covered.to, to) })
  }
  const { history, missingHistory } = walkHistory(state, batch, overlaps)
  const holes = Missing.fill(
    Missing.add(missingOf(state), {
      sequences: batch.sequence > state.sequence + 1 ? [{ from: state.sequence + 1, to: batch.sequence - 1 }] : [],
      blocks: missing,
      history: missingHistory
    }),
    batch.sequence,
    filling(batch),
    walletRanges(batch)
  ).missing
  const next = withMissing({
    streamId: batch.streamId,
    sequence: batch.sequence,
    lastDeliveryId: batch.deliveryId,
    coverage: Object.fromEntries([...coverage].map(([scope, covered]) => [scope, { from: String(covered.from), to: String(covered.to) }])),
    ...history
  }, holes)
  return { next, missing, missingHistory, overlaps }
}

/**
 * The wallets' histories after the batch (`{ history }`, or nothing when there is none) and what
 * of them was missing on the way; the ranges covered twice are added to `overlaps`.
 */
const walkHistory = (state: ReceiverState, batch: Batch, overlaps: Array<Blocks>, healing = false) => {
  const history = new Map(Object.entries(state.history ?? {}).map(([key, h]) => [key, { from: BigInt(h.from), to: BigInt(h.to), until: h.until }]))
  const missingHistory: Array<Missing.WalletBlocks> = []
  for (const wallet of batch.wallets) {
    if (wallet.historyFrom === undefined) continue
    const key = walletKeyOf(wallet)
    const from = BigInt(wallet.historyFrom)
    const known = history.get(key)
    // A batch sent again states what was known then: it starts nothing, and moves nothing back.
    if (healing && known !== undefined) continue
    // Announced again with another start: the wallet was taken again with a new history.
    history.set(key, known === undefined || known.from !== from ? { from, to: from - 1n, until: wallet.coveredFrom } : { ...known, until: wallet.coveredFrom })
  }
  for (const range of batch.history) {
    const { key, ...bounds } = historyBoundsOf(range)
    const from = BigInt(bounds.from)
    const to = BigInt(bounds.to)
    const known = history.get(key)
    if (known === undefined) {
      history.set(key, { from, to, until: undefined })
      continue
    }
    if (from > known.to + 1n) {
      // A batch sent again does not jump a wallet's history over what is still missing.
      if (healing) continue
      missingHistory.push({ wallet: key, from: String(known.to + 1n), to: String(from - 1n) })
    } else if (from <= known.to) overlaps.push(blocks(key, from, min(to, known.to)))
    // A history reaches the block before the wallet's live events at most.
    if (known.until !== undefined && to >= BigInt(known.until)) overlaps.push(blocks(key, max(from, BigInt(known.until)), to))
    history.set(key, { ...known, to: max(known.to, to) })
  }
  const stored = history.size === 0 ? {} : {
    history: Object.fromEntries([...history].map(([key, h]) => [key, { from: String(h.from), to: String(h.to), ...(h.until === undefined ? {} : { until: h.until }) }]))
  }
  return { history: stored, missingHistory }
}

/**
 * The blocks a batch fills holes with: its coverage, but the part a reorganisation states again
 * (`replaces`), whose events it does not all carry (only the retractions and replacements).
 */
const filling = (batch: Batch): Array<Blocks> =>
  batch.coverage.flatMap((range) => {
    const { scope, ...bounds } = boundsOf(range)
    const restated = batch.replaces.map(boundsOf).find((replaced) => replaced.scope === scope)
    if (restated === undefined) return [{ scope, ...bounds }]
    const [from, to, restatedFrom, restatedTo] = [BigInt(bounds.from), BigInt(bounds.to), BigInt(restated.from), BigInt(restated.to)]
    return [
      ...(from < restatedFrom ? [blocks(scope, from, min(to, restatedFrom - 1n))] : []),
      ...(to > restatedTo ? [blocks(scope, max(from, restatedTo + 1n), to)] : [])
    ]
  })

/** A batch's history ranges, as the wallet ranges of `Missing`. */
const walletRanges = (batch: Batch): Array<Missing.WalletBlocks> =>
  batch.history.map((range) => {
    const { key, ...bounds } = historyBoundsOf(range)
    return { wallet: key, ...bounds }
  })

/** What the state lacks (nothing when it has no `missing`). */
const missingOf = (state: ReceiverState): Missing.Missing => state.missing ?? { sequences: [], blocks: [] }

/** `state` lacking `missing`: the key present only when something is missing. */
const withMissing = (state: ReceiverState, missing: Missing.Missing): ReceiverState => {
  const { missing: _, ...rest } = state
  return Missing.isEmpty(missing) ? rest : { ...rest, missing }
}

/**
 * The state after a batch sent again (its sequence at most the state's): the holes it fills gone,
 * and what it filled; `undefined` when it fills none (processed already).
 */
const heal = (state: ReceiverState, batch: Batch): { readonly state: ReceiverState; readonly healed: Missing.Missing } | undefined => {
  if (state.missing === undefined) return undefined
  const { filled, missing } = Missing.fill(state.missing, batch.sequence, filling(batch), walletRanges(batch))
  if (Missing.isEmpty(filled)) return undefined
  // Its history ranges that continue a wallet's history (the last of it lost) move it on; those
  // behind it filled holes only (they were missing: no overlap).
  const { history } = walkHistory(state, batch, [], true)
  return { state: withMissing({ ...state, ...history }, missing), healed: filled }
}

/**
 * The outcome of a batch accepted: the state to store, and for a batch sent again that filled
 * holes, what it filled.
 */
export interface Advanced {
  readonly state: ReceiverState
  readonly healed?: Missing.Missing | undefined
  readonly test?: true | undefined
}

/** The state after `batch`, or why it is not the next batch of the stream. */
export const advance = (
  state: ReceiverState,
  batch: Batch
): Result.Result<Advanced, WrongStream | AlreadyProcessed | Gap | Overlap> => {
  const delivery = `delivery ${batch.deliveryId} (sequence ${batch.sequence})`
  if (state.streamId !== null && state.streamId !== batch.streamId) {
    return Result.fail(
      new WrongStream({
        expectedStreamId: state.streamId,
        streamId: batch.streamId,
        deliveryId: batch.deliveryId,
        message: `${delivery} belongs to stream ${batch.streamId}, not to ${state.streamId}, the stream this receiver is bound to`
      })
    )
  }
  // A test event stands outside the stream's order: it binds, moves and fills nothing.
  if (batch.test) return Result.succeed({ state, test: true })
  if (batch.sequence <= state.sequence || batch.deliveryId === state.lastDeliveryId) {
    const healed = batch.sequence <= state.sequence ? heal(state, batch) : undefined
    if (healed !== undefined) return Result.succeed(healed)
    return Result.fail(
      new AlreadyProcessed({
        deliveryId: batch.deliveryId,
        sequence: batch.sequence,
        lastSequence: state.sequence,
        message: `${delivery} was processed already: the last one processed is sequence ${state.sequence} (${state.lastDeliveryId})`
      })
    )
  }
  const missingSequences: Sequences | null = batch.sequence > state.sequence + 1 ? { from: state.sequence + 1, to: batch.sequence - 1 } : null
  const { missing, missingHistory, next, overlaps } = walk(state, batch)
  const twice = overlaps.length > 0 ? `; blocks covered twice: ${listed(overlaps)}` : ""
  if (missingSequences !== null || missing.length > 0 || missingHistory.length > 0) {
    const parts = [
      missingSequences === null ? undefined : `sequences never received: ${span(missingSequences.from, missingSequences.to)}`,
      missing.length === 0 ? undefined : `blocks never covered: ${listed(missing)}`,
      missingHistory.length === 0 ? undefined : `history never accounted for: ${missingHistory.map((h) => `${h.wallet} ${span(h.from, h.to)}`).join(", ")}`
    ].filter((part) => part !== undefined)
    return Result.fail(
      new Gap({
        missingSequences,
        missingBlocks: missing,
        missingHistory,
        overlaps,
        batch,
        state: next,
        message: `${delivery} leaves a gap: ${parts.join("; ")}${twice}`
      })
    )
  }
  if (overlaps.length > 0) {
    return Result.fail(new Overlap({ overlaps, batch, state: next, message: `${delivery} covers blocks already covered: ${listed(overlaps)}` }))
  }
  return Result.succeed({ state: next })
}
