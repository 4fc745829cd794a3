/**
 * `chainquery-watcher serve` end to end, against the simulator over 120 blocks, on a real
 * PostgreSQL, with three streams whose wallets overlap and a receiver on 127.0.0.1 that verifies
 * every signature, answers 500 to 30% of the requests and stalls 5% past the delivery timeout
 * (seeded): each stream receives exactly the ground truth of its wallets, in order, and every
 * redelivery carries the same `webhook-id`; then the same with the service killed (`kill -9`)
 * five times at random moments and restarted.
 *
 * The streams' success rate is below the 70% that puts a stream in error, by design of the
 * receiver: the tests run with `--min-success-rate 0` (the rule has its own test).
 */
import { readFileSync } from "node:fs"
import { afterAll, assert, describe, it } from "vitest"
import { drive, seeded, sleep, withSimulator } from "../e2e/support/e2e.js"
import { freshDatabase, Receiver, serveArgs, type Service, startService, until } from "./support/serveE2e.js"
import { checkStreams, createStreams, delivered, scannedTo, ethHead } from "./support/streamsScenario.js"

/** Many short retries: a batch must not fail for good by bad luck (0.35^13 per batch). */
const flakyFlags = ["--retry-schedule", Array.from({ length: 12 }, () => "200ms").join(","), "--delivery-timeout", "1s", "--min-success-rate", "0"]

const cleanups: Array<() => Promise<void>> = []
afterAll(async () => {
  for (const cleanup of cleanups.toReversed()) await cleanup()
})

/** The flaky receiver, seeded. */
const flakyReceiver = async (seed: number) => {
  const receiver = new Receiver(1_500)
  await receiver.start()
  cleanups.push(() => receiver.close())
  const random = seeded(seed)
  receiver.policy = () => {
    const roll = random.next()
    return roll < 0.3 ? 500 : roll < 0.35 ? "stall" : 200
  }
  return receiver
}


