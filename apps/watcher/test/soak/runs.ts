/**
 * One run of the CLI in a scenario (the baseline, a long-running watcher, a backfill) and what it
 * printed: its complete lines, decoded; a line that does not decode is a problem, not a crash.
 */
import { Effect, Exit } from "effect"
import { Output } from "../../src/index.js"
import { type WatchEvent } from "@chainquery/watch"
import { compared, completeLines } from "../e2e/support/e2e.js"

export type RunKind = "baseline" | "watch" | "backfill"

export interface Run {
  readonly kind: RunKind
  /** The step of the timeline it started at (-1: before the timeline). */
  readonly step: number
  readonly args: ReadonlyArray<string>
  readonly stdout: string
  readonly stderr: string
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
  /** Stopped by the soak's `kill -9` (its last batch may be printed again by the next run). */
  readonly killed: boolean
}

/** A run's complete lines, decoded; undecodable lines are reported apart. */
export const decodeRun = (run: Pick<Run, "stdout">): { readonly events: Array<WatchEvent.WatchEvent>; readonly bad: Array<string> } => {
  const events: Array<WatchEvent.WatchEvent> = []
  const bad: Array<string> = []
  for (const line of completeLines(run.stdout)) {
    const exit = Effect.runSyncExit(Output.fromJson(line))
    if (Exit.isSuccess(exit)) events.push(exit.value)
    else bad.push(line)
  }
  return { events, bad }
}

/** The events of a growing output, decoded as its complete lines arrive (each line once). */
export class LiveOutput {
  private readonly decoded: Array<WatchEvent.WatchEvent> = []
  private consumed = 0

  constructor(private readonly stdout: () => string) {}

  events(): ReadonlyArray<WatchEvent.WatchEvent> {
    const text = this.stdout()
    const end = text.lastIndexOf("\n") + 1
    if (end > this.consumed) {
      this.decoded.push(...decodeRun({ stdout: text.slice(this.consumed, end) }).events)
      this.consumed = end
    }
    return this.decoded
  }
}

/** Each run's compared events (transfer kinds and their retractions; see `compared`), run by run. */
export const comparedByRun = (
  decoded: ReadonlyArray<ReadonlyArray<WatchEvent.WatchEvent>>
): Array<Array<WatchEvent.WatchEvent>> => {
  const kept = new Set(compared(decoded.flat()))
  return decoded.map((events) => events.filter((event) => kept.has(event)))
}
