/**
 * The simulator as a test kit: faults set through the control API reach clients over real HTTP,
 * the compute-unit rate limit answers 429 with Retry-After, stats count what happened, and the
 * command line starts a server that prints its URLs.
 */
import { assert, describe, it, layer } from "@effect/vitest"
import { Effect } from "effect"
import { spawn } from "node:child_process"
import { fileURLToPath } from "node:url"
import { Simulator } from "../src/index.js"
import { get } from "./support/http.js"

const blockUrl = (sim: Simulator.Simulator["Service"]) => `${sim.evmUrl}/api/v2.2/block/${sim.world.evm.chain("0x1").head}?chain=eth`

describe("simulator faults, limits and CLI", () => {
  layer(Simulator.layer({ seed: 3, history: 10, indexing: false }))("faults", (test) => {
    test.effect("injects the configured faults on the configured routes, and counts them", () =>
      Effect.gen(function*() {
        const sim = yield* Simulator.Simulator
        yield* sim.resetStats
        yield* sim.setFaults({ routes: { getBlock: { serverError: { probability: 1, statuses: [503] } } } })
        const failed = yield* get(blockUrl(sim), { key: sim.apiKey })
        assert.strictEqual(failed.status, 503)
        const other = yield* get(`${sim.evmUrl}/api/v2.2/wallets/${sim.world.evm.wallets[0]}/defi/positions`, { key: sim.apiKey })
        assert.strictEqual(other.status, 200, "other routes are untouched")

        yield* sim.setFaults({ truncated: { probability: 1 } })
        const truncated = yield* get(blockUrl(sim), { key: sim.apiKey })
        assert.strictEqual(truncated.status, 200)
        assert.isUndefined(truncated.json, "a truncated body is not JSON")
        assert.isTrue(truncated.text.startsWith("{"))

        yield* sim.setFaults({ rateLimited: { probability: 1, retryAfterSeconds: 7 } })
        const limited = yield* get(blockUrl(sim), { key: sim.apiKey })
        assert.strictEqual(limited.status, 429)
        assert.strictEqual(limited.headers.get("retry-after"), "7")

        yield* sim.setFaults({})
        assert.strictEqual((yield* get(blockUrl(sim), { key: sim.apiKey })).status, 200)
        const stats = (yield* get(`${sim.url}/__sim/stats`)).json
        assert.strictEqual(stats.faults.serverError, 1)
        assert.strictEqual(stats.faults.truncated, 1)
        assert.strictEqual(stats.faults.rateLimited, 1)
        assert.strictEqual(stats.requests.byOperation.getBlock, 4)
      }))

    test.effect("rejects an invalid fault configuration with a reason", () =>
      Effect.gen(function*() {
        const sim = yield* Simulator.Simulator
        const problem = yield* Effect.flip(sim.setFaults({ latency: { probability: 2 } } as never))
        assert.match(problem, /latency/)
      }))
  })

  layer(Simulator.layer({ seed: 3, history: 5, indexing: false, rateLimit: { unitsPerSecond: 20 } }))("rate limit", (test) => {
    test.effect("answers 429 with Retry-After once the compute units of the second are spent", () =>
      Effect.gen(function*() {
        const sim = yield* Simulator.Simulator
        const statuses: Array<number> = []
        let retryAfter: string | null = null
        for (let i = 0; i < 10; i++) {
          const answer = yield* get(blockUrl(sim), { key: sim.apiKey })
          statuses.push(answer.status)
          if (answer.status === 429) retryAfter = answer.headers.get("retry-after")
        }
        assert.strictEqual(statuses[0], 200)
        assert.isTrue(statuses.includes(429), statuses.join(","))
        assert.isTrue(Number(retryAfter) >= 1)
        const stats = (yield* get(`${sim.url}/__sim/stats`)).json
        assert.isTrue(stats.rateLimited >= 1)
      }))
  })
})

