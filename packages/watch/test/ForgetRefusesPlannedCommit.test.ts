/**
 * `PgStateStore.forget` on a real PostgreSQL: a wallet the namespace has is forgotten for good. The
 * engine's next commit, planned before the forget, is refused (a refusal the engine reads the
 * state again for, not a failure: `refused` is true), so that it cannot write a forgotten wallet
 * back; once the state is read again, commits go on and the wallet stays forgotten.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import { PgStateStore, WatchedWallet } from "../src/index.js"
import { alice } from "./fixtures.js"
import { freshDatabase } from "./support/postgres.js"

const evm: WatchedWallet.EvmWallet = { family: "evm", chain: "0x1", address: alice }
const base: WatchedWallet.EvmWallet = { family: "evm", chain: "0x2105", address: alice }

describe("PgStateStore.forget", () => {
  it.effect("the engine's commit planned before a forget is refused (refused: true), and the forgotten wallet is not written back", () =>
    Effect.gen(function*() {
      const store = yield* PgStateStore.make({ namespace: "scanner:eth" })
      yield* store.commit({ checkpoints: [{ wallet: evm, position: 10n, hash: "0x10" }, { wallet: base, position: 7n, hash: null }], eventIds: [] })
      // The engine reads the state, plans its cycle; the wallet is forgotten beside it meanwhile.
      assert.strictEqual((yield* store.checkpoints).length, 2)
      yield* PgStateStore.forget("scanner:eth", [evm])
      const planned = { checkpoints: [{ wallet: evm, position: 11n, hash: "0x11" }, { wallet: base, position: 8n, hash: null }], eventIds: ["a"] }
      const refused = yield* Effect.flip(store.commit(planned))
      assert.strictEqual(refused._tag, "StateStoreError")
      assert.strictEqual(refused.refused, true, "a refusal, not a failure of the store")
      assert.match(refused.message, /changed beside the engine/)
      assert.isTrue(Option.isNone(yield* store.checkpoint(evm)), "the forgotten wallet is not written back")
      assert.deepStrictEqual(Option.map(yield* store.checkpoint(base), (c) => c.position), Option.some(7n), "nothing of the refused batch written")
      assert.deepStrictEqual(Option.map(yield* store.lastBatch, (last) => last.sequence), Option.some(1))
      // Read again, the engine no longer has the wallet: its next commit goes through.
      assert.deepStrictEqual((yield* store.checkpoints).map((c) => WatchedWallet.key(c.wallet)), [WatchedWallet.key(base)])
      yield* store.commit({ checkpoints: [{ wallet: base, position: 8n, hash: null }], eventIds: ["a"] })
      assert.deepStrictEqual(Option.map(yield* store.checkpoint(base), (c) => c.position), Option.some(8n))
      assert.isTrue(Option.isNone(yield* store.checkpoint(evm)))
    }).pipe(Effect.provide(freshDatabase), Effect.orDie))
})
