/**
 * What `serve` logs about a receiver that fails for a while, then recovers: one WARN when the
 * stream starts failing (its id, the status, when the next attempt is) and one INFO when it
 * delivers again; nothing per attempt in between, not even from a service restarted while the
 * receiver still fails (the turn is read from the stream's last attempt in the database).
 */
import { afterAll, assert, describe, it } from "vitest"
import { withSimulator } from "../e2e/support/e2e.js"
import { call, freshDatabase, Receiver, serveArgs, type Service, startService, until } from "./support/serveE2e.js"

const cleanups: Array<() => Promise<void>> = []
afterAll(async () => {
  for (const cleanup of cleanups.toReversed()) await cleanup()
})

/** A heartbeat every second (batches with no wallets and no chain moving), many short retries, JSON logs. */
const flags = ["--log-format", "json", "--heartbeat", "1s", "--retry-schedule", Array.from({ length: 20 }, () => "200ms").join(","), "--min-success-rate", "0"]

/** The JSON log lines of a service's stderr. */
const logLines = (stderr: string): Array<{ readonly level: string; readonly message: string }> =>
  stderr.split("\n").filter((line) => line.trim() !== "").map((line) => {
    const parsed = JSON.parse(line) as { readonly level: string; readonly message: unknown }
    return { level: parsed.level, message: Array.isArray(parsed.message) ? parsed.message.join(" ") : String(parsed.message) }
  })

describe("serve: delivery failures in the logs", () => {
  it("a receiver failing for a while, across a restart, then recovering: one WARN, one INFO", async () => {
    await withSimulator({ seed: 3801, indexing: false, chains: ["0x1"] }, async (sim) => {
      const database = await freshDatabase()
      cleanups.push(database.drop)
      const receiver = new Receiver(1_500)
      await receiver.start()
      cleanups.push(() => receiver.close())
      let failing = true
      receiver.policy = () => (failing ? 503 : 200)
      const services: Array<Service> = []
      const start = async () => {
        const service = await startService(database.url, serveArgs(sim, flags))
        cleanups.push(async () => void (await service.process.stop("SIGKILL")))
        services.push(service)
        return service
      }
      let service = await start()
      const created = await call(service, "POST", "/v1/streams", { url: receiver.url, events: ["nft.received"], chains: ["eth"] })
      assert.strictEqual(created.status, 201, JSON.stringify(created.body))
      const streamId: string = created.body.id
      receiver.secrets.set(streamId, created.body.secret)
      const failed = () => receiver.attempts.filter((attempt) => attempt.answer === 503).length
      await until("5 failed attempts", () => Promise.resolve(failed() >= 5), 60_000)
      // Restarted while the receiver still fails: the new process knows the stream was failing.
      assert.strictEqual((await service.process.stop("SIGTERM")).code, 0, service.process.stderr.slice(-2000))
      const before = failed()
      service = await start()
      await until("5 more failed attempts", () => Promise.resolve(failed() >= before + 5), 60_000)
      failing = false
      await until("3 delivered attempts", () => Promise.resolve(receiver.attempts.filter((attempt) => attempt.answer === 200).length >= 3), 60_000)
      // Past the line of the first success: the lines are written before the next batch goes.
      assert.strictEqual((await service.process.stop("SIGTERM")).code, 0, service.process.stderr.slice(-2000))

      const lines = services.flatMap((each) => logLines(each.process.stderr)).filter((line) => line.message.includes(streamId))
      const warnings = lines.filter((line) => line.level === "WARN")
      const infos = lines.filter((line) => line.level === "INFO")
      assert.strictEqual(warnings.length, 1, JSON.stringify(lines, null, 1))
      assert.match(warnings[0]!.message, /webhook delivery failing .*HTTP 503.*; next attempt at \d{4}-\d\d-\d\dT/)
      assert.strictEqual(infos.length, 1, JSON.stringify(lines, null, 1))
      assert.match(infos[0]!.message, /webhooks delivered again/)
      assert.deepStrictEqual(lines.filter((line) => line.level !== "WARN" && line.level !== "INFO"), [])
      // The WARN came from the first process, the INFO from the second.
      assert.strictEqual(logLines(services[0]!.process.stderr).filter((line) => line.level === "WARN" && line.message.includes(streamId)).length, 1)
      assert.isAtLeast(failed(), 10)
    })
  }, 240_000)
})
