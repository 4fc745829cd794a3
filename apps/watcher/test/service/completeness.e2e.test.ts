/**
 * Deliveries a receiver can prove complete, end to end: `chainquery-watcher serve` against the
 * simulator on a real PostgreSQL, delivering to a receiver on 127.0.0.1 that checks every request
 * with the receiver kit (`@chainquery/webhook-receiver`):
 *
 * - 30% of requests failed (seeded) and the service killed (`kill -9`) three times while 120
 *   blocks come: the kit reports no gap and no overlap, each stream's coverage of eth is exactly
 *   [its first wallet's `coveredFrom`, the head], and its events are the ground truth of each
 *   wallet from its `coveredFrom`; the stats say the same, with the chain's head as the scans found it;
 * - a receiver that answers 200 but throws one batch away: the kit reports exactly that batch's
 *   sequence and blocks as missing, on the next batch;
 * - an idle stream gets its heartbeats at the configured period (within one interval, plus a
 *   second of slack for a loaded machine).
 */
import { afterAll, assert, describe, it } from "vitest"
import { busiestEvm } from "../../../../packages/watch/test/support/engineHarness.js"
import { drive, seeded, sleep, withSimulator } from "../e2e/support/e2e.js"
import { ProvingReceiver } from "./support/provingReceiver.js"
import { call, freshDatabase, serveArgs, startService, until } from "./support/serveE2e.js"
import { createEthStream, ethHead, patientFlags, type ScenarioStream, scannedTo, truthOf } from "./support/streamsScenario.js"

const cleanups: Array<() => Promise<void>> = []
afterAll(async () => {
  for (const cleanup of cleanups.toReversed()) await cleanup()
})

const flags = patientFlags("1s")

const startReceiver = async () => {
  const receiver = new ProvingReceiver()
  await receiver.start()
  cleanups.push(() => receiver.close())
  return receiver
}

const startDatabase = async () => {
  const database = await freshDatabase()
  cleanups.push(database.drop)
  return database
}

const started = async (databaseUrl: string, args: ReadonlyArray<string>) => {
  const service = await startService(databaseUrl, args)
  cleanups.push(async () => void (await service.process.stop("SIGKILL")))
  return service
}

/** The block a stream's coverage starts at: its first wallet's. */
const firstCovered = (stream: ScenarioStream): bigint => [...stream.coveredFrom.values()].reduce((a, b) => (b < a ? b : a))

