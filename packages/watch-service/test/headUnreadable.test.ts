/**
 * Adding the first wallets of a chain reads its head (SERVE.md, the management API): when the
 * chain cannot be read, the answer is a 503 naming the chain, and nothing is stored (no wallet, no
 * checkpoint, no coverage), whether the chain is an EVM one or Aptos, alone or with another. An
 * EVM chain a scan of the stream's confirmations reads already is not read: its wallets join the
 * scan, added while the chain cannot be read.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import * as Coverage from "../src/store/Coverage.js"
import { StreamStore } from "../src/store/StreamStore.js"
import { rowsOf, withApi } from "./support/apiFixtures.js"
import { evm } from "./support/storeFixtures.js"
import { alice } from "../../watch/test/fixtures.js"

const receiver = "http://127.0.0.1:9/hook"
const eth = "eth:0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed"

describe("a chain's head that cannot be read", () => {
  it.live("is a 503 naming the chain, with nothing stored", () =>
    withApi(async (api) => {
      const { body: stream } = await api.call("POST", "/v1/streams", { body: { url: receiver } })
      for (const wallets of [[eth], ["aptos:0x1"], [eth, "polygon:0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed"]]) {
        const answer = await api.call("POST", `/v1/streams/${stream.id}/wallets`, { body: { wallets } })
        assert.strictEqual(answer.status, 503, answer.text)
        assert.strictEqual(answer.body.error, "unavailable")
        assert.match(answer.body.message, /^cannot read the head of (eth|aptos): .*; nothing was stored, try again$/)
      }
      for (const table of ["stream_wallets", "stream_coverage", "watch_checkpoints"]) {
        assert.strictEqual(await api.run(rowsOf(table, table === "watch_checkpoints" ? undefined : stream.id)), 0, `nothing in ${table}`)
      }
      assert.strictEqual((await api.call("GET", `/v1/streams/${stream.id}/wallets`)).body.wallets.length, 0)
    }, { chainsDown: true }))

  it.live("is not read on an EVM chain a scan of the stream's confirmations reads: the wallets join the scan", () =>
    withApi(async (api) => {
      const { body: stream } = await api.call("POST", "/v1/streams", { body: { url: receiver } })
      // alice's addition, as an earlier request made it while the chain could be read: the scan has her at 18,000,000.
      await api.run(Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const streams = yield* StreamStore
        yield* sql.withTransaction(Effect.gen(function*() {
          assert.isTrue(yield* streams.lock(stream.id))
          const coveredFrom = yield* Coverage.admit(stream.id, 0, [evm(alice)], () => Effect.succeed(18_000_000n))
          yield* streams.addWallets(stream.id, [evm(alice)], coveredFrom)
        }))
      }))
      const added = await api.call("POST", `/v1/streams/${stream.id}/wallets`, { body: { wallets: [eth] } })
      assert.strictEqual(added.status, 200, added.text)
      assert.deepStrictEqual(added.body.coverage, [{ wallet: eth, coveredFrom: "18000001", history: null }], "from the scan's lowest checkpoint, no head read")
      // Aptos is read for each addition (a later wallet never starts below its head): still a 503 there.
      assert.strictEqual((await api.call("POST", `/v1/streams/${stream.id}/wallets`, { body: { wallets: ["aptos:0x1"] } })).status, 503)
    }, { chainsDown: true }))
})
