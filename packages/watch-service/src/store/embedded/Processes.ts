/**
 * What can be learnt of another process by its id: whether it is alive, its arguments, the folder
 * it works in. Read from `/proc` (Linux; its `cmdline` and `stat` are readable by every user), or
 * with `kill(pid, 0)` and `ps` where there is none. Each answer is `undefined` (or `gone`) rather
 * than an error where it cannot be read.
 *
 * @internal
 */
import { execFileSync } from "node:child_process"
import { existsSync, readFileSync, readlinkSync } from "node:fs"

/** Whether this machine has `/proc`. */
export const hasProc = (): boolean => existsSync("/proc/self/stat")

/** Whether a process with that id exists (a zombie included). */
const exists = (pid: number): boolean => {
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

/** Whether a process is gone, dead but not reaped (a zombie: without `/proc`, taken for alive), or alive. */
export type Liveness = "gone" | "zombie" | "alive"

/** A process's {@link Liveness}. */
export const liveness = (pid: number): Liveness => {
  if (!hasProc()) return exists(pid) ? "alive" : "gone"
  const state = stateOf(pid)
  return state === undefined ? "gone" : state === "Z" || state === "X" ? "zombie" : "alive"
}

/** A process's arguments; `undefined` where they cannot be read (gone, a zombie, hidden). */
export const argumentsOf = (pid: number): ReadonlyArray<string> | undefined => {
  try {
    if (hasProc()) {
      const args = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\u0000")
      if (args.at(-1) === "") args.pop()
      return args.length === 0 ? undefined : args
    }
    const text = execFileSync("ps", ["-o", "command=", "-p", String(pid)], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim()
    return text === "" ? undefined : text.split(/\s+/)
  } catch {
    return undefined
  }
}

/** The folder a process works in; `undefined` when it is gone, a zombie, not ours to read, or there is no `/proc`. */
export const workingFolderOf = (pid: number): string | undefined => {
  try {
    return readlinkSync(`/proc/${pid}/cwd`)
  } catch {
    return undefined
  }
}
