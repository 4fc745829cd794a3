/**
 * What a receiver lacks: the sequences it never received and, per chain, the blocks (or Aptos
 * ledger versions) no batch it has accounts for. A `Gap` names them; accepted anyway, they stay in
 * the state (`ReceiverState.missing`) until a batch that fills them arrives (a batch sent again by
 * `POST /v1/streams/{id}/replay` with `fromSequence`/`toSequence` or `blocks`), which the kit then
 * reports as `healed`. Ranges are inclusive, kept sorted and merged.
 *
 * @since 0.5.0
 */
import { Schema } from "effect"
import { Decimal } from "./Decimal.js"

/**
 * Sequences `from` to `to`, inclusive.
 *
 * @example
 * ```ts
 * import type { Missing } from "@chainquery/webhook-receiver"
 *
 * const lost: Missing.Sequences = { from: 3, to: 4 }
 * ```
 * @since 0.5.0
 */
export const Sequences = Schema.Struct({ from: Schema.Int, to: Schema.Int })

/**
 * The type of {@link Sequences}.
 *
 * @example
 * ```ts
 * import type { Missing } from "@chainquery/webhook-receiver"
 *
 * declare const lost: Missing.Sequences
 * const count = lost.to - lost.from + 1
 * ```
 * @since 0.5.0
 */
export type Sequences = typeof Sequences.Type

/**
 * Blocks (or Aptos ledger versions) `from` to `to`, inclusive, of the chain named by `scope`
 * (`"0x1"`, `"aptos:mainnet"`: see `Batch.scopeOf`).
 *
 * @example
 * ```ts
 * import type { Missing } from "@chainquery/webhook-receiver"
 *
 * const lost: Missing.Blocks = { scope: "0x1", from: "126", to: "130" }
 * ```
 * @since 0.5.0
 */
export const Blocks = Schema.Struct({ scope: Schema.String, from: Decimal, to: Decimal })

/**
 * The type of {@link Blocks}.
 *
 * @example
 * ```ts
 * import type { Missing } from "@chainquery/webhook-receiver"
 *
 * declare const lost: Missing.Blocks
 * const count = BigInt(lost.to) - BigInt(lost.from) + 1n
 * ```
 * @since 0.5.0
 */
export type Blocks = typeof Blocks.Type

/**
 * Blocks (or ledger versions) `from` to `to`, inclusive, of one wallet's history, the wallet named
 * by its key (`"0x1 0xabc…"`: see `Batch.walletKeyOf`).
 *
 * @example
 * ```ts
 * import type { Missing } from "@chainquery/webhook-receiver"
 *
 * const lost: Missing.WalletBlocks = { wallet: "0x1 0x00000000000000000000000000000000000000aa", from: "18000100", to: "18000149" }
 * ```
 * @since 0.5.0
 */
export const WalletBlocks = Schema.Struct({ wallet: Schema.String, from: Decimal, to: Decimal })

/**
 * The type of {@link WalletBlocks}.
 *
 * @example
 * ```ts
 * import type { Missing } from "@chainquery/webhook-receiver"
 *
 * declare const lost: Missing.WalletBlocks
 * const wallet = lost.wallet.split(" ")[1]
 * ```
 * @since 0.5.0
 */
export type WalletBlocks = typeof WalletBlocks.Type

/**
 * The holes of a receiver's state: `sequences` never received, `blocks` never covered and, when
 * wallets were added with their history, `history` never accounted for; each sorted and merged.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { Missing } from "@chainquery/webhook-receiver"
 *
 * Schema.is(Missing.Missing)({ sequences: [{ from: 3, to: 3 }], blocks: [{ scope: "0x1", from: "126", to: "127" }] }) // true
 * ```
 * @since 0.5.0
 */
export const Missing = Schema.Struct({
  sequences: Schema.Array(Sequences),
  blocks: Schema.Array(Blocks),
  history: Schema.optionalKey(Schema.Array(WalletBlocks))
})

/**
 * The type of {@link Missing}.
 *
 * @example
 * ```ts
 * import type { Missing } from "@chainquery/webhook-receiver"
 *
 * const none: Missing.Missing = { sequences: [], blocks: [] }
 * ```
 * @since 0.5.0
 */
export type Missing = typeof Missing.Type

/** Sequence ranges sorted and merged (touching ones too). */
const mergeSequences = (ranges: ReadonlyArray<Sequences>): Array<Sequences> => {
  const sorted = ranges.filter((range) => range.from <= range.to).toSorted((a, b) => a.from - b.from)
  const merged: Array<Sequences> = []
  for (const range of sorted) {
    const last = merged.at(-1)
    if (last !== undefined && range.from <= last.to + 1) merged[merged.length - 1] = { from: last.from, to: Math.max(last.to, range.to) }
    else merged.push(range)
  }
  return merged
}

/** Block ranges sorted by scope then start, and merged (touching ones too). */
const mergeBlocks = (ranges: ReadonlyArray<Blocks>): Array<Blocks> => {
  const sorted = ranges.filter((range) => BigInt(range.from) <= BigInt(range.to)).toSorted((a, b) =>
    a.scope < b.scope ? -1 : a.scope > b.scope ? 1 : BigInt(a.from) < BigInt(b.from) ? -1 : BigInt(a.from) > BigInt(b.from) ? 1 : 0
  )
  const merged: Array<Blocks> = []
  for (const range of sorted) {
    const last = merged.at(-1)
    if (last !== undefined && last.scope === range.scope && BigInt(range.from) <= BigInt(last.to) + 1n) {
      merged[merged.length - 1] = { scope: last.scope, from: last.from, to: BigInt(range.to) > BigInt(last.to) ? range.to : last.to }
    } else merged.push(range)
  }
  return merged
}

