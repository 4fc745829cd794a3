/**
 * How long a scan waits before it looks at its wallets again (`Scanner.rereadPause`): an interval
 * after a quick look, eight times the look after a slow one (a large set read again), ten
 * intervals at most, so that a service adding wallets request after request is not slowed by
 * reads of the set it is growing.
 */
import { assert, describe, it } from "@effect/vitest"
import { Duration } from "effect"
import { Scanner } from "../src/index.js"

const millis = (interval: Duration.Duration, spent: number) => Duration.toMillis(Scanner.rereadPause(interval, spent))

describe("the pause before a scan looks at its wallets again", () => {
  it("an interval after a look that took less than an eighth of it", () => {
    assert.strictEqual(millis(Duration.seconds(1), 0), 1_000)
    assert.strictEqual(millis(Duration.seconds(1), 125), 1_000)
    assert.strictEqual(millis(Duration.seconds(10), 900), 10_000)
  })

  it("eight times the look after a longer one: at most about a ninth of the scan's time goes to reading its wallets", () => {
    assert.strictEqual(millis(Duration.seconds(1), 126), 1_008)
    assert.strictEqual(millis(Duration.seconds(1), 700), 5_600)
    assert.strictEqual(millis(Duration.millis(500), 600), 4_800)
  })

  it("at most ten intervals (a look slowed by a stalled database does not leave new wallets unread for long)", () => {
    assert.strictEqual(millis(Duration.seconds(1), 60_000), 10_000)
    assert.strictEqual(millis(Duration.seconds(10), 20_000), 100_000)
  })

  it("a clock that went back counts as no time spent", () => {
    assert.strictEqual(millis(Duration.seconds(1), -5_000), 1_000)
  })
})
