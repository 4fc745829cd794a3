/**
 * The resources of one scenario: a temporary directory for the state file, the simulator, and
 * every CLI process it spawned. `release` (idempotent) kills what still runs with SIGKILL, closes
 * the simulator and removes the directory; once released, nothing more may be spawned, so a play
 * that outlived its test's timeout stops at its next step.
 */
import { type ChildProcess, spawn } from "node:child_process"
import type { Simulator } from "@chainquery/simulator"
import { bin, type Exited, type RunningSim, startSimulator, tempDir, Watcher } from "../e2e/support/e2e.js"

export class Released extends Error {
  constructor() {
    super("the scenario's resources were released (its test ended) while it was still playing")
  }
}

export class Lab {
  readonly dir = tempDir("soak")
  private readonly children = new Set<ChildProcess>()
  private readonly running: Array<RunningSim> = []
  private released = false

  /** Fails once the lab is released. */
  check(): void {
    if (this.released) throw new Released()
  }

  async simulator(options: Simulator.Options): Promise<RunningSim["sim"]> {
    this.check()
    const running = await startSimulator(options)
    this.running.push(running)
    if (this.released) await this.release()
    this.check()
    return running.sim
  }

  /** A long-running watcher, killed at release if it still runs. */
  watcher(args: ReadonlyArray<string>): Watcher {
    this.check()
    const watcher = new Watcher(args)
    this.children.add(watcher.child)
    return watcher
  }

  /** Runs the CLI to completion (`--once` runs), as `runCli` does. */
  once(args: ReadonlyArray<string>): Promise<Exited> {
    this.check()
    const env = { ...process.env, MORALIS_API_KEY: "", NO_COLOR: "1" }
    const child = spawn(process.execPath, [bin, ...args], { env, stdio: ["ignore", "pipe", "pipe"] })
    this.children.add(child)
    return new Promise((resolve, reject) => {
      let stdout = ""
      let stderr = ""
      child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()))
      child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()))
      child.on("error", reject)
      child.on("close", (code, signal) => {
        this.children.delete(child)
        resolve({ code, signal, stdout, stderr })
      })
    })
  }

  async release(): Promise<void> {
    this.released = true
    const children = [...this.children]
    this.children.clear()
    await Promise.all(children.map((child) =>
      child.exitCode !== null || child.signalCode !== null
        ? Promise.resolve()
        : new Promise<void>((resolve) => {
          child.once("close", () => resolve())
          child.kill("SIGKILL")
        })
    ))
    const sims = this.running.splice(0)
    for (const sim of sims) await sim.close().catch(() => undefined)
    this.dir.remove()
  }
}
