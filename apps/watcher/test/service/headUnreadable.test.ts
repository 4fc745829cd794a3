/**
 * Adding the first wallets of a chain reads its head (SERVE.md, the management API): when the
 * chain cannot be read, the answer is a 503 naming the chain, and nothing is stored (no wallet, no
 * checkpoint, no coverage), whether the chain is an EVM one or Aptos, alone or with another.
 */
import { assert, describe, it } from "@effect/vitest"
import { rowsOf, withApi } from "./support/apiFixtures.js"

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
})
