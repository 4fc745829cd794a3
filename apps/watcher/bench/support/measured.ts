/**
 * What the watcher's benchmarks share: the median of a few runs, and a measured child process
 * (a Node script that prints its measurement as one JSON line last on stdout).
 */
import { spawn } from "node:child_process"
import path from "node:path"

/** The median of `values` (the upper one of an even count). */
export const median = (values: ReadonlyArray<number>): number => values.toSorted((a, b) => a - b)[Math.floor(values.length / 2)]!

/** The `p`-th percentile (0..1) of `values`, nearest rank (`NaN` for none). */
export const percentile = (values: ReadonlyArray<number>, p: number): number => {
  const sorted = values.toSorted((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))] ?? Number.NaN
}

/**
 * Runs `node [...nodeFlags] script ...args`, its stderr shown as it comes; resolves with the JSON
 * of its last stdout line, rejects when it fails or prints no measurement.
 */
export const measureChild = <A>(script: string, args: ReadonlyArray<string>, nodeFlags: ReadonlyArray<string> = []): Promise<A> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...nodeFlags, script, ...args], { stdio: ["ignore", "pipe", "inherit"] })
    let out = ""
    child.stdout.setEncoding("utf8")
    child.stdout.on("data", (chunk: string) => (out += chunk))
    child.on("error", reject)
    child.on("exit", (code) => {
      const last = out.trim().split("\n").at(-1) ?? ""
      if (code !== 0 || !last.startsWith("{")) reject(new Error(`${path.basename(script)} exited with ${code}: ${out}`))
      else resolve(JSON.parse(last) as A)
    })
  })
