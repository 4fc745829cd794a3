/**
 * The demo (`chainquery-watcher demo`, what `./run start` runs), as an operator sees it: it prints
 * at least one event of every kind (in about 35 s on an idle machine; its world moves on the wall
 * clock, a block every 2 s and a reorganisation every 12 s, so a loaded machine that reads late
 * needs longer: the test allows 2 minutes), and Ctrl-C (SIGINT) stops it with exit code 0. It
 * shows one clock: a header naming the columns first, then on every line a time, the simulated
 * time of its block: one time per block of a chain, whatever the kind (DeFi and holdings too), and
 * later blocks at later times.
 */
import { spawn } from "node:child_process"
import { fileURLToPath } from "node:url"
import { expect, it } from "vitest"
import { WatchEvent } from "@chainquery/watch"
import { Output } from "../src/index.js"

const bin = fileURLToPath(new URL("../dist/bin.js", import.meta.url))

const kindPattern = new RegExp(`(?:^|\\s)(${WatchEvent.kinds.map((kind) => kind.replace(/\./g, "\\.")).join("|")})(?=\\s)`)

it("prints every kind of event within 120 s, then stops on SIGINT with exit code 0", async () => {
  const child = spawn(process.execPath, [bin, "demo"], { stdio: ["ignore", "pipe", "pipe"] })
  const firstSeen = new Map<string, number>()
  const started = Date.now()
  const printed: Array<string> = []
  let buffered = ""
  let stderr = ""
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()))
  const everyKind = new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, 120_000)
    child.stdout.on("data", (chunk: Buffer) => {
      buffered += chunk.toString()
      const lines = buffered.split("\n")
      buffered = lines.pop() ?? ""
      for (const line of lines) {
        printed.push(line)
        const kind = kindPattern.exec(line)?.[1]
        if (kind !== undefined && !firstSeen.has(kind)) firstSeen.set(kind, Date.now() - started)
      }
      if (firstSeen.size === WatchEvent.kinds.length) {
        clearTimeout(timer)
        resolve()
      }
    })
  })
  const closed = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)))
  try {
    await everyKind
  } finally {
    child.kill("SIGINT")
  }
  const code = await closed
  console.info(`demo: first event of each kind after (ms) ${JSON.stringify(Object.fromEntries(firstSeen))}`)
  const missing = WatchEvent.kinds.filter((kind) => !firstSeen.has(kind))
  expect(missing, `kinds not printed within 120 s (seen: ${JSON.stringify(Object.fromEntries(firstSeen))})`).toEqual([])
  expect(code, stderr.slice(-2000)).toBe(0)
  expect(stderr).toMatch(/demo: a simulator at http:\/\/127\.0\.0\.1:\d+/)
  expect(printed[0], "the first line names the columns").toBe(Output.header)
  const events = printed.slice(1).filter((line) => kindPattern.test(line))
  expect(events.length).toBe(printed.length - 1)
  const undated = events.filter((line) => !/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d /.test(line))
  expect(undated, "every line shows a time").toEqual([])
  // The lines that name their block (DeFi, holdings, retractions): per chain, one time per block, later blocks later.
  const timesOfBlocks = new Map<string, Map<bigint, Set<string>>>()
  for (const line of events) {
    const block = /\bblock (\d+)\b/.exec(line)?.[1]
    if (block === undefined) continue
    const chain = line.slice(38, 51).trim()
    const blocks = timesOfBlocks.get(chain) ?? new Map<bigint, Set<string>>()
    timesOfBlocks.set(chain, blocks.set(BigInt(block), (blocks.get(BigInt(block)) ?? new Set()).add(line.slice(0, 19))))
  }
  expect(timesOfBlocks.get("eth")?.size ?? 0, "eth lines naming their block").toBeGreaterThan(3)
  for (const [chain, blocks] of timesOfBlocks) {
    const ordered = [...blocks].toSorted(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    for (const [block, times] of ordered) expect([...times], `${chain} block ${block}: one time`).toHaveLength(1)
    const times = ordered.map(([, time]) => [...time][0]!)
    expect(times, `${chain}: later blocks at later times`).toEqual(times.toSorted())
  }
}, 180_000)
