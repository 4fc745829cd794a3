/**
 * The `serve` process itself: bad flags exit 2 before anything starts, naming the flag and what is
 * valid; without a database URL it runs an embedded PostgreSQL in `--data-dir` (ready at
 * `/readyz`, its streams kept across a `kill -9` and a restart that stops the server the killed
 * process left, and stopped with the service on SIGTERM); with `--otlp-url` its traces, metrics
 * and logs reach an OTLP collector.
 */
import { execFileSync } from "node:child_process"
import { chmodSync } from "node:fs"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, assert, describe, it } from "vitest"
import { runCli, tempDir, withSimulator } from "../e2e/support/e2e.js"
import { apiToken, call, freshDatabase, serveArgs, startService, until } from "./support/serveE2e.js"

const dir = tempDir("serve")
const cleanups: Array<() => Promise<void>> = []
afterAll(async () => {
  for (const cleanup of cleanups.toReversed()) await cleanup()
  dir.remove()
})

/** Flags that are fine, around the one bad flag of each case. */
const fine = ["serve", "--api-key", "k", "--data-dir", "/nonexistent/never-created"]
/** The same with a database URL (never reached: the flags are refused first). */
const withDatabase = [...fine, "--api-token", apiToken, "--database-url", "postgres://nobody@127.0.0.1:1/none"]

const badFlags: ReadonlyArray<readonly [string, ReadonlyArray<string>, Record<string, string>, RegExp]> = [
  ["no API token", fine, {}, /no API token: give --api-token-file PATH or set CHAINQUERY_API_TOKEN/],
  ["a short API token", [...fine, "--api-token", "tiny-1"], {}, /the API token is shorter than 16 characters/],
  ["a blank CHAINQUERY_API_TOKEN", fine, { CHAINQUERY_API_TOKEN: "  " }, /no API token/],
  ["no API key", ["serve", "--api-token", apiToken], {}, /no API key \(or an empty one\)/],
  ["a port out of range", [...fine, "--api-token", apiToken, "--port", "70000"], {}, /--port: expected 0 to 65535,\s+got 70000/],
  ["a bad retry schedule", [...fine, "--api-token", apiToken, "--retry-schedule", "1s,,5s"], {}, /--retry-schedule: expected 1 to 20 comma-separated durations/],
  ["a retry under 100ms", [...fine, "--api-token", apiToken, "--retry-schedule", "1s,50ms"], {}, /--retry-schedule/],
  ["a bad success rate", [...fine, "--api-token", apiToken, "--min-success-rate", "120"], {}, /--min-success-rate: expected a percentage from 0 to 100/],
  ["a database URL that is not PostgreSQL's", [...fine, "--api-token", apiToken, "--database-url", "mysql://x"], {}, /must be a postgres:\/\/ or postgresql:\/\/ URL/],
  ["an OTLP URL that is not http", [...fine, "--api-token", apiToken, "--otlp-url", "grpc://x"], {}, /--otlp-url must be an http:\/\/ or https:\/\/ URL/],
  ["an unknown log format", [...fine, "--api-token", apiToken, "--log-format", "xml"], {}, /log-format/],
  ["an unknown heap mode", [...fine, "--api-token", apiToken, "--memory", "huge"], {}, /--memory: "huge"\. Expected: "lean" \| "fast"/],
  ["the API key to a plain-http remote host", [...fine, "--api-token", apiToken, "--evm-base-url", "http://example.com"], {}, /--allow-insecure-http/],
  ["a delivery concurrency of 0", [...fine, "--api-token", apiToken, "--delivery-concurrency", "0"], {}, /--delivery-concurrency: expected 1 to 10000, got 0/],
  ["a cluster without a database URL", [...fine, "--api-token", apiToken, "--cluster"], {}, /--cluster needs --database-url \(or DATABASE_URL\)/],
  ["CHAINQUERY_RUNNER_ADDRESS without a database URL", [...fine, "--api-token", apiToken], { CHAINQUERY_RUNNER_ADDRESS: "10.0.0.5:34431" }, /--cluster needs --database-url/],
  ["a runner address without a port", [...fine, "--api-token", apiToken, "--cluster", "--runner-address", "10.0.0.5"], {}, /--runner-address: expected HOST:PORT with a port from 1 to 65535/],
  ["a runner address's port out of range", [...withDatabase, "--cluster", "--runner-listen-address", "0.0.0.0:70000"], {}, /--runner-listen-address: expected HOST:PORT/],
  ["a bad CHAINQUERY_RUNNER_ADDRESS", withDatabase, { CHAINQUERY_RUNNER_ADDRESS: "runner one" }, /CHAINQUERY_RUNNER_ADDRESS: expected HOST:PORT/],
  ["a cluster flag without --cluster", [...withDatabase, "--shard-lock-expiration", "20s"], {}, /--shard-lock-expiration is for a cluster: add --cluster/],
  ["a lock refresh over a third of the expiration", [...withDatabase, "--cluster", "--shard-lock-expiration", "6s", "--shard-lock-refresh", "3s"], {}, /--shard-lock-refresh \(3s\) must be at most a third of --shard-lock-expiration \(6s\)/],
  ["a lock refresh over 20s", [...withDatabase, "--cluster", "--shard-lock-expiration", "5m", "--shard-lock-refresh", "30s"], {}, /--shard-lock-refresh: expected at most 20s, got "30s"/],
  ["a lock expiration under 3s", [...withDatabase, "--cluster", "--shard-lock-expiration", "1s"], {}, /--shard-lock-expiration/],
  ["an unknown runner health", [...withDatabase, "--cluster", "--runner-health", "tcp"], {}, /--runner-health: "tcp"\. Expected: "ping" \| "k8s"/],
  ["a Kubernetes flag without --runner-health k8s", [...withDatabase, "--cluster", "--k8s-namespace", "chainquery"], {}, /--k8s-namespace and --k8s-label-selector are for --runner-health k8s/]
]

