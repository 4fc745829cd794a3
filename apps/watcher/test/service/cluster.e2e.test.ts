/**
 * `serve --cluster` end to end: three runners (`chainquery-watcher serve` processes) on one real
 * PostgreSQL, reading the simulator, delivering two streams to a receiver on 127.0.0.1 that checks
 * every batch with the receiver kit, while 120 blocks come:
 *
 * - `kill -9` the runner that scans eth at a random moment, later another one, each started again
 *   once its work moved: no gap, no overlap, each stream's events exactly the ground truth, in
 *   order; every takeover (all shards held again) within the shard lock expiration plus one lock
 *   refresh, with slack for a loaded machine, and each one reported;
 * - a rolling restart (SIGTERM, exit 0, start again) of the three, one at a time: nothing lost, and
 *   each runner's shards taken over before its locks could have expired (handed over, not lost);
 * - a runner started without `--cluster` on the cluster's database exits 1, saying why;
 * - in both, from the simulator's request log (each runner names itself in its `User-Agent`): one
 *   runner at a time lists eth's blocks. The listings form turns, one per runner in charge; a new
 *   turn starts only after a runner stopped or started (no more turns than such changes), and no
 *   block is listed by two runners within one interval while both list blocks.
 */
import { afterAll, assert, describe, it } from "vitest"
import { busiestEvm } from "../../../../packages/watch/test/support/engineHarness.js"
import { drive, type Sim, seeded, sleep, Watcher, withSimulator } from "../e2e/support/e2e.js"
import { Cluster, freePorts, listedTwice, listings, lockSettings, settled, takenOverAfter, turnsOf } from "./support/clusterE2e.js"
import { ProvingReceiver } from "./support/provingReceiver.js"
import { call, freshDatabase, serveArgs, until } from "./support/serveE2e.js"
import { createEthStream, ethHead, patientFlags, scannedTo, truthOf } from "./support/streamsScenario.js"

const cleanups: Array<() => Promise<void>> = []
afterAll(async () => {
  for (const cleanup of cleanups.toReversed()) await cleanup()
})

const intervalMs = 300

/** Patient deliveries, a heartbeat every second (coverage up to the head). */
const flags = ["--interval", `${intervalMs}ms`, ...patientFlags("1s")]

/** The longest a takeover may take: the lock expiration plus one refresh (the goal), and 5 s of slack for a loaded machine. */
const takeoverBound = lockSettings.expirationMs + lockSettings.refreshMs + 5_000

/** What a disruption did: when runners stopped or started (each may move the scan), and the takeovers it measured. */
interface Disrupted {
  readonly changes: Array<number>
  readonly takeovers: Array<{ readonly what: string; readonly ms: number }>
}

/**
 * Three runners started together on a fresh database, two streams created on two of them, 120
 * blocks driven while `disrupt` stops and starts runners; then every check that nothing was lost
 * and that one runner at a time scanned eth.
 */
