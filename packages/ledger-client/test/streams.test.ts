/**
 * The stream methods against the simulator over HTTP: each of the seven listings walked as a
 * stream equals the ground truth (no duplicate, no miss), parallel offset reads return exactly
 * what the cursor walk returns in the same order, a stream resumes from a saved cursor, a failing
 * page carries the cursor to resume from, and prefetch stays within its bound.
 */
import { Simulator } from "@chainquery/simulator"
import { assert, describe, layer } from "@effect/vitest"
import { Effect, Option, Schedule, Stream } from "effect"
import { LedgerClient } from "../src/index.js"
import { sampleOf, stats, TestLayer } from "./support.js"

const key = (t: { readonly transaction_version: bigint; readonly event_creation_number: bigint; readonly event_sequence_number: bigint; readonly token_data_id_hash: string }) =>
  `${t.transaction_version}:${t.event_creation_number}:${t.event_sequence_number}:${t.token_data_id_hash}`

  /** Reads a listing sequentially and 4 offset windows at a time; both must agree. */
const both = <A>(stream: (options: { readonly concurrency?: number }) => Stream.Stream<A, unknown>) =>
    Effect.gen(function*() {
      const sequential = yield* Stream.runCollect(stream({}))
      const parallel = yield* Stream.runCollect(stream({ concurrency: 4 }))
      assert.deepStrictEqual(parallel, sequential)
      return sequential
    })

