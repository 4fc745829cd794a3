/**
 * How long `Watch.batches` waits after a cycle: the interval counts from the cycle's start, so a
 * block found by the next cycle waits at most an interval and a cycle (not two cycles and an
 * interval, as a pause after each cycle would make it). A cycle that took longer than the interval
 * is followed after a tenth of it (a service that cannot keep up is not polled without pause);
 * after a failed cycle, or one that could not read a chain, a whole interval.
 *
 * @internal
 */
import { Duration } from "effect"

/** The wait after a cycle that took `spentMillis` and read everything (`done`) or not. */
export const pauseAfter = (interval: Duration.Duration, spentMillis: number, done: boolean): Duration.Duration => {
  const whole = Duration.toMillis(interval)
  return done ? Duration.millis(Math.min(whole, Math.max(whole / 10, whole - spentMillis))) : interval
}
