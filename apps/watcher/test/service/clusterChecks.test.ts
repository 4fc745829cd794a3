/**
 * The checks the cluster tests make of the simulator's request log can fail: two runners listing
 * eth's blocks at once make more turns than runners stopped and started, and blocks listed by both
 * within one interval; a handover (one stops, the next lists again a block it had not committed)
 * makes one turn more and no such block.
 */
import { assert, describe, it } from "@effect/vitest"
import { type Listing, listedTwice, turnsOf } from "./support/clusterE2e.js"

/** Runner `runner` listing blocks `from`..`to`, one every `everyMs` from `at`. */
const scan = (runner: string, from: number, to: number, at: number, everyMs: number): Array<Listing> =>
  Array.from({ length: to - from + 1 }, (_, i) => ({ runner, block: String(from + i), at: at + i * everyMs }))

const byTime = (listings: ReadonlyArray<Listing>) => listings.toSorted((a, b) => a.at - b.at)

describe("the cluster tests' checks of the request log", () => {
  it("two runners scanning at once: many turns, and blocks listed by both within one interval", () => {
    const both = byTime([...scan("a:1", 100, 120, 0, 300), ...scan("b:2", 100, 120, 40, 300)])
    assert.isAbove(turnsOf(both).length, 20)
    const twice = listedTwice(both, 300)
    assert.strictEqual(twice.length, 20) // all but the last block: after it, neither lists again
    assert.deepStrictEqual(twice[0], { block: "100", runners: ["a:1", "b:2"], apartMs: 40 })
  })

  it("a handover: one turn more, and no block listed by both while both scanned", () => {
    // a lists 100..110 and dies before committing 109 and 110; b lists them again 150 ms later.
    const handover = byTime([...scan("a:1", 100, 110, 0, 300), ...scan("b:2", 109, 120, 3_150, 300)])
    assert.deepStrictEqual(turnsOf(handover).map((turn) => [turn.runner, turn.requests]), [["a:1", 11], ["b:2", 12]])
    assert.deepStrictEqual(listedTwice(handover, 300), [])
  })
})
