/**
 * Timing for the client benchmarks, shared so that each compares the same way: two effects run
 * in alternating blocks of a few runs each (so a noisy moment of the machine hits both alike),
 * and the median time of one run of each, over all the blocks.
 *
 *   const { a, b } = yield* interleaved(bare, viaClient, { blocks: 140, perBlock: 10 })   // ms per run
 */
import { Effect } from "effect"

/** The middle value (the upper one of an even count). */
export const median = (values: ReadonlyArray<number>): number => values.toSorted((x, y) => x - y)[Math.floor(values.length / 2)]!

const timed = (effect: Effect.Effect<unknown, unknown>, runs: number) =>
  Effect.suspend(() => {
    const start = performance.now()
    return Effect.map(Effect.repeat(effect, { times: runs - 1 }), () => (performance.now() - start) / runs)
  })

/** Runs `a` then `b`, `perBlock` times each, `blocks` times; the median milliseconds of one run of each. */
export const interleaved = Effect.fnUntraced(function*(
  a: Effect.Effect<unknown, unknown>,
  b: Effect.Effect<unknown, unknown>,
  options: { readonly blocks: number; readonly perBlock: number }
) {
  const as: Array<number> = []
  const bs: Array<number> = []
  for (let block = 0; block < options.blocks; block++) {
    as.push(yield* timed(a, options.perBlock))
    bs.push(yield* timed(b, options.perBlock))
  }
  return { a: median(as), b: median(bs) }
})
