/**
 * The stream controls end to end: `chainquery-watcher serve` against the simulator on a real
 * PostgreSQL, delivering to a receiver on 127.0.0.1 that checks every request with the receiver kit:
 *
 * - content filters: a stream filtered to half of the chain's collections and an unfiltered one on
 *   the same wallets, while blocks come: the filtered receiver's events are exactly the unfiltered
 *   ones that match (and the ground truth that matches), both covered without a hole to the head,
 *   the first filtered batch states the filter; `/stats` and `/metrics` count what it kept out;
 * - `verify: true` against a receiver failing test events: the stream stays in `error` and nothing
 *   reaches the receiver while its wallets' blocks come; resumed with `verify` once it answers 200,
 *   it delivers all of it; a test event leaves the kit's state as it was;
 * - a secret rotated with a 6 s grace while heartbeats go out each second: requests signed in the
 *   grace verify with the reference library (`standardwebhooks`) under the old and the new secret,
 *   those signed after it under the new one only; the kit holding both saw no problem.
 */
import { afterAll, assert, describe, it } from "vitest"
import { Webhook } from "standardwebhooks"
import { busiestEvm } from "../../../../packages/watch/test/support/engineHarness.js"
import { drive, seeded, withSimulator } from "../e2e/support/e2e.js"
import { call, until } from "./support/serveE2e.js"
import { coveredFromOf, ethHead, nftKinds, patientService, type ScenarioStream, scannedTo, truthOf } from "./support/streamsScenario.js"

const cleanups: Array<() => Promise<void>> = []
afterAll(async () => {
  for (const cleanup of cleanups.toReversed()) await cleanup()
})

/** The block a stream's coverage starts at: its first wallet's. */
const firstCovered = (stream: ScenarioStream): bigint => [...stream.coveredFrom.values()].reduce((a, b) => (b < a ? b : a))

/** Whether the reference library verifies a request with `secret`. */
const verifies = (secret: string, request: { readonly headers: Record<string, unknown>; readonly body: string }): boolean => {
  try {
    new Webhook(secret).verify(request.body, request.headers as Record<string, string>)
    return true
  } catch {
    return false
  }
}

/** Event ids, sorted. */
const ids = (events: ReadonlyArray<{ readonly id?: unknown }>) => events.map((event) => String(event.id)).toSorted()

/** When a request was signed, in epoch milliseconds (its `webhook-timestamp`, whole seconds). */
const signedAt = (request: { readonly headers: Record<string, unknown> }) => Number(request.headers["webhook-timestamp"]) * 1000

