/**
 * The limits of the management API (SERVE.md): a page holds `limit` items, up to 1000, and 100
 * when `limit` is left out, on each list (streams, wallets, deliveries); `confirmations` is 0 to 64,
 * 0 when left out. Past a limit, a 400 naming the field, and nothing stored.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { alice } from "../../watch/test/fixtures.js"
import { StreamStore } from "../src/store/StreamStore.js"
import { rowsOf, withApi } from "./support/apiFixtures.js"
import { enqueue, evm, transfers } from "./support/storeFixtures.js"

const receiver = "http://127.0.0.1:9/hook"

/** 101 wallets' specs on eth. */
const specs = Array.from({ length: 101 }, (_, i) => `eth:0x${(i + 1).toString(16).padStart(40, "0")}`)

describe("the API's limits", () => {
  it.live("a page holds 100 items when limit is left out, up to 1000 when given, on every list; 0 and 1001 are a 400 naming limit", () =>
    withApi(async (api) => {
      const { body: stream } = await api.call("POST", "/v1/streams", { body: { url: receiver, chains: ["eth"] } })
      assert.strictEqual((await api.call("POST", `/v1/streams/${stream.id}/wallets`, { body: { wallets: specs } })).body.added, 101)
      // 101 deliveries: one per scan of one event.
      await api.run(StreamStore.use((streams) => streams.addWallets(stream.id, [evm(alice)])))
      await api.run(Effect.forEach(Array.from({ length: 101 }, (_, index) => index), (index) => enqueue(transfers(1, { from: index })), { discard: true }))
      for (let i = 0; i < 100; i++) await api.call("POST", "/v1/streams", { body: { url: receiver } })
      const lists = [["/v1/streams", "streams"], [`/v1/streams/${stream.id}/wallets`, "wallets"], [`/v1/streams/${stream.id}/deliveries`, "deliveries"]] as const
      for (const [path, key] of lists) {
        const byDefault = await api.call("GET", path)
        assert.strictEqual(byDefault.status, 200, byDefault.text)
        assert.strictEqual(byDefault.body[key].length, 100, `${path}: 100 by default`)
        assert.isString(byDefault.body.nextCursor, `${path}: more after the default page`)
        const rest = await api.call("GET", `${path}?cursor=${byDefault.body.nextCursor}`)
        assert.strictEqual(rest.body[key].length, key === "wallets" ? 2 : 1, `${path}: the rest after the default page`)
        assert.isNull(rest.body.nextCursor)
        const all = await api.call("GET", `${path}?limit=1000`)
        assert.strictEqual(all.body[key].length, key === "wallets" ? 102 : 101, `${path}: limit=1000`)
        assert.isNull(all.body.nextCursor)
        const exact = await api.call("GET", `${path}?limit=${all.body[key].length}`)
        assert.strictEqual(exact.body[key].length, all.body[key].length)
        assert.isNull(exact.body.nextCursor, `${path}: a page that holds the rest exactly has no next page`)
        for (const limit of [0, 1001, -1]) {
          const refused = await api.call("GET", `${path}?limit=${limit}`)
          assert.strictEqual(refused.status, 400, `${path}?limit=${limit}`)
          assert.strictEqual(refused.body.field, "limit")
          assert.match(refused.body.message, /between 1 and 1000/)
        }
      }
    }))

  it.live("confirmations: 0 when left out, 0 to 64 taken, -1 and 65 a 400 naming confirmations with nothing stored", () =>
    withApi(async (api) => {
      assert.strictEqual((await api.call("POST", "/v1/streams", { body: { url: receiver } })).body.confirmations, 0)
      for (const confirmations of [0, 1, 64]) {
        const created = await api.call("POST", "/v1/streams", { body: { url: receiver, confirmations } })
        assert.strictEqual(created.status, 201, created.text)
        assert.strictEqual(created.body.confirmations, confirmations)
        const same = await api.call("PATCH", `/v1/streams/${created.body.id}`, { body: { confirmations, description: "same depth" } })
        assert.strictEqual(same.status, 200, `a PATCH giving the stream's own confirmations is taken: ${same.text}`)
        assert.strictEqual(same.body.description, "same depth")
      }
      for (const confirmations of [-1, 65]) {
        const refused = await api.call("POST", "/v1/streams", { body: { url: receiver, confirmations } })
        assert.strictEqual(refused.status, 400, `${confirmations}`)
        assert.strictEqual(refused.body.field, "confirmations")
      }
      assert.strictEqual(await api.run(rowsOf("streams")), 4)
    }))
})
