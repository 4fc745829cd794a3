/**
 * The stream methods against the simulator over HTTP: A1 to A5 walked as streams equal the
 * ground truth (no duplicate, no miss) while blocks arrive; A2 and A4 split into block sub-ranges
 * return exactly the sequential walk, in order; resume from a saved cursor; a failing page carries
 * where to resume; prefetch stays within its bound; empty and single-page listings.
 */
import { Simulator } from "@chainquery/simulator"
import { assert, describe, layer } from "@effect/vitest"
import { Effect, Option, Schedule, Stream } from "effect"
import { EvmClient } from "../src/index.js"
import { busiest, type Sim, simulatorWithClient, stats } from "./support/fixtures.js"

const transferKey = (t: { readonly transaction_hash: string; readonly log_index: number }) => `${t.transaction_hash}:${t.log_index}`
const tradeKey = (t: { readonly block: bigint | number; readonly hash: string }) => `${t.block}:${t.hash}`

/** Ground truth: the transfers of an index list at or before `snapshot`, as keys. */
const truthOf = (sim: Sim, ids: ReadonlyArray<number>, snapshot: number) => {
  const chain = sim.world.evm.chain("0x1")
  return ids.filter((i) => chain.transfers[i]!.block <= snapshot).map((i) => `${chain.transfers[i]!.txHash}:${chain.transfers[i]!.logIndex}`)
}