describe("serve: deliveries a receiver can prove complete", () => {
  it("30% failed requests and kill -9 three times: no gap, no overlap, coverage exactly [start, head], the ground truth", async () => {
    await withSimulator({ seed: 2001, indexing: false, chains: ["0x1"] }, async (sim) => {
      const database = await startDatabase()
      const receiver = await startReceiver()
      const random = seeded(2002)
      receiver.policy = () => random.next() < 0.3 ? 500 : "take"
      let service = await started(database.url, serveArgs(sim, flags))
      const busiest = busiestEvm(sim, "0x1", 6).map((wallet) => wallet.address)
      const start = await ethHead(sim)
      const streams = [
        await createEthStream(service, receiver, busiest.slice(0, 4)),
        await createEthStream(service, receiver, busiest.slice(2, 6))
      ]
      assert.deepStrictEqual([...streams[0]!.coveredFrom.values()], Array.from({ length: 4 }, () => start + 1n), "a chain no scan read yet: covered from the block after its head")
      // The second stream's first two wallets are the first one's; the others join the scan just below where it stands.
      assert.deepStrictEqual([...streams[1]!.coveredFrom.values()], [start + 1n, start + 1n, start, start])
      await scannedTo(database.url, busiest, start, 60_000)
      const driving = drive(sim, { total: 120, minStep: 1, maxStep: 6, everyMs: 150, random: seeded(2003) })
      const kills = seeded(2004)
      for (let kill = 0; kill < 3; kill++) {
        await sleep(kills.int(500, 2_500))
        assert.strictEqual((await service.process.stop("SIGKILL")).signal, "SIGKILL")
        service = await started(database.url, serveArgs(sim, flags))
      }
      await driving
      const end = await ethHead(sim)
      await scannedTo(database.url, busiest, end, 120_000)
      // The heartbeats carry the coverage to the head once the events are out.
      await until("each stream covered to the head", async () => streams.every((stream) => receiver.coveredTo(stream.id, "0x1") === end), 120_000)
      assert.deepStrictEqual(receiver.errors.map(({ error }) => error.message), [], "the kit found no problem")
      for (const stream of streams) {
        const state = receiver.states.get(stream.id)!
        assert.deepStrictEqual(state.coverage, { "0x1": { from: String(firstCovered(stream)), to: String(end) } }, `stream ${stream.id}: coverage`)
        const received = receiver.events(stream.id).map((event) => event.id as string)
        assert.strictEqual(new Set(received).size, received.length, `stream ${stream.id}: an event was taken twice`)
        const truth = (await truthOf(sim, stream, end)).map((event) => event.id as string)
        assert.isAbove(truth.length, 10, `stream ${stream.id} has events to check`)
        assert.deepStrictEqual(received.toSorted(), truth.toSorted(), `stream ${stream.id}: events`)
        // What the API and /metrics say the receiver has.
        await until(`stream ${stream.id}'s stats at the receiver's state`, async () => {
          const stats = await call(service, "GET", `/v1/streams/${stream.id}/stats`)
          return stats.body.lastDeliveredSequence >= state.sequence && stats.body.coverage[0]?.coveredTo === String(end) &&
            stats.body.coverage[0]?.head === String(end)
        }, 30_000)
        const stats = await call(service, "GET", `/v1/streams/${stream.id}/stats`)
        const [eth] = stats.body.coverage as Array<{ chain: string; coveredFrom: string; coveredTo: string; batchedTo: string; head: string }>
        assert.deepStrictEqual([stats.body.coverage.length, eth!.chain, eth!.coveredFrom, eth!.coveredTo], [1, "eth", String(firstCovered(stream)), String(end)])
        assert.isTrue(BigInt(eth!.batchedTo) >= BigInt(end), `batches made to ${eth!.batchedTo}, at least to ${end}`)
        assert.strictEqual(eth!.head, String(end), "the chain's head as the scans found it: the receiver is 0 behind it")
        await until(`stream ${stream.id}'s covered-to at /metrics`, async () => {
          const metrics = await (await fetch(`${service.url}/metrics`)).text()
          return metrics.split("\n").some((line) =>
            line.startsWith("chainquery_stream_covered_to{") && line.includes(`stream="${stream.id}"`) && line.includes(`chain="eth"`) &&
            line.endsWith(` ${end}`)
          )
        }, 30_000)
      }
      assert.isAbove(receiver.answers.filter((status) => status === 500).length, 0, "the receiver failed requests")
      assert.strictEqual((await service.process.stop("SIGTERM")).code, 0, service.process.stderr.slice(-2000))
    })
  }, 400_000)

  it("a receiver that answers 200 but throws one batch away: the next batch reports exactly its sequence and blocks", async () => {
    await withSimulator({ seed: 2011, indexing: false, chains: ["0x1"] }, async (sim) => {
      const database = await startDatabase()
      const receiver = await startReceiver()
      const service = await started(database.url, serveArgs(sim, flags))
      const wallets = busiestEvm(sim, "0x1", 4).map((wallet) => wallet.address)
      const stream = await createEthStream(service, receiver, wallets)
      // The first batch after the second that covers blocks goes to waste.
      let covering = 0
      let thrown: number | undefined
      receiver.policy = ({ body, sequence }) => {
        if (thrown === sequence) return "drop"
        const batch = body as { coverage: ReadonlyArray<unknown> }
        if (thrown === undefined && batch.coverage.length > 0 && ++covering === 2) {
          thrown = sequence
          return "drop"
        }
        return "take"
      }
      await drive(sim, { total: 40, minStep: 1, maxStep: 3, everyMs: 200, random: seeded(2012) })
      await until("the thrown batch reported", async () => receiver.errors.length > 0, 60_000)
      const [lost] = receiver.dropped
      assert.isDefined(lost)
      assert.strictEqual(lost!.sequence, thrown)
      const reported = receiver.errors[0]!.error
      assert.strictEqual(reported._tag, "Gap")
      const gap = reported as Extract<typeof reported, { _tag: "Gap" }>
      assert.deepStrictEqual(gap.missingSequences, { from: thrown!, to: thrown! })
      assert.deepStrictEqual(gap.missingBlocks, lost!.coverage.map((range) => ({
        scope: "chain" in range ? range.chain : `aptos:${range.network}`,
        from: "chain" in range ? range.fromBlock : range.fromVersion,
        to: "chain" in range ? range.toBlock : range.toVersion
      })))
      assert.strictEqual(gap.batch.sequence, thrown! + 1)
      // Taken anyway, the stream goes on without another problem.
      const end = await ethHead(sim)
      await until("the stream covered to the head", async () => receiver.coveredTo(stream.id, "0x1") === end, 60_000)
      assert.strictEqual(receiver.errors.length, 1, receiver.errors.map(({ error }) => error.message).join("; "))
    })
  }, 200_000)

  it("an idle stream gets a heartbeat every period, within one interval", async () => {
    await withSimulator({ seed: 2021, indexing: false, chains: ["0x1"] }, async (sim) => {
      const database = await startDatabase()
      const receiver = await startReceiver()
      const service = await started(database.url, serveArgs(sim, [...patientFlags("2s"), "--interval", "500ms"]))
      const stream = await createEthStream(service, receiver, busiestEvm(sim, "0x1", 2).map((wallet) => wallet.address))
      await until("five heartbeats", async () => (receiver.taken.get(stream.id) ?? []).filter((t) => t.batch.heartbeat).length >= 5, 60_000)
      const taken = receiver.taken.get(stream.id)!
      assert.isTrue(taken.every((t) => t.batch.heartbeat && t.batch.events.length === 0), "nothing but heartbeats on an idle stream")
      assert.deepStrictEqual(taken.map((t) => t.batch.sequence), taken.map((_, index) => index + 1))
      assert.deepStrictEqual(receiver.errors, [])
      // When each was made, as the service recorded it: the period apart, within one interval (500 ms) and 1 s of slack.
      const listed = await call(service, "GET", `/v1/streams/${stream.id}/deliveries`)
      const made = listed.body.deliveries.map((d: { createdAt: string }) => Date.parse(d.createdAt)) as Array<number>
      for (let i = 1; i < Math.min(made.length, 5); i++) {
        const gap = made[i]! - made[i - 1]!
        assert.isAtLeast(gap, 2_000, `heartbeat ${i + 1} came ${gap} ms after the one before`)
        assert.isAtMost(gap, 2_000 + 500 + 1_000, `heartbeat ${i + 1} came ${gap} ms after the one before`)
      }
    })
  }, 120_000)
})