describe("simulator CLI", () => {
  const bin = fileURLToPath(new URL("../dist/bin.js", import.meta.url))

  const run = (args: ReadonlyArray<string>) =>
    new Promise<{ readonly lines: ReadonlyArray<string>; readonly code: number | null; readonly stderr: string }>((resolve) => {
      const child = spawn(process.execPath, [bin, ...args], { stdio: ["ignore", "pipe", "pipe"] })
      let out = "", err = ""
      child.stdout.on("data", (chunk: Buffer) => {
        out += chunk.toString()
        if (out.split("\n").length > 4) child.kill("SIGINT")
      })
      child.stderr.on("data", (chunk: Buffer) => (err += chunk.toString()))
      child.on("exit", (code) => resolve({ lines: out.trim().split("\n"), code, stderr: err }))
    })

  it("prints where it listens and the base URL of each family, then stops on SIGINT", async () => {
    const { lines, code } = await run(["--port", "0", "--seed", "42", "--api-key", "KEY", "--history", "3"])
    assert.match(lines[0]!, /^listening on http:\/\/127\.0\.0\.1:\d+$/)
    const url = lines[0]!.slice("listening on ".length)
    assert.deepStrictEqual(lines.slice(1, 4), [
      `family A: ${url}`,
      `family B mainnet: ${url}/aptos/mainnet`,
      `family B testnet: ${url}/aptos/testnet`
    ])
    assert.strictEqual(code, 0)
  }, 30_000)

  it("refuses a bad flag with exit code 2 and a message", async () => {
    const { code, stderr } = await run(["--block-time", "soon"])
    assert.strictEqual(code, 2)
    assert.include(stderr, `--block-time: expected a duration such as 10s, 500ms, 2m or 1h, got "soon"`)
  }, 30_000)

  it("reads --block-time with the duration grammar every CLI shares: 1h starts", async () => {
    const { lines, code, stderr } = await run(["--port", "0", "--history", "3", "--block-time", "1h"])
    assert.match(lines[0]!, /^listening on http:\/\/127\.0\.0\.1:\d+$/, stderr)
    assert.strictEqual(code, 0)
  }, 30_000)

  it("refuses --block-time 5x with exit code 2, the shared message and the usage", async () => {
    const { code, lines, stderr } = await run(["--block-time", "5x"])
    assert.strictEqual(code, 2)
    assert.include(stderr, `chainquery-simulator: --block-time: expected a duration such as 10s, 500ms, 2m or 1h, got "5x"`)
    assert.include(stderr, "Usage: chainquery-simulator")
    assert.deepStrictEqual(lines, [""], "nothing on stdout")
  }, 30_000)

  it("refuses --wire raw with exit code 2, naming the flavours", async () => {
    const { code, lines, stderr } = await run(["--wire", "raw"])
    assert.strictEqual(code, 2)
    assert.include(stderr, `chainquery-simulator: --wire must be spec or real, got "raw"`)
    assert.deepStrictEqual(lines, [""], "nothing on stdout")
  }, 30_000)

  it("answers in the captured types with --wire real", async () => {
    const child = spawn(process.execPath, [bin, "--port", "0", "--history", "3", "--no-indexing-lag", "--wire", "real"], {
      stdio: ["ignore", "pipe", "pipe"],
      detached: true
    })
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = ""
        child.stdout.on("data", (chunk: Buffer) => {
          out += chunk.toString()
          const listening = /^listening on (\S+)$/m.exec(out)
          if (listening !== null) resolve(listening[1]!)
        })
        child.on("exit", (code) => reject(new Error(`exited ${code} before listening`)))
      })
      const heads = await (await fetch(`${url}/__sim/head`)).json() as { readonly evm: Record<string, number> }
      const head = heads.evm["0x1"]!
      const answer = await fetch(`${url}/api/v2.2/block/${head}?chain=eth`, { headers: { "x-api-key": "chainquery-simulator-key" } })
      assert.strictEqual(answer.status, 200)
      assert.strictEqual((await answer.json() as { readonly number: unknown }).number, String(head))
    } finally {
      if (child.exitCode === null) process.kill(-child.pid!, "SIGKILL")
    }
  }, 30_000)

  it("refuses a --block-time below 1ms", async () => {
    const { code, stderr } = await run(["--block-time", "0s"])
    assert.strictEqual(code, 2)
    assert.include(stderr, `--block-time must be at least 1ms, got "0s"`)
  }, 30_000)
})

