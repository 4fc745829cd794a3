/**
 * The backfill's progress bar: the line it renders, plain occasional lines when its output is
 * not a terminal, a throttled line redrawn in place with `\r` on a terminal, and `Backfill.run`
 * writing it to the output it was given (stderr in the CLI), never to the events' `write`.
 */
import { assert, describe, it } from "@effect/vitest"
import { Simulator } from "@chainquery/simulator"
import { Effect } from "effect"
import { Backfill } from "../src/index.js"
import * as ProgressBar from "../src/internal/backfill/progressBar.js"
import { busiestEvm, harness } from "./support/engineHarness.js"

/** An output that records what is written, and a clock moved by hand. */
const fake = (isTTY: boolean, columns?: number) => {
  const writes: Array<string> = []
  let now = 1_000_000
  return {
    writes,
    output: { isTTY, columns, write: (text: string) => writes.push(text) },
    now: () => now,
    tick: (millis: number) => {
      now += millis
    }
  }
}

describe("ProgressBar.render", () => {
  it("wallets done of the total, percent, events, elapsed and time left", () => {
    const state = { label: "backfill from block 5", done: 10, total: 40, events: 12345, startedAt: 0, now: 5000 }
    assert.strictEqual(
      ProgressBar.render(state),
      "backfill from block 5 [#####---------------] 10/40 wallets 25% | 12,345 events | 5s elapsed, ~15s left"
    )
    assert.match(ProgressBar.render({ ...state, done: 0 }), /0\/40 wallets 0% .*time left unknown$/)
    assert.match(ProgressBar.render({ ...state, done: 40, now: 200_000 }), /\[#{20}\] 40\/40 wallets 100% \| 12,345 events \| 3m20s elapsed$/)
    assert.strictEqual(ProgressBar.renderFinal({ ...state, done: 40 }, "done"), "backfill from block 5 done: 40/40 wallets, 12,345 events in 5s")
    assert.strictEqual(ProgressBar.formatDuration(3_723_000), "1h02m")
  })
})

describe("ProgressBar.make", () => {
  it("not a terminal: a plain line at the start, at each further tenth, as events come (every 5 s at most), and a final line", () => {
    const f = fake(false)
    const bar = ProgressBar.make(f.output, { label: "backfill", total: 100, now: f.now })
    for (let i = 0; i < 100; i++) {
      f.tick(10)
      bar.found(3)
      bar.advance(1)
    }
    f.tick(6000)
    bar.found(1)
    bar.finish("done")
    assert.isTrue(f.writes.every((text) => text.endsWith("\n") && !text.includes("\r") && !text.includes("\u001b")))
    const lines = f.writes.map((text) => text.trimEnd())
    // The start, ten tenths, one line for events found 6 s later, the final line.
    assert.strictEqual(lines.length, 13)
    assert.match(lines[0]!, /^backfill \[-{20}\] 0\/100 wallets 0%/)
    assert.match(lines[1]!, /10\/100 wallets 10% \| 30 events/)
    assert.match(lines[10]!, /100\/100 wallets 100% \| 300 events/)
    assert.match(lines[11]!, /301 events/)
    assert.strictEqual(lines[12], "backfill done: 100/100 wallets, 301 events in 7s")
  })

  it("a terminal: one line redrawn in place with \\r, at most every 100 ms, cut to the width, finished on its own line", () => {
    const f = fake(true, 60)
    const bar = ProgressBar.make(f.output, { label: "backfill", total: 1000, now: f.now })
    for (let i = 0; i < 1000; i++) {
      f.tick(1)
      bar.advance(1)
    }
    bar.finish("stopped")
    // One draw at the start, then one per 100 ms of the 1 s, then the final line.
    assert.strictEqual(f.writes.length, 1 + 10 + 1)
    for (const text of f.writes.slice(0, -1)) {
      assert.isTrue(text.startsWith("\r") && text.endsWith("\u001b[K") && !text.includes("\n"))
      assert.isAtMost(text.length - "\r\u001b[K".length, 59)
    }
    assert.strictEqual(f.writes.at(-1), "\rbackfill stopped: 1,000/1,000 wallets, 0 events in 1s\u001b[K\n")
    bar.advance(1)
    bar.finish("done")
    assert.strictEqual(f.writes.length, 12)
  })
})

describe("Backfill.run and its progress", () => {
  it.live("the bar goes to the progress output only; the write function gets only events", () =>
    Effect.gen(function*() {
      const sim = yield* Simulator.Simulator
      const wallets = busiestEvm(sim, "0x1", 4)
      const f = fake(false)
      const from = BigInt(sim.world.evm.chain("0x1").head - 30)
      const written: Array<string> = []
      const summary = yield* Backfill.run({
        wallets,
        from: { _tag: "Block", block: from },
        watch: ["transfers"],
        write: (events) => Effect.sync(() => void written.push(...events.map((event) => event.id))),
        progress: f.output
      })
      assert.isAbove(written.length, 0)
      assert.isTrue(written.every((id) => id.startsWith("evm:0x1:")))
      assert.isAtLeast(f.writes.length, 2)
      assert.match(f.writes[0]!, /^backfill from block \d+ \[-+\] 0\/4 wallets/)
      assert.match(f.writes.at(-1)!, new RegExp(`^backfill from block ${from} done: 4/4 wallets, ${summary.events} events in \\S+\n$`))
    }).pipe(Effect.provide(harness({ seed: 38, indexing: false, chains: ["0x1"] }))))
})
