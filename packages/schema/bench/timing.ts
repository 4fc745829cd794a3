/**
 * Timing for the client benchmarks, shared so that each compares the same way: the cases run in
 * alternating blocks of a few runs each (so a noisy moment of the machine hits all alike), and
 * the median time of one run of each, over all the blocks.
 *
 *   const { bare, client } = yield* alternating({ bare, client }, { blocks: 150, perBlock: 10 })   // ms per run
 */
import { Effect } from "effect"

/** The middle value (the upper one of an even count). */
export const median = (values: ReadonlyArray<number>): number => values.toSorted((x, y) => x - y)[Math.floor(values.length / 2)]!

const timed = (effect: Effect.Effect<unknown, unknown>, runs: number) =>
  Effect.suspend(() => {
    const start = performance.now()
    return Effect.map(Effect.repeat(effect, { times: runs - 1 }), () => (performance.now() - start) / runs)
  })

/** Runs each case `perBlock` times, case after case, `blocks` times; the median milliseconds of one run of each. */
export const alternating = Effect.fnUntraced(function*<K extends string>(
  cases: Readonly<Record<K, Effect.Effect<unknown, unknown>>>,
  options: { readonly blocks: number; readonly perBlock: number }
) {
  const names = Object.keys(cases) as Array<K>
  const times = new Map<K, Array<number>>(names.map((name) => [name, []]))
  for (let block = 0; block < options.blocks; block++) {
    for (const name of names) times.get(name)!.push(yield* timed(cases[name], options.perBlock))
  }
  return Object.fromEntries(names.map((name) => [name, median(times.get(name)!)])) as Record<K, number>
})
