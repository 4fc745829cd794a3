/**
 * Where the engine starts wallets it sees for the first time when it has nothing else to go by:
 * on an EVM chain, the safe head found from the newest transfer of a few of them; on Aptos, the
 * newest ledger version of their transfers (per request of 50 wallets).
 *
 * @internal
 */
import type { EvmClient } from "@chainquery/evm-client"
import type { LedgerClient } from "@chainquery/ledger-client"
import type { Chain } from "@chainquery/schema"
import { Effect } from "effect"
import { fromClient as failed } from "../../EngineError.js"
import type { AptosWallet } from "../../WatchedWallet.js"
import { maxOf } from "./cycleStep.js"
import { chunks } from "../chunks.js"
import { newestOfSome, safeHead } from "./evmReads.js"

/** Wallets per Aptos B3 request. */
export const aptosBatchSize = 50

/** The safe head of `chain` (`confirmations` below the newest complete block), searched from a block that exists. */
export const evmStart = (client: EvmClient.Service, chain: Chain.ChainId, wallets: ReadonlyArray<{ readonly address: string }>, confirmations: number) =>
  Effect.flatMap(newestOfSome(client, chain, wallets), (newest) => safeHead(client, chain, newest, confirmations, { fromIndexed: true }))

/** The newest ledger version among the transfers of `wallets` (`0n` when they have none). */
export const aptosStart = (client: LedgerClient.Service, wallets: ReadonlyArray<AptosWallet>) =>
  Effect.forEach(chunks(wallets, aptosBatchSize), (batch) =>
    client.getWalletsNFTTransfers({ walletAddresses: batch.map((w) => w.address), limit: 1 }).pipe(
      Effect.map((page) => page.result[0]?.transaction_version ?? 0n),
      Effect.mapError(failed("getWalletsNFTTransfers"))
    )).pipe(Effect.map((newest) => maxOf([0n, ...newest])))
