/**
 * What a chain's transfer step becomes with the other things watched: its NFT events kept or
 * dropped (`transfers`), trades of the wallets that moved NFTs (`trades`), their holdings
 * (`holdings`) and the DeFi changes of every wallet on the chain (`defi`, when due this cycle).
 * A failed holdings or DeFi read is logged and skipped (holdings: the collections are checked
 * again next cycle; DeFi: read again next time); a failed trades
 * read fails the cycle, as a failed transfers read does, since trades must not be lost.
 * Transfers are always read: trades and holdings are found through them, and the block records
 * that let a reorganisation be noticed come with them.
 *
 * @internal
 */
import type { EvmClient } from "@chainquery/evm-client"
import type { Chain } from "@chainquery/schema"
import { Effect } from "effect"
import type { EngineError } from "../../EngineError.js"
import type { Checkpoint, StateStore, StateStoreError } from "../../StateStore.js"
import type { EvmWallet } from "../../WatchedWallet.js"
import type { WatchEvent } from "../../WatchEvent.js"
import type { Step } from "./cycleStep.js"
import { defiCycle, type DefiStep } from "./defiCycle.js"
import { type Holdings, holdingsOf, owedAfterFailure, type Pending } from "./holdingsCycle.js"
import { withTrades } from "./tradeCycle.js"

export interface EnrichInput {
  readonly client: EvmClient.Service
  readonly store: StateStore["Service"]
  readonly chain: Chain.ChainId
  readonly wallets: ReadonlyArray<EvmWallet>
  readonly checkpoints: ReadonlyMap<string, Checkpoint>
  readonly watch: ReadonlySet<"transfers" | "trades" | "defi" | "holdings">
  readonly readDefi: boolean
  readonly defiThreshold: number
  /** The chain's collections still owed a holding report after the last committed cycle (not changed here). */
  readonly pendingHoldings: Pending
}

const isTransfer = (event: WatchEvent): boolean => event.kind === "nft.received" || event.kind === "nft.sent"

/** A retraction is kept when what it retracts could have been printed. */
const keeps = (watch: EnrichInput["watch"]) => (event: WatchEvent): boolean => {
  if (isTransfer(event)) return watch.has("transfers")
  if (event.kind === "retracted") return watch.has("transfers") || (watch.has("trades") && event.retracts.startsWith("trade:"))
  return true
}

/** A chain's step with what its holdings still owe once the cycle is committed. */
export interface EnrichedStep extends Step {
  readonly pendingHoldings: Pending
}

export const enrich: (input: EnrichInput, transfers: Step) => Effect.Effect<EnrichedStep, EngineError | StateStoreError> = Effect.fnUntraced(function*(
  input: EnrichInput,
  transfers: Step
) {
  const { chain, client, watch } = input
  const traded = watch.has("trades") ? yield* withTrades(client, chain, transfers) : transfers
  // Holdings and DeFi are reports of the current state, read again later: a failure to read
  // them is logged and skipped, so that it never holds back the transfers (or trades) of the chain.
  const noHoldings: Holdings = { reports: [], pending: input.pendingHoldings }
  const holdings = watch.has("holdings")
    ? yield* holdingsOf(client, chain, transfers.events, input.pendingHoldings).pipe(
      Effect.catch((error) =>
        Effect.as(Effect.logWarning(`holdings not read this cycle: ${error.message}; read again next cycle`), {
          reports: [],
          pending: owedAfterFailure(input.pendingHoldings, transfers.events)
        }))
    )
    : noHoldings
  const noDefi: DefiStep = { events: [], snapshots: [] }
  const defi = input.readDefi
    ? yield* defiCycle({ client, store: input.store, wallets: input.wallets, checkpoints: input.checkpoints, threshold: input.defiThreshold }).pipe(
      Effect.catchTag("EngineError", (error) => Effect.as(Effect.logWarning(`DeFi positions not read this cycle: ${error.message}`), noDefi))
    )
    : noDefi
  return {
    ...traded,
    events: [...traded.events, ...holdings.reports, ...defi.events].filter(keeps(watch)),
    defiSnapshots: defi.snapshots,
    pendingHoldings: holdings.pending
  } satisfies EnrichedStep
})
