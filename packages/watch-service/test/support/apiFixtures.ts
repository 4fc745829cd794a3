/**
 * What the tests of the management API share: a fresh API per test (`withApi`), a stream holding
 * alice (`aliceStream`), the scanners' plan of a chain as the scanner reads it (`planOf`) and row
 * counts.
 */
import { assert } from "@effect/vitest"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { alice } from "../../../watch/test/fixtures.js"
import { readingsFor } from "../../src/scan/Scanner.js"
import type { Scope } from "../../src/model/Scopes.js"
import { StreamStore } from "../../src/store/StreamStore.js"
import { type Api, serviceApi } from "../serviceHarness.js"
import { type Hit, refusedUrl, scriptedReceiver } from "./scriptedReceiver.js"
import { evm } from "./storeFixtures.js"

/** Runs `body` with a fresh service API and a receiver on 127.0.0.1 answering `answers` in turn, then 200. */
export const withReceiver = (
  body: (api: Api, receiver: { readonly url: string; readonly hits: ReadonlyArray<Hit> }) => Promise<void>,
  answers: Array<number> = []
) =>
  Effect.scoped(Effect.gen(function*() {
    const scripted = yield* scriptedReceiver({ answer: () => answers.shift() ?? 200 })
    const api = yield* serviceApi()
    yield* Effect.promise(() => body(api, { url: scripted.url("/hook"), hits: scripted.hits }))
  }))

/** Runs `body` with a fresh service API (options as `serviceApi`'s). */
export const withApi = (body: (api: Api) => Promise<void>, options?: Parameters<typeof serviceApi>[0]) =>
  Effect.scoped(Effect.flatMap(serviceApi(options), (api) => Effect.promise(() => body(api))))

/**
 * What the scanner of `scope` plans from (`Scanner.run`): the wallets' version it re-plans on, and
 * the scans it then runs (confirmations, the engine's readings) with the wallets each watches.
 */
export const planOf = (scope: Scope) =>
  Effect.gen(function*() {
    const streams = yield* StreamStore
    const version = yield* streams.walletsVersion
    const scans = yield* Effect.forEach(yield* streams.scansOn(scope), ({ confirmations, kinds }) =>
      Effect.map(streams.watched(scope, confirmations), (wallets) => ({
        confirmations,
        readings: readingsFor(kinds),
        wallets: wallets.map((wallet): string => wallet.address)
      })))
    return { version, scans }
  })

/** How many rows `table` has (those of `streamId` when given). */
export const rowsOf = (table: string, streamId?: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ n: number }>`SELECT count(*)::int AS n FROM ${sql(table)}
      WHERE ${streamId === undefined ? sql.literal("true") : sql`stream_id = ${streamId}`}`).pipe(Effect.map((rows) => rows[0]!.n))

/** A stream of `nft.received` to `url` made through the API, holding alice on eth (covered from any block); its id and secret. */
export const aliceStreamTo = async (api: Api, url: string): Promise<{ readonly id: string; readonly secret: string }> => {
  const created = await api.call("POST", "/v1/streams", { body: { url, events: ["nft.received"] } })
  assert.strictEqual(created.status, 201, created.text)
  await api.run(StreamStore.use((streams) => streams.addWallets(created.body.id, [evm(alice)])))
  return { id: created.body.id, secret: created.body.secret }
}

/**
 * A stream of `nft.received` (to a port nobody listens on) holding alice on eth, covered from block
 * 0 (the blocks of the fixtures' events), and `specs` added as a user adds them; its id.
 */
export const aliceStream = async (api: Api, specs: ReadonlyArray<string> = []): Promise<string> => {
  const { body: stream } = await api.call("POST", "/v1/streams", { body: { url: refusedUrl("/hook"), events: ["nft.received"] } })
  await api.run(StreamStore.use((streams) => streams.addWallets(stream.id, [evm(alice)], [0n])))
  if (specs.length > 0) {
    const added = await api.call("POST", `/v1/streams/${stream.id}/wallets`, { body: { wallets: specs } })
    assert.strictEqual(added.status, 200, added.text)
  }
  return stream.id
}
