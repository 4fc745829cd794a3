/**
 * A wrong API key (the simulator answers 401 to any key but its own) is no passing trouble: the
 * watcher exits 2 at once with one message saying the key was refused, and `serve` is not ready
 * (`/readyz` 503 with the reason) with one log line, and stays so.
 */
import { afterAll, assert, describe, it } from "vitest"
import { busiestEvm } from "../../../../packages/watch/test/support/engineHarness.js"
import { Effect } from "effect"
import { runCli, sleep, tempDir, walletFlags, withSimulator } from "../e2e/support/e2e.js"
import { call, freshDatabase, Receiver, serveArgs, startService, until } from "./support/serveE2e.js"
import { ethHead, scannedTo } from "./support/streamsScenario.js"

const cleanups: Array<() => Promise<void>> = []
const dir = tempDir("key-refused")
afterAll(async () => {
  for (const cleanup of cleanups.toReversed()) await cleanup()
  dir.remove()
})

const rightKey = "right-key-0123456789abcdef"
const wrongKey = "wrong-key-0123456789abcdef"

describe("a refused API key", () => {
  it("watch: exit 2, one message saying the key was refused, no stack trace", async () => {
    await withSimulator({ seed: 3831, indexing: false, chains: ["0x1"], apiKey: rightKey }, async (sim) => {
      const exited = await runCli([
        ...walletFlags(busiestEvm(sim, "0x1", 2)),
        "--interval",
        "300ms",
        "--format",
        "json",
        "--watch",
        "transfers",
        "--state",
        `${dir.path}/watch.db`,
        "--evm-base-url",
        sim.evmUrl,
        "--api-key",
        wrongKey
      ])
      assert.strictEqual(exited.code, 2, exited.stderr)
      assert.strictEqual(exited.stdout, "")
      // Nothing else on stderr but the start's line: no retry, no warning per chain, no stack trace.
      const lines = exited.stderr.split("\n").filter((line) => line.trim() !== "")
      assert.match(lines[0] ?? "", /INFO .*watching 2 wallet\(s\)/)
      assert.deepStrictEqual(lines.slice(1), [
        "chainquery-watcher: the data service refused the API key (HTTP 401: Invalid key): run again with the right key (--api-key-file PATH or MORALIS_API_KEY)"
      ], exited.stderr)
      assert.notMatch(exited.stderr, /\n\s+at /, "no stack trace")
      assert.notMatch(exited.stderr, /not read this cycle|cycle failed/, "no retry")
      assert.notInclude(exited.stderr, wrongKey)
    })
  }, 120_000)

  it("serve with a wrong key and no stream yet: /readyz 503 with the reason, from its first request", async () => {
    await withSimulator({ seed: 3833, indexing: false, chains: ["0x1"], apiKey: rightKey }, async (sim) => {
      const database = await freshDatabase()
      cleanups.push(database.drop)
      const service = await startService(database.url, serveArgs(sim, ["--api-key", wrongKey, "--log-format", "json"]))
      cleanups.push(async () => void (await service.process.stop("SIGKILL")))
      // 503 while it starts, then 503 for the key, with the reason.
      const readyz = async () => {
        const response = await fetch(`${service.url}/readyz`)
        return { status: response.status, body: (await response.json()) as { readonly reason?: string } }
      }
      await until("/readyz 503 for the key", async () => (await readyz()).body.reason !== undefined, 60_000)
      const answer = await readyz()
      assert.strictEqual(answer.status, 503)
      assert.match(answer.body.reason ?? "", /^the data service refused the API key \(HTTP 401: Invalid key\): nothing is scanned/)
      const stopped = await service.process.stop("SIGTERM")
      assert.strictEqual(stopped.code, 0, service.process.stderr.slice(-2000))
      assert.strictEqual(service.process.stderr.split("\n").filter((line) => /refused the API key/.test(line)).length, 1, service.process.stderr)
    })
  }, 120_000)

  it("serve restarted with a wrong key: /readyz 503 with the reason, one log line, no scan tried again", async () => {
    await withSimulator({ seed: 3832, indexing: false, chains: ["0x1"], apiKey: rightKey, requestLog: 100_000 }, async (sim) => {
      const database = await freshDatabase()
      cleanups.push(database.drop)
      const receiver = new Receiver()
      await receiver.start()
      cleanups.push(() => receiver.close())
      // First with the right key: a stream with a wallet, scanned.
      const first = await startService(database.url, serveArgs(sim, ["--interval", "200ms"]))
      cleanups.push(async () => void (await first.process.stop("SIGKILL")))
      const created = await call(first, "POST", "/v1/streams", { url: receiver.url, events: ["nft.received"], chains: ["eth"] })
      assert.strictEqual(created.status, 201, JSON.stringify(created.body))
      const wallet = busiestEvm(sim, "0x1", 1)[0]!.address
      const added = await call(first, "POST", `/v1/streams/${created.body.id}/wallets`, { wallets: [`eth:${wallet}`] })
      assert.strictEqual(added.status, 200, JSON.stringify(added.body))
      await until("the scan running", () => Promise.resolve(/watching 1 wallet/.test(first.process.stderr)), 60_000)
      await scannedTo(database.url, [wallet], await ethHead(sim), 60_000)
      assert.strictEqual((await first.process.stop("SIGTERM")).code, 0, first.process.stderr.slice(-2000))

      // Then with a wrong key.
      const service = await startService(database.url, serveArgs(sim, ["--api-key", wrongKey, "--log-format", "json", "--interval", "200ms"]))
      cleanups.push(async () => void (await service.process.stop("SIGKILL")))
      const readyz = async () => {
        const response = await fetch(`${service.url}/readyz`)
        return { status: response.status, body: (await response.json()) as { readonly ready: boolean; readonly reason?: string } }
      }
      await until("/readyz 503 for the key", async () => (await readyz()).body.reason !== undefined, 60_000)
      assert.deepStrictEqual((await readyz()).body, {
        ready: false,
        reason:
          "the data service refused the API key (HTTP 401: Invalid key): nothing is scanned and /readyz answers 503 until the service is restarted with the right key (--api-key-file or MORALIS_API_KEY)"
      })
      // The scan is not tried again: no request in ten intervals, and still not ready.
      // (A scan that started before the probe's answer meets the refusal too, once: let it.)
      await sleep(2_000)
      const before = (await Effect.runPromise(sim.requests)).length
      await sleep(2_000)
      assert.strictEqual((await Effect.runPromise(sim.requests)).length, before, "requests after the refusal")
      assert.strictEqual((await readyz()).status, 503)
      const stopped = await service.process.stop("SIGTERM")
      assert.strictEqual(stopped.code, 0, service.process.stderr.slice(-2000))
      const lines = service.process.stderr.split("\n").filter((line) => line.trim() !== "").map((line) => JSON.parse(line) as { level: string; message: unknown })
      const refusals = lines.filter((line) => /refused the API key/.test(JSON.stringify(line.message)))
      assert.strictEqual(refusals.length, 1, service.process.stderr)
      assert.strictEqual(refusals[0]!.level, "ERROR")
      assert.deepStrictEqual(lines.filter((line) => line.level === "ERROR" || line.level === "WARN").length, 1, service.process.stderr)
      assert.notMatch(service.process.stderr, /\n\s+at /, "no stack trace")
      assert.notInclude(service.process.stderr, wrongKey)
    })
  }, 180_000)
})
