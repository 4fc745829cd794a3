/**
 * Wallets taken with their history on `serve --cluster`: three runners on one real PostgreSQL, a
 * stream of two busy wallets live, four more added with 300 blocks of history while blocks come
 * (the history's reads slowed, so that it takes seconds). The runner reading the history (seen in
 * the simulator's request log: each runner names itself in its `User-Agent`) is killed with
 * `kill -9` in the middle of it, and started again later: another runner takes the history over
 * and goes on from the last slice committed. The receiver kit finds no gap and no overlap, proves
 * the live coverage and every history complete, and the events (none twice) are the ground truth
 * of each wallet from where it starts.
 */
import { Effect } from "effect"
import { afterAll, assert, describe, it } from "vitest"
import { ReceiverState } from "@chainquery/webhook-receiver"
import { busiestEvm, evmTruth } from "../../../../packages/watch/test/support/engineHarness.js"
import { drive, seeded, withSimulator } from "../e2e/support/e2e.js"
import { Cluster, freePorts, settled } from "./support/clusterE2e.js"
import { ProvingReceiver } from "./support/provingReceiver.js"
import { call, freshDatabase, until } from "./support/serveE2e.js"
import { createEthStream, ethHead, historySlow, patientFlags, scannedTo, truthOf } from "./support/streamsScenario.js"

const cleanups: Array<() => Promise<void>> = []
afterAll(async () => {
  for (const cleanup of cleanups.toReversed()) await cleanup()
})

/** The runner tags (`User-Agent`) of the history's reads of `wallets` (A4), in order, with when. */
const historyReads = async (sim: Parameters<Parameters<typeof withSimulator>[1]>[0], wallets: ReadonlyArray<string>) => {
  const log = await Effect.runPromise(sim.requests)
  return log.flatMap((request) => {
    if (request.operation !== "getNFTTradesByWallet" || !wallets.some((wallet) => request.path.includes(wallet))) return []
    const runner = /\(runner ([0-9a-f]{12})\)/.exec(request.userAgent ?? "")?.[1]
    return runner === undefined ? [] : [{ at: request.at, runner }]
  })
}

describe("serve --cluster: wallets taken with their history", () => {
  it("the runner reading the history killed in the middle of it: another goes on, nothing lost, nothing twice, all proved complete", async () => {
    await withSimulator({ seed: 2301, indexing: false, chains: ["0x1"], history: 400, requestLog: 500_000, faults: historySlow }, async (sim) => {
      const database = await freshDatabase()
      cleanups.push(database.drop)
      const receiver = new ProvingReceiver()
      await receiver.start()
      cleanups.push(() => receiver.close())
      const cluster = new Cluster(database.url, sim, await freePorts(3), ["--interval", "300ms", ...patientFlags("1s")])
      cleanups.push(() => cluster.killAll())
      await Promise.all([0, 1, 2].map((index) => cluster.start(index)))
      const busiest = busiestEvm(sim, "0x1", 6).map((wallet) => wallet.address)
      const [live, later] = [busiest.slice(0, 2), busiest.slice(2)]
      const stream = await createEthStream(cluster.runners[0]!, receiver, live)
      await scannedTo(database.url, live, await ethHead(sim), 60_000)
      await settled(database.url, 3, 60_000)

      const driving = drive(sim, { total: 60, minStep: 1, maxStep: 3, everyMs: 300, random: seeded(2302) })
      const from = (await ethHead(sim)) - 300n
      const added = await call(cluster.runners[1]!, "POST", `/v1/streams/${stream.id}/wallets`, {
        wallets: later.map((address) => `eth:${address}`),
        from: { eth: String(from) }
      })
      assert.strictEqual(added.status, 200, JSON.stringify(added.body))
      const coveredFrom = new Map((added.body.coverage as Array<{ wallet: string; coveredFrom: string; history: { from: string; to: string } }>).map((c) => {
        assert.deepStrictEqual(c.history, { from: String(from), to: String(BigInt(c.coveredFrom) - 1n) })
        return [c.wallet.slice("eth:".length), BigInt(c.coveredFrom)] as const
      }))

      // The runner reading the history, killed in the middle of it.
      let reader = -1
      await until("the history being read", async () => {
        const reads = await historyReads(sim, later)
        if (reads.length < 2) return false
        reader = cluster.indexOf(reads[0]!.runner)
        return reader >= 0
      }, 60_000)
      const killedAt = Date.now()
      assert.strictEqual((await cluster.stop(reader, "SIGKILL")).signal, "SIGKILL")
      const keys = later.map((address) => `0x1 ${address}`)
      const complete = () => {
        const history = receiver.states.get(stream.id)?.history
        return keys.every((key) => history?.[key] !== undefined && ReceiverState.historyComplete(history[key]))
      }
      assert.isFalse(complete(), "the history was not over when its runner was killed")
      // Another runner takes the history over (the killed one is started again only after).
      const byAnother = async () => (await historyReads(sim, later)).some((read) => read.at > killedAt && cluster.indexOf(read.runner) !== reader)
      await until("another runner reading the history", byAnother, 60_000)
      await driving
      await cluster.start(reader)
      const end = await ethHead(sim)
      await scannedTo(database.url, busiest, end, 120_000)
      await until("the live coverage at the head and every history complete", async () => receiver.coveredTo(stream.id, "0x1") === end && complete(), 180_000)

      assert.isTrue(await byAnother(), "another runner read the history after the kill")
      assert.deepStrictEqual(receiver.errors.map(({ error }) => `${error._tag}: ${error.message}`), [], "the kit found no problem")
      assert.notProperty(receiver.states.get(stream.id)!, "missing")
      const received = receiver.events(stream.id).map((event) => event.id as string)
      assert.strictEqual(new Set(received).size, received.length, "an event was taken twice")
      const liveTruth = (await truthOf(sim, { id: stream.id, wallets: live, coveredFrom: stream.coveredFrom }, end)).map((event) => event.id as string)
      const historyTruth = await Effect.runPromise(
        evmTruth(sim, "0x1", later.map((address) => ({ family: "evm" as const, chain: "0x1" as const, address: address as never })), from - 1n, end)
      )
      assert.isAbove(historyTruth.filter((event) => event.blockNumber < coveredFrom.get(event.wallet)!).length, 20, "the histories have events")
      assert.deepStrictEqual(received.toSorted(), [...liveTruth, ...historyTruth.map((event) => event.id)].toSorted())
      const stats = await call(cluster.any(), "GET", `/v1/streams/${stream.id}/stats`)
      assert.deepStrictEqual(stats.body.history.map((h: { done: boolean }) => h.done), later.map(() => true))
    })
  }, 400_000)
})
