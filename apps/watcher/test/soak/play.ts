/**
 * Playing a scenario against a simulator of its own: a `--once` baseline (nothing printed), the
 * faults on, one long-running watcher while the timeline runs (advance, maybe reorganise, `kill
 * -9` and restart, or add wallets through a `--backfill` run), then the end: faults off, a few
 * more blocks, the ground truth, a wait until the output holds it (`settle.ts`), SIGTERM.
 *
 * Everything that happened is kept in a {@link Journal} the caller owns, so that a scenario that
 * throws half-way can still be reported.
 */
import { Effect } from "effect"
import { join } from "node:path"
import type { WatchedWallet, WatchEvent } from "@chainquery/watch"
import { readCheckpoints, seeded, type Sim, simFlags, sleep, truthOf, walletFlags, walletKey, type Watcher } from "../e2e/support/e2e.js"
import type { Action, Place, Scenario } from "./draw.js"
import type { Lab } from "./lab.js"
import type { Run } from "./runs.js"
import { settle } from "./settle.js"
import { pickWallets } from "./wallets.js"

/** What happened while a scenario played. */
export interface Journal {
  /** The flags every run passes (`<state>` for the state file), wallets aside. */
  flags: ReadonlyArray<string>
  wallets: Array<WatchedWallet.WatchedWallet>
  /** Each wallet's starting position: the truth is what comes after it. */
  readonly starts: Map<string, bigint>
  readonly runs: Array<Run>
  readonly timeline: Array<string>
  readonly problems: Array<string>
  /** What is worth knowing but fails nothing (a backfill run again after a failure). */
  readonly notes: Array<string>
  truth: ReadonlyArray<WatchEvent.WatchEvent>
  /** The checkpoints after the last run. */
  final: ReadonlyMap<string, bigint> | undefined
}

export const journal = (): Journal => ({
  flags: [],
  wallets: [],
  starts: new Map(),
  runs: [],
  timeline: [],
  problems: [],
  notes: [],
  truth: [],
  final: undefined
})

const startMs = 60_000

const runEffect = <A>(effect: Effect.Effect<A, unknown>): Promise<A> => Effect.runPromise(effect)

/** The heads of the scenario's places (and the indexed head when behind), for the timeline. */
const headsOf = (sim: Sim, scenario: Scenario): string =>
  [
    ...scenario.chains.map((chain) => {
      const head = sim.world.evm.chain(chain).head
      const indexed = sim.world.evm.indexedHead(chain)
      return `${chain} ${head}${indexed === head ? "" : ` (indexed ${indexed})`}`
    }),
    ...(scenario.aptos ? [`aptos ${sim.world.aptos.mainnet.latestVersion()}`] : [])
  ].join(", ")

