/**
 * The verdict on a played scenario: every run's output folded in order (a retraction removes what
 * it retracts), compared with the ground truth.
 *
 * - **lost**: ids of the ground truth that do not stand at the end.
 * - **extra**: standing ids that are not in the ground truth, and retractions of ids that did
 *   not stand.
 * - **repeated**: ids printed while they already stood, except the replay `kill -9` allows.
 *
 * The replay rule is that of `restarts.test.ts` (`checkRepeats`): an id may be printed again only
 * if it belongs to the batch the killed run was writing, a suffix of its output, printed again by
 * a later run (a run killed while printing it again, or one that printed none of it, passes it
 * on). `checkRepeats` also wants the replay printed first by the very next run, in the same
 * order; with several chains, faults that keep one chain from being read for a while, and blocks
 * made between the kill and the restart, a correct watcher does not always do that, so it is only
 * noted (`notes`), not counted.
 */
import type { WatchEvent } from "@chainquery/watch"
import { ids } from "../e2e/support/e2e.js"
import type { Journal } from "./play.js"
import { comparedByRun, decodeRun, type Run } from "./runs.js"

/** An event and the run (its index) that printed it. */
export interface Printed {
  readonly event: WatchEvent.WatchEvent
  readonly run: number
}

export interface Verdict {
  readonly lost: ReadonlyArray<WatchEvent.WatchEvent>
  readonly extra: ReadonlyArray<Printed>
  /** Retractions of ids that did not stand (counted as extra). */
  readonly badRetractions: ReadonlyArray<Printed>
  readonly repeated: ReadonlyArray<Printed & { readonly first: number }>
  /** Ids printed again as the `kill -9` rule allows. */
  readonly replayed: number
  readonly retracted: number
  readonly standing: number
  readonly notes: ReadonlyArray<string>
  readonly problems: ReadonlyArray<string>
  readonly clean: boolean
}

/**
 * For each killed run, the batch it may have been writing: the longest suffix of its output whose
 * every id a later run prints again. (A run that printed none of them committed none of them, so
 * the batch may come again after it, as after a run killed while printing it again.)
 */
const lastBatches = (runs: ReadonlyArray<Pick<Run, "killed">>, byRun: ReadonlyArray<ReadonlyArray<WatchEvent.WatchEvent>>) =>
  byRun.map((events, run): ReadonlySet<string> => {
    if (runs[run]?.killed !== true) return new Set()
    const later = new Set(byRun.slice(run + 1).flatMap(ids))
    const own = ids(events)
    let start = own.length
    while (start > 0 && later.has(own[start - 1]!)) start--
    return new Set(own.slice(start))
  })

/**
 * Folds `byRun` (the compared events of each run, in order): what stands at the end, and what was
 * repeated. An id printed again is a replay (allowed) when the run that printed it last was
 * killed and it is in that run's last batch.
 */
export const fold = (runs: ReadonlyArray<Pick<Run, "killed">>, byRun: ReadonlyArray<ReadonlyArray<WatchEvent.WatchEvent>>) => {
  const batches = lastBatches(runs, byRun)
  const standing = new Map<string, Printed>()
  /** The run that last printed each id. */
  const last = new Map<string, number>()
  const repeated: Array<Printed & { readonly first: number }> = []
  const badRetractions: Array<Printed> = []
  const notes: Array<string> = []
  let replayed = 0
  let retracted = 0
  for (const [run, events] of byRun.entries()) {
    const replays: Array<number> = []
    for (const [index, event] of events.entries()) {
      const previous = last.get(event.id)
      last.set(event.id, run)
      if (previous !== undefined && previous !== run && batches[previous]!.has(event.id)) {
        replays.push(index)
        continue
      }
      if (event.kind === "retracted") {
        if (standing.delete(event.retracts)) retracted++
        else badRetractions.push({ event, run })
      } else {
        const before = standing.get(event.id)
        if (before !== undefined) repeated.push({ event, run, first: before.run })
        else standing.set(event.id, { event, run })
      }
    }
    replayed += replays.length
    if (replays.some((position, index) => position !== index)) {
      notes.push(`run ${run} printed ${replays.length} ids of a killed run's last batch again, but not first`)
    }
  }
  return { standing, repeated, badRetractions, replayed, retracted, notes }
}

/** Judges the folded output against the ground truth; `problems` (exit codes, bad lines) fail it too. */
export const judge = (
  runs: ReadonlyArray<Pick<Run, "killed">>,
  byRun: ReadonlyArray<ReadonlyArray<WatchEvent.WatchEvent>>,
  truth: ReadonlyArray<WatchEvent.WatchEvent>,
  problems: ReadonlyArray<string>
): Verdict => {
  const folded = fold(runs, byRun)
  const truthIds = new Set(ids(truth))
  const lost = truth.filter((event) => !folded.standing.has(event.id))
  const extra = [...folded.standing.values()].filter((printed) => !truthIds.has(printed.event.id))
  const clean = lost.length === 0 && extra.length === 0 && folded.badRetractions.length === 0 &&
    folded.repeated.length === 0 && problems.length === 0
  return {
    lost,
    extra,
    badRetractions: folded.badRetractions,
    repeated: folded.repeated,
    replayed: folded.replayed,
    retracted: folded.retracted,
    standing: folded.standing.size,
    notes: folded.notes,
    problems,
    clean
  }
}

/**
 * Judges a played scenario: its runs' outputs against its truth. Besides the journal's problems,
 * a line that does not decode, a run not killed whose output ends with a cut line, and a baseline
 * that printed anything fail it.
 */
export const examine = (log: Journal): Verdict => {
  const problems = [...log.problems]
  const decoded = log.runs.map((run, index) => {
    const { events, bad } = decodeRun(run)
    for (const line of bad.slice(0, 3)) problems.push(`run ${index} printed a line that does not decode: ${line.slice(0, 300)}`)
    if (!run.killed && run.stdout !== "" && !run.stdout.endsWith("\n")) problems.push(`run ${index} (not killed) ends with a cut line`)
    return events
  })
  const byRun = comparedByRun(decoded)
  for (const [index, run] of log.runs.entries()) {
    if (run.kind === "baseline" && byRun[index]!.length > 0) problems.push(`the baseline (run ${index}) printed ${byRun[index]!.length} events`)
  }
  const verdict = judge(log.runs, byRun, log.truth, problems)
  return { ...verdict, notes: [...log.notes, ...verdict.notes] }
}
