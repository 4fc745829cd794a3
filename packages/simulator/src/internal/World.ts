/**
 * The whole simulated world: the 25 EVM chains and the two Aptos networks, advanced together.
 *
 * @internal
 */
import type { Chain } from "@chainquery/schema"
import { AptosWorld } from "./aptos/AptosWorld.js"
import { EvmWorld, type IndexingOptions, type ReorgRecord } from "./evm/EvmWorld.js"

/** The knobs of a world. */
export interface WorldOptions {
  readonly seed: string
  /** Blocks generated per EVM chain (and ticks per Aptos network) before serving. */
  readonly history: number
  readonly wallets: number
  readonly activityScale: number
  readonly indexing: IndexingOptions | false
  readonly activeChains?: ReadonlyArray<Chain.ChainId> | undefined
}

/** The Aptos networks. */
export type Network = "mainnet" | "testnet"

/** EVM chains and Aptos networks. */
export class World {
  readonly evm: EvmWorld
  readonly aptos: Readonly<Record<Network, AptosWorld>>

  constructor(readonly options: WorldOptions) {
    this.evm = new EvmWorld(options)
    this.aptos = {
      mainnet: new AptosWorld({ seed: `${options.seed}/aptos/mainnet`, network: "mainnet", history: options.history }),
      testnet: new AptosWorld({ seed: `${options.seed}/aptos/testnet`, network: "testnet", history: options.history })
    }
  }

  /** Advances every chain by `blocks` blocks and every Aptos network by as many ticks. */
  advance(blocks = 1): void {
    for (let i = 0; i < blocks; i++) {
      this.evm.advance()
      this.aptos.mainnet.advance()
      this.aptos.testnet.advance()
    }
  }

  /** Reorganises the last `depth` blocks of an EVM chain. */
  reorg(chain: Chain.ChainId, depth: number): ReorgRecord {
    return this.evm.reorg(chain, depth)
  }
}
