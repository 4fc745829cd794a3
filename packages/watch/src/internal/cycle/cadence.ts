/**
 * How long `Watch.batches` waits after a cycle: the interval counts from the cycle's start, so a
 * block found by the next cycle waits at most an interval and a cycle (not two cycles and an
 * interval, as a pause after each cycle would make it); a cycle that took longer than the interval
 * is followed at once; after a failed cycle, a whole interval.
 *
 * @internal
 */
import { Duration } from "effect"

/** The wait after a cycle that took `spentMillis` and succeeded (`done`) or failed. */
export const pauseAfter = (interval: Duration.Duration, spentMillis: number, done: boolean): Duration.Duration =>
  done ? Duration.millis(Math.max(0, Duration.toMillis(interval) - spentMillis)) : interval
