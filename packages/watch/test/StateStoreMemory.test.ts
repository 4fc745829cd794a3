/**
 * The state store in memory (`StateStore.layerMemory`): it loads no SQLite, and after the same
 * commits (several chains and wallets, an Aptos wallet on each network, pruning, a reorganisation,
 * block events replaced and dropped, DeFi, backfills, pending events, a failing commit) it reads
 * back exactly what SQLite's in-memory database reads back.
 */
import { assert, describe, it } from "@effect/vitest"
import { DateTime, Effect, Option } from "effect"
import { TestClock } from "effect/testing"
import { spawnSync } from "node:child_process"
import { fileURLToPath } from "node:url"
import { StateStore, WatchedWallet, WatchEvent } from "../src/index.js"
import { alice, aptosAlice, aptosBob, bob, nftTransfer, summary, trade } from "./fixtures.js"

const evm: WatchedWallet.EvmWallet = { family: "evm", chain: "0x1", address: alice }
const base: WatchedWallet.EvmWallet = { family: "evm", chain: "0x2105", address: alice }
const aptos: WatchedWallet.AptosWallet = { family: "aptos", network: "testnet", address: aptosAlice }
const hash = (n: number) => `0x${n.toString(16).padStart(64, "0")}`

/**
 * Runs the built package (`dist`, as users import it) in a Node started with node:sqlite turned
 * off: one commit and its reads through `StateStore.<layer>`, printed as JSON.
 */
const withoutSqlite = (layer: string) => {
  const script = `
    const { Effect } = await import("effect")
    const { StateStore } = await import(${JSON.stringify(new URL("../dist/index.js", import.meta.url).href)})
    const wallet = { family: "evm", chain: "0x1", address: ${JSON.stringify(alice)} }
    const read = await Effect.runPromise(Effect.gen(function*() {
      const store = yield* StateStore.StateStore
      yield* store.commit({ checkpoints: [{ wallet, position: 7n, hash: null }], pending: [], eventIds: ["a"] })
      const last = yield* store.lastBatch
      return { sequence: last.value.sequence, eventIds: last.value.eventIds }
    }).pipe(Effect.provide(StateStore.${layer})))
    console.log(JSON.stringify({ ...read, sqlite: typeof process.getBuiltinModule("node:sqlite") }))
  `
  return spawnSync(process.execPath, ["--no-experimental-sqlite", "--input-type=module", "-e", script], {
    cwd: fileURLToPath(new URL("..", import.meta.url)),
    encoding: "utf8",
    timeout: 60_000
  })
}
const bobEth: WatchedWallet.EvmWallet = { family: "evm", chain: "0x1", address: bob }
const bobBase: WatchedWallet.EvmWallet = { family: "evm", chain: "0x2105", address: bob }
const polygon: WatchedWallet.EvmWallet = { family: "evm", chain: "0x89", address: alice }
const optimism: WatchedWallet.EvmWallet = { family: "evm", chain: "0xa", address: alice }
const aptosMainnet: WatchedWallet.AptosWallet = { family: "aptos", network: "mainnet", address: aptosBob }
const evmWallets = [evm, bobEth, base, bobBase, polygon, optimism]
const block = (chain: "0x1" | "0x89" | "0xa", n: number) => ({ chain, number: BigInt(n), hash: hash(n) })
const received = (wallet: WatchedWallet.EvmWallet, n: number) =>
  WatchEvent.fromNftTransfer(wallet.chain, wallet.address, nftTransfer({ block_number: String(n), block_hash: hash(n), log_index: n }))
const bought = WatchEvent.fromTrade("0x1", alice, trade())
const eventsAt = (chain: "0x1" | "0x89", n: number, events: ReadonlyArray<WatchEvent.NftEvent | WatchEvent.TradeEvent>) => ({
  ...block(chain, n),
  events
})
const aave = [summary("aave-v3", [["supplied", "0x" + "dd".repeat(20), 1234.5]])]
const may1 = DateTime.makeUnsafe("2024-05-01T00:00:00Z")

