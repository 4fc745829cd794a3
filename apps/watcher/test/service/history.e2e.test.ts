/**
 * Wallets taken with their history, end to end: `chainquery-watcher serve` against the simulator
 * on a real PostgreSQL, delivering to a receiver on 127.0.0.1 that checks every request with the
 * receiver kit. A stream watches two busy wallets live; a third is added with `from` 200 blocks
 * back while blocks keep coming, under 30% failed requests and two `kill -9` of the service: the
 * receiver's events (deduplicated by id: none comes twice) are the ground truth of the two from
 * where they are covered and of the third from `from`; every batch with history is flagged
 * `phase: history` and carries only the third wallet's events, all before its live start; live
 * batches kept flowing while the history was read (its reads slowed so that its batches come 2 s
 * apart: a live one, events or a heartbeat, came between its first two); the kit proves the live
 * coverage and the third wallet's history complete, with no gap and no overlap. Bad `from`s are a
 * 400 naming the field, with nothing stored.
 */
import { afterAll, assert, describe, it } from "vitest"
import { ReceiverState } from "@chainquery/webhook-receiver"
import { aptosTruth, busiestAptos, busiestEvm, evmTruth } from "../../../../packages/watch/test/support/engineHarness.js"
import { drive, seeded, sleep, withSimulator } from "../e2e/support/e2e.js"
import { ProvingReceiver } from "./support/provingReceiver.js"
import { call, freshDatabase, serveArgs, startService, until } from "./support/serveE2e.js"
import { createEthStream, ethHead, historySlow, patientFlags, patientService, scannedTo, truthOf } from "./support/streamsScenario.js"
import { Effect } from "effect"

const cleanups: Array<() => Promise<void>> = []
afterAll(async () => {
  for (const cleanup of cleanups.toReversed()) await cleanup()
})

