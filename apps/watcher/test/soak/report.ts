/**
 * What a scenario's failure says: its seed and drawn parameters, the watcher's flags, the first
 * lost, extra and repeated ids, the problems, the runs, the timeline with the heads, and the
 * command that replays it. The whole record (every run's output, the truth) goes to a folder
 * under the system's temporary directory, whose path the message gives.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { WatchEvent } from "@chainquery/watch"
import { walletKey } from "../e2e/support/e2e.js"
import type { Scenario } from "./draw.js"
import type { Journal } from "./play.js"
import type { Run } from "./runs.js"
import type { Printed, Verdict } from "./verdict.js"

const shown = 8

const json = (value: unknown, indent?: number) =>
  JSON.stringify(value, (_, v: unknown) => (typeof v === "bigint" ? v.toString() : v), indent)

/** Where an event happened: its wallet and block (EVM) or ledger version (Aptos). */
const where = (event: WatchEvent.WatchEvent): string => {
  const at = "blockNumber" in event ? `block ${event.blockNumber}` : "version" in event ? `version ${event.version}` : ""
  return `${event.kind} of ${keyOf(event)} at ${at}`
}

/** The key of the wallet an event is about (as `walletKey`). */
const keyOf = (event: WatchEvent.WatchEvent): string =>
  "network" in event ? `aptos:${event.network}:${event.wallet}` : "chain" in event ? `evm:${event.chain}:${event.wallet}` : "?"

const runName = (log: Journal, index: number): string => {
  const run = log.runs[index]
  return run === undefined ? `run ${index} (still running)` : `run ${index} (${run.kind}${run.killed ? ", killed" : ""}, from step ${run.step})`
}

const list = <A>(title: string, items: ReadonlyArray<A>, line: (item: A) => string): Array<string> =>
  items.length === 0 ? [] : [`${title} (${items.length}):`, ...items.slice(0, shown).map((item) => `  ${line(item)}`), ...(items.length > shown ? ["  ..."] : [])]

/** How many of `events` each wallet has, the most first. */
const perWallet = (events: ReadonlyArray<WatchEvent.WatchEvent>): string => {
  const counts = new Map<string, number>()
  for (const event of events) counts.set(keyOf(event), (counts.get(keyOf(event)) ?? 0) + 1)
  return [...counts].toSorted((a, b) => b[1] - a[1]).map(([key, count]) => `${key} ${count}`).join(", ")
}

const lines = (run: Run) => run.stdout.split("\n").length - 1

/** How many actions of each kind the timeline has. */
const actions = (scenario: Scenario): string =>
  ["reorg", "kill", "add"].map((tag) => `${scenario.steps.filter((step) => step.action?._tag === tag).length} ${tag}`).join(", ")

/** The drawn parameters in a few lines. */
export const describeScenario = (scenario: Scenario): string =>
  [
    `world seed ${scenario.world.seed} (${scenario.world.wallets} EVM wallets, ${scenario.world.history} blocks of history, ${scenario.world.lag > 0 ? `indexing lag ${scenario.world.lag}` : "indexing: false"})`,
    `chains ${scenario.chains.join(", ")}${scenario.aptos ? " and Aptos mainnet" : ""}; wallets ${scenario.wallets.map((w) => `${w.place} ${w.count} (${w.busy} busy)`).join(", ")}`,
    `--strategy ${scenario.strategy} --confirmations ${scenario.confirmations}; faults ${json(scenario.faults)}`,
    `${scenario.steps.length} steps: ${actions(scenario)}; settle +${scenario.settle}`
  ].join("\n")

/** A one-line summary, for a clean scenario. */
export const summary = (scenario: Scenario, log: Journal, verdict: Verdict): string =>
  `soak scenario ${scenario.seed}: ${verdict.clean ? "clean" : "FAILED"}: ${scenario.strategy}, --confirmations ${scenario.confirmations}, ${actions(scenario)}, ${log.wallets.length} wallets, ${log.truth.length} events of truth, ${verdict.retracted} retracted, ${verdict.replayed} replayed after kill -9, ${log.runs.length} runs${verdict.notes.map((note) => `\n  note: ${note}`).join("")}`

