/**
 * `--delivery-concurrency`: a runner never has more webhook requests in flight than its slots,
 * over all its streams, and uses them all when enough streams have batches due. Six streams are
 * paused while blocks come (each then has batches due), resumed together, to a receiver that takes
 * 300 ms per request: with 2 slots the receiver sees exactly 2 requests at once at the most; with
 * 6 slots, more than 2.
 */
import { afterAll, assert, describe, it } from "vitest"
import { busiestEvm } from "../../../../packages/watch/test/support/engineHarness.js"
import { drive, seeded, withSimulator } from "../e2e/support/e2e.js"
import { call, freshDatabase, Receiver, serveArgs, startService, until } from "./support/serveE2e.js"
import { ethHead, nftKinds, scannedTo } from "./support/streamsScenario.js"

const cleanups: Array<() => Promise<void>> = []
afterAll(async () => {
  for (const cleanup of cleanups.toReversed()) await cleanup()
})

/** The most requests the receiver had at once while `streams` streams delivered their backlog with `slots` slots. */
const mostAtOnce = async (seed: number, slots: number, streams: number): Promise<{ readonly most: number; readonly requests: number }> =>
  withSimulator({ seed, indexing: false, chains: ["0x1"] }, async (sim) => {
    const database = await freshDatabase()
    cleanups.push(database.drop)
    const receiver = new Receiver(300)
    await receiver.start()
    cleanups.push(() => receiver.close())
    receiver.policy = () => "stall"
    const service = await startService(database.url, serveArgs(sim, ["--delivery-concurrency", String(slots)]))
    cleanups.push(async () => void (await service.process.stop("SIGKILL")))
    const wallets = busiestEvm(sim, "0x1", 4).map((wallet) => wallet.address)
    const ids: Array<string> = []
    for (let i = 0; i < streams; i++) {
      const created = await call(service, "POST", "/v1/streams", { url: receiver.url, events: nftKinds, chains: ["eth"] })
      assert.strictEqual(created.status, 201)
      receiver.secrets.set(created.body.id, created.body.secret)
      assert.strictEqual((await call(service, "POST", `/v1/streams/${created.body.id}/pause`)).status, 200)
      assert.strictEqual((await call(service, "POST", `/v1/streams/${created.body.id}/wallets`, { wallets: wallets.map((a) => `eth:${a}`) })).status, 200)
      ids.push(created.body.id)
    }
    await drive(sim, { total: 30, minStep: 1, maxStep: 2, everyMs: 350, random: seeded(seed + 1) })
    await scannedTo(database.url, wallets, await ethHead(sim), 60_000)
    for (const id of ids) assert.strictEqual((await call(service, "POST", `/v1/streams/${id}/resume`)).status, 200)
    await until("every backlog delivered", async () => {
      for (const id of ids) {
        const stats = await call(service, "GET", `/v1/streams/${id}/stats`)
        if (stats.body.pending !== 0) return false
      }
      return true
    }, 120_000)
    assert.isTrue(receiver.attempts.every((attempt) => attempt.verified))
    return { most: receiver.maxInFlight, requests: receiver.attempts.length }
  })

describe("serve --delivery-concurrency", () => {
  it("2 slots: never more than 2 webhook requests at once over 6 streams, and 2 used; 6 slots: more", async () => {
    const two = await mostAtOnce(3301, 2, 6)
    assert.isAtLeast(two.requests, 12, "every stream had batches due")
    assert.strictEqual(two.most, 2, `${two.most} requests at once with 2 slots`)
    const six = await mostAtOnce(3301, 6, 6)
    assert.isAbove(six.most, 2, `${six.most} requests at once with 6 slots`)
  }, 300_000)
})
