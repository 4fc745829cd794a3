/**
 * `serve` end to end: no secret ever comes out. The API token, every stream's signing secret
 * (after the answer that created it), the service's API key and the database password are searched
 * for in everything the service wrote (stdout, and its JSON logs on stderr), in `/metrics`, in
 * `/openapi.json`, and in every answer of the management API after creation, over a run with a
 * flaky service (500s), a failing receiver and bad requests. With `--log-format json`, every
 * log line is one JSON object.
 */
import { PgClient } from "@effect/sql-pg"
import { Effect, Redacted } from "effect"
import { randomBytes } from "node:crypto"
import { afterAll, assert, describe, inject, it } from "vitest"
import { databaseUrlFor } from "../../../../packages/watch/test/support/postgres.js"
import { drive, seeded, withSimulator } from "../e2e/support/e2e.js"
import { apiToken, call, Receiver, serveArgs, startService } from "./support/serveE2e.js"
import { createStreams, delivered, scannedTo, ethHead } from "./support/streamsScenario.js"

const cleanups: Array<() => Promise<void>> = []
afterAll(async () => {
  for (const cleanup of cleanups.toReversed()) await cleanup()
})


/** Runs statements on the run's PostgreSQL server as its administrator. */
const admin = (statements: ReadonlyArray<string>) =>
  Effect.runPromise(
    Effect.gen(function*() {
      const sql = yield* PgClient.PgClient
      for (const statement of statements) yield* sql.unsafe(statement)
    }).pipe(Effect.scoped, Effect.provide(PgClient.layer({ url: Redacted.make(inject("databaseUrl")) })))
  )

/** A database owned by a role of its own, whose password is a secret to look for. */
const ownDatabase = async () => {
  const suffix = randomBytes(5).toString("hex")
  const role = `watcher_${suffix}`
  const password = `pw-${randomBytes(12).toString("hex")}`
  await admin([`CREATE ROLE ${role} LOGIN PASSWORD '${password}'`, `CREATE DATABASE ${role} OWNER ${role}`])
  cleanups.push(() => admin([`DROP DATABASE IF EXISTS ${role} WITH (FORCE)`, `DROP ROLE IF EXISTS ${role}`]))
  const url = new URL(databaseUrlFor(role))
  url.username = role
  url.password = password
  return { url: url.toString(), password }
}

describe("serve: secrets", () => {
  it("no secret in any log line, metric, error or answer; JSON logs are one object per line", async () => {
    const simulatorKey = `sim-key-${randomBytes(12).toString("hex")}`
    await withSimulator({ seed: 1501, indexing: false, chains: ["0x1"], apiKey: simulatorKey, faults: { serverError: { probability: 0.2 } } }, async (sim) => {
      const database = await ownDatabase()
      const receiver = new Receiver(1_500)
      await receiver.start()
      cleanups.push(() => receiver.close())
      let served = 0
      receiver.policy = () => (++served % 3 === 0 ? 500 : 200)
      const service = await startService(database.url, serveArgs(sim, ["--log-format", "json", "--retry-schedule", "200ms,200ms,200ms,200ms,200ms,200ms"]))
      cleanups.push(async () => void (await service.process.stop("SIGKILL")))
      const streams = await createStreams(service, sim, receiver)
      const answers: Array<string> = []
      const keep = async (method: string, path: string, body?: unknown) => {
        const answer = await call(service, method, path, body)
        answers.push(JSON.stringify(answer.body ?? null))
        return answer
      }
      const wallets = [...new Set(streams.flatMap((stream) => stream.wallets))]
      await scannedTo(database.url, wallets, await ethHead(sim), 60_000)
      await drive(sim, { total: 20, minStep: 1, maxStep: 3, everyMs: 150, random: seeded(1502) })
      await scannedTo(database.url, wallets, await ethHead(sim), 120_000)
      await delivered(service, streams, 120_000)
      for (const stream of streams) {
        await keep("GET", `/v1/streams/${stream.id}`)
        await keep("GET", `/v1/streams/${stream.id}/stats`)
        await keep("GET", `/v1/streams/${stream.id}/deliveries?limit=1000`)
        await keep("GET", `/v1/streams/${stream.id}/wallets`)
        await keep("PATCH", `/v1/streams/${stream.id}`, { description: "changed" })
        await keep("POST", `/v1/streams/${stream.id}/pause`)
        await keep("POST", `/v1/streams/${stream.id}/resume`)
      }
      await keep("GET", "/v1/streams")
      await keep("POST", "/v1/streams", { url: "ftp://nowhere", events: ["nope"] })
      await keep("POST", `/v1/streams/${streams[0]!.id}/wallets`, { wallets: ["eth:0xnot-an-address"] })
      const metrics = await (await fetch(`${service.url}/metrics`)).text()
      const openapi = await (await fetch(`${service.url}/openapi.json`)).text()
      const stopped = await service.process.stop("SIGTERM")
      assert.strictEqual(stopped.code, 0, service.process.stderr.slice(-2000))

      const secrets = [
        ["the API token", apiToken],
        ["the service's API key", simulatorKey],
        ["the database password", database.password],
        ...[...receiver.secrets.values()].map((secret) => ["a stream's signing secret", secret] as const),
        ...[...receiver.secrets.values()].map((secret) => ["a stream's signing key", secret.slice("whsec_".length)] as const)
      ] as const
      const places = [
        ["stdout", service.process.stdout],
        ["the logs (stderr)", service.process.stderr],
        ["/metrics", metrics],
        ["/openapi.json", openapi],
        ["the API's answers", answers.join("\n")]
      ] as const
      for (const [what, secret] of secrets) {
        for (const [where, text] of places) assert.notInclude(text, secret, `${what} appears in ${where}`)
      }
      assert.isAbove(receiver.attempts.length, 5, "webhooks went out")
      assert.isTrue(answers.some((answer) => answer.includes("HTTP 500")), "a delivery error was reported")
      const lines = service.process.stderr.split("\n").filter((line) => line.trim() !== "")
      assert.isAbove(lines.length, 0)
      for (const line of lines) {
        const parsed = JSON.parse(line) as { readonly level?: unknown; readonly message?: unknown }
        assert.isString(parsed.level, line)
      }
    })
  }, 300_000)
})
