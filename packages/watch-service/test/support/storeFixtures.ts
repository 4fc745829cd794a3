/**
 * What the tests of the outbox and the deliveries store share: the stores over a fresh, migrated
 * PostgreSQL database (one per test), streams made in one call, distinct real events, the scan's
 * `enqueue` in its transaction, and the rows as stored, read back in order.
 */
import { type AptosAddress, EvmAddress } from "@chainquery/schema"
import { type WatchedWallet, WatchEvent } from "@chainquery/watch"
import { NodeCrypto } from "@effect/platform-node"
import { Effect, Layer, Redacted, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { alice, nftTransfer } from "../../../watch/test/fixtures.js"
import { freshDatabase } from "../../../watch/test/support/postgres.js"
import { DeliveryStore } from "../../src/store/DeliveryStore.js"
import * as Outbox from "../../src/store/Outbox.js"
import * as ServiceMigrations from "../../src/store/ServiceMigrations.js"
import { StreamSecrets } from "../../src/store/StreamSecrets.js"
import { type Settings, StreamStore } from "../../src/store/StreamStore.js"

/** The streams' secrets, stored as they are (no key), on the context's `SqlClient`. */
export const plainSecrets: Layer.Layer<StreamSecrets, never, SqlClient.SqlClient> = StreamSecrets.layer(undefined).pipe(
  Layer.provide(Layer.merge(NodeCrypto.layerAead, NodeCrypto.layerSecureRandom))
)

/** The two stores and the `SqlClient` over a fresh database, migrated, dropped when released. */
export const storeLayer: Layer.Layer<StreamStore | DeliveryStore | SqlClient.SqlClient, unknown> = Layer.mergeAll(
  StreamStore.layer,
  DeliveryStore.layer
).pipe(
  Layer.provide(plainSecrets),
  Layer.provideMerge(Layer.effectDiscard(ServiceMigrations.run).pipe(Layer.provideMerge(freshDatabase)))
)

/** Runs a test's effect over its own fresh database. */
export const withStores = <A, E>(self: Effect.Effect<A, E, StreamStore | DeliveryStore | SqlClient.SqlClient>): Effect.Effect<A> =>
  self.pipe(Effect.provide(storeLayer), Effect.orDie)

/** A third EVM address, which no event of these tests names. */
export const carol = Schema.decodeUnknownSync(EvmAddress.EvmAddress)("0x" + "ca".repeat(20))

/** An EVM wallet (on Ethereum unless told). */
export const evm = (address: EvmAddress.EvmAddress, chain: "0x1" | "0x89" = "0x1"): WatchedWallet.WatchedWallet => ({ family: "evm", chain, address })

/** An Aptos wallet. */
export const aptos = (address: AptosAddress.AptosAddress, network: "mainnet" | "testnet"): WatchedWallet.WatchedWallet => ({
  family: "aptos",
  network,
  address
})

const defaults: Settings = { url: "https://example.com/hook", description: "", events: null, scopes: null, confirmations: 0 }

/** A stream holding `wallets`, with the settings given (all kinds, all chains, 0 confirmations otherwise); its id. */
export const makeStream = (wallets: ReadonlyArray<WatchedWallet.WatchedWallet>, settings: Partial<Settings> = {}) =>
  Effect.gen(function*() {
    const streams = yield* StreamStore
    const stream = yield* streams.create({ ...defaults, ...settings }, Redacted.make("whsec_test"))
    if (wallets.length > 0) yield* streams.addWallets(stream.id, wallets)
    return stream.id
  })

/**
 * `count` distinct NFT transfers from bob to alice on `chain` (log indexes `from`, `from + 1`, …),
 * as the events of `wallet` (alice: `nft.received`, bob: `nft.sent`).
 */
export const transfers = (
  count: number,
  options: { readonly from?: number; readonly wallet?: EvmAddress.EvmAddress; readonly chain?: "0x1" | "0x89" } = {}
): ReadonlyArray<WatchEvent.WatchEvent> =>
  Array.from({ length: count }, (_, index) =>
    WatchEvent.fromNftTransfer(options.chain ?? "0x1", options.wallet ?? alice, nftTransfer({ log_index: (options.from ?? 0) + index }))[0]!)

/** The scan's commit: `Outbox.enqueue` in a transaction; the woken stream ids, sorted. */
export const enqueue = (events: ReadonlyArray<WatchEvent.WatchEvent>, confirmations = 0) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => sql.withTransaction(Outbox.enqueue({ scope: "0x1", confirmations, events }))).pipe(
    Effect.map((ids) => ids.toSorted())
  )

/** A stream's stored events, by position. */
export const storedEvents = (streamId: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ position: string; event_id: string; body: string }>`SELECT position::text, event_id, body FROM stream_events
      WHERE stream_id = ${streamId} ORDER BY stream_events.position`)

/** A stream's stored deliveries, by sequence: [sequence, first position, last position, events, replay]. */
export const storedDeliveries = (streamId: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ sequence: number; first: number; last: number; count: number; replay: boolean }>`SELECT sequence::int, first_position::int AS first,
        last_position::int AS last, event_count AS count, replay FROM deliveries WHERE stream_id = ${streamId} ORDER BY deliveries.sequence`).pipe(
    Effect.map((rows) => rows.map((row) => [row.sequence, row.first, row.last, row.count, row.replay] as const))
  )

/** A stream's counters: [next position, next sequence]. */
export const counters = (streamId: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ position: number; sequence: number }>`SELECT next_position::int AS position, next_sequence::int AS sequence FROM streams
      WHERE id = ${streamId}`).pipe(Effect.map((rows) => [rows[0]!.position, rows[0]!.sequence] as const))