describe("serve: stream controls", () => {
  it("a filtered and an unfiltered stream on the same wallets: the filtered one gets exactly the matching events, both covered to the head", async () => {
    await withSimulator({ seed: 2101, indexing: false, chains: ["0x1"] }, async (sim) => {
      const { database, receiver, service } = await patientService(sim, cleanups)
      const wallets = busiestEvm(sim, "0x1", 5).map((wallet) => wallet.address)
      // Every other collection of the chain: about half of the transfers pass.
      const contracts = sim.world.evm.chain("0x1").collections.filter((_, index) => index % 2 === 0).map((collection) => collection.address.toLowerCase())
      const streams: Array<ScenarioStream> = []
      for (const filters of [undefined, { contracts }]) {
        const created = await call(service, "POST", "/v1/streams", { url: receiver.url, events: nftKinds, chains: ["eth"], ...(filters === undefined ? {} : { filters }) })
        assert.strictEqual(created.status, 201, JSON.stringify(created.body))
        receiver.secrets.set(created.body.id, created.body.secret)
        const added = await call(service, "POST", `/v1/streams/${created.body.id}/wallets`, { wallets: wallets.map((address) => `eth:${address}`) })
        assert.strictEqual(added.status, 200, JSON.stringify(added.body))
        streams.push({ id: created.body.id, wallets, coveredFrom: coveredFromOf(added.body) })
      }
      const [all, filtered] = streams as [ScenarioStream, ScenarioStream]
      await scannedTo(database.url, wallets, await ethHead(sim), 60_000)
      await drive(sim, { total: 60, minStep: 1, maxStep: 4, everyMs: 150, random: seeded(2102) })
      const end = await ethHead(sim)
      await scannedTo(database.url, wallets, end, 120_000)
      await until("both streams covered to the head", async () => streams.every((stream) => receiver.coveredTo(stream.id, "0x1") === end), 120_000)
      assert.deepStrictEqual(receiver.errors.map(({ error }) => error.message), [], "the kit found no problem")
      for (const stream of streams) {
        assert.deepStrictEqual(receiver.states.get(stream.id)!.coverage, { "0x1": { from: String(firstCovered(stream)), to: String(end) } }, `${stream.id}: coverage`)
      }

      const matches = (event: { readonly collection?: unknown }) => contracts.includes(String(event.collection))
      const unfiltered = receiver.events(all.id)
      const got = receiver.events(filtered.id)
      assert.deepStrictEqual(ids(unfiltered), ids(await truthOf(sim, all, end)), "the unfiltered stream: the ground truth")
      const from = (event: { readonly wallet?: unknown; readonly blockNumber?: unknown }) => filtered.coveredFrom.get(String(event.wallet))!
      const expected = unfiltered.filter((event) => matches(event) && BigInt(String(event.blockNumber)) >= from(event))
      assert.isAbove(expected.length, 5, "the filter keeps events")
      assert.isBelow(expected.length, unfiltered.length - 5, "and keeps some out")
      assert.deepStrictEqual(ids(got), ids(expected), "the filtered receiver's events: exactly the unfiltered ones that match")
      assert.deepStrictEqual(ids(got), ids((await truthOf(sim, filtered, end)).filter(matches)), "and the ground truth that matches")

      // The first batch states the filter; no other does.
      const stating = (receiver.taken.get(filtered.id) ?? []).filter((taken) => taken.batch.filters !== null)
      assert.deepStrictEqual(stating.map((taken) => [taken.batch.sequence, taken.batch.filters]), [[1, { contracts, minValue: null }]])
      assert.isTrue((receiver.taken.get(all.id) ?? []).every((taken) => taken.batch.filters === null))

      const keptOut = (await truthOf(sim, filtered, end)).length - got.length
      const stats = await call(service, "GET", `/v1/streams/${filtered.id}/stats`)
      assert.strictEqual(stats.body.filteredEvents, keptOut)
      assert.strictEqual((await call(service, "GET", `/v1/streams/${all.id}/stats`)).body.filteredEvents, 0)
      await until("the filtered count at /metrics", async () => {
        const metrics = await (await fetch(`${service.url}/metrics`)).text()
        return metrics.split("\n").some((line) =>
          line.startsWith("chainquery_stream_filtered_events{") && line.includes(`stream="${filtered.id}"`) && line.endsWith(` ${keptOut}`)
        )
      }, 30_000)
      assert.strictEqual((await service.process.stop("SIGTERM")).code, 0, service.process.stderr.slice(-2000))
    })
  }, 300_000)

  it("verify holds a stream until its receiver takes a test event; a rotation's grace signs with both secrets, then the new one only", async () => {
    await withSimulator({ seed: 2111, indexing: false, chains: ["0x1"] }, async (sim) => {
      const { database, receiver, service } = await patientService(sim, cleanups)
      let testAnswer = 500
      receiver.policy = ({ body }) => (body as { test?: boolean }).test === true && testAnswer !== 200 ? testAnswer : "take"
      const wallets = busiestEvm(sim, "0x1", 3).map((wallet) => wallet.address)
      const created = await call(service, "POST", "/v1/streams", { url: receiver.url, events: nftKinds, chains: ["eth"], verify: true })
      assert.strictEqual(created.status, 201, JSON.stringify(created.body))
      assert.strictEqual(created.body.status, "error")
      assert.include(created.body.statusReason, "HTTP 500")
      const id: string = created.body.id
      const first: string = created.body.secret
      receiver.secrets.set(id, first)
      const added = await call(service, "POST", `/v1/streams/${id}/wallets`, { wallets: wallets.map((address) => `eth:${address}`) })
      const stream: ScenarioStream = { id, wallets, coveredFrom: coveredFromOf(added.body) }
      await drive(sim, { total: 15, minStep: 1, maxStep: 3, everyMs: 100, random: seeded(2112) })
      await scannedTo(database.url, wallets, await ethHead(sim), 60_000)
      await until("the held batches made", async () => (await call(service, "GET", `/v1/streams/${id}/stats`)).body.pending > 0, 30_000)
      assert.strictEqual(receiver.taken.get(id), undefined, "nothing reached the receiver while unverified")

      testAnswer = 200
      const resumed = await call(service, "POST", `/v1/streams/${id}/resume`, { verify: true })
      assert.strictEqual(resumed.body.status, "active", JSON.stringify(resumed.body))
      assert.strictEqual(receiver.tests.length, 1, "the kit took the passing test event as a test")
      const head = await ethHead(sim)
      await until("what was held delivered", async () => receiver.coveredTo(id, "0x1") === head, 60_000)
      const before = receiver.states.get(id)!
      const tested = await call(service, "POST", `/v1/streams/${id}/test`)
      assert.strictEqual(tested.body.delivered, true, JSON.stringify(tested.body))
      assert.strictEqual(receiver.tests.length, 2)
      assert.strictEqual(receiver.states.get(id), before, "a test event leaves the kit's state as it was")

      const rotated = await call(service, "POST", `/v1/streams/${id}/secret`, { graceSeconds: 6 })
      assert.strictEqual(rotated.status, 200, JSON.stringify(rotated.body))
      const fresh: string = rotated.body.secret
      receiver.secrets.set(id, [fresh, first])
      const rotatedAt = Date.parse(rotated.body.secretRotation.rotatedAt)
      const graceUntil = Date.parse(rotated.body.secretRotation.graceUntil)
      const driving = drive(sim, { total: 20, minStep: 1, maxStep: 2, everyMs: 300, random: seeded(2113) })
      await until("the grace over", async () => (await call(service, "GET", `/v1/streams/${id}`)).body.secretRotation.inGrace === false, 30_000)
      await driving
      const end = await ethHead(sim)
      await until("the last blocks delivered", async () => receiver.coveredTo(id, "0x1") === end, 60_000)
      // Heartbeats each second or two: requests signed well inside the grace, and after it.
      await until("a request signed after the grace", async () => receiver.requests.some((request) => signedAt(request) >= graceUntil + 1000), 30_000)
      const inGrace = receiver.requests.filter((request) => signedAt(request) >= rotatedAt + 1000 && signedAt(request) + 1000 <= graceUntil)
      const after = receiver.requests.filter((request) => signedAt(request) >= graceUntil + 1000)
      assert.isAbove(inGrace.length, 0, "requests signed in the grace")
      assert.isAbove(after.length, 0, "requests signed after it")
      for (const request of inGrace) assert.isTrue(verifies(first, request) && verifies(fresh, request), "in the grace: either secret")
      for (const request of after) assert.isTrue(verifies(fresh, request) && !verifies(first, request), "after it: the new one only")

      assert.deepStrictEqual(receiver.errors.map(({ error }) => error.message), [], "the kit found no problem")
      assert.deepStrictEqual(receiver.states.get(id)!.coverage, { "0x1": { from: String(firstCovered(stream)), to: String(end) } })
      const truth = (await truthOf(sim, stream, end)).map((event) => String(event.id)).toSorted()
      assert.deepStrictEqual(receiver.events(id).map((event) => String(event.id)).toSorted(), truth)
      assert.strictEqual((await service.process.stop("SIGTERM")).code, 0, service.process.stderr.slice(-2000))
    })
  }, 300_000)
})
