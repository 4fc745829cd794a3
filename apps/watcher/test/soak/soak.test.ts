/**
 * The seeded soak of the watcher CLI (issue #18): scenarios drawn from seeds (`draw.ts`), each
 * played against a simulator of its own (`play.ts`: faults, reorganisations, `kill -9`, wallets
 * added through `--backfill`), then judged (`verdict.ts`): once the retractions are applied, what
 * the runs printed must be the ground truth, nothing lost, nothing extra, nothing repeated but
 * the replay `kill -9` allows. One test per scenario; a failure says how to replay it.
 *
 * Environment: `SOAK_SCENARIOS` (default 3), `SOAK_SEED` (default 18; scenario i's seed derives
 * from it and i), `SOAK_REPLAY` (one scenario's seed; overrides both), `SOAK_CONCURRENCY`
 * (default 1, at most 4), `SOAK_TIMEOUT_MS` (per scenario, default 150000). `./run soak` sets them.
 * `SOAK_KEEP=1` writes the full record of clean scenarios too (a failure's is always written).
 */
import { describe, it, type TestContext } from "vitest"
import { draw, scenarioSeed } from "./draw.js"
import { Lab, Released } from "./lab.js"
import { journal, play } from "./play.js"
import { failure, summary, writeRecord } from "./report.js"
import { examine } from "./verdict.js"

/** An integer from the environment, `fallback` when unset; anything else out of `[min, max]` is an error. */
const integer = (name: string, fallback: number | undefined, min: number, max: number): number | undefined => {
  const raw = process.env[name]
  if (raw === undefined || raw.trim() === "") return fallback
  const value = Number(raw)
  if (!Number.isInteger(value) || value < min || value > max) throw new Error(`${name} must be an integer from ${min} to ${max}, got "${raw}"`)
  return value
}

const replay = integer("SOAK_REPLAY", undefined, -(2 ** 31), 2 ** 32 - 1)
const scenarios = integer("SOAK_SCENARIOS", 3, 1, 100_000)!
const base = integer("SOAK_SEED", 18, -(2 ** 31), 2 ** 32 - 1)!
const concurrency = integer("SOAK_CONCURRENCY", 1, 1, 4)!
const timeoutMs = integer("SOAK_TIMEOUT_MS", 150_000, 30_000, 24 * 3_600_000)!

const keep = process.env["SOAK_KEEP"] === "1"

const seeds = replay !== undefined ? [replay] : Array.from({ length: scenarios }, (_, index) => scenarioSeed(base, index))

/** At most `concurrency` scenarios play at once (each waits for a slot inside its test). */
let free = concurrency
const waiting: Array<() => void> = []
const slot = async <A>(body: () => Promise<A>): Promise<A> => {
  if (free > 0) free--
  else await new Promise<void>((resolve) => waiting.push(resolve))
  try {
    return await body()
  } finally {
    const next = waiting.shift()
    if (next !== undefined) next()
    else free++
  }
}

/** A scenario stops itself this long before its test's timeout, to report what it did so far. */
const marginMs = 15_000

/** Plays and judges one scenario; throws the report if it is not clean. */
const soak = async (seed: number, context: TestContext): Promise<void> => {
  const scenario = draw(seed)
  const lab = new Lab()
  context.onTestFinished(() => lab.release())
  const log = journal()
  let error: unknown
  let expired = false
  const timer = setTimeout(() => {
    expired = true
    void lab.release()
  }, timeoutMs - marginMs)
  try {
    await play(scenario, lab, log)
  } catch (caught) {
    error = caught
  } finally {
    clearTimeout(timer)
    await lab.release()
  }
  if (expired) error = new Error(`the scenario did not end within ${(timeoutMs - marginMs) / 1000} s; it was stopped, its processes killed`)
  // Released by the end of its test (vitest's own timeout): nothing more to say.
  else if (error instanceof Released) return
  const verdict = error === undefined ? examine(log) : undefined
  if (verdict?.clean === true) {
    const kept = keep ? `\n  full record: ${writeRecord(scenario, log, verdict, () => summary(scenario, log, verdict))}` : ""
    console.info(`${summary(scenario, log, verdict)}${kept}`)
    return
  }
  const folder = writeRecord(scenario, log, verdict, (path) => failure(scenario, log, verdict, path, error))
  throw new Error(failure(scenario, log, verdict, folder, error))
}

describe("the watcher CLI under a seeded soak: never lose, never repeat", () => {
  // Concurrent scenarios may wait for a slot: their timeout covers the rounds before theirs.
  const test = concurrency > 1 ? it.concurrent : it
  const timeout = concurrency > 1 ? timeoutMs * Math.ceil(seeds.length / concurrency) : timeoutMs
  for (const seed of seeds) {
    const scenario = draw(seed)
    test(`scenario ${seed} (${scenario.strategy}, --confirmations ${scenario.confirmations}, ${scenario.steps.length} steps)`, (context) => slot(() => soak(seed, context)), timeout)
  }
})
