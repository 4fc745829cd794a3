/**
 * What one EVM chain's part of a cycle is given (see `evmCycle`), and what both of its
 * strategies (`blockScan`, `perWallet`) read: the client and the store, the chain's watched
 * wallets with their checkpoints, the resting ones, and the engine's settings.
 *
 * @internal
 */
import type { EvmClient } from "@chainquery/evm-client"
import type { Chain } from "@chainquery/schema"
import type { Effect } from "effect"
import type { Checkpoint, StateStore } from "../../StateStore.js"
import type { EvmWallet } from "../../WatchedWallet.js"
import type { ChainIndex } from "./chainIndex.js"
import type { Tracked } from "./recentBlocks.js"

/** How EVM wallets are polled (public as `Engine.Strategy`). */
export type Strategy = "block-scan" | "per-wallet" | "auto"

export type ReorgCheck = "witness" | "parent-hash"

/**
 * What a chain's cycles tell the next one: how many blocks the last moved its wallets (`-1n`
 * before the first: unknown, so that the first cycle of an engine finds the head by the witness
 * protocol, however far the chain went meanwhile). See `parentHashes`.
 */
export interface HeadPace {
  moved: bigint
}

/** One EVM chain's part of a cycle: what it reads with, whom it reads for, and how. */
export interface ChainInput {
  readonly client: EvmClient.Service
  readonly store: StateStore["Service"]
  readonly chain: Chain.ChainId
  readonly wallets: ReadonlyArray<EvmWallet>
  readonly checkpoints: ReadonlyMap<string, Checkpoint>
  /** The state file's wallets on the chain that the engine does not watch (see `restingOf`). */
  readonly resting: ReadonlyArray<Tracked>
  /** The wallets with their checkpoints, indexed once per state (see `chainIndex`). */
  readonly index: ChainIndex
  readonly strategy: Strategy
  readonly confirmations: number
  readonly reorgWindow: number
  readonly maxBlocks: number
  /** How a cycle at the head notices reorganisations (see `Engine.Options.reorgCheck`). */
  readonly reorgCheck: ReorgCheck
  /** How many blocks the chain's last cycle moved its wallets (see `parentHashes`), kept by the engine. */
  readonly pace: HeadPace
  /** Told the chain's head (the newest fully indexed block) when the cycle found it (see `Engine.Head`). */
  readonly onHead: (block: bigint) => Effect.Effect<void>
}