describe("LedgerClient streams", () => {
  layer(TestLayer, { excludeTestServices: true })((test) => {
    test.effect("every listing streams completely, once, and parallel reads equal the cursor walk", () =>
      Effect.gen(function*() {
        const client = yield* LedgerClient.LedgerClient
        const sim = yield* Simulator.Simulator
        const world = sim.world.aptos.mainnet
        const sample = yield* sampleOf("mainnet")
        const wallets = sample.wallets.slice(0, 3)
        const snapshot = world.latestVersion()
        const b3 = yield* both((o) => client.streamWalletsNFTTransfers({ walletAddresses: wallets, limit: 7 }, o))
        const b3Truth = world.transfersSince(0n).filter((t) =>
          t.transaction_version <= snapshot && wallets.some((w) => Option.contains(t.from_address, w) || Option.contains(t.to_address, w))
        )
        assert.deepStrictEqual(b3.map(key).toSorted(), b3Truth.map(key).toSorted())
        assert.strictEqual(new Set(b3.map(key)).size, b3.length)

        const b2 = yield* both((o) => client.streamNFTTransfersByCreators({ creatorAddresses: [sample.creators[0]!], limit: 9 }, o))
        const b2Truth = world.transfersSince(0n).filter((t) => t.creator_address === sample.creators[0])
        assert.deepStrictEqual(b2.map(key).toSorted(), b2Truth.map(key).toSorted())

        const b5 = yield* both((o) => client.streamNFTByOwners({ ownerAddresses: [wallets[0]!], limit: 3 }, o))
        assert.deepStrictEqual(
          b5.map((h) => `${h.token_data_id_hash}:${h.amount}`).toSorted(),
          world.holdingsOf(wallets[0]!).map((h) => `${h.token_data_id_hash}:${h.amount}`).toSorted()
        )

        const b1 = yield* both((o) => client.streamNFTOwnersByCollection({ collectionDataIdHash: sample.collections[0]!, limit: 5 }, o))
        assert.isTrue(b1.length > 0 && b1.every((h) => h.collection_data_id_hash === sample.collections[0]))
        const b6 = yield* both((o) => client.streamNFTOwnersByTokens({ tokenIds: sample.tokens.slice(0, 3), limit: 2 }, o))
        assert.isTrue(b6.length > 0 && b6.every((h) => sample.tokens.slice(0, 3).includes(h.token_data_id_hash)))

        const b4 = yield* both((o) => client.streamNFTCollections({ limit: 6 }, o))
        const names = b4.map((c) => c.collection_name)
        assert.deepStrictEqual(names, [...names].toSorted((a, b) => (a < b ? -1 : a > b ? 1 : 0)))
        assert.strictEqual(new Set(b4.map((c) => c.collection_data_id_hash)).size, b4.length)

        const b7 = yield* both((o) => client.streamCoinsByNameRange({ limit: 11 }, o))
        const single = yield* client.getCoinsByNameRange({ limit: 100 })
        assert.deepStrictEqual(b7.slice(0, 100).map((c) => c.coin_type), single.result.map((c) => c.coin_type))
      }))

    test.effect("empty and single-page listings", () =>
      Effect.gen(function*() {
        const client = yield* LedgerClient.LedgerClient
        const none = yield* Stream.runCollect(client.streamNFTByOwners({ ownerAddresses: [`0x${"9".repeat(64)}`], limit: 10 }))
        assert.deepStrictEqual(none, [])
        const one = yield* Stream.runCollect(client.streamCoinsByNameRange({ limit: 100, fromName: "A", toName: "A~" }))
        const page = yield* client.getCoinsByNameRange({ limit: 100, fromName: "A", toName: "A~" })
        assert.isFalse(page.hasNextPage)
        assert.deepStrictEqual(one.map((c) => c.coin_type), page.result.map((c) => c.coin_type))
      }))

    test.effect("a stream resumes from a saved cursor, and a failing page carries where to resume", () =>
      Effect.gen(function*() {
        const client = yield* LedgerClient.LedgerClient
        const sim = yield* Simulator.Simulator
        const all = yield* Stream.runCollect(client.streamNFTCollections({ limit: 5 }))
        const first = yield* client.getNFTCollections({ limit: 5 })
        const second = yield* client.getNFTCollections({ limit: 5, cursor: Option.getOrThrow(first.cursor) })
        const resumed = yield* Stream.runCollect(
          client.streamNFTCollections({ limit: 5 }, { startCursor: Option.getOrThrow(second.cursor) })
        )
        assert.deepStrictEqual([...first.result, ...second.result, ...resumed].map((c) => c.collection_name), all.map((c) => c.collection_name))

        // Fail every page after the second: the error names the cursor after the last good page.
        const delivered: Array<string> = []
        let pages = 0
        const error = yield* client.streamNFTCollections({ limit: 5 }, { call: { retry: { times: 0 } } }).pipe(
          Stream.tap((c) =>
            Effect.gen(function*() {
              delivered.push(c.collection_name)
              if (delivered.length % 5 === 0 && ++pages === 2) {
                yield* Effect.orDie(sim.setFaults({ serverError: { probability: 1, statuses: [500] } }))
              }
            })
          ),
          Stream.runDrain,
          Effect.flip
        )
        yield* Effect.orDie(sim.setFaults({}))
        assert.strictEqual(error._tag, "PageFailed")
        assert.strictEqual(error.cause._tag, "ServerError")
        const rest = yield* Stream.runCollect(client.streamNFTCollections({ limit: 5 }, { startCursor: Option.getOrThrow(error.resumeFrom) }))
        assert.deepStrictEqual([...delivered, ...rest.map((c) => c.collection_name)], all.map((c) => c.collection_name))
      }))

    test.effect("prefetch(2) never requests more than two pages ahead of the consumer", () =>
      Effect.gen(function*() {
        const client = yield* LedgerClient.LedgerClient
        const requestsNow = Effect.map(stats, (s) => s.requests.byOperation.getCoinsByNameRange ?? 0)
        const before = yield* requestsNow
        const ahead: Array<number> = []
        let consumed = 0
        yield* client.streamCoinsByNameRange({ limit: 10 }, { prefetch: 2 }).pipe(
          Stream.rechunk(10),
          Stream.runForEach(() =>
            Effect.gen(function*() {
              consumed++
              if (consumed % 10 === 1) {
                // Paused on a page: wait (at most 1 s) for the prefetch to fill, then a little
                // longer, in case it goes past its bound.
                const pages = Math.ceil(consumed / 10)
                yield* requestsNow.pipe(
                  Effect.repeat({ schedule: Schedule.spaced("5 millis"), until: (n) => n - before - pages >= 2 }),
                  Effect.timeoutOption("1 second")
                )
                yield* Effect.sleep("20 millis")
                ahead.push((yield* requestsNow) - before - pages)
              }
            })
          )
        )
        assert.isTrue(ahead.length > 5)
        assert.isTrue(Math.max(...ahead) <= 2, `pages requested ahead: ${ahead.join(",")}`)
        assert.isTrue(Math.max(...ahead) >= 1, "prefetch did run ahead")
      }))
  })
})