describe("serve: delivery end to end", () => {
  it("three overlapping streams and a flaky receiver: each stream gets exactly its ground truth, in order, with stable webhook-ids", async () => {
    await withSimulator({ seed: 1301, indexing: false, chains: ["0x1"] }, async (sim) => {
      const database = await freshDatabase()
      cleanups.push(database.drop)
      const receiver = await flakyReceiver(1301)
      const service = await startService(database.url, serveArgs(sim, flakyFlags))
      cleanups.push(async () => void (await service.process.stop("SIGKILL")))
      const streams = await createStreams(service, sim, receiver)
      const wallets = [...new Set(streams.flatMap((stream) => stream.wallets))]
      const start = await ethHead(sim)
      await scannedTo(database.url, wallets, start, 60_000)
      await drive(sim, { total: 120, minStep: 1, maxStep: 6, everyMs: 150, random: seeded(1302) })
      const end = await ethHead(sim)
      await scannedTo(database.url, wallets, end, 120_000)
      await delivered(service, streams, 120_000)
      await checkStreams(service, sim, receiver, streams, end)
      assert.isAbove(receiver.attempts.filter((a) => a.answer === 500).length, 5, "the receiver failed requests")
      assert.isAbove(receiver.attempts.filter((a) => a.answer === "stall").length, 0, "the receiver stalled requests")
      // What the run looks like at /metrics (Prometheus text), once the sweeper recorded the emptied
      // outbox (its gauges are read every interval).
      let metrics = ""
      await until("the outbox gauges at 0", async () => {
        metrics = await (await fetch(`${service.url}/metrics`)).text()
        return /^chainquery_outbox_depth 0$/m.test(metrics) && /^chainquery_outbox_oldest_pending_seconds 0$/m.test(metrics)
      }, 30_000)
      const value = (pattern: RegExp) => Number(pattern.exec(metrics)?.[1] ?? Number.NaN)
      // Over every series that matches (the API's reads of a chain's head carry no scan's attributes).
      const total = (pattern: RegExp) => [...metrics.matchAll(new RegExp(pattern.source, "gm"))].reduce((sum, match) => sum + Number(match[1]), 0)
      assert.strictEqual(value(/^chainquery_watch_head_lag_blocks\{[^}]*chain="0x1"[^}]*\} (\S+)$/m), 0)
      assert.isAbove(value(/^chainquery_watch_cycle_seconds_count\{[^}]*scope="0x1"[^}]*\} (\S+)$/m), 10)
      assert.isAbove(value(/^chainquery_watch_events_total\{[^}]*scope="0x1"[^}]*\} (\S+)$/m), 0)
      assert.strictEqual(
        value(/^chainquery_deliveries_total\{result="delivered"\} (\S+)$/m),
        receiver.attempts.filter((a) => a.answer === 200).length,
        metrics.split("\n").filter((line) => line.startsWith("chainquery_deliveries")).join("; ")
      )
      assert.strictEqual(value(/^chainquery_deliveries_total\{result="retry"\} (\S+)$/m), receiver.attempts.filter((a) => a.answer !== 200).length)
      assert.strictEqual(value(/^chainquery_outbox_depth (\S+)$/m), 0)
      assert.strictEqual(value(/^chainquery_outbox_oldest_pending_seconds (\S+)$/m), 0)
      assert.isAbove(total(/^chainquery_requests_total\{[^}]*operation="getNFTTransfersByBlock"[^}]*status="200"[^}]*\} (\S+)$/m), 10)
      assert.isAbove(total(/^chainquery_compute_units_total\{[^}]*operation="getNFTTransfersByBlock"[^}]*\} (\S+)$/m), 10)
      // The process's memory, as Prometheus's Node client names it: its resident set is what the
      // kernel says (within a factor of 2: read moments apart), its heap used within its heap.
      const kernelRss = Number(/^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${service.process.child.pid}/status`, "utf8"))![1]) * 1024
      const rss = value(/^process_resident_memory_bytes (\S+)$/m)
      assert.isTrue(rss > kernelRss / 2 && rss < kernelRss * 2, `process_resident_memory_bytes ${rss}, VmRSS ${kernelRss}`)
      const heapUsed = value(/^nodejs_heap_size_used_bytes (\S+)$/m)
      assert.isTrue(heapUsed > 1e6 && heapUsed <= value(/^nodejs_heap_size_total_bytes (\S+)$/m), `heap used ${heapUsed}`)
      assert.isAbove(value(/^nodejs_external_memory_bytes (\S+)$/m), 0)
      const stopped = await service.process.stop("SIGTERM")
      assert.strictEqual(stopped.code, 0, service.process.stderr.slice(-2000))
    })
  }, 400_000)

  it("the same with the service killed (kill -9) five times at random moments and restarted", async () => {
    await withSimulator({ seed: 1311, indexing: false, chains: ["0x1"] }, async (sim) => {
      const database = await freshDatabase()
      cleanups.push(database.drop)
      const receiver = await flakyReceiver(1311)
      const random = seeded(1312)
      let service: Service = await startService(database.url, serveArgs(sim, flakyFlags))
      cleanups.push(async () => void (await service.process.stop("SIGKILL")))
      const streams = await createStreams(service, sim, receiver)
      const wallets = [...new Set(streams.flatMap((stream) => stream.wallets))]
      const start = await ethHead(sim)
      await scannedTo(database.url, wallets, start, 60_000)
      let kills = 0
      const driving = drive(sim, { total: 120, minStep: 1, maxStep: 6, everyMs: 150, random: seeded(1313) })
      while (kills < 5) {
        await sleep(random.int(300, 1_500))
        const killed = await service.process.stop("SIGKILL")
        assert.strictEqual(killed.signal, "SIGKILL")
        kills++
        service = await startService(database.url, serveArgs(sim, flakyFlags))
      }
      await driving
      const end = await ethHead(sim)
      await scannedTo(database.url, wallets, end, 120_000)
      await delivered(service, streams, 120_000)
      await checkStreams(service, sim, receiver, streams, end)
      const stopped = await service.process.stop("SIGTERM")
      assert.strictEqual(stopped.code, 0, service.process.stderr.slice(-2000))
      assert.strictEqual(kills, 5)
    })
  }, 500_000)
})
