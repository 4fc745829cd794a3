/**
 * A twin simulator: the same seed and the same steps give the same world, so a test can learn on
 * a twin what a reorganisation will do, then pick the wallets that exercise it on its own
 * simulator. `afterReorg` advances the twin, reorganises the chain, and returns, per replaced
 * block, the world's wallets with a transfer in its new version and those new to it (no transfer
 * in its old version).
 */
import { type Chain, EvmAddress, NftTransfer } from "@chainquery/schema"
import { Simulator } from "@chainquery/simulator"
import { Effect, Schema } from "effect"
import type { Sim } from "./engineHarness.js"

const decodeTransfers = Schema.decodeUnknownSync(Schema.Struct({ events: Schema.Array(NftTransfer.NftTransfer) }))
const decodeAddress = Schema.decodeUnknownSync(EvmAddress.EvmAddress)

/** The transfers of blocks `[from, to]` of a chain from the simulator's ground truth. */
export const transfersIn = (sim: Sim, chain: Chain.ChainId, from: bigint, to: bigint) =>
  Effect.promise(async () => {
    const body = decodeTransfers(await (await fetch(`${sim.url}/__sim/events?chain=${chain}&fromBlock=${from}`)).json())
    return body.events.filter((transfer) => transfer.block_number >= from && transfer.block_number <= to)
  })

/** The world's wallets that take part in each block's transfers. */
const walletsByBlock = (sim: Sim, transfers: ReadonlyArray<NftTransfer.NftTransfer>) => {
  const known = new Set(sim.world.evm.wallets.map((address) => address.toLowerCase()))
  const blocks = new Map<bigint, Set<string>>()
  for (const transfer of transfers) {
    const set = blocks.get(transfer.block_number) ?? new Set<string>()
    for (const side of [transfer.from_address, transfer.to_address]) if (known.has(side.toLowerCase())) set.add(side.toLowerCase())
    blocks.set(transfer.block_number, set)
  }
  return blocks
}

/** A replaced block as the twin saw it. */
export interface Replaced {
  /** The chain's head when it was reorganised. */
  readonly head: bigint
  readonly block: bigint
  readonly wallets: ReadonlyArray<EvmAddress.EvmAddress>
  readonly newcomers: ReadonlyArray<EvmAddress.EvmAddress>
}

/** On a twin simulator: `advance` blocks one at a time, then a reorganisation of `depth` on `chain`. */
export const afterReorg = (options: Simulator.Options, chain: Chain.ChainId, advance: number, depth: number) =>
  Effect.gen(function*() {
    const sim = yield* Simulator.Simulator
    for (let i = 0; i < advance; i++) yield* sim.advance(1)
    const top = BigInt(sim.world.evm.chain(chain).head)
    const from = top - BigInt(depth) + 1n
    const before = walletsByBlock(sim, yield* transfersIn(sim, chain, from, top))
    yield* sim.reorg(chain, depth)
    const after = walletsByBlock(sim, yield* transfersIn(sim, chain, from, top))
    return [...after].map(([block, wallets]): Replaced => ({
      head: top,
      block,
      wallets: [...wallets].map((wallet) => decodeAddress(wallet)),
      newcomers: [...wallets].filter((wallet) => !(before.get(block)?.has(wallet) ?? false)).map((wallet) => decodeAddress(wallet))
    }))
  }).pipe(Effect.provide(Simulator.layer(options)))
