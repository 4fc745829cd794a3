/**
 * Content filters over the real API and stores, the scan's commit played by `Outbox.enqueue`:
 *
 * - a filtered and an unfiltered stream on the same wallet: the filtered one gets exactly the
 *   events that pass (`contracts`, and `minValue` for trades, per chain), the others are counted
 *   (`/stats`); a commit that leaves it nothing makes it no batch; its first batch states the
 *   filter, the next ones do not;
 * - a PATCH applies from the next commit on, and the stream's next batch states the new filter (a
 *   removed one as `{ contracts: null, minValue: null }`);
 * - on Aptos, a collection id filters the transfers by their `collectionId`;
 * - a filter is answered as stored: contracts in lower case, once each, Aptos ids without `0x`,
 *   `minValue` by chain name;
 * - a bad filter (an unknown field, a malformed contract, more than 1,000, a negative or fractional
 *   `minValue`, an Aptos network, a chain the stream does not receive) is a 400 naming the field,
 *   and nothing is stored.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import { WatchEvent } from "@chainquery/watch"
import { alice, aptosAlice, aptosTransfer, nftTransfer, trade } from "../../watch/test/fixtures.js"
import { DeliveryStore } from "../src/store/DeliveryStore.js"
import { StreamStore } from "../src/store/StreamStore.js"
import type { Api } from "./serviceHarness.js"
import { withApi } from "./support/apiFixtures.js"
import { aptos, enqueue, evm, storedEvents } from "./support/storeFixtures.js"
import * as Outbox from "../src/store/Outbox.js"
import { SqlClient } from "effect/sql"

const kept = "0x" + "c0".repeat(20)
const other = "0x" + "d0".repeat(20)
const ether = 10n ** 18n

let logIndex = 0
let transaction = 0

/** An NFT of `contract` received by alice on eth. */
const received = (contract: string) => WatchEvent.fromNftTransfer("0x1", alice, nftTransfer({ token_address: contract, log_index: logIndex++ }))[0]!

/** A trade of `contract` at `price` (wei) in which alice bought. */
const bought = (contract: string, price: bigint) =>
  WatchEvent.fromTrade("0x1", alice, trade({ token_address: contract, price: String(price), transaction_hash: `0x${(++transaction).toString(16).padStart(64, "0")}` }))[0]!

/** A stream made through the API with `body`, holding alice on eth; its id. */
const streamWith = async (api: Api, body: Record<string, unknown>): Promise<string> => {
  const created = await api.call("POST", "/v1/streams", { body: { url: "http://127.0.0.1:9/hook", ...body } })
  assert.strictEqual(created.status, 201, created.text)
  await api.run(StreamStore.use((streams) => streams.addWallets(created.body.id, [evm(alice)])))
  return created.body.id
}

const idsOf = (events: ReadonlyArray<WatchEvent.WatchEvent>) => events.map((event) => event.id)
const storedIds = async (api: Api, id: string) => (await api.run(storedEvents(id))).map((row) => row.event_id)

/** The filters the stream's deliveries state, by sequence. */
const statedFilters = (api: Api, id: string) =>
  api.run(Effect.flatMap(DeliveryStore, (store) => store.list(id, { limit: 100 }))).then(async (page) => {
    const rows = await Effect.runPromise(api.sql<{ sequence: number; filters: unknown }>`SELECT sequence::int, filters FROM deliveries
      WHERE stream_id = ${id} ORDER BY sequence`)
    assert.strictEqual(rows.length, page.items.length)
    return rows.map((row) => row.filters)
  })

const filteredCount = async (api: Api, id: string): Promise<number> => (await api.call("GET", `/v1/streams/${id}/stats`)).body.filteredEvents

