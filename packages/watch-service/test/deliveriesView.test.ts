/**
 * `GET …/deliveries` shows each batch as its receiver gets it (SERVE.md, the management API): its
 * sequence, events, and the blocks it covers per chain, by the chain's name, as decimal strings.
 * Over the real API and stores: a wallet added as a user does, the scan moved on, an event found.
 */
import { WatchEvent } from "@chainquery/watch"
import { assert, describe, it } from "@effect/vitest"
import { alice, nftTransfer } from "../../watch/test/fixtures.js"
import { withApi } from "./support/apiFixtures.js"
import { scannedAllTo } from "./support/checkpoints.js"
import { enqueue } from "./support/storeFixtures.js"

const receiver = "http://127.0.0.1:9/hook"

describe("the deliveries list", () => {
  it.live("shows a batch's coverage per chain by name, blocks as decimal strings", () =>
    withApi(async (api) => {
      const { body: stream } = await api.call("POST", "/v1/streams", { body: { url: receiver, events: ["nft.received"] } })
      const added = await api.call("POST", `/v1/streams/${stream.id}/wallets`, { body: { wallets: [`eth:${alice}`] } })
      const from = BigInt(added.body.coverage[0].coveredFrom)
      // The scan read on to five blocks past the wallet's start, and found alice's transfer at its start.
      await api.run(scannedAllTo("scan:0x1:0", from + 4n))
      const event = WatchEvent.fromNftTransfer("0x1", alice, nftTransfer({ block_number: String(from) }))[0]!
      assert.deepStrictEqual(await api.run(enqueue([event])), [stream.id])
      const [delivery] = (await api.call("GET", `/v1/streams/${stream.id}/deliveries`)).body.deliveries
      assert.deepStrictEqual(
        [delivery.sequence, delivery.events, delivery.coverage, delivery.replaces],
        [1, 1, [{ chain: "eth", from: String(from), to: String(from + 4n) }], []]
      )
    }))
})