/** Plays `scenario` in `lab`, writing down what happened in `log`. */
export const play = async (scenario: Scenario, lab: Lab, log: Journal): Promise<void> => {
  const sim = await lab.simulator({
    seed: scenario.world.seed,
    indexing: scenario.world.lag > 0 ? { lagProbability: scenario.world.lag, syncBlocks: 3 } : false,
    chains: [...scenario.chains],
    wallets: scenario.world.wallets,
    history: scenario.world.history
  })
  const state = join(lab.dir.path, "state.db")
  const common = [
    ...simFlags(sim, state),
    "--interval",
    "300ms",
    "--request-timeout",
    "2s",
    "--strategy",
    scenario.strategy,
    "--confirmations",
    String(scenario.confirmations)
  ]
  log.flags = common.map((flag) => (flag === state ? "<state>" : flag))
  const random = seeded(scenario.seed ^ 0x5a17)
  const taken = new Set<string>()
  const pick = (place: Place, count: number, busy: number) => {
    const picked = pickWallets(sim, random, place, count, busy, taken)
    for (const wallet of picked) taken.add(walletKey(wallet))
    return picked
  }
  const note = (line: string) => log.timeline.push(line)

  /** Ends a watcher's run: how it ended, what it printed. */
  const finish = async (watcher: Watcher, step: number, args: ReadonlyArray<string>, how: "SIGTERM" | "SIGKILL") => {
    const exit = await watcher.stop(how)
    const killed = how === "SIGKILL" && exit.signal === "SIGKILL"
    if (how === "SIGTERM" && (exit.code !== 0 || exit.signal !== null)) {
      log.problems.push(`run ${log.runs.length} (step ${step}): SIGTERM ended it with code ${exit.code}, signal ${exit.signal}`)
    }
    log.runs.push({ kind: "watch", step, args, stdout: watcher.stdout, stderr: watcher.stderr, ...exit, killed })
    return log.runs.length - 1
  }

  /** Starts the long-running watcher over every wallet so far; waits until it says it is watching. */
  const start = async (step: number) => {
    const args = [...walletFlags(log.wallets), ...common]
    const watcher = lab.watcher(args)
    await watcher.waitFor("the watcher to start", () => /watching \d+ wallet/.test(watcher.stderr), startMs)
    return { watcher, args, step }
  }

  // The baseline: one `--once` run on a fresh state file prints nothing.
  log.wallets.push(...scenario.wallets.flatMap((draw) => pick(draw.place, draw.count, draw.busy)))
  const baselineArgs = [...walletFlags(log.wallets), ...common, "--once"]
  const baseline = await lab.once(baselineArgs)
  log.runs.push({ kind: "baseline", step: -1, args: baselineArgs, ...baseline, killed: false })
  if (baseline.code !== 0) throw new Error(`the baseline run exited ${baseline.code}: ${baseline.stderr.slice(-1500)}`)
  const positions = await readCheckpoints(state)
  for (const wallet of log.wallets) {
    const position = positions.get(walletKey(wallet))
    if (position === undefined) throw new Error(`the baseline left no checkpoint for ${walletKey(wallet)}`)
    log.starts.set(walletKey(wallet), position)
  }
  note(`baseline: run 0 at ${headsOf(sim, scenario)}, ${log.wallets.length} wallets, exit ${baseline.code}`)
  await runEffect(sim.setFaults(scenario.faults))

  /**
   * The `--backfill FROM --once` run of new wallets, run again (4 tries at most) while it fails
   * before their checkpoints are committed, as an operator would: each try goes on from the last
   * batch the one before committed. A try that fails after the commit (in its one cycle) is not
   * run again: the watcher goes on from there. A read fails only once the clients' retries are
   * spent (about 0.25^4 of the calls at the soak's worst fault mix), so the last try runs with the
   * faults off (noted): the soak looks for lost and repeated events, not for an unlucky draw.
   */
  const backfill = async (args: ReadonlyArray<string>, added: ReadonlyArray<WatchedWallet.WatchedWallet>, step: number) => {
    const tries: Array<string> = []
    for (let attempt = 1; ; attempt++) {
      if (attempt === 4) {
        await runEffect(sim.setFaults({}))
        log.notes.push(`step ${step}: the backfill's last try runs with the faults off`)
      }
      const result = await lab.once(args).finally(() => (attempt === 4 ? runEffect(sim.setFaults(scenario.faults)) : undefined))
      log.runs.push({ kind: "backfill", step, args, ...result, killed: false })
      const after = await readCheckpoints(state)
      const reached = [...new Set(added.map((wallet) => String(after.get(walletKey(wallet)) ?? "none")))].join("/")
      tries.push(`run ${log.runs.length - 1} printed ${completeCount(log.runs.at(-1)!)} lines, exit ${result.code}, checkpoints ${reached}`)
      if (result.code === 0) break
      const why = result.stderr.trim().split("\n").at(-1)?.slice(0, 200) ?? ""
      const committed = added.every((wallet) => after.has(walletKey(wallet)))
      log.notes.push(`step ${step}: the backfill run ${log.runs.length - 1} exited ${result.code} ${committed ? "after" : "before"} committing: ${why}`)
      if (committed) break
      if (attempt === 4) {
        log.problems.push(`step ${step}: the backfill failed 4 times before committing (last: ${why})`)
        break
      }
    }
    return tries.join("; ")
  }

  let current = await start(0)
  const act = async (index: number, action: Action): Promise<string> => {
    switch (action._tag) {
      case "reorg": {
        const from = await runEffect(sim.reorg(action.chain, action.depth))
        return `reorg ${action.chain} depth ${action.depth} (blocks ${from}..${sim.world.evm.chain(action.chain).head} replaced)`
      }
      case "kill": {
        if (action.delayMs > 0) await sleep(action.delayMs)
        const moment = action.delayMs > 0 ? `${action.delayMs} ms after the step` : await onOutput(current.watcher, action.chunks)
        const killed = await finish(current.watcher, current.step, current.args, "SIGKILL")
        current = await start(index)
        return `kill -9 ${moment}: run ${killed} ended with ${completeCount(log.runs[killed]!)} lines; restarted as run ${killed + 1}`
      }
      case "add": {
        const stopped = await finish(current.watcher, current.step, current.args, "SIGTERM")
        const added = pick(action.place, action.count, action.busy)
        const from = action.place === "aptos" ? aptosFrom(sim, action.back) : BigInt(sim.world.evm.chain(action.place).head - action.back + 1)
        const args = [...walletFlags(added), ...common, "--backfill", String(from), "--once"]
        const tries = await backfill(args, added, index)
        for (const wallet of added) log.starts.set(walletKey(wallet), from - 1n)
        log.wallets.push(...added)
        current = await start(index)
        return `add ${added.length} wallet(s) of ${action.place} (${action.busy} busy): run ${stopped} stopped with SIGTERM; --backfill ${from} --once: ${tries}; restarted as run ${log.runs.length}`
      }
    }
  }

  for (const [index, step] of scenario.steps.entries()) {
    lab.check()
    await runEffect(sim.advance(step.advance))
    if (!current.watcher.running) {
      const ended = await finish(current.watcher, current.step, current.args, "SIGKILL")
      const { code, signal } = log.runs[ended]!
      log.problems.push(`run ${ended} exited by itself (code ${code}, signal ${signal}) before step ${index}`)
      current = await start(index)
    }
    const did = step.action === undefined ? "" : `: ${await act(index, step.action)}`
    note(`step ${index} +${step.advance} -> ${headsOf(sim, scenario)}${did}`)
    await sleep(step.waitMs)
  }

  // The end: no more faults, a few more blocks, then the output must come to hold the truth.
  await runEffect(sim.setFaults({}))
  await runEffect(sim.advance(scenario.settle))
  const upTo = (wallet: WatchedWallet.WatchedWallet) =>
    wallet.family === "evm"
      ? BigInt(sim.world.evm.indexedHead(wallet.chain) - scenario.confirmations)
      : sim.world.aptos.mainnet.latestVersion()
  log.truth = await truthOf(sim, log.wallets, log.starts, upTo)
  const waited = await settle(current.watcher, log, 90_000)
  note(`end: faults off, +${scenario.settle} -> ${headsOf(sim, scenario)}; truth ${log.truth.length} events; ${waited}`)
  const last = await finish(current.watcher, current.step, current.args, "SIGTERM")
  note(`SIGTERM: run ${last} exited with code ${log.runs[last]!.code}`)
  log.final = await readCheckpoints(state)
  for (const wallet of log.wallets) {
    const position = log.final.get(walletKey(wallet))
    if (wallet.family === "evm" && position !== upTo(wallet)) {
      note(`note: ${walletKey(wallet)} ends at checkpoint ${position}, not ${upTo(wallet)}`)
    }
  }
}

/** The number of complete lines a run printed. */
const completeCount = (run: Run): number => run.stdout.split("\n").length - 1

/** The version of the `back`-th newest Aptos transfer of the world (a FROM with history after it). */
const aptosFrom = (sim: Sim, back: number): bigint => {
  const transfers = sim.world.aptos.mainnet.transfersSince(0n)
  return transfers[Math.max(0, transfers.length - back)]!.transaction_version
}

/**
 * Sends SIGKILL the moment the watcher's `chunks`-th next chunk of output arrives (from the data
 * handler, so that the kill often lands between writing a batch and committing it), or after 3 s
 * without it. Says which, for the timeline.
 */
const onOutput = async (watcher: Watcher, chunks: number): Promise<string> => {
  let seen = 0
  const stdout = watcher.child.stdout!
  const kill = () => {
    if (++seen >= chunks) watcher.child.kill("SIGKILL")
  }
  stdout.on("data", kill)
  const came = await Promise.race([watcher.closed.then(() => true), sleep(3000).then(() => false)])
  stdout.off("data", kill)
  return came ? `on output chunk ${chunks} from then on` : `after 3 s without ${chunks} more output chunk(s)`
}
