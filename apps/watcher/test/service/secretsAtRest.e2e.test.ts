/**
 * `serve` end to end, the streams' secrets at rest (SERVE.md, "Secrets at rest"), on a real
 * PostgreSQL: a service started without a key stores them as they are; started again with
 * `--secrets-key-file`, it encrypts them (`enc:v1:`), and the streams table holds no `whsec_`
 * (nor any secret's key) while the receiver still verifies every webhook, of the old streams and
 * of one created with the key; started again with the key, nothing changes. Started without the
 * key, or with another (from `CHAINQUERY_SECRETS_KEY`), it stops at start-up with exit 1 and a
 * message saying why, no stack and no secret, and the rows are as they were. The API token and
 * the API key come from files all along (`--api-token-file`, `--api-key-file`).
 */
import { PgClient } from "@effect/sql-pg"
import { Effect, Redacted } from "effect"
import { randomBytes } from "node:crypto"
import { chmodSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, assert, describe, it } from "vitest"
import { busiestEvm } from "../../../../packages/watch/test/support/engineHarness.js"
import { drive, type Sim, seeded, tempDir, Watcher, withSimulator } from "../e2e/support/e2e.js"
import { apiToken, freshDatabase, Receiver, serveArgs, type Service, startService, until } from "./support/serveE2e.js"
import { createEthStream, type ScenarioStream } from "./support/streamsScenario.js"

const dir = tempDir("secrets-at-rest")
const cleanups: Array<() => Promise<void>> = []
afterAll(async () => {
  for (const cleanup of cleanups.toReversed()) await cleanup()
  dir.remove()
})

/** Writes a file (mode 600) in the test's folder; its path. */
const file = (name: string, text: string): string => {
  const path = join(dir.path, name)
  writeFileSync(path, text)
  chmodSync(path, 0o600)
  return path
}

/** Stops a service with SIGTERM: it exits 0. */
const stop = async (service: Service) => {
  const stopped = await service.process.stop("SIGTERM")
  assert.strictEqual(stopped.code, 0, service.process.stderr.slice(-2000))
}

/** The streams' stored secrets, by id. */
const storedSecrets = (databaseUrl: string): Promise<Map<string, string>> =>
  Effect.runPromise(
    Effect.gen(function*() {
      const sql = yield* PgClient.PgClient
      const rows = yield* sql<{ id: string; secret: string }>`SELECT id, secret FROM streams ORDER BY id`
      return new Map(rows.map((row) => [row.id, row.secret]))
    }).pipe(Effect.scoped, Effect.provide(PgClient.layer({ url: Redacted.make(databaseUrl) })))
  )

/** Every row of the streams table, as text. */
const streamsTable = (databaseUrl: string): Promise<string> =>
  Effect.runPromise(
    Effect.gen(function*() {
      const sql = yield* PgClient.PgClient
      const rows = yield* sql<{ row: string }>`SELECT s::text AS row FROM streams s`
      return rows.map((row) => row.row).join("\n")
    }).pipe(Effect.scoped, Effect.provide(PgClient.layer({ url: Redacted.make(databaseUrl) })))
  )

