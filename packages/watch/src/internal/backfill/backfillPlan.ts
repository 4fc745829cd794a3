/**
 * What an EVM chain's backfill reads for each of its wallets: from where, up to where, and what
 * is committed for it at the end.
 *
 * - A wallet whose backfill was interrupted (its progress is in the state file): from the block
 *   after the one it reached, up to where it was to end, whatever FROM this run was given.
 * - A wallet with a checkpoint: from FROM up to its checkpoint (printed again; nothing committed).
 * - A new wallet: from FROM up to the safe head (the newest fully indexed block, `confirmations`
 *   deep, found with the engine's A1 probes), where its checkpoint is committed at the end.
 *
 * FROM itself (`From`) is defined here, the first of the backfill's modules to read it.
 *
 * @internal
 */
import type { EvmClient } from "@chainquery/evm-client"
import type { Chain } from "@chainquery/schema"
import { type DateTime, Effect } from "effect"
import type { EngineError } from "../../EngineError.js"
import type { BackfillProgress, Checkpoint } from "../../StateStore.js"
import { type EvmWallet, key } from "../../WatchedWallet.js"
import { maxOf } from "../cycle/cycleStep.js"
import { newestOfSome, safeHead } from "../cycle/evmReads.js"
import type { Start } from "./backfillReader.js"

/**
 * Where a backfill starts: a block number (on Aptos, a ledger version) or an instant. Public as
 * `Backfill.From`; the Aptos backfill reads it too.
 */
export type From =
  | { readonly _tag: "Block"; readonly block: bigint }
  | { readonly _tag: "Date"; readonly date: DateTime.Utc }

/**
 * One wallet's part of a chain's backfill: its reads start at `start` and end at `upTo`;
 * `through` is what is written already (`undefined` before a date's first slice), `origin` the
 * first block of its backfill (likewise), `since` that of the checkpoint a new wallet gets at the
 * end (`null`: it has one, nothing is committed for it), `label` the FROM, for messages.
 */
export interface WalletPlan {
  readonly wallet: EvmWallet
  readonly start: Start
  readonly upTo: bigint
  readonly through: bigint | undefined
  readonly origin: bigint | undefined
  readonly since: bigint | null
  readonly label: string
  /** Whether it goes on from a run that was interrupted. */
  readonly resumed: boolean
}

/** What {@link planChain} plans from. */
export interface PlanInput {
  readonly client: EvmClient.Service
  readonly chain: Chain.ChainId
  readonly wallets: ReadonlyArray<EvmWallet>
  readonly checkpoints: ReadonlyMap<string, Checkpoint>
  /** The interrupted backfills, by wallet key. */
  readonly interrupted: ReadonlyMap<string, BackfillProgress>
  /** FROM, when this run asks for a backfill; without it only interrupted ones are planned. */
  readonly from: From | undefined
  readonly label: string
  readonly confirmations: number
  readonly concurrency: number
}


/**
 * The plan of a wallet whose backfill was interrupted: on from the block after the one it reached
 * (from its date, when nothing of it was read).
 */
const resumedPlan = (progress: BackfillProgress): WalletPlan => ({
  wallet: progress.wallet,
  start: progress.through === null && progress.fromDate !== null
    ? { _tag: "Date", date: progress.fromDate }
    : { _tag: "Block", block: (progress.through ?? (progress.origin ?? 1n) - 1n) + 1n },
  upTo: progress.upTo,
  through: progress.through ?? undefined,
  origin: progress.origin ?? undefined,
  since: progress.since,
  label: progress.label,
  resumed: true
})

/**
 * What is committed of a wallet's plan: how far it got (`through`, by default the plan's own) and
 * where it began (`origin`, known for a date once its first slice was read), so that a run that
 * finds it goes on from there.
 */
export const progressOf = (
  plan: WalletPlan,
  through: bigint | undefined = plan.through,
  origin: bigint | undefined = plan.origin
): BackfillProgress => ({
  wallet: plan.wallet,
  label: plan.label,
  origin: origin ?? through ?? null,
  through: through ?? null,
  fromDate: through === undefined && plan.start._tag === "Date" ? plan.start.date : null,
  upTo: plan.upTo,
  since: plan.since
})

/** The plan of a wallet read from FROM up to `upTo`. */
const freshPlan = (wallet: EvmWallet, from: From, label: string, upTo: bigint, since: bigint | null): WalletPlan => ({
  wallet,
  start: from,
  upTo,
  through: from._tag === "Block" ? from.block - 1n : undefined,
  origin: from._tag === "Block" ? from.block : undefined,
  since,
  label,
  resumed: false
})

/** The plans of the chain's wallets, in the order the wallets were given (see the module comment). */
export const planChain = Effect.fnUntraced(function*(input: PlanInput): Effect.fn.Return<ReadonlyArray<WalletPlan>, EngineError> {
  const { chain, client, from } = input
  const fresh = from === undefined
    ? []
    : input.wallets.filter((wallet) => !input.interrupted.has(key(wallet)) && !input.checkpoints.has(key(wallet)))
  let head = 0n
  if (fresh.length > 0) {
    // A block known to be indexed: a checkpoint of the chain, or the newest transfer of a few wallets.
    const tracked = input.wallets.flatMap((wallet) => {
      const checkpoint = input.checkpoints.get(key(wallet))
      return checkpoint === undefined ? [] : [checkpoint.position]
    })
    const start = tracked.length > 0
      ? maxOf(tracked)
      : yield* newestOfSome(client, chain, fresh, input.concurrency)
    head = yield* safeHead(client, chain, start, input.confirmations, { fromIndexed: true })
  }
  // A new wallet reports what comes after the block before FROM (a date: every block before it,
  // as for a wallet of an older state file).
  const before = from?._tag === "Block" ? from.block - 1n : 0n
  const since = before < head ? before : head
  return input.wallets.flatMap((wallet): Array<WalletPlan> => {
    const interrupted = input.interrupted.get(key(wallet))
    // A new wallet that got a checkpoint since (an engine run without the backfill took a
    // baseline) keeps it: the rest of its range is printed, nothing is committed for it.
    if (interrupted !== undefined) {
      const plan = resumedPlan(interrupted)
      return [input.checkpoints.has(key(wallet)) ? { ...plan, since: null } : plan]
    }
    if (from === undefined) return []
    const checkpoint = input.checkpoints.get(key(wallet))
    return [checkpoint === undefined ? freshPlan(wallet, from, input.label, head, since) : freshPlan(wallet, from, input.label, checkpoint.position, null)]
  })
})