describe("EvmClient streams", () => {
  layer(simulatorWithClient({ seed: 31, indexing: false, history: 60 }), { excludeTestServices: true })((test) => {
    test.effect("A1, A2, A3 stream completely and once while blocks arrive", () =>
      Effect.gen(function*() {
        const client = yield* EvmClient.EvmClient
        const sim = yield* Simulator.Simulator
        const { chain, wallet, contract, tokenId } = busiest(sim)
        const snapshot = chain.head
        const advancing = <A, E>(stream: Stream.Stream<A, E>) =>
          stream.pipe(Stream.tap(() => Effect.andThen(sim.advance(1), Effect.void)), Stream.runCollect)

        const a2 = yield* advancing(client.streamWalletNFTTransfers({ address: wallet, chain: "eth", limit: 9 }))
        assert.deepStrictEqual(a2.map(transferKey).toSorted(), truthOf(sim, chain.transfersByWallet.get(wallet)!, snapshot).toSorted())
        assert.strictEqual(new Set(a2.map(transferKey)).size, a2.length)

        const a3 = yield* Stream.runCollect(client.streamNFTTransfers({ address: contract, tokenId, chain: "eth", limit: 2 }))
        assert.deepStrictEqual(a3.map(transferKey).toSorted(), truthOf(sim, chain.transfersByToken.get(`${contract}:${tokenId}`)!, chain.head).toSorted())

        // A1 on the block with the most transfers, two a page: the records themselves, in the
        // service's order (ascending log order), equal the block's transfers in the world and the
        // pages read one by one with their cursors.
        const row = chain.blocks.toSorted((a, b) => (b.transferEnd - b.transferStart) - (a.transferEnd - a.transferStart))[0]!
        const truth = Array.from({ length: row.transferEnd - row.transferStart }, (_, i) => chain.transfers[row.transferStart + i]!)
          .map((t) => `${t.txHash}:${t.logIndex}`)
        assert.isTrue(truth.length >= 5, `at least three pages (${truth.length} transfers)`)
        const a1 = yield* Stream.runCollect(client.streamNFTTransfersByBlock({ block: row.number, chain: "eth", limit: 2 }))
        assert.deepStrictEqual(a1.map(transferKey), truth)
        const pages: Array<string> = []
        let cursor: string | undefined
        do {
          const page = yield* client.getNFTTransfersByBlock({ block: row.number, chain: "eth", limit: 2, ...(cursor === undefined ? {} : { cursor }) })
          pages.push(...page.result.map(transferKey))
          cursor = Option.getOrUndefined(page.cursor)
        } while (cursor !== undefined)
        assert.deepStrictEqual(a1.map(transferKey), pages)
      }))

    test.effect("A4 and A5 stream completely", () =>
      Effect.gen(function*() {
        const client = yield* EvmClient.EvmClient
        const sim = yield* Simulator.Simulator
        const { chain, trader, contract } = busiest(sim)
        const a4 = yield* Stream.runCollect(client.streamNFTTradesByWallet({ address: trader, chain: "eth", limit: 2 }))
        const trades = chain.tradesByWallet.get(trader)!.map((i) => chain.trades[i]!)
        assert.isTrue(trades.length > 4, "more than two pages")
        assert.deepStrictEqual(
          a4.map((t) => tradeKey({ block: t.block_number, hash: t.transaction_hash })).toSorted(),
          trades.map((t) => tradeKey({ block: t.block, hash: t.txHash })).toSorted()
        )
        const a5 = yield* Stream.runCollect(client.streamNFTOwners({ address: contract, chain: "eth", limit: 7 }))
        const page = yield* client.getNFTOwners({ address: contract, chain: "eth", limit: 100 })
        assert.deepStrictEqual(a5.slice(0, 100).map((o) => `${o.token_id}:${o.owner_of}`), page.result.map((o) => `${o.token_id}:${o.owner_of}`))
      }))

    test.effect("A2 and A4 split into 8 block sub-ranges return the sequential walk, in order", () =>
      Effect.gen(function*() {
        const client = yield* EvmClient.EvmClient
        const sim = yield* Simulator.Simulator
        const { chain, wallet, trader } = busiest(sim)
        const range = { fromBlock: chain.profile.firstBlock, toBlock: chain.head }
        const sequential = yield* Stream.runCollect(client.streamWalletNFTTransfers({ address: wallet, chain: "eth", limit: 5, ...range }))
        const parallel = yield* Stream.runCollect(client.streamWalletNFTTransfers({ address: wallet, chain: "eth", limit: 5, ...range }, { parts: 8 }))
        assert.isTrue(sequential.length > 20)
        assert.deepStrictEqual(parallel.map(transferKey), sequential.map(transferKey))
        const ascending = yield* Stream.runCollect(client.streamWalletNFTTransfers({ address: wallet, chain: "eth", limit: 5, order: "ASC", ...range }, { parts: 3 }))
        assert.deepStrictEqual(ascending.map(transferKey), sequential.map(transferKey).toReversed())
        const trades = yield* Stream.runCollect(client.streamNFTTradesByWallet({ address: trader, chain: "eth", limit: 2, ...range }))
        const tradesParallel = yield* Stream.runCollect(client.streamNFTTradesByWallet({ address: trader, chain: "eth", limit: 2, ...range }, { parts: 4 }))
        assert.deepStrictEqual(tradesParallel.map((t) => t.transaction_hash), trades.map((t) => t.transaction_hash))
        const refused = yield* Effect.flip(Stream.runDrain(client.streamWalletNFTTransfers({ address: wallet, chain: "eth" }, { parts: 4 })))
        assert.strictEqual(refused.cause._tag, "InvalidInput")
      }))

    test.effect("resume from a saved cursor; a failing page carries where to resume", () =>
      Effect.gen(function*() {
        const client = yield* EvmClient.EvmClient
        const sim = yield* Simulator.Simulator
        const { wallet } = busiest(sim)
        const params = { address: wallet, chain: "eth" as const, limit: 4, toBlock: sim.world.evm.chain("0x1").head }
        const all = yield* Stream.runCollect(client.streamWalletNFTTransfers(params))
        const first = yield* client.getWalletNFTTransfers(params)
        const rest = yield* Stream.runCollect(client.streamWalletNFTTransfers(params, { startCursor: Option.getOrThrow(first.cursor) }))
        assert.deepStrictEqual([...first.result, ...rest].map(transferKey), all.map(transferKey))

        const delivered: Array<string> = []
        const error = yield* client.streamWalletNFTTransfers(params, { call: { retry: { times: 0 } } }).pipe(
          Stream.tap((t) =>
            Effect.gen(function*() {
              delivered.push(transferKey(t))
              if (delivered.length === 8) yield* Effect.orDie(sim.setFaults({ serverError: { probability: 1, statuses: [503] } }))
            })
          ),
          Stream.runDrain,
          Effect.flip
        )
        yield* Effect.orDie(sim.setFaults({}))
        assert.strictEqual(error.cause._tag, "ServerError")
        assert.strictEqual(error.pagesRead, 2)
        const resumed = yield* Stream.runCollect(client.streamWalletNFTTransfers(params, { startCursor: Option.getOrThrow(error.resumeFrom) }))
        assert.deepStrictEqual([...delivered, ...resumed.map(transferKey)], all.map(transferKey))
      }))

    test.effect("prefetch(2) runs ahead of the consumer, by at most two pages", () =>
      Effect.gen(function*() {
        const client = yield* EvmClient.EvmClient
        const sim = yield* Simulator.Simulator
        const { wallet } = busiest(sim)
        const requested = Effect.map(stats(sim), (s) => s.requests.byOperation.getWalletNFTTransfers ?? 0)
        const before = yield* requested
        const ahead: Array<number> = []
        let consumed = 0
        yield* client.streamWalletNFTTransfers({ address: wallet, chain: "eth", limit: 5 }, { prefetch: 2 }).pipe(
          Stream.runForEach(() =>
            Effect.gen(function*() {
              consumed++
              if (consumed % 5 === 1) {
                // Paused on a page: wait (at most 1 s) for the prefetch to fill, then a little
                // longer, in case it goes past its bound.
                const pages = Math.ceil(consumed / 5)
                yield* requested.pipe(
                  Effect.repeat({ schedule: Schedule.spaced("5 millis"), until: (n) => n - before - pages >= 2 }),
                  Effect.timeoutOption("1 second")
                )
                yield* Effect.sleep("20 millis")
                ahead.push((yield* requested) - before - pages)
              }
            })
          )
        )
        assert.isTrue(ahead.length > 5)
        assert.isTrue(Math.max(...ahead) <= 2, `pages requested ahead: ${ahead.join(",")}`)
        assert.isTrue(Math.max(...ahead) >= 1, "prefetch did run ahead")
      }))

    test.effect("empty and single-page listings", () =>
      Effect.gen(function*() {
        const client = yield* EvmClient.EvmClient
        const none = yield* Stream.runCollect(client.streamWalletNFTTransfers({ address: "0x000000000000000000000000000000000000dEaD", chain: "eth" }))
        assert.deepStrictEqual(none, [])
        const sim = yield* Simulator.Simulator
        const { block } = busiest(sim)
        const one = yield* Stream.runCollect(client.streamNFTTransfersByBlock({ block, chain: "eth", limit: 100 }))
        const page = yield* client.getNFTTransfersByBlock({ block, chain: "eth", limit: 100 })
        assert.isTrue(Option.isNone(page.cursor))
        assert.deepStrictEqual(one.map(transferKey), page.result.map(transferKey))
      }))
  })
})
