/**
 * One replay of state commits for comparing stores: commits of every kind, in no order, over
 * several chains, wallets and networks (pruning, a reorganisation, block events replaced and
 * dropped, checkpoints advanced together, DeFi, backfills, pending events, a commit that must fail), and every read after each.
 */
import { DateTime, Effect } from "effect"
import { TestClock } from "effect/testing"
import { StateStore, WatchedWallet, WatchEvent } from "../../src/index.js"
import { alice, aptosAlice, aptosBob, bob, nftTransfer, summary, trade } from "../fixtures.js"

export const evm: WatchedWallet.EvmWallet = { family: "evm", chain: "0x1", address: alice }
export const base: WatchedWallet.EvmWallet = { family: "evm", chain: "0x2105", address: alice }
export const aptos: WatchedWallet.AptosWallet = { family: "aptos", network: "testnet", address: aptosAlice }
export const hash = (n: number) => `0x${n.toString(16).padStart(64, "0")}`
export const bobEth: WatchedWallet.EvmWallet = { family: "evm", chain: "0x1", address: bob }
export const bobBase: WatchedWallet.EvmWallet = { family: "evm", chain: "0x2105", address: bob }
const polygon: WatchedWallet.EvmWallet = { family: "evm", chain: "0x89", address: alice }
const optimism: WatchedWallet.EvmWallet = { family: "evm", chain: "0xa", address: alice }
const aptosMainnet: WatchedWallet.AptosWallet = { family: "aptos", network: "mainnet", address: aptosBob }
const evmWallets = [evm, bobEth, base, bobBase, polygon, optimism]
const block = (chain: "0x1" | "0x89" | "0xa", n: number) => ({ chain, number: BigInt(n), hash: hash(n) })
export const received = (wallet: WatchedWallet.EvmWallet, n: number) =>
  WatchEvent.fromNftTransfer(wallet.chain, wallet.address, nftTransfer({ block_number: String(n), block_hash: hash(n), log_index: n }))
export const bought = WatchEvent.fromTrade("0x1", alice, trade())
const eventsAt = (chain: "0x1" | "0x89", n: number, events: ReadonlyArray<WatchEvent.NftEvent | WatchEvent.TradeEvent>) => ({
  ...block(chain, n),
  events
})
const aave = [summary("aave-v3", [["supplied", "0x" + "dd".repeat(20), 1234.5]])]
const may1 = DateTime.makeUnsafe("2024-05-01T00:00:00Z")