/** The `postgres` processes serving a data folder. */
const postgresOf = (folder: string): Array<string> => {
  const out = execFileSync("ps", ["-eo", "pid,args"], { encoding: "utf8" })
  return out.split("\n").filter((line) => line.includes("postgres") && line.includes(folder) && !line.includes("ps -eo"))
}

describe("the serve process", () => {
  // Side by side: each case is a process that exits at once.
  it.concurrent.each(badFlags)("%s: exit 2 before anything starts, saying what is valid", async (_name, args, env, message) => {
    const exited = await runCli(args, { CHAINQUERY_API_TOKEN: "", DATABASE_URL: "", CHAINQUERY_RUNNER_ADDRESS: "", ...env })
    assert.strictEqual(exited.code, 2, exited.stderr)
    assert.match(exited.stderr, message)
    assert.strictEqual(exited.stdout, "")
  })

  it("without a database URL: an embedded PostgreSQL in --data-dir, kept across kill -9 and restart, stopped with the service", async () => {
    await withSimulator({ seed: 1601, indexing: false, chains: ["0x1"] }, async (sim) => {
      // As root, the embedded server runs as the `postgres` user: the folders above its data must let it through.
      chmodSync(dir.path, 0o755)
      const data = `${dir.path}/data`
      const args = serveArgs(sim, ["--data-dir", data])
      const first = await startService("", args)
      cleanups.push(async () => void (await first.process.stop("SIGKILL")))
      // Ready once the cluster holds its shards (a moment after it listens).
      await until("ready", async () => (await call(first, "GET", "/readyz")).status === 200, 30_000)
      assert.deepStrictEqual((await call(first, "GET", "/readyz")).body, { ready: true })
      const created = await call(first, "POST", "/v1/streams", { url: "http://127.0.0.1:9/hook", description: "kept" })
      assert.strictEqual(created.status, 201)
      await first.process.stop("SIGKILL")
      assert.strictEqual(postgresOf(data).length > 0, true, "kill -9 leaves the embedded server running")
      const second = await startService("", args)
      cleanups.push(async () => void (await second.process.stop("SIGKILL")))
      assert.match(second.process.stderr, /the embedded PostgreSQL of a previous run \(pid \d+\) is still running/)
      const kept = await call(second, "GET", `/v1/streams/${created.body.id}`)
      assert.strictEqual(kept.body.description, "kept")
      const stopped = await second.process.stop("SIGTERM")
      assert.strictEqual(stopped.code, 0, second.process.stderr.slice(-2000))
      await until("the embedded server stopped", () => Promise.resolve(postgresOf(data).length === 0), 30_000)
    })
  }, 180_000)

  it("with --otlp-url, traces, metrics and logs reach the collector", async () => {
    const received = new Set<string>()
    const collector = createServer((request, response) => {
      received.add(request.url ?? "")
      request.resume()
      request.on("end", () => response.end("{}"))
    })
    await new Promise<void>((resolve) => collector.listen(0, "127.0.0.1", resolve))
    cleanups.push(() => new Promise<void>((resolve) => collector.close(() => resolve())))
    await withSimulator({ seed: 1611, indexing: false, chains: ["0x1"] }, async (sim) => {
      const database = await freshDatabase()
      cleanups.push(database.drop)
      const service = await startService(database.url, serveArgs(sim, ["--otlp-url", `http://127.0.0.1:${(collector.address() as AddressInfo).port}`]))
      cleanups.push(async () => void (await service.process.stop("SIGKILL")))
      await call(service, "POST", "/v1/streams", { url: "http://127.0.0.1:9/hook" })
      const stopped = await service.process.stop("SIGTERM")
      assert.strictEqual(stopped.code, 0, service.process.stderr.slice(-2000))
      // Whatever was not sent yet is flushed when the service stops.
      assert.includeMembers([...received], ["/v1/traces", "/v1/metrics", "/v1/logs"])
    })
  }, 120_000)
})
