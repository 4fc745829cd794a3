/**
 * `serve` end to end, the small, fast version of the memory soak's churn (`./run soak-memory`):
 * streams created, fed, delivered to and deleted one after another while the world moves, beside
 * a stream that stays. What the service keeps per stream in memory is bounded by the streams there
 * are: `/metrics` holds the progress series of the living streams only, counted by their number,
 * whatever the number of streams that came and went.
 */
import { afterAll, assert, describe, it } from "vitest"
import { busiestEvm } from "../../../../packages/watch/test/support/engineHarness.js"
import { drive, seeded, withSimulator } from "../e2e/support/e2e.js"
import { call, freshDatabase, Receiver, serveArgs, startService, until } from "./support/serveE2e.js"

const cleanups: Array<() => Promise<void>> = []
afterAll(async () => {
  for (const cleanup of cleanups.toReversed()) await cleanup()
})

/** The streams named by a per-stream series of `/metrics`, with how many series each has. */
const seriesByStream = (metrics: string) => {
  const counts = new Map<string, number>()
  for (const match of metrics.matchAll(/^chainquery_stream_(?:delivered_sequence|covered_to)\{[^}]*stream="([^"]+)"[^}]*\} \S+$/gm)) {
    counts.set(match[1]!, (counts.get(match[1]!) ?? 0) + 1)
  }
  return counts
}

describe("serve: streams that come and go", () => {
  it("twelve streams created, delivered to and deleted leave the series of the two living streams only", async () => {
    await withSimulator({ seed: 4601, indexing: false, chains: ["0x1"] }, async (sim) => {
      const database = await freshDatabase()
      cleanups.push(database.drop)
      const receiver = new Receiver()
      await receiver.start()
      cleanups.push(() => receiver.close())
      const service = await startService(database.url, serveArgs(sim))
      cleanups.push(async () => void (await service.process.stop("SIGKILL")))
      const metrics = async () => seriesByStream(await (await fetch(`${service.url}/metrics`)).text())
      const wallets = busiestEvm(sim, "0x1", 3).map((wallet) => `eth:${wallet.address}`)
      const random = seeded(4602)
      const create = async () => {
        const created = await call(service, "POST", "/v1/streams", { url: receiver.url, chains: ["eth"] })
        assert.strictEqual(created.status, 201, JSON.stringify(created.body))
        receiver.secrets.set(created.body.id, created.body.secret)
        assert.strictEqual((await call(service, "POST", `/v1/streams/${created.body.id}/wallets`, { wallets })).status, 200)
        return created.body.id as string
      }
      /** Drives the world until the stream's receiver took a batch with events and `/metrics` shows its series. */
      const deliveredTo = async (id: string) => {
        await until(`a batch of ${id} delivered and in /metrics`, async () => {
          await drive(sim, { total: 2, minStep: 1, maxStep: 2, everyMs: 50, random })
          return receiver.attempts.some((a) => a.streamId === id && a.answer === 200 && a.events.length > 0) && (await metrics()).get(id) === 2
        }, 60_000)
      }
      const kept = await create()
      await deliveredTo(kept)
      let previous: string | undefined
      for (let round = 0; round < 12; round++) {
        const id = await create()
        await deliveredTo(id)
        if (previous !== undefined) assert.strictEqual((await call(service, "DELETE", `/v1/streams/${previous}`)).status, 204)
        previous = id
      }
      // Once the gauges were read again (every interval), the deleted streams' series are gone.
      let living = new Map<string, number>()
      await until("the series of the deleted streams gone", async () => {
        living = await metrics()
        return living.size === 2
      }, 30_000)
      assert.deepStrictEqual([...living].toSorted(), [[kept, 2], [previous!, 2]].toSorted(), "a delivered sequence and a covered-to block per living stream")
      assert.strictEqual(new Set(receiver.attempts.map((a) => a.streamId)).size, 13, "every stream had deliveries")
    })
  }, 400_000)
})
