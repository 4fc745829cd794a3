/**
 * `--memory lean` follows V8's full collections (`heapMode.follow`): so many within the window
 * relax the heap (it grows as with `fast`) for a while, then it is lean again; fewer, or older
 * ones, change nothing, and collections while relaxed do not prolong it; lean again, the heap is
 * compacted once (what it grew by is given back).
 */
import { describe, expect, it } from "vitest"
import { compact, follow, leanFollower, relaxAt } from "../../src/serve/heapMode.js"

describe("--memory lean follows the full collections", () => {
  it("relaxes after enough collections within the window, for a while, then is lean again", () => {
    const within = relaxAt.withinMillis
    // One short of enough, spread over the window: no change.
    const few = Array.from({ length: relaxAt.collections - 1 }, (_, i) => 1_000 + i * 100)
    const waiting = follow(leanFollower, 1_500, few)
    expect(waiting.change).toBeUndefined()
    expect(waiting.follower.collections).toEqual(few)
    // The oldest left the window when the next comes: still no change.
    const later = 1_000 + within + 50
    const slid = follow(waiting.follower, later, [later - 10])
    expect(slid.change).toBeUndefined()
    expect(slid.follower.collections).toHaveLength(relaxAt.collections - 1)
    // One more within the window: relaxed, until `forMillis` on.
    const relaxed = follow(slid.follower, later + 5, [later])
    expect(relaxed.change).toBe("fast")
    expect(relaxed.follower.relaxedUntil).toBe(later + 5 + relaxAt.forMillis)
    // Collections while relaxed change nothing, nor does the time before the end.
    const during = follow(relaxed.follower, later + 5 + relaxAt.forMillis - 1, few.map((at) => at + later))
    expect(during.change).toBeUndefined()
    expect(during.follower.relaxedUntil).toBe(relaxed.follower.relaxedUntil)
    // Then lean again, with nothing counted from before.
    const back = follow(during.follower, later + 5 + relaxAt.forMillis, [])
    expect(back.change).toBe("lean")
    expect(back.follower).toEqual(leanFollower)
  })
})

describe("compact", () => {
  it("collects the garbage of the heap at once", () => {
    let garbage: Array<{ readonly n: number; readonly text: string }> | undefined = Array.from({ length: 400_000 }, (_, n) => ({ n, text: `wallet ${n}` }))
    const held = process.memoryUsage().heapUsed
    expect(garbage).toHaveLength(400_000)
    garbage = undefined
    expect(compact()).toBe(true)
    // 400,000 small objects and their strings: tens of megabytes, all given back.
    expect(held - process.memoryUsage().heapUsed).toBeGreaterThan(16 * 1024 * 1024)
  })
})
