/**
 * What a killed service may leave in the embedded PostgreSQL's folder, and how it is cleared
 * before the server starts again:
 *
 * - a server still running (the service alone was killed, `kill -9`): it is stopped;
 * - the workers of a server that died (they run in process groups of their own and outlive a
 *   group kill until they notice their postmaster died): they are waited for, where they can be
 *   seen (`/proc/<pid>/cwd`: a PostgreSQL process works in its data folder);
 * - a lock (`postmaster.pid`) whose process is dead but not yet reaped (a zombie: the service's
 *   group was killed, and the machine's init reaps it a second or two later): it is waited for,
 *   and removed if it is still not reaped after a while; PostgreSQL's own check takes a zombie for
 *   a live server and refuses to start;
 * - a lock whose id now belongs to a program that is positively not PostgreSQL (after a reboot):
 *   it is removed.
 *
 * A lock whose process is alive and may be a PostgreSQL is never removed: when it cannot be told
 * (its command line unreadable), the start fails with what to check. A process is identified by
 * its command line (`/proc/<pid>/cmdline`, readable by every user, or `ps` where there is no
 * `/proc`): the server is started as `postgres -D <folder> …`.
 *
 * @internal
 */
import { Effect } from "effect"
import { existsSync, readdirSync, readFileSync, realpathSync, rmSync } from "node:fs"
import path from "node:path"
import { EmbeddedDatabaseError, failedTo } from "./EmbeddedDatabaseError.js"
import * as Processes from "./Processes.js"

/** How long to wait: for workers to notice their postmaster died, a server to stop, a zombie to be reaped. */
const patience = { workers: 30_000, stop: 30_000, reaped: 10_000, poll: 100 } as const

/** Whether arguments are PostgreSQL's: its server (`…/postgres -D …`) or one of its workers (`postgres: …`). */
const isPostgres = (args: ReadonlyArray<string>): boolean =>
  path.basename(args[0] ?? "") === "postgres" || (args[0] ?? "").startsWith("postgres:")

/** The same folder, whichever way it is written (a link, a relative path). */
const sameFolder = (a: string, b: string): boolean => {
  try {
    return realpathSync(a) === realpathSync(b)
  } catch {
    return path.resolve(a) === path.resolve(b)
  }
}

/** What is known of a process a lock names. */
export interface Facts {
  readonly liveness: Processes.Liveness
  readonly args: ReadonlyArray<string> | undefined
  readonly workingFolder: string | undefined
}

/** What a lock's process is: gone, a zombie, the server of this folder, a program that is not PostgreSQL, or unknown. */
export type Holder = "gone" | "zombie" | "server" | "other" | "unknown"

/**
 * What the facts of a lock's process say it is. Only what is shown counts: a process whose
 * arguments cannot be read, or a PostgreSQL worker whose folder cannot be, is `unknown` (its lock
 * is never removed).
 *
 * @internal
 */
export const judge = (facts: Facts, pgdata: string): Holder => {
  if (facts.liveness !== "alive") return facts.liveness
  if (facts.args === undefined) return "unknown"
  if (!isPostgres(facts.args)) return "other"
  // A server names its folder (`-D`); a worker works in it (where that may be read).
  const folder = facts.args.includes("-D") ? facts.args[facts.args.indexOf("-D") + 1] : facts.workingFolder
  return folder === undefined ? "unknown" : sameFolder(folder, pgdata) ? "server" : "other"
}

const identify = (pid: number, pgdata: string): Holder =>
  judge({ liveness: Processes.liveness(pid), args: Processes.argumentsOf(pid), workingFolder: Processes.workingFolderOf(pid) }, pgdata)

/**
 * The live processes seen working in `folder` (PostgreSQL's postmaster and workers do); none
 * without `/proc`, and only those whose working folder this process may read.
 *
 * @internal
 */
export const workersIn = (folder: string): Array<number> => {
  if (!Processes.hasProc() || !existsSync(folder)) return []
  let real: string
  try {
    real = realpathSync(folder)
    return readdirSync("/proc")
      .filter((name) => /^\d+$/.test(name))
      .map(Number)
      .filter((pid) => pid !== process.pid && Processes.workingFolderOf(pid) === real && Processes.liveness(pid) === "alive")
  } catch {
    return []
  }
}

/**
 * The process id `postmaster.pid` names, if the file is there and says one.
 *
 * @internal
 */
export const lockHolder = (pgdata: string): number | undefined => {
  try {
    const pid = Number(readFileSync(path.join(pgdata, "postmaster.pid"), "utf8").split("\n")[0])
    return Number.isInteger(pid) && pid > 0 ? pid : undefined
  } catch {
    return undefined
  }
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

const removeLock = (pgdata: string, why: string) =>
  Effect.logInfo(`removing the stale lock of ${pgdata}: ${why}`).pipe(
    Effect.andThen(Effect.try({ try: () => rmSync(path.join(pgdata, "postmaster.pid"), { force: true }), catch: failedTo(`cannot remove the stale lock in ${pgdata}`) }))
  )

/**
 * Clears what a killed service left in `pgdata` (see the module): stops a server still running,
 * waits for the workers of a dead one, and removes a lock shown to be stale.
 *
 * @internal
 */
export const clear = Effect.fnUntraced(function*(pgdata: string) {
  const holder = lockHolder(pgdata)
  if (holder === undefined) return
  const identity = identify(holder, pgdata)
  if (identity === "server") {
    yield* Effect.logWarning(`the embedded PostgreSQL of a previous run (pid ${holder}) is still running in ${pgdata}: stopping it`)
    yield* Effect.try({ try: () => process.kill(holder, "SIGINT"), catch: failedTo(`cannot stop the PostgreSQL server ${holder} left in ${pgdata}`) })
    const stopped = yield* waitUntil(() => Processes.liveness(holder) !== "alive", patience.stop)
    if (!stopped) {
      return yield* new EmbeddedDatabaseError({ message: `the PostgreSQL server ${holder} left in ${pgdata} does not stop; stop it, then start again` })
    }
  } else if (identity === "unknown") {
    return yield* new EmbeddedDatabaseError({
      message: `${pgdata}/postmaster.pid names process ${holder}, which runs and may be a PostgreSQL serving this folder: ` +
        `stop it; if it is not one, remove that file, then start again`
    })
  } else if (identity === "other") {
    return yield* removeLock(pgdata, `its process id (${holder}) is now another program's`)
  }
  const quiet = yield* waitUntil(() => workersIn(pgdata).length === 0, patience.workers)
  if (!quiet) {
    return yield* new EmbeddedDatabaseError({
      message: `processes ${workersIn(pgdata).join(", ")} still work in ${pgdata} (a PostgreSQL of an earlier run?): stop them, then start again`
    })
  }
  if (lockHolder(pgdata) !== holder) return
  // A killed server that is not reaped yet: once reaped, PostgreSQL judges its lock itself (with
  // its check of the shared memory the lock names); one never reaped (an init that does not reap)
  // holds nothing, and its lock is removed.
  const reaped = yield* waitUntil(() => Processes.liveness(holder) === "gone", patience.reaped)
  if (!reaped && Processes.liveness(holder) === "zombie" && lockHolder(pgdata) === holder) {
    return yield* removeLock(pgdata, `its PostgreSQL (pid ${holder}) was killed and is not reaped after ${patience.reaped / 1000} s`)
  }
})
