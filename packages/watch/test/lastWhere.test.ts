/**
 * The engine's search for the last block that satisfies a monotone probe (the safe head): the
 * right block, and few probes: one when nothing is new, two for one new block, about
 * 2 log2(distance) otherwise.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { lastWhere } from "../src/internal/cycle/evmReads.js"

const search = (from: bigint, last: bigint) =>
  Effect.gen(function*() {
    let probes = 0
    const found = yield* lastWhere(from, (block) => Effect.sync(() => (probes++, block <= last)))
    return { found, probes }
  })

describe("lastWhere", () => {
  it.effect("nothing new: one probe", () =>
    Effect.map(search(100n, 100n), ({ found, probes }) => {
      assert.strictEqual(found, 100n)
      assert.strictEqual(probes, 1)
    }))

  it.effect("one new block: two probes", () =>
    Effect.map(search(100n, 101n), ({ found, probes }) => {
      assert.strictEqual(found, 101n)
      assert.strictEqual(probes, 2)
    }))

  it.effect("any distance: the last block that holds, in about 2 log2(distance) probes", () =>
    Effect.gen(function*() {
      for (const distance of [2n, 3n, 7n, 8n, 9n, 100n, 1_000n, 19_000_000n]) {
        const { found, probes } = yield* search(5n, 5n + distance)
        assert.strictEqual(found, 5n + distance, String(distance))
        assert.isAtMost(probes, 2 * Math.ceil(Math.log2(Number(distance) + 1)) + 1, String(distance))
      }
    }))
})
