/**
 * Test support for the engine: a simulator started in-process, an `EvmClient` and a mainnet
 * ledger client pointed at it over real HTTP, an in-memory state store, and the simulator's
 * ground truth turned into the events the watcher should emit.
 */
import { LedgerClient } from "@chainquery/ledger-client"
import { AptosAddress, type Chain, EvmAddress, NftTransfer } from "@chainquery/schema"
import { Simulator } from "@chainquery/simulator"
import { EvmClient } from "@chainquery/evm-client"
import { Effect, Layer, Schema } from "effect"
import { FetchHttpClient } from "effect/http"
import { EventId, LedgerClients, StateStore, WatchEvent, type WatchedWallet } from "../../src/index.js"

export type Sim = Simulator.Simulator["Service"]

/** A simulator, the clients on it and a fresh in-memory state store. */
export const harness = (options: Simulator.Options) =>
  Layer.mergeAll(
    Layer.effect(
      EvmClient.EvmClient,
      Effect.flatMap(Simulator.Simulator, (sim) => EvmClient.make({ baseUrl: sim.evmUrl, apiKey: sim.apiKey }))
    ),
    Layer.effect(
      LedgerClients.MainnetLedger,
      Effect.flatMap(Simulator.Simulator, (sim) =>
        LedgerClient.make({ network: "mainnet", baseUrl: sim.ledgerUrl.mainnet, apiKey: sim.apiKey }))
    )
  ).pipe(
    Layer.provide(FetchHttpClient.layer),
    Layer.provideMerge(Simulator.layer(options)),
    Layer.merge(StateStore.layerMemory)
  )

const decodeEvm = Schema.decodeUnknownSync(EvmAddress.EvmAddress)
const decodeAptos = Schema.decodeUnknownSync(AptosAddress.AptosAddress)

/** The `n` EVM wallets with the most transfers on a chain so far. */
export const busiestEvm = (sim: Sim, chain: Chain.ChainId, n: number): Array<WatchedWallet.EvmWallet> =>
  [...sim.world.evm.chain(chain).transfersByWallet]
    .toSorted((a, b) => b[1].length - a[1].length)
    .slice(0, n)
    .map(([address]) => ({ family: "evm", chain, address: decodeEvm(address) }))

/** Every EVM wallet of the world, on one chain. */
export const allEvm = (sim: Sim, chain: Chain.ChainId): Array<WatchedWallet.EvmWallet> =>
  sim.world.evm.wallets.map((address) => ({ family: "evm", chain, address: decodeEvm(address) }))

/** The `n` busiest Aptos mainnet wallets. */
export const busiestAptos = (sim: Sim, n: number): Array<WatchedWallet.AptosWallet> =>
  sim.world.aptos.mainnet.sampleWallets(n).map((address) => ({ family: "aptos", network: "mainnet", address: decodeAptos(address) }))

const decodeTransfers = Schema.decodeUnknownSync(Schema.Struct({ events: Schema.Array(NftTransfer.NftTransfer) }))

/**
 * The events the watcher should have emitted for `wallets` in blocks `(after, upTo]`, from the
 * simulator's ground-truth log (`GET /__sim/events`, over HTTP, in wire form).
 */
export const evmTruth = (sim: Sim, chain: Chain.ChainId, wallets: ReadonlyArray<WatchedWallet.EvmWallet>, after: bigint, upTo: bigint) =>
  Effect.promise(async () => {
    const response = await fetch(`${sim.url}/__sim/events?chain=${chain}&fromBlock=${after + 1n}`)
    const { events } = decodeTransfers(await response.json())
    return events
      .filter((transfer) => transfer.block_number > after && transfer.block_number <= upTo)
      .flatMap((transfer) => wallets.flatMap((wallet) => WatchEvent.fromNftTransfer(chain, wallet.address, transfer)))
  })

/** The events the watcher should have emitted for Aptos mainnet `wallets` in versions `(after, upTo]`. */
export const aptosTruth = (sim: Sim, wallets: ReadonlyArray<WatchedWallet.AptosWallet>, after: bigint, upTo: bigint) =>
  sim.world.aptos.mainnet
    .transfersSince(after + 1n)
    .filter((transfer) => transfer.transaction_version > after && transfer.transaction_version <= upTo)
    .flatMap((transfer) => wallets.flatMap((wallet) => WatchEvent.fromAptosTransfer("mainnet", wallet.address, transfer)))

/** The single checkpoint position of the given wallets (they move together in these tests). */
export const positionOf = (wallets: ReadonlyArray<WatchedWallet.WatchedWallet>) =>
  Effect.gen(function*() {
    const store = yield* StateStore.StateStore
    const keys = new Set(wallets.map((w) => (w.family === "evm" ? `evm:${w.chain}:${w.address}` : `aptos:${w.network}:${w.address}`)))
    const positions = (yield* store.checkpoints)
      .filter((c) => keys.has(c.wallet.family === "evm" ? `evm:${c.wallet.chain}:${c.wallet.address}` : `aptos:${c.wallet.network}:${c.wallet.address}`))
      .map((c) => c.position)
    return { min: positions.reduce((a, b) => (b < a ? b : a)), max: positions.reduce((a, b) => (b > a ? b : a)), count: positions.length }
  })

/** The trade events of `wallets` in blocks `[from, upTo]`, from the simulator's world (not through A4). */
export const tradeTruth = (sim: Sim, chain: Chain.ChainId, wallets: ReadonlyArray<WatchedWallet.EvmWallet>, from: bigint, upTo: bigint) =>
  sim.world.evm.chain(chain).trades
    .filter((trade) => BigInt(trade.block) >= from && BigInt(trade.block) <= upTo)
    .flatMap((trade) =>
      wallets.flatMap((wallet) => [
        ...(trade.seller === wallet.address ? [EventId.trade(chain, trade.txHash, trade.contract, trade.tokenIds, "sold", trade.buyer)] : []),
        ...(trade.buyer === wallet.address ? [EventId.trade(chain, trade.txHash, trade.contract, trade.tokenIds, "bought", trade.seller)] : [])
      ])
    )
