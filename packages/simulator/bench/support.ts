/**
 * Shared pieces of the simulator benchmarks: a keep-alive load generator, process spawning that
 * waits for the "listening on" line, and medians.
 */
import { type ChildProcess, spawn } from "node:child_process"
import http from "node:http"

export const median = (values: ReadonlyArray<number>): number => {
  const sorted = values.toSorted((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)]!
}

/** Starts `node args...` and resolves with the URL it prints as `listening on URL`. */
export const startProcess = (args: ReadonlyArray<string>): Promise<{ readonly url: string; readonly child: ChildProcess }> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "inherit"] })
    let out = ""
    child.stdout!.setEncoding("utf8")
    child.stdout!.on("data", (chunk: string) => {
      out += chunk
      const match = /listening on (\S+)/.exec(out)
      if (match !== null) resolve({ url: match[1]!, child })
    })
    child.on("exit", (code) => reject(new Error(`process exited with ${code} before listening`)))
  })

/** GETs `url` once over `agent` and resolves with the body length. */
export const fetchOnce = (url: string, agent: http.Agent, headers: Record<string, string>): Promise<number> =>
  new Promise((resolve, reject) => {
    http.get(url, { agent, headers }, (res) => {
      let bytes = 0
      res.on("data", (chunk: Buffer) => (bytes += chunk.length))
      res.on("end", () => (res.statusCode === 200 ? resolve(bytes) : reject(new Error(`status ${res.statusCode}`))))
    }).on("error", reject)
  })

/** Requests per second with `concurrency` keep-alive loops for `millis`. */
export const throughput = async (url: string, headers: Record<string, string>, concurrency: number, millis: number): Promise<number> => {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency })
  const end = Date.now() + millis
  let done = 0
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (Date.now() < end) {
      await fetchOnce(url, agent, headers)
      done++
    }
  }))
  agent.destroy()
  return done / (millis / 1000)
}