const scenario = async (seed: number, disrupt: (cluster: Cluster, sim: Sim, disrupted: Disrupted) => Promise<void>): Promise<Disrupted> =>
  withSimulator({ seed, indexing: false, chains: ["0x1"], requestLog: 500_000 }, async (sim) => {
    const database = await freshDatabase()
    cleanups.push(database.drop)
    const receiver = new ProvingReceiver()
    await receiver.start()
    cleanups.push(() => receiver.close())
    const cluster = new Cluster(database.url, sim, await freePorts(3), flags)
    cleanups.push(() => cluster.killAll())
    // Started together: their migrations and their registrations meet.
    await Promise.all([0, 1, 2].map((index) => cluster.start(index)))
    const busiest = busiestEvm(sim, "0x1", 6).map((wallet) => wallet.address)
    const start = await ethHead(sim)
    const streams = [
      await createEthStream(cluster.runners[1]!, receiver, busiest.slice(0, 4)),
      await createEthStream(cluster.runners[2]!, receiver, busiest.slice(2, 6))
    ]
    await scannedTo(database.url, busiest, start, 60_000)
    // From here on, every turn of the scan is counted: the runners' joins at the start moved it too.
    await settled(database.url, 3, 60_000)
    const since = Date.now()
    const disrupted: Disrupted = { changes: [], takeovers: [] }
    const driving = drive(sim, { total: 120, minStep: 1, maxStep: 4, everyMs: 400, random: seeded(seed + 1) })
    await disrupt(cluster, sim, disrupted)
    await driving
    const end = await ethHead(sim)
    await scannedTo(database.url, busiest, end, 120_000)
    await until("each stream covered to the head", async () => streams.every((stream) => receiver.coveredTo(stream.id, "0x1") === end), 120_000)
    assert.deepStrictEqual(receiver.errors.map(({ error }) => `${error._tag}: ${error.message}`), [], "the kit found no problem")
    for (const stream of streams) {
      const received = receiver.events(stream.id)
      const ids = received.map((event) => event.id as string)
      assert.strictEqual(new Set(ids).size, ids.length, `stream ${stream.id}: an event was taken twice`)
      const truth = (await truthOf(sim, stream, end)).map((event) => event.id as string)
      assert.isAbove(truth.length, 10, `stream ${stream.id} has events to check`)
      assert.deepStrictEqual(ids.toSorted(), truth.toSorted(), `stream ${stream.id}: events`)
      const blocks = received.map((event) => BigInt(event.blockNumber as string))
      assert.isTrue(blocks.every((block, i) => i === 0 || block >= blocks[i - 1]!), `stream ${stream.id}: events out of chain order`)
      const failed = await call(cluster.any(), "GET", `/v1/streams/${stream.id}/deliveries?status=failed`)
      assert.deepStrictEqual(failed.body.deliveries, [], `stream ${stream.id}: a delivery failed for good`)
    }
    // Every runner answers the API and is ready, whichever shards it holds, and tells what the receiver took.
    for (const runner of cluster.runners) {
      assert.strictEqual((await fetch(`${runner!.url}/readyz`)).status, 200)
      for (const stream of streams) {
        const taken = receiver.states.get(stream.id)!.sequence
        await until(`${runner!.url} to say stream ${stream.id} delivered ${taken}`, async () => {
          const stats = await call(runner!, "GET", `/v1/streams/${stream.id}/stats`)
          return stats.status === 200 && stats.body.lastDeliveredSequence >= taken
        }, 30_000)
      }
    }
    // A runner started without --cluster on the cluster's database refuses to join it half-way.
    const alone = new Watcher(serveArgs(sim, flags), { DATABASE_URL: database.url, CHAINQUERY_RUNNER_ADDRESS: "" })
    const ended = await Promise.race([alone.closed, sleep(60_000).then(() => undefined)])
    if (ended === undefined) await alone.stop("SIGKILL")
    assert.strictEqual(ended?.code, 1, `a runner without --cluster did not refuse the cluster's database: ${alone.stdout.slice(0, 200)} ${alone.stderr.slice(-1000)}`)
    assert.match(alone.stderr, /runners of a cluster serve this database \(127\.0\.0\.1:\d+/)
    assert.match(alone.stderr, /start this one with --cluster as well/)
    for (const [batch, ids] of receiver.webhookIds) assert.strictEqual(ids.size, 1, `batch ${batch} came under several webhook-ids: ${[...ids].join(", ")}`)
    // One runner at a time listed eth's blocks: each new turn follows a runner stopped or started,
    // a change of its own (the k-th turn taken no sooner than the k-th change).
    const all = (await listings(sim)).filter((listing) => listing.at >= since)
    const turns = turnsOf(all)
    assert.isAbove(all.length, 100, "eth's blocks were listed")
    // At the head, the scan links new blocks by their parent hashes: it reads a header per new block
    // (the witness protocol reads one only for a block without NFT transfers).
    const headers = all.filter((listing) => listing.header === true).length
    assert.isAtLeast(headers, 10, "few block headers read: the scans do not link blocks by parent hashes")
    const taken = turns.slice(1).map((turn) => turn.from)
    assert.isAtMost(taken.length, disrupted.changes.length, `more turns of the scan than runners stopped and started: ${JSON.stringify(turns)}`)
    const changes = disrupted.changes.toSorted((a, b) => a - b)
    taken.forEach((at, k) => assert.isAtLeast(at, changes[k]!, `turn ${k + 2} of the scan began before as many runners stopped or started: ${JSON.stringify(turns)}`))
    const twice = listedTwice(all, intervalMs)
    console.log(
      `cluster scenario ${seed}: ${all.length} eth block reads (${headers} headers) in ${turns.length} turns (${turns.map((t) => `${t.runner}: ${t.requests}`).join(", ")}); ` +
        `takeovers ${disrupted.takeovers.map((t) => `${t.what} ${t.ms} ms`).join(", ")} (goal: ${lockSettings.expirationMs + lockSettings.refreshMs} ms); ` +
        `${twice.length} blocks listed by two runners scanning within ${intervalMs} ms${twice.length === 0 ? "" : `: ${JSON.stringify(twice.slice(0, 5))}`}; ` +
        `handovers: ${turns.slice(1).map((turn, k) => `${turn.from - turns[k]!.to} ms`).join(", ")}`
    )
    assert.deepStrictEqual(twice, [], "two runners listed blocks within one interval of each other")
    await cluster.killAll()
    return disrupted
  })

/** The runner that listed eth's latest block. */
const scanning = async (cluster: Cluster, sim: Sim): Promise<number> => {
  const latest = (await listings(sim)).at(-1)
  if (latest === undefined) throw new Error("no block listed yet")
  return cluster.indexOf(latest.runner)
}

describe("serve --cluster: three runners", () => {
  it("kill -9 the scanning runner, later another, each started again: nothing lost, takeovers within the lock expiration", async () => {
    const random = seeded(3101)
    const { takeovers } = await scenario(3100, async (cluster, sim, disrupted) => {
      const killAndRestart = async (index: number, what: string) => {
        const at = Date.now()
        disrupted.changes.push(at)
        assert.strictEqual((await cluster.stop(index, "SIGKILL")).signal, "SIGKILL")
        const ms = await takenOverAfter(cluster.databaseUrl, at, { timeoutMs: takeoverBound + 10_000, seeRelease: true })
        disrupted.takeovers.push({ what, ms })
        disrupted.changes.push(Date.now())
        await cluster.start(index)
      }
      await sleep(random.int(1_000, 3_000))
      const first = await scanning(cluster, sim)
      await killAndRestart(first, `runner ${first} (scanning eth), kill -9`)
      await sleep(random.int(1_000, 3_000))
      const others = [0, 1, 2].filter((index) => index !== first)
      const second = others[random.int(0, 1)]!
      await killAndRestart(second, `runner ${second}, kill -9`)
    })
    assert.strictEqual(takeovers.length, 2)
    for (const takeover of takeovers) assert.isAtMost(takeover.ms, takeoverBound, `${takeover.what}: takeover took ${takeover.ms} ms`)
  }, 400_000)

  it("a rolling restart of the three (SIGTERM, one at a time): nothing lost, each runner's work handed over before its locks expire", async () => {
    const { takeovers } = await scenario(3200, async (cluster, _sim, disrupted) => {
      for (const index of [0, 1, 2]) {
        const at = Date.now()
        disrupted.changes.push(at)
        const exit = await cluster.stop(index, "SIGTERM")
        assert.strictEqual(exit.code, 0, `runner ${index} exited with ${exit.code ?? exit.signal}`)
        const ms = await takenOverAfter(cluster.databaseUrl, at, { timeoutMs: takeoverBound + 10_000, seeRelease: false })
        disrupted.takeovers.push({ what: `runner ${index}, SIGTERM`, ms })
        disrupted.changes.push(Date.now())
        await cluster.start(index)
        await sleep(1_000)
      }
    })
    assert.strictEqual(takeovers.length, 3)
    for (const takeover of takeovers) {
      assert.isBelow(takeover.ms, lockSettings.expirationMs, `${takeover.what}: its shards were taken over in ${takeover.ms} ms, as late as a lost runner's`)
    }
  }, 400_000)
})