describe("serve: a wallet taken with its history", () => {
  it("from 200 blocks back while blocks come, 30% failed requests, kill -9 twice: the ground truth, history flagged, live not held back, both proved complete", async () => {
    await withSimulator({ seed: 2201, indexing: false, chains: ["0x1"], history: 400, faults: historySlow }, async (sim) => {
      const database = await freshDatabase()
      cleanups.push(database.drop)
      const receiver = new ProvingReceiver()
      await receiver.start()
      cleanups.push(() => receiver.close())
      const random = seeded(2202)
      receiver.policy = () => random.next() < 0.3 ? 500 : "take"
      const started = async () => {
        const service = await startService(database.url, serveArgs(sim, patientFlags("1s")))
        cleanups.push(async () => void (await service.process.stop("SIGKILL")))
        return service
      }
      let service = await started()
      const [first, second, third] = busiestEvm(sim, "0x1", 3).map((wallet) => wallet.address)
      const stream = await createEthStream(service, receiver, [first!, second!])
      await scannedTo(database.url, [first!, second!], await ethHead(sim), 60_000)

      // Blocks keep coming; the third wallet joins with 200 blocks of history.
      const driving = drive(sim, { total: 80, minStep: 1, maxStep: 3, everyMs: 150, random: seeded(2203) })
      await sleep(500)
      const head = await ethHead(sim)
      const from = head - 200n
      const added = await call(service, "POST", `/v1/streams/${stream.id}/wallets`, { wallets: [{ wallet: `eth:${third}`, from: String(from) }] })
      assert.strictEqual(added.status, 200, JSON.stringify(added.body))
      const [answer] = added.body.coverage as Array<{ coveredFrom: string; history: { from: string; to: string } }>
      const coveredFrom = BigInt(answer!.coveredFrom)
      assert.deepStrictEqual(answer!.history, { from: String(from), to: String(coveredFrom - 1n) }, "history from `from` to the block before live")
      const kills = seeded(2204)
      for (let kill = 0; kill < 2; kill++) {
        await sleep(kills.int(400, 1_500))
        assert.strictEqual((await service.process.stop("SIGKILL")).signal, "SIGKILL")
        service = await started()
      }
      await driving
      const end = await ethHead(sim)
      await scannedTo(database.url, [first!, second!, third!], end, 120_000)
      const key = `0x1 ${third}`
      await until("the live coverage at the head and the history complete", async () => {
        const state = receiver.states.get(stream.id)
        const history = state?.history?.[key]
        return receiver.coveredTo(stream.id, "0x1") === end && history !== undefined && ReceiverState.historyComplete(history)
      }, 180_000)

      assert.deepStrictEqual(receiver.errors.map(({ error }) => error.message), [], "the kit found no gap and no overlap")
      const state = receiver.states.get(stream.id)!
      assert.notProperty(state, "missing")
      assert.deepStrictEqual(state.history, { [key]: { from: String(from), to: String(coveredFrom - 1n), until: String(coveredFrom) } })

      const taken = receiver.taken.get(stream.id)!
      const history = taken.filter((t) => t.batch.phase === "history")
      assert.isAbove(history.length, 0, "history batches")
      for (const t of history) {
        assert.deepStrictEqual(t.batch.coverage, [], "a history batch moves no live coverage")
        assert.isTrue(t.batch.events.every((event) => event.wallet === third), "a history batch carries the third wallet's events only")
      }
      const liveEvents = taken.filter((t) => t.batch.phase === "live").flatMap((t) => t.batch.events)
      const fromHistory = history.flatMap((t) => t.batch.events)
      assert.isTrue(fromHistory.every((event) => BigInt(event.blockNumber as string) < coveredFrom), "history events are before live starts")
      assert.isTrue(
        liveEvents.filter((event) => event.wallet === third).every((event) => BigInt(event.blockNumber as string) >= coveredFrom),
        "the third wallet's live events start where it is covered from"
      )
      // Live batches kept flowing while the history was sent: its first two batches are read at
      // least 2 s apart (`historySlow`), and a live one (events, or a heartbeat) came in between.
      assert.isAbove(history.length, 2, "the history took several batches")
      assert.isTrue(
        taken.slice(taken.indexOf(history[0]!), taken.indexOf(history[1]!)).some((t) => t.batch.phase === "live"),
        `a live batch between the history's first two: ${taken.map((t) => t.batch.phase[0]).join("")}`
      )

      const received = receiver.events(stream.id).map((event) => event.id as string)
      assert.strictEqual(new Set(received).size, received.length, "an event was taken twice")
      const liveTruth = (await truthOf(sim, stream, end)).map((event) => event.id as string)
      const thirdTruth = (await Effect.runPromise(evmTruth(sim, "0x1", [{ family: "evm", chain: "0x1", address: third as never }], from - 1n, end)))
        .map((event) => event.id)
      assert.isAbove(thirdTruth.filter((id) => fromHistory.some((event) => event.id === id)).length, 5, "the history has events")
      assert.deepStrictEqual(received.toSorted(), [...liveTruth, ...thirdTruth].toSorted())

      // Its progress, as the API and /metrics tell it: done.
      const stats = await call(service, "GET", `/v1/streams/${stream.id}/stats`)
      assert.deepStrictEqual(stats.body.history, [{
        wallet: `eth:${third}`,
        from: String(from),
        to: String(coveredFrom - 1n),
        through: String(coveredFrom - 1n),
        events: fromHistory.length,
        done: true
      }])
      assert.isAbove(receiver.answers.filter((status) => status === 500).length, 0, "the receiver failed requests")
    })
  }, 400_000)

  it("a bad from: after the head, a date before the chain's first block, an unknown chain, not a block or a date, a date on Aptos: 400 naming the field, nothing stored", async () => {
    await withSimulator({ seed: 2211, indexing: false, chains: ["0x1"] }, async (sim) => {
      const { receiver, service } = await patientService(sim, cleanups)
      const [first, second] = busiestEvm(sim, "0x1", 2).map((wallet) => wallet.address)
      const stream = await createEthStream(service, receiver, [first!])
      const head = await ethHead(sim)
      const refused: ReadonlyArray<readonly [unknown, string, RegExp]> = [
        [{ wallets: [{ wallet: `eth:${second}`, from: String(head + 1000n) }] }, "wallets[0].from", /is after eth's head/],
        [{ wallets: [`eth:${second}`], from: "2001-01-01" }, "from", /before eth's history, which starts at block/],
        [{ wallets: [`eth:${second}`], from: { nochain: "1" } }, "from.nochain", /unknown chain "nochain"/],
        [{ wallets: [`eth:${second}`], from: "yesterday" }, "from", /neither a block number nor a date/],
        [{ wallets: [`eth:${second}`], from: "2026-02-30" }, "from", /not a date on the calendar/],
        [{ wallets: [`aptos:0x${"ab".repeat(32)}`], from: "2026-01-01" }, "from", /give a ledger version/]
      ]
      // Of every chain, for the Aptos wallet.
      const everywhere = await call(service, "POST", "/v1/streams", { url: receiver.url })
      for (const [body, field, message] of refused) {
        const target = JSON.stringify(body).includes("aptos:") ? everywhere.body.id : stream.id
        const answer = await call(service, "POST", `/v1/streams/${target}/wallets`, body)
        assert.strictEqual(answer.status, 400, JSON.stringify(body))
        assert.strictEqual(answer.body.field, field, JSON.stringify(answer.body))
        assert.match(answer.body.message, message, JSON.stringify(answer.body))
      }
      const wallets = await call(service, "GET", `/v1/streams/${stream.id}/wallets`)
      assert.deepStrictEqual(wallets.body.wallets, [`eth:${first}`], "nothing stored")
      const stats = await call(service, "GET", `/v1/streams/${stream.id}/stats`)
      assert.deepStrictEqual(stats.body.history, [])
    })
  }, 120_000)

  it("history reads keep to the compute-unit budget (--compute-units), shared with the scans", async () => {
    const budget = 60
    await withSimulator({ seed: 2221, indexing: false, chains: ["0x1"], history: 400, requestLog: 100_000 }, async (sim) => {
      const database = await freshDatabase()
      cleanups.push(database.drop)
      const receiver = new ProvingReceiver()
      await receiver.start()
      cleanups.push(() => receiver.close())
      const service = await startService(database.url, serveArgs(sim, [...patientFlags("1s"), "--compute-units", String(budget)]))
      cleanups.push(async () => void (await service.process.stop("SIGKILL")))
      const busiest = busiestEvm(sim, "0x1", 7).map((wallet) => wallet.address)
      const stream = await createEthStream(service, receiver, busiest.slice(0, 2))
      const from = (await ethHead(sim)) - 390n
      const startedAt = Date.now()
      const added = await call(service, "POST", `/v1/streams/${stream.id}/wallets`, { wallets: busiest.slice(2).map((address) => `eth:${address}`), from: String(from) })
      assert.strictEqual(added.status, 200, JSON.stringify(added.body))
      await until("every history done", async () => {
        const stats = await call(service, "GET", `/v1/streams/${stream.id}/stats`)
        return stats.body.history.length === 5 && stats.body.history.every((h: { done: boolean }) => h.done)
      }, 180_000)
      const doneAt = Date.now()
      const weights: Record<string, number> = { getBlock: 10, getDefiPositionsSummary: 20 }
      const log = (await Effect.runPromise(sim.requests)).filter((request) => request.at >= startedAt && request.at <= doneAt)
      const units = log.reduce((sum, request) => sum + (weights[request.operation] ?? 5), 0)
      const seconds = (doneAt - startedAt) / 1000
      // A bucket of a second's units, refilled at the budget: never more than that over the whole time
      // (and a few requests of slack: one taken before the window may arrive in it).
      assert.isAtMost(units, budget * seconds + budget + 25, `${units} units in ${seconds.toFixed(1)} s`)
      // And the history needed it: more than two seconds of the budget, more than its bucket holds.
      assert.isAbove(units, budget * 2, `${units} units: the budget was never the limit`)
      assert.isAtLeast(log.filter((request) => request.operation === "getWalletNFTTransfers" || request.operation === "getNFTTradesByWallet").length, 20)
    })
  }, 300_000)

  it("an Aptos wallet from a ledger version: staged newest first, sent oldest first, the ground truth, proved complete", async () => {
    await withSimulator({ seed: 2231, indexing: false, chains: ["0x1"] }, async (sim) => {
      const { receiver, service } = await patientService(sim, cleanups)
      const [live, taken] = busiestAptos(sim, 2)
      const created = await call(service, "POST", "/v1/streams", { url: receiver.url, events: ["aptos.token.in", "aptos.token.out"], chains: ["aptos"] })
      assert.strictEqual(created.status, 201, JSON.stringify(created.body))
      receiver.secrets.set(created.body.id, created.body.secret)
      const id = created.body.id as string
      const first = await call(service, "POST", `/v1/streams/${id}/wallets`, { wallets: [`aptos:${live!.address}`] })
      assert.strictEqual(first.status, 200, JSON.stringify(first.body))
      // From the version of the wallet's transfer halfway through its history.
      const versions = aptosTruth(sim, [taken!], -1n, 2n ** 62n).map((event) => event.version)
      assert.isAbove(versions.length, 10, "the wallet has a history")
      const from = versions[Math.floor(versions.length / 2)]!
      const added = await call(service, "POST", `/v1/streams/${id}/wallets`, { wallets: [{ wallet: `aptos:${taken!.address}`, from: String(from) }] })
      assert.strictEqual(added.status, 200, JSON.stringify(added.body))
      const [answer] = added.body.coverage as Array<{ coveredFrom: string; history: { from: string; to: string } }>
      const coveredFrom = BigInt(answer!.coveredFrom)
      assert.deepStrictEqual(answer!.history, { from: String(from), to: String(coveredFrom - 1n) })
      await drive(sim, { total: 20, minStep: 1, maxStep: 2, everyMs: 200, random: seeded(2232) })
      const key = `aptos:mainnet ${taken!.address}`
      await until("the history complete", async () => {
        const history = receiver.states.get(id)?.history?.[key]
        return history !== undefined && ReceiverState.historyComplete(history)
      }, 120_000)
      assert.deepStrictEqual(receiver.errors.map(({ error }) => error.message), [], "the kit found no problem")
      const history = (receiver.taken.get(id) ?? []).filter((t) => t.batch.phase === "history")
      const sent = history.flatMap((t) => t.batch.events).map((event) => event.id as string)
      const truth = aptosTruth(sim, [taken!], from - 1n, coveredFrom - 1n).map((event) => event.id)
      assert.isAbove(truth.length, 3)
      assert.deepStrictEqual(sent, truth, "the history, oldest first, exactly")
      const ranges = history.flatMap((t) => t.batch.history)
      assert.deepStrictEqual(ranges.map((range) => "network" in range ? [range.network, range.address] : []), ranges.map(() => ["mainnet", taken!.address]))
      assert.strictEqual("fromVersion" in ranges[0]! ? ranges[0].fromVersion : undefined, String(from))
      const last = ranges.at(-1)!
      assert.strictEqual("toVersion" in last ? last.toVersion : undefined, String(coveredFrom - 1n))
      // A date is refused on Aptos: the ledger places no version by date.
      const dated = await call(service, "POST", `/v1/streams/${id}/wallets`, { wallets: [`aptos:${live!.address}`], from: "2026-01-01" })
      assert.deepStrictEqual([dated.status, dated.body.field], [400, "from"])
      assert.match(dated.body.message, /give a ledger version/)
    })
  }, 240_000)
})
