/**
 * A gap healed end to end: `chainquery-watcher serve` against the simulator on a real PostgreSQL,
 * delivering to a receiver on 127.0.0.1 that checks every request with the receiver kit. The
 * receiver answers 200 to two batches that cover blocks but throws them away (once each): the kit
 * reports both gaps, on the batch after each, and keeps the holes in its state. Then the README's
 * recipe ("From a gap to a healed state", run as written) makes one replay call by sequence: both
 * lost batches come back as they were (their sequence, webhook-id, coverage and events, flagged
 * `replay`), each is reported healed, the batches in between are processed already, the state ends
 * with no hole, and the events taken equal the ground truth of the wallets.
 */
import { afterAll, assert, describe, it } from "vitest"
import type { ReceiverState } from "@chainquery/webhook-receiver"
import { busiestEvm } from "../../../../packages/watch/test/support/engineHarness.js"
import { readme, runReadmeBlock } from "../../../../packages/webhook-receiver/test/support/readme.js"
import { drive, seeded, withSimulator } from "../e2e/support/e2e.js"
import { apiToken, call, until } from "./support/serveE2e.js"
import { createEthStream, ethHead, patientService, scannedTo, truthOf } from "./support/streamsScenario.js"

const cleanups: Array<() => Promise<void>> = []
afterAll(async () => {
  for (const cleanup of cleanups.toReversed()) await cleanup()
})

describe("serve: a gap the receiver reported, healed by one replay call", () => {
  it("two batches thrown away: both gaps reported, one replay by sequence heals them, no hole left, the ground truth", async () => {
    await withSimulator({ seed: 2101, indexing: false, chains: ["0x1"] }, async (sim) => {
      const { database, receiver, service } = await patientService(sim, cleanups)
      const wallets = busiestEvm(sim, "0x1", 4).map((wallet) => wallet.address)
      const stream = await createEthStream(service, receiver, wallets)
      // The 2nd and the 5th batch with events and coverage are thrown away, the first time they come.
      const thrown = new Set<number>()
      let covering = 0
      receiver.policy = ({ body, sequence }) => {
        const batch = body as { coverage: ReadonlyArray<unknown>; events: ReadonlyArray<unknown>; replay: boolean }
        if (batch.replay || thrown.has(sequence) || batch.coverage.length === 0 || batch.events.length === 0) return "take"
        covering += 1
        if (covering !== 2 && covering !== 5) return "take"
        thrown.add(sequence)
        return "drop"
      }
      await drive(sim, { total: 60, minStep: 1, maxStep: 3, everyMs: 200, random: seeded(2102) })
      const end = await ethHead(sim)
      await scannedTo(database.url, wallets, end, 60_000)
      await until("the stream covered to the head", async () => receiver.coveredTo(stream.id, "0x1") === end, 60_000)
      const lost = [...thrown].toSorted((a, b) => a - b)
      assert.strictEqual(lost.length, 2, `two batches thrown away (${lost.join(", ")})`)
      assert.deepStrictEqual(receiver.errors.map(({ error }) => error._tag), ["Gap", "Gap"], receiver.errors.map(({ error }) => error.message).join("; "))
      const gaps = receiver.errors.map(({ error }) => error as Extract<typeof error, { _tag: "Gap" }>)
      assert.deepStrictEqual(gaps.map((gap) => gap.missingSequences), lost.map((sequence) => ({ from: sequence, to: sequence })))
      const state: ReceiverState.ReceiverState = receiver.states.get(stream.id)!
      assert.deepStrictEqual(state.missing?.sequences, lost.map((sequence) => ({ from: sequence, to: sequence })))
      assert.deepStrictEqual(state.missing?.blocks, gaps.flatMap((gap) => gap.missingBlocks))

      // The README's recipe, as written: one call.
      readme.serviceUrl = service.url
      readme.apiToken = apiToken
      const { askForReplay } = await runReadmeBlock("From a gap to a healed state", "healingE2e") as {
        askForReplay: (state: ReceiverState.ReceiverState) => Promise<number | undefined>
      }
      assert.strictEqual(await askForReplay(state), 202)
      await until("no hole left", async () => receiver.states.get(stream.id)?.missing === undefined, 60_000)
      assert.deepStrictEqual(receiver.healed.map((healed) => healed.sequence), lost)
      assert.deepStrictEqual(receiver.healed.map((healed) => healed.filled.sequences), lost.map((sequence) => [{ from: sequence, to: sequence }]))
      // Sent again as they were: the same webhook-id as the first time.
      for (const sequence of lost) assert.strictEqual(receiver.webhookIds.get(`${stream.id}/${sequence}`)?.size, 1, `batch ${sequence}: one webhook-id`)
      assert.deepStrictEqual(receiver.errors.length, 2, "no other problem")
      const healedState = receiver.states.get(stream.id)!
      assert.deepStrictEqual(healedState.coverage, state.coverage, "the coverage as it was")
      assert.isAtLeast(healedState.sequence, state.sequence)

      const received = receiver.events(stream.id).map((event) => event.id as string)
      assert.strictEqual(new Set(received).size, received.length, "an event was taken twice")
      const truth = (await truthOf(sim, stream, end)).map((event) => event.id as string)
      assert.isAbove(truth.length, 10)
      assert.deepStrictEqual(received.toSorted(), truth.toSorted())
      const listed = await call(service, "GET", `/v1/streams/${stream.id}/deliveries?limit=1000`)
      const resent = listed.body.deliveries.filter((d: { resends: number }) => d.resends > 0).map((d: { sequence: number; status: string }) => [d.sequence, d.status])
      assert.includeDeepMembers(resent, lost.map((sequence) => [sequence, "delivered"]))
    })
  }, 240_000)
})