describe("serve: stream secrets encrypted at rest", () => {
  it("plain rows encrypted at start-up with the key, deliveries still verified; a missing or another key stops start-up, changing nothing", async () => {
    await withSimulator({ seed: 3201, indexing: false, chains: ["0x1"] }, async (sim: Sim) => {
      const database = await freshDatabase()
      cleanups.push(database.drop)
      const receiver = new Receiver()
      await receiver.start()
      cleanups.push(() => receiver.close())
      const tokenFile = file("api-token", `${apiToken}\n`)
      const keyFile = file("api-key", `${sim.apiKey}\n`)
      const secretsKey = randomBytes(32).toString("base64")
      const secretsKeyFile = file("secrets-key", `${secretsKey}\n`)
      /** `serve`'s flags with the token and the key from files, heartbeats every second (each a signed webhook). */
      const args = (extra: ReadonlyArray<string> = []) => {
        const given = serveArgs(sim, ["--heartbeat", "1s", ...extra])
        const kept = given.filter((arg, i) => !["--api-token", "--api-key"].includes(arg) && !["--api-token", "--api-key"].includes(given[i - 1]!))
        return [...kept, "--api-token-file", tokenFile, "--api-key-file", keyFile]
      }
      const started: Array<Service> = []
      cleanups.push(async () => {
        for (const service of started) await service.process.stop("SIGKILL")
      })
      const start = async (extra: ReadonlyArray<string>) => {
        const service = await startService(database.url, args(extra))
        started.push(service)
        return service
      }
      const wallets = busiestEvm(sim, "0x1", 4).map((wallet) => wallet.address)
      /** Waits until each stream has a webhook its receiver verified (and took) after `from` attempts. */
      const verifiedAfter = (streams: ReadonlyArray<ScenarioStream>, from: number) =>
        until("a verified webhook for every stream", () =>
          Promise.resolve(streams.every((stream) =>
            receiver.attempts.slice(from).some((attempt) => attempt.streamId === stream.id && attempt.verified && attempt.answer === 200)
          )), 120_000)

      // Without a key: stored as they are.
      const plain = await start([])
      const first = await createEthStream(plain, receiver, wallets.slice(0, 2))
      await verifiedAfter([first], 0)
      await stop(plain)
      assert.strictEqual((await storedSecrets(database.url)).get(first.id), receiver.secrets.get(first.id), "stored as it is without a key")

      // With the key: the plain row encrypted at start-up, a new one encrypted, every webhook verified.
      const keyed = await start(["--secrets-key-file", secretsKeyFile])
      assert.match(keyed.process.stderr, /encrypted 1 stream secret at rest/)
      const second = await createEthStream(keyed, receiver, wallets.slice(1, 4))
      const before = receiver.attempts.length
      await drive(sim, { total: 8, minStep: 1, maxStep: 2, everyMs: 150, random: seeded(3202) })
      await verifiedAfter([first, second], before)
      await stop(keyed)
      assert.isTrue(receiver.attempts.every((attempt) => attempt.verified), "every webhook verified")
      const encrypted = await storedSecrets(database.url)
      assert.strictEqual(encrypted.size, 2)
      for (const [id, stored] of encrypted) assert.match(stored, /^enc:v1:[A-Za-z0-9_-]{16}:[A-Za-z0-9_-]+$/, id)
      const table = await streamsTable(database.url)
      assert.notInclude(table, "whsec_")
      for (const secret of receiver.secrets.values()) assert.notInclude(table, secret.slice("whsec_".length), "a secret's key in the table")
      for (const output of [keyed.process.stdout, keyed.process.stderr]) assert.notInclude(output, secretsKey)

      // With the key again: nothing to encrypt, nothing changed.
      const again = await start(["--secrets-key-file", secretsKeyFile])
      assert.notMatch(again.process.stderr, /encrypted \d+ stream secret/)
      await stop(again)
      assert.deepStrictEqual(await storedSecrets(database.url), encrypted, "started again with the key, nothing changed")

      // Without the key, or with another: exit 1 at start-up, saying why; nothing changed.
      const otherKey = randomBytes(32).toString("hex")
      const refused = [
        { what: "without the key", env: {}, extra: [], message: /the stream secrets in this database are encrypted, and no secrets key was given/ },
        { what: "with another key", env: { CHAINQUERY_SECRETS_KEY: otherKey }, extra: [], message: /the secrets key given is not the one the stream secrets in this database were encrypted with/ }
      ] as const
      for (const attempt of refused) {
        const process = new Watcher(args(attempt.extra), { DATABASE_URL: database.url, ...attempt.env })
        cleanups.push(async () => void (await process.stop("SIGKILL")))
        const exited = await Promise.race([
          process.closed,
          new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`${attempt.what}: still running after 60 s; stderr:\n${process.stderr}`)), 60_000))
        ])
        assert.strictEqual(exited.code, 1, `${attempt.what}: ${process.stderr}`)
        assert.match(process.stderr, attempt.message, attempt.what)
        assert.notMatch(process.stderr, /\n\s+at /, `${attempt.what}: no stack`)
        assert.notInclude(process.stdout, "listening on", `${attempt.what}: never served`)
        for (const secret of [...receiver.secrets.values(), secretsKey, otherKey, apiToken, sim.apiKey]) {
          assert.notInclude(process.stderr, secret, `${attempt.what}: a secret in the message`)
        }
        assert.deepStrictEqual(await storedSecrets(database.url), encrypted, `${attempt.what}: nothing changed`)
      }
    })
  }, 400_000)
})
