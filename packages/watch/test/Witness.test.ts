/**
 * A cycle's witness (`internal/cycle/witness.ts`), against the simulator over real HTTP: the
 * newest block the cycle may read (`confirmations` after its safe head), with its hash as first
 * read (its first NFT transfer's, or its header's when it has none); it stands while no
 * reorganisation replaced it, and falls once one did, so that the cycle's reads are not kept.
 */
import { assert, describe, it } from "@effect/vitest"
import { EvmClient } from "@chainquery/evm-client"
import { Simulator } from "@chainquery/simulator"
import { Effect, Option } from "effect"
import { stands, witnessedHead } from "../src/internal/cycle/witness.js"
import { chain, everyWallet, headOf, recordOf, simulated } from "./support/recentRecord.js"

describe("a cycle's witness", () => {
  for (const confirmations of [0, 2]) {
    it.effect(`confirmations ${confirmations}: the block that many after the safe head, with its hash; it stands until a reorganisation replaces it`, () =>
      Effect.gen(function*() {
        const sim = yield* Simulator.Simulator
        const client = yield* EvmClient.EvmClient
        const head = headOf(sim)
        const { hashes } = yield* recordOf(client, everyWallet(sim, head), head, head)
        assert.notStrictEqual(hashes.get(head), "", "the head has NFT transfers")
        const expected = { safe: head - BigInt(confirmations), witness: { block: head, hash: hashes.get(head)! } }
        // From a checkpoint behind (the probes saw the witness) and from the safe head itself (nothing new).
        assert.deepStrictEqual(yield* witnessedHead(client, chain, head - 6n, confirmations), expected)
        assert.deepStrictEqual(yield* witnessedHead(client, chain, head - BigInt(confirmations), confirmations), expected)
        const witness = expected.witness
        assert.isTrue(yield* stands(client, chain, witness))
        yield* sim.advance(1)
        assert.isTrue(yield* stands(client, chain, witness), "a new block on top replaces nothing")
        yield* sim.reorg(chain, 1)
        assert.isTrue(yield* stands(client, chain, witness), "a reorganisation of the new block only leaves the witness")
        yield* sim.reorg(chain, 2)
        assert.isFalse(yield* stands(client, chain, witness), "the witness was replaced")
      }).pipe(Effect.provide(simulated(`witness-${confirmations}`))))
  }

  it.effect("a witness without NFT transfers has its header's hash, and falls with it", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const client = yield* EvmClient.EvmClient
      const head = headOf(sim)
      const header = Option.getOrThrow(yield* client.getBlock({ block: head, chain }))
      assert.deepStrictEqual(yield* witnessedHead(client, chain, head - 4n, 0), { safe: head, witness: { block: head, hash: header.hash.toLowerCase() } })
      assert.deepStrictEqual(yield* witnessedHead(client, chain, head, 0), { safe: head, witness: { block: head, hash: header.hash.toLowerCase() } })
      const witness = { block: head, hash: header.hash.toLowerCase() }
      assert.isTrue(yield* stands(client, chain, witness))
      yield* sim.reorg(chain, 1)
      assert.isFalse(yield* stands(client, chain, witness))
    }).pipe(Effect.provide(simulated("witness-empty", 0))))
})