/** Wallet ranges as block ranges of a scope named by the wallet's key, and back. */
const asBlocks = (ranges: ReadonlyArray<WalletBlocks>): Array<Blocks> => ranges.map((range) => ({ scope: range.wallet, from: range.from, to: range.to }))
const asWallets = (ranges: ReadonlyArray<Blocks>): Array<WalletBlocks> => ranges.map((range) => ({ wallet: range.scope, from: range.from, to: range.to }))

/** `missing` in its shape: `history` present only when something of it is missing. */
const made = (sequences: Array<Sequences>, blocks: Array<Blocks>, history: Array<Blocks>): Missing =>
  history.length === 0 ? { sequences, blocks } : { sequences, blocks, history: asWallets(history) }

/** The holes left of `holes` once `covered` ranges are filled, and those filled. */
const subtract = (holes: ReadonlyArray<Blocks>, covered: ReadonlyArray<Blocks>) => {
  let left: Array<Blocks> = [...holes]
  const filled: Array<Blocks> = []
  for (const range of covered) {
    const from = BigInt(range.from)
    const to = BigInt(range.to)
    const next: Array<Blocks> = []
    for (const hole of left) {
      const holeFrom = BigInt(hole.from)
      const holeTo = BigInt(hole.to)
      if (hole.scope !== range.scope || to < holeFrom || from > holeTo) {
        next.push(hole)
        continue
      }
      const start = from > holeFrom ? from : holeFrom
      const end = to < holeTo ? to : holeTo
      filled.push({ scope: hole.scope, from: String(start), to: String(end) })
      if (holeFrom < start) next.push({ scope: hole.scope, from: hole.from, to: String(start - 1n) })
      if (end < holeTo) next.push({ scope: hole.scope, from: String(end + 1n), to: hole.to })
    }
    left = next
  }
  return { left: mergeBlocks(left), filled: mergeBlocks(filled) }
}

/**
 * `missing` with more holes: the result sorted and merged.
 *
 * @example
 * ```ts
 * import { Missing } from "@chainquery/webhook-receiver"
 *
 * Missing.add({ sequences: [{ from: 3, to: 3 }], blocks: [] }, { sequences: [{ from: 4, to: 5 }], blocks: [] })
 * // { sequences: [{ from: 3, to: 5 }], blocks: [] }
 * ```
 * @since 0.5.0
 */
export const add = (
  missing: Missing,
  more: { readonly sequences: ReadonlyArray<Sequences>; readonly blocks: ReadonlyArray<Blocks>; readonly history?: ReadonlyArray<WalletBlocks> | undefined }
): Missing =>
  made(
    mergeSequences([...missing.sequences, ...more.sequences]),
    mergeBlocks([...missing.blocks, ...more.blocks]),
    mergeBlocks(asBlocks([...missing.history ?? [], ...more.history ?? []]))
  )

/**
 * What `missing` loses to a batch of `sequence` covering `blocks` (and, of wallets' histories,
 * `history`): the holes left (`missing`) and those it filled (`filled`; empty when it filled none).
 *
 * @example
 * ```ts
 * import { Missing } from "@chainquery/webhook-receiver"
 *
 * const { filled, missing } = Missing.fill(
 *   { sequences: [{ from: 3, to: 4 }], blocks: [{ scope: "0x1", from: "126", to: "130" }] },
 *   3,
 *   [{ scope: "0x1", from: "126", to: "127" }]
 * )
 * // missing: { sequences: [{ from: 4, to: 4 }], blocks: [{ scope: "0x1", from: "128", to: "130" }] }
 * // filled: { sequences: [{ from: 3, to: 3 }], blocks: [{ scope: "0x1", from: "126", to: "127" }] }
 * ```
 * @since 0.5.0
 */
export const fill = (
  missing: Missing,
  sequence: number,
  blocks: ReadonlyArray<Blocks>,
  history: ReadonlyArray<WalletBlocks> = []
): { readonly missing: Missing; readonly filled: Missing } => {
  const sequences: Array<Sequences> = []
  const filledSequences: Array<Sequences> = []
  for (const range of missing.sequences) {
    if (sequence < range.from || sequence > range.to) {
      sequences.push(range)
      continue
    }
    filledSequences.push({ from: sequence, to: sequence })
    if (range.from < sequence) sequences.push({ from: range.from, to: sequence - 1 })
    if (sequence < range.to) sequences.push({ from: sequence + 1, to: range.to })
  }
  const ofBlocks = subtract(missing.blocks, blocks)
  const ofHistory = subtract(asBlocks(missing.history ?? []), asBlocks(history))
  return {
    missing: made(mergeSequences(sequences), ofBlocks.left, ofHistory.left),
    filled: made(filledSequences, ofBlocks.filled, ofHistory.filled)
  }
}

/**
 * Whether nothing is missing.
 *
 * @example
 * ```ts
 * import { Missing } from "@chainquery/webhook-receiver"
 *
 * Missing.isEmpty({ sequences: [], blocks: [] }) // true
 * ```
 * @since 0.5.0
 */
export const isEmpty = (missing: Missing): boolean =>
  missing.sequences.length === 0 && missing.blocks.length === 0 && (missing.history ?? []).length === 0