/** Commits of every kind, in no order, over several chains, wallets and networks; the third one fails. */
const batches: ReadonlyArray<StateStore.Batch> = [{
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
}]

/** Every read, for every wallet and chain above. */
const readEverything = Effect.gen(function*() {
  const store = yield* StateStore.StateStore
  return {
    checkpoints: yield* store.checkpoints,
    each: yield* Effect.forEach([...evmWallets, aptos, aptosMainnet], (wallet) => store.checkpoint(wallet)),
    blocks: yield* Effect.forEach(["0x1", "0x89", "0xa"] as const, (chain) => store.blockHashes(chain)),
    blockEvents: yield* Effect.forEach(["0x1", "0x89"] as const, (chain) => store.blockEvents(chain)),
    defi: yield* Effect.forEach(evmWallets, (wallet) => store.defiSnapshot(wallet)),
    pending: yield* store.pendingEvents,
    backfills: yield* store.backfills,
    last: yield* store.lastBatch
  }
})

/** Commits the batches a second apart, then clears the pending events: each commit's outcome and every read after it. */
const replay = Effect.gen(function*() {
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

describe("StateStore in memory", () => {
  it("needs no SQLite: in a Node without node:sqlite, the built package commits and reads back in memory (a SQLite store fails there)", () => {
    const inMemory = withoutSqlite("layerMemory")
    assert.strictEqual(inMemory.status, 0, inMemory.stderr)
    assert.deepStrictEqual(JSON.parse(inMemory.stdout.trim()), { sequence: 1, eventIds: ["a"], sqlite: "undefined" })
    const inSqlite = withoutSqlite("layer(\":memory:\")")
    assert.notStrictEqual(inSqlite.status, 0)
    assert.match(inSqlite.stderr, /sqlite/i)
  })

  it.effect("reads back, after the same commits, exactly what SQLite's in-memory database reads back", () =>
    Effect.gen(function*() {
      const memory = yield* replay.pipe(Effect.provide(StateStore.layerMemory))
      const sqlite = yield* replay.pipe(Effect.provide(StateStore.layer(":memory:")))
      assert.deepStrictEqual(memory, sqlite)
      // What both read back, in short.
      const [first, second, failed, , last] = memory.steps
      assert.deepStrictEqual(first!.state.checkpoints.map((c) => `${WatchedWallet.key(c.wallet)} ${c.since}`), [
        `evm:0x1:${alice} 300`,
        `evm:0x1:${bob} 300`,
        `evm:0x2105:${bob} 50`,
        `evm:0x89:${alice} 3`,
        `aptos:mainnet:${aptosBob} 9007199254740993`,
        `aptos:testnet:${aptosAlice} 5`
      ])
      assert.deepStrictEqual(first!.state.blocks[0]!.map((b) => b.number), Array.from({ length: 256 }, (_, i) => BigInt(45 + i)))
      assert.deepStrictEqual(second!.state.blockEvents[0]!.map((b) => b.number), [301n])
      assert.deepStrictEqual(Option.map(second!.state.each[0]!, (c) => [c.position, c.since]), Option.some([301n, 300n]))
      assert.deepStrictEqual(second!.state.backfills.map((b) => [b.wallet.address, b.through]), [[bob, 270n]])
      assert.deepStrictEqual(second!.state.pending, [...received(evm, 299), ...bought])
      assert.deepStrictEqual(failed, { outcome: { failed: "commit: BigInt value is too large to bind." }, state: second!.state })
      assert.deepStrictEqual(last!.outcome, { committed: { sequence: 4, committedAt: DateTime.makeUnsafe(1_714_521_605_000), eventIds: ["d"] } })
      assert.deepStrictEqual(last!.state.pending, bought)
      assert.deepStrictEqual(memory.cleared.pending, [])
    }))
})