describe("content filters", () => {
  it.live("the filtered stream gets exactly what passes, the rest counted; nothing left, no batch; its first batch states the filter", () =>
    withApi(async (api) => {
      const all = await streamWith(api, { events: ["nft.received", "trade.bought"] })
      const filtered = await streamWith(api, {
        events: ["nft.received", "trade.bought"],
        filters: { contracts: [kept.toUpperCase().replace("0X", "0x")], minValue: { eth: String(ether) } }
      })
      const events = [received(kept), received(other), bought(kept, ether + ether / 2n), bought(kept, ether / 2n), bought(other, 2n * ether), bought(kept, ether)]
      assert.deepStrictEqual(await api.run(enqueue(events)), [all, filtered].toSorted())
      assert.deepStrictEqual(await storedIds(api, all), idsOf(events))
      assert.deepStrictEqual(await storedIds(api, filtered), idsOf([events[0]!, events[2]!, events[5]!]), "its contract, and trades of at least 1 ether")
      assert.strictEqual(await filteredCount(api, filtered), 3)
      assert.strictEqual(await filteredCount(api, all), 0)
      assert.deepStrictEqual(await statedFilters(api, filtered), [{ contracts: [kept], minValue: { "0x1": String(ether) } }])
      assert.deepStrictEqual(await statedFilters(api, all), [null])

      // A commit that leaves the filtered stream nothing makes it no batch.
      assert.deepStrictEqual(await api.run(enqueue([received(other)])), [all])
      assert.strictEqual(await filteredCount(api, filtered), 4)
      assert.strictEqual((await statedFilters(api, filtered)).length, 1)
      assert.deepStrictEqual(await api.run(enqueue([received(kept)])), [all, filtered].toSorted())
      assert.deepStrictEqual(await statedFilters(api, filtered), [{ contracts: [kept], minValue: { "0x1": String(ether) } }, null], "stated once")
      // The body sent states it as the batch's `filters`.
      const next = await api.run(Effect.flatMap(DeliveryStore, (store) => store.next(filtered)))
      assert.isTrue(Option.isSome(next))
      assert.deepStrictEqual(Option.getOrThrow(next).delivery.filters, { contracts: [kept], minValue: { "0x1": ether } })
    }))

  it.live("a PATCH applies from the next commit, and the next batch states it; removed, the next batch says so", () =>
    withApi(async (api) => {
      const id = await streamWith(api, { events: ["nft.received"], filters: { contracts: [kept] } })
      await api.run(enqueue([received(kept), received(other)]))
      const patched = await api.call("PATCH", `/v1/streams/${id}`, { body: { filters: { contracts: [other] } } })
      assert.strictEqual(patched.status, 200, patched.text)
      assert.deepStrictEqual(patched.body.filters, { contracts: [other], minValue: null })
      const [a, b] = [received(kept), received(other)]
      await api.run(enqueue([a!, b!]))
      const removed = await api.call("PATCH", `/v1/streams/${id}`, { body: { filters: null } })
      assert.isNull(removed.body.filters)
      const [c, d] = [received(kept), received(other)]
      await api.run(enqueue([c!, d!]))
      await api.run(enqueue([received(kept)]))
      const ids = await storedIds(api, id)
      assert.deepStrictEqual(ids.slice(1, 4), idsOf([b!, c!, d!]), "the new filter from the commit after the PATCH; none after it is removed")
      assert.deepStrictEqual(await statedFilters(api, id), [
        { contracts: [kept], minValue: null },
        { contracts: [other], minValue: null },
        { contracts: null, minValue: null },
        null
      ])
      // A replay of events sent before states no filter: it applies to what comes.
      await api.call("PATCH", `/v1/streams/${id}`, { body: { filters: { contracts: [kept] } } })
      const replayed = await api.call("POST", `/v1/streams/${id}/replay`, { body: { fromTime: "2020-01-01T00:00:00Z" } })
      assert.strictEqual(replayed.status, 202, replayed.text)
      await api.run(enqueue([received(kept)]))
      const stated = await statedFilters(api, id)
      assert.deepStrictEqual(stated.slice(4, -1), stated.slice(4, -1).map(() => null), "the replay's batches state nothing")
      assert.deepStrictEqual(stated.at(-1), { contracts: [kept], minValue: null }, "the next live batch does")
      // The same filter again is no change: nothing more to state.
      await api.call("PATCH", `/v1/streams/${id}`, { body: { filters: { contracts: [kept.toUpperCase().replace("0X", "0x")] } } })
      await api.run(enqueue([received(kept)]))
      assert.deepStrictEqual((await statedFilters(api, id)).at(-1), null)
    }))

  it.live("on Aptos, a collection id filters the tokens' transfers by their collectionId", () =>
    withApi(async (api) => {
      const created = await api.call("POST", "/v1/streams", {
        body: { url: "http://127.0.0.1:9/hook", chains: ["aptos"], filters: { contracts: [`0x${"CD".repeat(32)}`] } }
      })
      assert.strictEqual(created.status, 201, created.text)
      await api.run(StreamStore.use((streams) => streams.addWallets(created.body.id, [aptos(aptosAlice, "mainnet")])))
      const events = [
        ...WatchEvent.fromAptosTransfer("mainnet", aptosAlice, aptosTransfer({ event_sequence_number: "1" })),
        ...WatchEvent.fromAptosTransfer("mainnet", aptosAlice, aptosTransfer({ event_sequence_number: "2", collection_data_id_hash: "ef".repeat(32) }))
      ]
      const woken = await api.run(Effect.flatMap(SqlClient.SqlClient, (sql) =>
        sql.withTransaction(Outbox.enqueue({ scope: "aptos:mainnet", confirmations: 0, events }))))
      assert.deepStrictEqual(woken, [created.body.id])
      assert.deepStrictEqual(await storedIds(api, created.body.id), [events[0]!.id])
      assert.strictEqual(await filteredCount(api, created.body.id), 1)
    }))

  it.live("answered as stored: lower case, once each, Aptos ids without 0x, minValue by chain name", () =>
    withApi(async (api) => {
      const aptosId = "AB".repeat(32)
      const created = await api.call("POST", "/v1/streams", {
        body: { url: "http://127.0.0.1:9/hook", filters: { contracts: [kept.toUpperCase().replace("0X", "0x"), kept, `0x${aptosId}`], minValue: { ETH: "5", polygon: "0" } } }
      })
      assert.strictEqual(created.status, 201, created.text)
      assert.deepStrictEqual(created.body.filters, { contracts: [kept, aptosId.toLowerCase()], minValue: { eth: "5", polygon: "0" } })
      assert.deepStrictEqual((await api.call("GET", `/v1/streams/${created.body.id}`)).body.filters, created.body.filters)
    }))

  it.live("a bad filter is a 400 naming the field, and nothing is stored", () =>
    withApi(async (api) => {
      const many = Array.from({ length: 1_001 }, (_, index) => `0x${index.toString(16).padStart(40, "0")}`)
      const bad: ReadonlyArray<readonly [unknown, string, ReadonlyArray<string>?]> = [
        [{ contract: [kept] }, "filters.contract"],
        [{ contracts: ["0x123"] }, "filters.contracts[0]"],
        [{ contracts: [kept, "collection"] }, "filters.contracts[1]"],
        [{ contracts: [] }, "filters.contracts"],
        [{ contracts: many }, "filters.contracts"],
        [{ minValue: { eth: "-1" } }, "filters.minValue.eth"],
        [{ minValue: { eth: "1.5" } }, "filters.minValue.eth"],
        [{ minValue: { eth: 5 } }, "filters.minValue.eth"],
        [{ minValue: { aptos: "1" } }, "filters.minValue.aptos"],
        [{ minValue: { mars: "1" } }, "filters.minValue.mars"],
        [{ minValue: {} }, "filters.minValue"],
        [{ minValue: { eth: "1" } }, "filters.minValue.eth", ["polygon"]]
      ]
      const count = async () => (await api.call("GET", "/v1/streams")).body.streams.length
      const existing = await streamWith(api, { chains: ["polygon"], filters: { contracts: [kept] } })
      for (const [filters, field, chains] of bad) {
        const body = { url: "http://127.0.0.1:9/hook", filters, ...(chains === undefined ? {} : { chains }) }
        const refused = await api.call("POST", "/v1/streams", { body })
        assert.strictEqual(refused.status, 400, JSON.stringify(filters))
        assert.strictEqual(refused.body.field, field, refused.text)
        if (chains !== undefined || !field.startsWith("filters.minValue.eth")) {
          const patched = await api.call("PATCH", `/v1/streams/${existing}`, { body: { filters } })
          assert.strictEqual(patched.status, 400, JSON.stringify(filters))
          assert.strictEqual(patched.body.field, field, patched.text)
        }
      }
      assert.strictEqual(await count(), 1, "no stream was created")
      assert.deepStrictEqual((await api.call("GET", `/v1/streams/${existing}`)).body.filters, { contracts: [kept], minValue: null }, "nor changed")
    }))
})
