/**
 * Timing for the client benchmarks, shared so that each compares the same way: two effects run
 * `perRound` times each, round after round, alternating (so a noisy moment of the machine hits
 * both), and the median time of one run of each.
 *
 *   const { a, b } = yield* interleaved(bare, viaClient, 7, 200)   // milliseconds per run
 */
import { Duration, Effect } from "effect"

/** The middle value (the upper one of an even count). */
export const median = (values: ReadonlyArray<number>): number => values.toSorted((x, y) => x - y)[Math.floor(values.length / 2)]!

/** Runs `a` and `b` `perRound` times each, alternating rounds; the median milliseconds of one run of each. */
export const interleaved = Effect.fnUntraced(function*(
  a: Effect.Effect<unknown, unknown>,
  b: Effect.Effect<unknown, unknown>,
  rounds: number,
  perRound: number
) {
  const as: Array<number> = []
  const bs: Array<number> = []
  for (let round = 0; round < rounds; round++) {
    const [ta] = yield* Effect.timed(Effect.repeat(a, { times: perRound - 1 }))
    const [tb] = yield* Effect.timed(Effect.repeat(b, { times: perRound - 1 }))
    as.push(Duration.toMillis(ta) / perRound)
    bs.push(Duration.toMillis(tb) / perRound)
  }
  return { a: median(as), b: median(bs) }
})
