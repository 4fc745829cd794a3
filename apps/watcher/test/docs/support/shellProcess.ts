/**
 * A shell command run by `bash -c` in a process group of its own (a terminal's command and all it
 * starts: `./run`, node, an embedded PostgreSQL), its output collected as it comes, and stopped
 * as a whole: SIGTERM to the group, then SIGKILL to what is left of it.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { sleep } from "../../e2e/support/e2e.js"

/** A command running in its own process group. */
export class ShellProcess {
  readonly child: ChildProcess
  stdout = ""
  stderr = ""
  readonly closed: Promise<{ readonly code: number | null; readonly signal: NodeJS.Signals | null }>
  private ended = false

  constructor(command: string, options: { readonly cwd: string; readonly env: NodeJS.ProcessEnv }) {
    this.child = spawn("bash", ["-c", command], { cwd: options.cwd, env: options.env, detached: true, stdio: ["ignore", "pipe", "pipe"] })
    this.child.stdout!.on("data", (chunk: Buffer) => (this.stdout += chunk.toString()))
    this.child.stderr!.on("data", (chunk: Buffer) => (this.stderr += chunk.toString()))
    this.closed = new Promise((resolve, reject) => {
      this.child.on("error", reject)
      this.child.on("close", (code, signal) => {
        this.ended = true
        resolve({ code, signal })
      })
    })
  }

  /** Everything it printed, stdout then stderr (for a failure's message). */
  get output(): string {
    return `stdout:\n${this.stdout.slice(-3000)}\nstderr:\n${this.stderr.slice(-3000)}`
  }

  /** Waits until `condition` holds on it (checked every 50 ms); fails after `timeoutMs` or if it ended. */
  async waitFor(what: string, condition: (process: ShellProcess) => boolean, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs
    while (!condition(this)) {
      if (this.ended) throw new Error(`the command ended while waiting for ${what}; ${this.output}`)
      if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}; ${this.output}`)
      await sleep(50)
    }
  }

  /** Whether any process of its group is still there. */
  private groupAlive(): boolean {
    try {
      process.kill(-this.child.pid!, 0)
      return true
    } catch {
      return false
    }
  }

  private signalGroup(signal: NodeJS.Signals): void {
    try {
      process.kill(-this.child.pid!, signal)
    } catch {
      // The group is gone already.
    }
  }

  /** SIGTERM to the whole group, then, after `graceMs` with any of it left, SIGKILL to the group. */
  async stop(graceMs = 30_000): Promise<void> {
    if (this.child.pid === undefined) return
    this.signalGroup("SIGTERM")
    const deadline = Date.now() + graceMs
    while (this.groupAlive() && Date.now() < deadline) await sleep(100)
    this.signalGroup("SIGKILL")
    await this.closed.catch(() => undefined)
  }
}
