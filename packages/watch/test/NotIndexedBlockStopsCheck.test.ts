/**
 * A recorded block that the service lists as existing but not fully indexed (`block_exists` true,
 * `index_complete` false: the head while the service is still indexing it, or a block it is
 * indexing again) is no proof of anything: reading it again gives `undefined` and the check of
 * the record stops (everything is read again next cycle), instead of taking its empty listing for
 * a block replaced by one without the transfers, retracting what was printed from it.
 * The record is built from the simulator's world without indexing lag; the same world (same seed)
 * is then served with the newest block never indexed yet.
 */
import { assert, describe, it } from "@effect/vitest"
import { EvmClient } from "@chainquery/evm-client"
import { Simulator } from "@chainquery/simulator"
import { Effect, Option } from "effect"
import { probeRecord, readAgain } from "../src/internal/cycle/deepReorg.js"
import { everyWallet, headOf, recordOf, simulated, walkInput } from "./support/recentRecord.js"

const seed = "not-indexed-head"

/** The simulator, its client, its head and every wallet covering every block. */
const world = Effect.gen(function*() {
  const sim = yield* Simulator.Simulator
  const client = yield* EvmClient.EvmClient
  const head = headOf(sim)
  return { sim, client, head, tracked: everyWallet(sim, head) }
})

describe("a block that exists but is not fully indexed yet", () => {
  it.effect("stops the check of the record: not read as replaced, nothing retracted, read again next cycle", () =>
    Effect.gen(function*() {
      // What a cycle recorded while the head was indexed: the last 6 blocks, the head's printed events.
      const recent = yield* Effect.flatMap(world, ({ client, head, tracked }) => recordOf(client, tracked, head - 5n, head)).pipe(
        Effect.provide(simulated(seed))
      )
      yield* Effect.gen(function*() {
        const { client, head, tracked } = yield* world
        const input = walkInput(client, tracked, recent)
        const printed = recent.printed.get(head) ?? []
        assert.isAbove(printed.length, 0, "events were printed from the head")
        const listing = yield* client.getNFTTransfersByBlock({ block: head, chain: "0x1", limit: 1 })
        assert.deepStrictEqual(
          [Option.getOrUndefined(listing.block_exists), Option.getOrUndefined(listing.index_complete), listing.result.length],
          [true, false, 0],
          "the head exists, not indexed yet"
        )
        const below = yield* readAgain(input, head - 1n)
        assert.isFalse(below!.replaced, "the same world: the block below is unchanged")
        assert.isUndefined(yield* readAgain(input, head), "the head is not read as a block without transfers")
        assert.isUndefined(yield* probeRecord(input, head, 0, 6), "the check stops: nothing retracted, read again next cycle")
      }).pipe(Effect.provide(simulated(seed, 1, { lagProbability: 1 })))
    }))
})
