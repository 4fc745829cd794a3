/**
 * A removed wallet stops at once for its stream (SERVE.md, "Delivery guarantees"): over the real
 * API and stores, the scan's next commit gives the stream none of its events, while another
 * stream holding it still gets them; the scans re-plan, and watch the wallet for as long as some
 * stream holds it. Streams of different confirmations each have their own scan.
 */
import { assert, describe, it } from "@effect/vitest"
import { alice } from "../../watch/test/fixtures.js"
import { StreamStore } from "../src/store/StreamStore.js"
import { aliceStream, planOf, rowsOf, withApi } from "./support/apiFixtures.js"
import { enqueue, evm, transfers } from "./support/storeFixtures.js"

const receiver = "http://127.0.0.1:9/hook"

describe("removing a wallet", () => {
  it.live("stops its events for that stream at once; another stream holding it still gets them; the scan watches it until no stream holds it", () =>
    withApi(async (api) => {
      const ids: Array<string> = []
      for (let i = 0; i < 2; i++) {
        ids.push(await aliceStream(api))
      }
      const [leaving, staying] = ids as [string, string]
      assert.deepStrictEqual(await api.run(enqueue(transfers(1))), ids.toSorted(), "both streams get alice's event")
      const version = (await api.run(planOf("0x1"))).version
      const removed = await api.call("POST", `/v1/streams/${leaving}/wallets/remove`, { body: { wallets: [`eth:${alice}`] } })
      assert.deepStrictEqual(removed.body, { removed: 1, wallets: 0 })
      assert.deepStrictEqual(await api.run(enqueue(transfers(1, { from: 1 }))), [staying], "the next commit gives the stream that removed it nothing")
      assert.deepStrictEqual([await api.run(rowsOf("stream_events", leaving)), await api.run(rowsOf("stream_events", staying))], [1, 2])
      const plan = await api.run(planOf("0x1"))
      assert.notStrictEqual(plan.version, version, "the scans re-plan")
      assert.deepStrictEqual(plan.scans.map((scan) => scan.wallets), [[alice.toLowerCase()]], "still watched: another stream holds it")
      await api.call("POST", `/v1/streams/${staying}/wallets/remove`, { body: { wallets: [`eth:${alice}`] } })
      assert.deepStrictEqual((await api.run(planOf("0x1"))).scans, [], "no stream holds it: no scan watches it")
      assert.deepStrictEqual(await api.run(enqueue(transfers(1, { from: 2 }))), [])
    }))

  it.live("streams of different confirmations holding a wallet: one scan per confirmations value, each reading what its streams want", () =>
    withApi(async (api) => {
      for (const [confirmations, events] of [[0, ["nft.received"]], [12, ["trade.sold"]], [12, ["nft.sent"]]] as const) {
        const { body: stream } = await api.call("POST", "/v1/streams", { body: { url: receiver, events, confirmations, chains: ["eth"] } })
        await api.run(StreamStore.use((streams) => streams.addWallets(stream.id, [evm(alice)], [0n])))
      }
      assert.deepStrictEqual((await api.run(planOf("0x1"))).scans, [
        { confirmations: 0, readings: ["transfers"], wallets: [alice.toLowerCase()] },
        { confirmations: 12, readings: ["transfers", "trades"], wallets: [alice.toLowerCase()] }
      ])
    }))
})
