/**
 * `PATCH` and `DELETE` of a stream over the real API and stores (SERVE.md, the management API):
 * each field of a change is stored alone, the others kept (lists deduplicated, `updatedAt` moved);
 * a chain left ends the stream's coverage there; `DELETE` takes the stream's wallets, events,
 * deliveries, attempts and coverage with it (another stream's stay), and its wallets leave the scans.
 */
import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect } from "effect"
import { DeliveryStore } from "../src/store/DeliveryStore.js"
import { aliceStream, planOf, rowsOf, withApi } from "./support/apiFixtures.js"
import { enqueue, transfers } from "./support/storeFixtures.js"

const receiver = "http://127.0.0.1:9/hook"
const address = "0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed"
const polygon = "polygon:0xfb6916095ca1df60bb79ce92ce3ea74c37c5d359"

/** The tables that hold a stream's rows. */
const tables = ["stream_wallets", "stream_events", "deliveries", "delivery_attempts", "stream_coverage"] as const

describe("PATCH and DELETE of a stream", () => {
  it.live("PATCH: each field alone is stored, the others kept; lists deduplicated; updatedAt moves", () =>
    withApi(async (api) => {
      const { body: created } = await api.call("POST", "/v1/streams", {
        body: { url: receiver, description: "first", events: ["nft.received"], chains: ["eth"], confirmations: 3 }
      })
      const view = { url: created.url, description: created.description, events: created.events, chains: created.chains, confirmations: 3, status: "active" }
      const changes = [
        [{ url: "https://example.com/new" }, { url: "https://example.com/new" }],
        [{ description: "second" }, { description: "second" }],
        [{ description: "" }, { description: "" }],
        [{ events: ["trade.sold", "nft.sent", "trade.sold"] }, { events: ["trade.sold", "nft.sent"] }],
        [{ chains: ["base", "aptos", "base"] }, { chains: ["base", "aptos"] }],
        [{}, {}]
      ] as const
      let current = { ...view } as Record<string, unknown>
      let updatedAt: string = created.updatedAt
      for (const [change, effect] of changes) {
        await Effect.runPromise(Effect.sleep(Duration.millis(5)))
        const answer = await api.call("PATCH", `/v1/streams/${created.id}`, { body: change })
        assert.strictEqual(answer.status, 200, answer.text)
        current = { ...current, ...effect }
        const read = (await api.call("GET", `/v1/streams/${created.id}`)).body
        for (const body of [answer.body, read]) {
          assert.deepStrictEqual(
            { url: body.url, description: body.description, events: body.events, chains: body.chains, confirmations: body.confirmations, status: body.status },
            current,
            JSON.stringify(change)
          )
        }
        assert.isAbove(Date.parse(answer.body.updatedAt), Date.parse(updatedAt), `updatedAt moves (${JSON.stringify(change)})`)
        assert.strictEqual(answer.body.createdAt, created.createdAt)
        updatedAt = answer.body.updatedAt
      }
    }))

  it.live("PATCH of chains: the coverage of a chain left ends, that of a chain kept stays", () =>
    withApi(async (api) => {
      const { body: stream } = await api.call("POST", "/v1/streams", { body: { url: receiver, chains: ["eth", "polygon"] } })
      await api.call("POST", `/v1/streams/${stream.id}/wallets`, { body: { wallets: [`eth,polygon:${address}`] } })
      const chainsOf = async () => (await api.call("GET", `/v1/streams/${stream.id}/stats`)).body.coverage.map((c: { chain: string }) => c.chain)
      assert.deepStrictEqual(await chainsOf(), ["eth", "polygon"])
      await api.call("PATCH", `/v1/streams/${stream.id}`, { body: { chains: ["polygon"] } })
      assert.deepStrictEqual(await chainsOf(), ["polygon"])
      await api.call("PATCH", `/v1/streams/${stream.id}`, { body: { description: "no chains given" } })
      assert.deepStrictEqual(await chainsOf(), ["polygon"], "a change without chains leaves the coverage")
    }))

  it.live("DELETE takes the stream's wallets, events, deliveries, attempts and coverage, and its wallets leave the scans; another stream's stay", () =>
    withApi(async (api) => {
      const ids: Array<string> = []
      for (let i = 0; i < 2; i++) {
        // alice covered from block 0 (the events' blocks), and a wallet on polygon added as a user does (its coverage starts).
        ids.push(await aliceStream(api, [polygon]))
      }
      await api.run(enqueue(transfers(2)))
      await api.run(Effect.gen(function*() {
        const deliveries = yield* DeliveryStore
        for (const id of ids) {
          const next = yield* deliveries.next(id)
          if (next._tag === "Some") yield* deliveries.record(next.value.delivery, { result: "retry", status: 500, error: "HTTP 500" }, [Duration.seconds(1)])
        }
      }))
      const [removed, kept] = ids as [string, string]
      const before = await api.run(Effect.forEach(tables, (table) => rowsOf(table, removed)))
      assert.deepStrictEqual(before, [2, 2, 1, 1, 1], `the stream has rows in ${tables.join(", ")}`)
      const version = (await api.run(planOf("0x1"))).version
      const answer = await api.call("DELETE", `/v1/streams/${removed}`)
      assert.strictEqual(answer.status, 204, answer.text)
      assert.deepStrictEqual(await api.run(Effect.forEach(tables, (table) => rowsOf(table, removed))), [0, 0, 0, 0, 0])
      assert.deepStrictEqual(await api.run(Effect.forEach(tables, (table) => rowsOf(table, kept))), before, "the other stream's rows stay")
      const plan = await api.run(planOf("0x1"))
      assert.notStrictEqual(plan.version, version, "the scans re-plan")
      await api.call("DELETE", `/v1/streams/${kept}`)
      assert.deepStrictEqual((await api.run(planOf("0x1"))).scans, [], "no scan watches the wallets of deleted streams")
    }))
})
