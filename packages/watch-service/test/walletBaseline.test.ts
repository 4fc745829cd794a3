/**
 * Where the API starts new wallets (SERVE.md, "A wallet is covered from the block after its first
 * checkpoint"), over the real API, stores and the simulator's chains: on a chain no scan of the
 * stream's confirmations reads yet, from the safe head (a stream with confirmations starts that
 * many blocks lower); on Aptos, a later wallet never starts below the Aptos head read for it, even
 * where a scan reads already; a wallet an older service stored without the block is answered
 * with `coveredFrom: null` when added again.
 */
import { assert, describe, it } from "@effect/vitest"
import { StreamStore } from "../src/store/StreamStore.js"
import { withApi } from "./support/apiFixtures.js"
import { evm } from "./support/storeFixtures.js"
import { alice } from "../../watch/test/fixtures.js"

const receiver = "http://127.0.0.1:9/hook"

describe("the block a new wallet is covered from", () => {
  it.live("on a chain no scan reads: the head, lower by the stream's confirmations", () =>
    withApi(async (api) => {
      const coveredFrom: Array<bigint> = []
      for (const confirmations of [0, 12]) {
        const { body: stream } = await api.call("POST", "/v1/streams", { body: { url: receiver, confirmations } })
        const added = await api.call("POST", `/v1/streams/${stream.id}/wallets`, { body: { wallets: ["eth:0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed"] } })
        assert.strictEqual(added.status, 200, added.text)
        coveredFrom.push(BigInt(added.body.coverage[0].coveredFrom))
      }
      const [shallow, deep] = coveredFrom as [bigint, bigint]
      // The simulator's head may move between the two requests; the deep stream starts 12 blocks lower than the head then.
      assert.isTrue(shallow - deep >= 12n && shallow - deep <= 14n, `0 confirmations from ${shallow}, 12 from ${deep}`)
    }))

  it.live("on Aptos, a wallet added where a scan reads already starts from the head read for it, not below the others", () =>
    withApi(async (api) => {
      const { body: stream } = await api.call("POST", "/v1/streams", { body: { url: receiver, chains: ["aptos"] } })
      const first = await api.call("POST", `/v1/streams/${stream.id}/wallets`, { body: { wallets: ["aptos:0x1"] } })
      const second = await api.call("POST", `/v1/streams/${stream.id}/wallets`, { body: { wallets: ["aptos:0x2"] } })
      assert.strictEqual(second.status, 200, second.text)
      const [a, b] = [BigInt(first.body.coverage[0].coveredFrom), BigInt(second.body.coverage[0].coveredFrom)]
      assert.isTrue(b >= a, `the second wallet from ${b}, not below the first's ${a}`)
    }))

  it.live("a wallet stored by an older service, without its block, is answered with coveredFrom null when added again", () =>
    withApi(async (api) => {
      const { body: stream } = await api.call("POST", "/v1/streams", { body: { url: receiver, chains: ["eth"] } })
      await api.run(StreamStore.use((streams) => streams.addWallets(stream.id, [evm(alice)])))
      const again = await api.call("POST", `/v1/streams/${stream.id}/wallets`, { body: { wallets: [`eth:${alice}`] } })
      assert.strictEqual(again.status, 200, again.text)
      assert.deepStrictEqual([again.body.added, again.body.coverage], [0, [{ wallet: `eth:${alice.toLowerCase()}`, coveredFrom: null, history: null }]])
    }))
})
