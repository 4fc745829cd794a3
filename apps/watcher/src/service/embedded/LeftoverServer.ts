/**
 * What a killed service may leave in the embedded PostgreSQL's folder, and how it is cleared
 * before the server starts again:
 *
 * - a server still running (the service alone was killed, `kill -9`): it is stopped;
 * - a lock (`postmaster.pid`) whose process is dead but not yet reaped (a zombie: the whole process
 *   group was killed, as a container runtime, a control-group kill or the OOM killer does, and the
 *   machine's init reaps it a second or two later), or whose id now belongs to another program
 *   (after a reboot): PostgreSQL's own check takes either for a live server and refuses to start.
 *   Once no live process works in the folder, such a lock is stale and removed;
 * - the server's own workers, which run in process groups of their own and outlive a group kill
 *   until they notice their postmaster died: they are waited for.
 *
 * Processes are told apart by `/proc` (Linux): a PostgreSQL process works in its data folder
 * (`/proc/<pid>/cwd`). Where there is no `/proc`, only a lock whose process is gone is stale, as
 * PostgreSQL itself decides.
 *
 * @internal
 */
import { Effect } from "effect"
import { existsSync, readdirSync, readFileSync, readlinkSync, realpathSync, rmSync } from "node:fs"
import path from "node:path"
import { EmbeddedDatabaseError, failedTo } from "./EmbeddedDatabaseError.js"

/** How long the server's workers may take to notice their postmaster died, and a stopped server to stop. */
const patience = { workers: 30_000, stop: 30_000, poll: 100 } as const

/** What is known of a process: gone, dead but not reaped, or alive. */
type Liveness = "gone" | "zombie" | "alive"

const hasProc = (): boolean => existsSync("/proc/self/stat")

/** Whether a process with that id exists (a zombie included). */
export const exists = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
}

/** A process's state letter from `/proc/<pid>/stat` (`Z` zombie, `X` dead, ...); `undefined` once gone. */
const stateOf = (pid: number): string | undefined => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
    // The command name, in parentheses, may hold spaces and parentheses: the state follows the last ")".
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3)
  } catch {
    return undefined
  }
}

const liveness = (pid: number): Liveness => {
  if (!hasProc()) return exists(pid) ? "alive" : "gone"
  const state = stateOf(pid)
  return state === undefined ? "gone" : state === "Z" || state === "X" ? "zombie" : "alive"
}

/** The folder a process works in; `undefined` when it is gone, a zombie, or not ours to read. */
const workingFolderOf = (pid: number): string | undefined => {
  try {
    return readlinkSync(`/proc/${pid}/cwd`)
  } catch {
    return undefined
  }
}

/** The live processes working in `folder` (PostgreSQL's postmaster and workers do): none without `/proc`. */
export const workersIn = (folder: string): Array<number> => {
  if (!hasProc() || !existsSync(folder)) return []
  const real = realpathSync(folder)
  return readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .map(Number)
    .filter((pid) => pid !== process.pid && workingFolderOf(pid) === real && liveness(pid) === "alive")
}

/** The process id `postmaster.pid` names, if the file is there and says one. */
export const lockHolder = (pgdata: string): number | undefined => {
  const lockFile = path.join(pgdata, "postmaster.pid")
  if (!existsSync(lockFile)) return undefined
  const pid = Number(readFileSync(lockFile, "utf8").split("\n")[0])
  return Number.isInteger(pid) && pid > 0 ? pid : undefined
}

/** Waits until `done` holds, checking every 100 ms, for at most `ms`; answers whether it held. */
const waitUntil = (done: () => boolean, ms: number): Effect.Effect<boolean> =>
  Effect.gen(function*() {
    for (let waited = 0; waited < ms; waited += patience.poll) {
      if (done()) return true
      yield* Effect.sleep(patience.poll)
    }
    return done()
  })

/**
 * Clears what a killed service left in `pgdata` (see the module): stops a server still running,
 * waits for the workers of a dead one, and removes a stale lock.
 */
export const clear = Effect.fnUntraced(function*(pgdata: string) {
  const holder = lockHolder(pgdata)
  if (holder === undefined) return
  const ofThisFolder = hasProc()
    ? workingFolderOf(holder) === realpathSync(pgdata)
    : liveness(holder) === "alive"
  if (liveness(holder) === "alive" && ofThisFolder) {
    yield* Effect.logWarning(`the embedded PostgreSQL of a previous run (pid ${holder}) is still running in ${pgdata}: stopping it`)
    yield* Effect.try({ try: () => process.kill(holder, "SIGINT"), catch: failedTo(`cannot stop the PostgreSQL server ${holder} left in ${pgdata}`) })
    const stopped = yield* waitUntil(() => liveness(holder) !== "alive", patience.stop)
    if (!stopped) {
      return yield* new EmbeddedDatabaseError({ message: `the PostgreSQL server ${holder} left in ${pgdata} does not stop; stop it, then start again` })
    }
  }
  if (!hasProc()) return
  const quiet = yield* waitUntil(() => workersIn(pgdata).length === 0, patience.workers)
  if (!quiet) {
    return yield* new EmbeddedDatabaseError({
      message: `processes ${workersIn(pgdata).join(", ")} still work in ${pgdata} (a PostgreSQL of an earlier run?): stop them, then start again`
    })
  }
  // No live process works in the folder: a lock still naming a process (a zombie, or another
  // program with a reused id) is stale, and PostgreSQL would refuse to start over it.
  if (lockHolder(pgdata) === holder && liveness(holder) !== "gone") {
    yield* Effect.logInfo(`removing the stale lock of a PostgreSQL that was killed (pid ${holder}, ${liveness(holder) === "zombie" ? "not yet reaped" : "an id now another program's"})`)
    yield* Effect.try({ try: () => rmSync(path.join(pgdata, "postmaster.pid"), { force: true }), catch: failedTo(`cannot remove the stale lock in ${pgdata}`) })
  }
})