/** Commits of every kind, in no order, over several chains, wallets and networks; the third one fails. */
export const batches: ReadonlyArray<StateStore.Batch> = [{
  checkpoints: [
    { wallet: bobBase, position: 50n, hash: hash(50) },
    { wallet: aptosMainnet, position: 9_007_199_254_740_993n, hash: null },
    { wallet: polygon, position: 7n, hash: hash(7), since: 3n },
    { wallet: evm, position: 300n, hash: hash(300) },
    { wallet: aptos, position: 5n, hash: null },
    { wallet: bobEth, position: 300n, hash: hash(300) }
  ],
  blocks: [...Array.from({ length: 300 }, (_, i) => block("0x1", 300 - i)), block("0x89", 7)],
  blockEvents: [eventsAt("0x1", 300, bought), eventsAt("0x1", 299, received(evm, 299)), eventsAt("0x89", 7, received(polygon, 7))],
  defiSnapshots: [{ wallet: polygon, blockNumber: 7n, summaries: [] }, { wallet: evm, blockNumber: 300n, summaries: aave }],
  backfills: [
    { wallet: polygon, label: "block 1", origin: 1n, through: 5n, fromDate: null, upTo: 7n, since: null },
    { wallet: bobEth, label: "2024-05-01", origin: null, through: null, fromDate: may1, upTo: 300n, since: 10n }
  ],
  pending: [...received(evm, 299), ...bought],
  eventIds: ["b", "a"]
}, {
  checkpoints: [{ wallet: evm, position: 301n, hash: hash(301), since: 3n }],
  forgetBlocks: [{ chain: "0x1", fromBlock: 299n }],
  blocks: [{ chain: "0x1", number: 299n, hash: hash(2990) }, block("0x1", 301)],
  blockEvents: [eventsAt("0x1", 301, received(bobEth, 301)), eventsAt("0x1", 280, [])],
  backfills: [{ wallet: bobEth, label: "2024-05-01", origin: 250n, through: 270n, fromDate: null, upTo: 300n, since: 10n }],
  backfillsDone: [polygon],
  eventIds: ["c"]
}, {
  checkpoints: [{ wallet: optimism, position: 1n, hash: hash(1) }],
  blocks: [block("0xa", 1), { chain: "0x1", number: 2n ** 64n, hash: hash(0) }],
  backfillsDone: [bobEth],
  pending: [],
  eventIds: ["never"]
}, { blockEvents: [eventsAt("0x89", 7, [])], pending: [], eventIds: [] }, {
  checkpoints: [{ wallet: optimism, position: 1n, hash: hash(1) }],
  pending: bought,
  eventIds: ["d"]
}, {
  // Only the checkpoints of that chain at that block move: bobEth, not evm (at 301) nor bobBase (at 50 on Base).
  advances: [{ chain: "0x1", from: 300n, to: 302n, hash: hash(302), count: 1 }, { chain: "0x1", from: 50n, to: 51n, hash: null, count: 0 }],
  eventIds: ["e"]
}, {
  // A checkpoint of the same batch wins over the advance.
  advances: [{ chain: "0x1", from: 302n, to: 304n, hash: hash(304), count: 1 }, { chain: "0x1", from: 301n, to: 304n, hash: hash(304), count: 1 }],
  checkpoints: [{ wallet: bobEth, position: 303n, hash: hash(303) }],
  eventIds: ["f"]
}, {
  // One checkpoint stands at 304 (evm), not two: the state changed under the engine, nothing is written.
  advances: [{ chain: "0x1", from: 304n, to: 310n, hash: hash(310), count: 2 }],
  checkpoints: [{ wallet: base, position: 9n, hash: hash(9) }],
  pending: bought,
  eventIds: ["never either"]
}]

/** Every read, for every wallet and chain above. */
export const readEverything = Effect.gen(function*() {
  const store = yield* StateStore.StateStore
  return {
    checkpoints: yield* store.checkpoints,
    each: yield* Effect.forEach([...evmWallets, aptos, aptosMainnet], (wallet) => store.checkpoint(wallet)),
    // In no given order: by wallet.
    some: (yield* store.checkpointsOf([...evmWallets, aptos, aptosMainnet])).toSorted((a, b) => WatchedWallet.key(a.wallet) < WatchedWallet.key(b.wallet) ? -1 : 1),
    blocks: yield* Effect.forEach(["0x1", "0x89", "0xa"] as const, (chain) => store.blockHashes(chain)),
    blockEvents: yield* Effect.forEach(["0x1", "0x89"] as const, (chain) => store.blockEvents(chain)),
    defi: yield* Effect.forEach(evmWallets, (wallet) => store.defiSnapshot(wallet)),
    pending: yield* store.pendingEvents,
    backfills: yield* store.backfills,
    last: yield* store.lastBatch
  }
})

/** Commits the batches a second apart, then clears the pending events: each commit's outcome and every read after it. */
export const replay = Effect.gen(function*() {
  const store = yield* StateStore.StateStore
  yield* TestClock.setTime(1_714_521_600_000)
  const steps = []
  for (const batch of batches) {
    yield* TestClock.adjust("1 second")
    const outcome = yield* Effect.match(store.commit(batch), {
      onFailure: (error) => ({ failed: `${error.operation}: ${error.message}` }),
      onSuccess: (last) => ({ committed: last })
    })
    steps.push({ outcome, state: yield* readEverything })
  }
  yield* store.clearPending
  return { steps, cleared: yield* readEverything }
})

