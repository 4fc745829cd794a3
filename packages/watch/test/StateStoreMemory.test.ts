/**
 * The state store in memory (`StateStore.layerMemory`): it loads no SQLite, and after the same
 * commits (several chains and wallets, an Aptos wallet on each network, pruning, a reorganisation,
 * block events replaced and dropped, DeFi, backfills, pending events, a failing commit) it reads
 * back exactly what SQLite's in-memory database reads back.
 */
import { assert, describe, it } from "@effect/vitest"
import { DateTime, Effect, Option } from "effect"
import { spawnSync } from "node:child_process"
import { fileURLToPath } from "node:url"
import { StateStore, WatchedWallet } from "../src/index.js"
import { alice, aptosAlice, aptosBob, bob } from "./fixtures.js"
import { bought, evm, received, replay } from "./support/stateReplay.js"

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
