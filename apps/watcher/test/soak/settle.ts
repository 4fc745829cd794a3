/**
 * The end of a scenario: polls the running watcher's output until every id of the ground truth
 * stands (the runs before it and its own output folded, see `verdict.ts`) and nothing was printed
 * for 1.5 s. It gives up after `timeoutMs`, or once nothing was printed for 25 s while ids are
 * still missing (the faults are off by then: a watcher that still has something to print does
 * so within a few 300 ms cycles). Never throws: what is missing is the verdict's business.
 */
import { sleep, type Watcher } from "../e2e/support/e2e.js"
import type { Journal } from "./play.js"
import { comparedByRun, decodeRun, LiveOutput } from "./runs.js"
import { fold } from "./verdict.js"

const quietMs = 1500
const giveUpQuietMs = 25_000

/** Waits as the file comment says; returns how the wait ended, for the timeline. */
export const settle = async (watcher: Watcher, log: Journal, timeoutMs: number): Promise<string> => {
  const started = Date.now()
  const before = log.runs.map((run) => decodeRun(run).events)
  const wanted = log.truth.map((event) => event.id)
  const live = new LiveOutput(() => watcher.stdout)
  let length = -1
  let changed = Date.now()
  let complete = false
  while (true) {
    if (watcher.stdout.length !== length) {
      length = watcher.stdout.length
      changed = Date.now()
      const runs = [...log.runs, { killed: false }]
      const { standing } = fold(runs, comparedByRun([...before, live.events()]))
      complete = wanted.every((id) => standing.has(id))
    }
    const now = Date.now()
    const took = `${((now - started) / 1000).toFixed(1)} s`
    if (!watcher.running) return `the watcher exited while waiting for the truth (after ${took})`
    if (complete && now - changed >= quietMs) return `the output held the truth and stayed quiet for ${quietMs / 1000} s after ${took}`
    if (!complete && now - changed >= giveUpQuietMs) return `gave up after ${took}: ids still missing and nothing printed for ${giveUpQuietMs / 1000} s`
    if (now - started >= timeoutMs) return `gave up after ${took}: ${complete ? "still printing" : "ids still missing"}`
    await sleep(100)
  }
}