/** The failure message (`folder`: where the full record went; `error`: what stopped the play, if anything). */
export const failure = (scenario: Scenario, log: Journal, verdict: Verdict | undefined, folder: string, error?: unknown): string => {
  const counts = verdict === undefined
    ? "the scenario did not finish"
    : `${verdict.lost.length} lost, ${verdict.extra.length + verdict.badRetractions.length} extra, ${verdict.repeated.length} repeated, ${verdict.problems.length} problem(s)`
  const printed = (item: Printed) => `${item.event.id}: ${where(item.event)}, printed by ${runName(log, item.run)}`
  return [
    `soak scenario ${scenario.seed} failed: ${counts}`,
    `replay: ./run soak -- --replay ${scenario.seed}`,
    `full record: ${folder}`,
    ...(error === undefined ? [] : [`stopped by: ${error instanceof Error ? error.stack ?? error.message : String(error)}`]),
    describeScenario(scenario),
    `flags: ${log.wallets.length} x --wallet SPEC ${log.flags.join(" ")}`,
    ...(verdict === undefined ? [] : [
      ...list("lost", verdict.lost, (event) => `${event.id}: ${where(event)}, starting after ${log.starts.get(keyOf(event))}`),
      ...(verdict.lost.length === 0 ? [] : [`  lost per wallet: ${perWallet(verdict.lost)}`]),
      ...list("extra", verdict.extra, printed),
      ...list("retractions of ids not standing", verdict.badRetractions, (item) => `${printed(item)}, retracts ${item.event.kind === "retracted" ? item.event.retracts : "?"}`),
      ...list("repeated", verdict.repeated, (item) => `${printed(item)}; first printed by ${runName(log, item.first)}`),
      ...(verdict.repeated.length === 0 ? [] : [`  repeated per wallet: ${perWallet(verdict.repeated.map((item) => item.event))}`]),
      ...list("problems", verdict.problems, (problem) => problem),
      ...list("notes", verdict.notes, (note) => note)
    ]),
    "runs:",
    ...log.runs.map((run, index) => `  ${runName(log, index)}: ${lines(run)} lines, exit ${run.code ?? run.signal}`),
    "timeline:",
    ...log.timeline.map((line) => `  ${line}`)
  ].join("\n")
}

/** Writes the whole record of a failed scenario to a new folder under the temporary directory; returns its path. */
export const writeRecord = (scenario: Scenario, log: Journal, verdict: Verdict | undefined, message: (folder: string) => string): string => {
  const folder = mkdtempSync(join(tmpdir(), `watcher-soak-${scenario.seed}-`))
  mkdirSync(join(folder, "runs"))
  writeFileSync(join(folder, "failure.txt"), `${message(folder)}\n`)
  writeFileSync(join(folder, "scenario.json"), `${json(scenario, 2)}\n`)
  writeFileSync(join(folder, "wallets.json"), `${json(log.wallets.map((wallet) => ({ ...wallet, start: log.starts.get(walletKey(wallet)) })), 2)}\n`)
  writeFileSync(join(folder, "truth.ndjson"), log.truth.map((event) => json(event)).join("\n") + "\n")
  if (verdict !== undefined) writeFileSync(join(folder, "verdict.json"), `${json(verdict, 2)}\n`)
  for (const [index, run] of log.runs.entries()) {
    const name = join(folder, "runs", `${String(index).padStart(2, "0")}-${run.kind}`)
    writeFileSync(`${name}.stdout`, run.stdout)
    writeFileSync(`${name}.stderr`, run.stderr)
    writeFileSync(`${name}.args`, `${run.args.join(" ")}\n`)
  }
  return folder
}
