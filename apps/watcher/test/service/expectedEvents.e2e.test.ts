/**
 * What a running service expects is not an ERROR (an ERROR means the service is at fault): a
 * scan's commit refused after wallets were removed (the scan reads its state again), and a client
 * hanging up in the middle of a request. Checked on the service's JSON logs (stderr).
 */
import { connect } from "node:net"
import { afterAll, assert, describe, it } from "vitest"
import { busiestEvm } from "../../../../packages/watch/test/support/engineHarness.js"
import { drive, seeded, sleep, withSimulator } from "../e2e/support/e2e.js"
import { apiToken, call, freshDatabase, Receiver, serveArgs, type Service, startService, until } from "./support/serveE2e.js"
import { ethHead, scannedTo } from "./support/streamsScenario.js"

const cleanups: Array<() => Promise<void>> = []
afterAll(async () => {
  for (const cleanup of cleanups.toReversed()) await cleanup()
})

/** The JSON log lines of a service's stderr: each one's level, and the whole line. */
const logLines = (stderr: string): Array<{ readonly level: string; readonly line: string }> =>
  stderr.split("\n").filter((line) => line.trim() !== "").map((line) => ({ level: (JSON.parse(line) as { readonly level: string }).level, line }))

const errorsOf = (service: Service) => logLines(service.process.stderr).filter((line) => line.level === "ERROR" || line.level === "FATAL")

/** The log lines that say a scan's commit was refused (the state changed beside it). */
const refusals = (service: Service) => logLines(service.process.stderr).filter((line) => /changed beside the engine/.test(line.line))

/**
 * A request cut off by its client: the headers and half a body, then the connection destroyed
 * once the service took the headers (it waits for the rest of the body).
 */
const abortedRequest = (service: Service) =>
  new Promise<void>((resolve, reject) => {
    const url = new URL(service.url)
    const socket = connect(Number(url.port), url.hostname, () => {
      socket.write(
        `POST /v1/streams HTTP/1.1\r\nhost: ${url.host}\r\nauthorization: Bearer ${apiToken}\r\ncontent-type: application/json\r\n` +
          `content-length: 200\r\n\r\n{"url":"http://127.0.0.1:1/hook",`
      )
      setTimeout(() => {
        socket.destroy()
        resolve()
      }, 300)
    })
    socket.on("error", reject)
  })

describe("serve: expected events are no ERROR", () => {
  it("wallets removed while the scan reads them: its refused commit is said at INFO, no ERROR", async () => {
    await withSimulator({ seed: 3811, indexing: false, chains: ["0x1"] }, async (sim) => {
      const database = await freshDatabase()
      cleanups.push(database.drop)
      const receiver = new Receiver()
      await receiver.start()
      cleanups.push(() => receiver.close())
      // The scan forgets removed wallets every ten intervals: 2 s here.
      const service = await startService(database.url, serveArgs(sim, ["--log-format", "json", "--interval", "200ms"]))
      cleanups.push(async () => void (await service.process.stop("SIGKILL")))
      const created = await call(service, "POST", "/v1/streams", { url: receiver.url, events: ["nft.received"], chains: ["eth"] })
      assert.strictEqual(created.status, 201, JSON.stringify(created.body))
      const wallets = busiestEvm(sim, "0x1", 4).map((wallet) => wallet.address)
      const added = await call(service, "POST", `/v1/streams/${created.body.id}/wallets`, { wallets: wallets.map((address) => `eth:${address}`) })
      assert.strictEqual(added.status, 200, JSON.stringify(added.body))
      receiver.secrets.set(created.body.id, created.body.secret)
      // The scan runs with the four wallets, and has committed a cycle past where they were added.
      await until("the scan watching 4 wallets", () => Promise.resolve(/watching 4 wallet/.test(service.process.stderr)), 60_000)
      await drive(sim, { total: 2, minStep: 1, maxStep: 1, everyMs: 100, random: seeded(3811) })
      await scannedTo(database.url, wallets, await ethHead(sim), 60_000)
      const removed = await call(service, "POST", `/v1/streams/${created.body.id}/wallets/remove`, { wallets: wallets.slice(0, 2).map((address) => `eth:${address}`) })
      assert.strictEqual(removed.status, 200, JSON.stringify(removed.body))
      // The chain moves on: the scan's cycles have something to commit after the wallets are forgotten.
      const stop = new AbortController()
      const moving = (async () => {
        while (!stop.signal.aborted) await drive(sim, { total: 1, minStep: 1, maxStep: 1, everyMs: 200, random: seeded(3812) })
      })()
      await until("a refused commit", () => Promise.resolve(refusals(service).length > 0), 60_000).finally(() => stop.abort())
      await moving
      const stopped = await service.process.stop("SIGTERM")
      assert.strictEqual(stopped.code, 0, service.process.stderr.slice(-2000))
      for (const refusal of refusals(service)) assert.strictEqual(refusal.level, "INFO", refusal.line)
      assert.deepStrictEqual(errorsOf(service), [])
      assert.notMatch(service.process.stderr, /\n\s+at /, "no stack trace")
    })
  }, 180_000)

  it("clients hanging up mid-request: no ERROR", async () => {
    await withSimulator({ seed: 3821, indexing: false, chains: ["0x1"] }, async (sim) => {
      const database = await freshDatabase()
      cleanups.push(database.drop)
      const service = await startService(database.url, serveArgs(sim, ["--log-format", "json"]))
      cleanups.push(async () => void (await service.process.stop("SIGKILL")))
      for (let i = 0; i < 5; i++) await abortedRequest(service)
      // The service still answers, and has had time to see each hang-up (the requests went first).
      await sleep(500)
      const listed = await call(service, "GET", "/v1/streams")
      assert.strictEqual(listed.status, 200)
      const stopped = await service.process.stop("SIGTERM")
      assert.strictEqual(stopped.code, 0, service.process.stderr.slice(-2000))
      assert.deepStrictEqual(errorsOf(service), [])
    })
  }, 120_000)
})
