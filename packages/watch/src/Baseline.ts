/**
 * Where the engine starts wallets it has never seen when no other wallet of theirs is watched:
 * on an EVM chain the safe head (`confirmations` below the newest complete block), on Aptos the
 * newest ledger version of their transfers. A service that must tell, before the engine runs,
 * from which block a wallet is covered writes this as the wallet's first checkpoint
 * (`PgCheckpoints.place`); the engine then reads the wallet from there.
 *
 * @since 0.3.0
 */
import { EvmClient } from "@chainquery/evm-client"
import { Effect } from "effect"
import { type EngineError, noLedgerClient } from "./EngineError.js"
import { aptosStart, evmStart } from "./internal/cycle/baseline.js"
import { clientFor } from "./LedgerClients.js"
import { byChain, byNetwork, type WatchedWallet } from "./WatchedWallet.js"

/**
 * Per scope of `wallets` (an EVM chain id, or `aptos:<network>`), the block (Aptos: ledger
 * version) at which the engine would start them: what it reports is what comes after it. Costs a
 * few requests per chain (the newest transfer of up to 3 wallets, then a search of the head) and
 * one per 50 Aptos wallets; the Aptos client of a network must be provided
 * (`LedgerClients.MainnetLedger`, `LedgerClients.TestnetLedger`).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Baseline, WalletSpec } from "@chainquery/watch"
 *
 * const starts = Effect.gen(function*() {
 *   const wallets = yield* WalletSpec.parse("eth:0x1111111111111111111111111111111111111111")
 *   return yield* Baseline.start(wallets, { confirmations: 2 })
 * }) // Effect<ReadonlyMap<string, bigint>, …>: "0x1" → the safe head of Ethereum
 * ```
 * @since 0.3.0
 */
export const start = (
  wallets: ReadonlyArray<WatchedWallet>,
  options?: { readonly confirmations?: number | undefined }
): Effect.Effect<ReadonlyMap<string, bigint>, EngineError, EvmClient.EvmClient> =>
  Effect.gen(function*() {
    const starts = new Map<string, bigint>()
    const confirmations = options?.confirmations ?? 0
    const chains = byChain(wallets)
    if (chains.size > 0) {
      const client = yield* EvmClient.EvmClient
      for (const [chain, chainWallets] of chains) starts.set(chain, yield* evmStart(client, chain, chainWallets, confirmations))
    }
    for (const [network, networkWallets] of byNetwork(wallets)) {
      const ledger = yield* clientFor(network)
      if (ledger._tag === "None") {
        return yield* noLedgerClient(network)
      }
      starts.set(`aptos:${network}`, yield* aptosStart(ledger.value, networkWallets))
    }
    return starts
  })
