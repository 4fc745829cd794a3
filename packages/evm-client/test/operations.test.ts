/**
 * The seven operations over real HTTP against the simulator: records decode and belong to what was
 * asked, filters and paging reach the wire, an unknown block is `Option.none()`.
 */
import { Simulator } from "@chainquery/simulator"
import { assert, describe, layer } from "@effect/vitest"
import { DateTime, Effect, Option } from "effect"
import { EvmClient } from "../src/index.js"
import { busiest, simulatorWithClient } from "./support/fixtures.js"

describe("EvmClient operations", () => {
  layer(simulatorWithClient({ seed: 11, indexing: false, history: 40 }), { excludeTestServices: true })((it) => {
    it.effect("A1 getNFTTransfersByBlock: the block's transfers, by number and by hash", () =>
      Effect.gen(function*() {
        const sim = yield* Simulator.Simulator
        const client = yield* EvmClient.EvmClient
        const { chain, block } = busiest(sim)
        const row = chain.block(block)!
        const page = yield* client.getNFTTransfersByBlock({ block, chain: "eth", limit: 100 })
        assert.strictEqual(page.result.length, row.transferEnd - row.transferStart)
        assert.deepStrictEqual(page.rejected, [])
        assert.deepStrictEqual(page.block_exists, Option.some(true))
        assert.isTrue(page.result.every((t) => t.block_number === BigInt(block) && t.block_hash === row.hash))
        const byHash = yield* client.getNFTTransfersByBlock({ block: row.hash.toUpperCase().replace("0X", "0x"), chain: "0x1" })
        assert.deepStrictEqual(byHash.result.map((t) => t.transaction_hash), page.result.map((t) => t.transaction_hash))
        const bigint = yield* client.getNFTTransfersByBlock({ block: BigInt(block), chain: 1, order: "desc" })
        assert.strictEqual(bigint.result.length, page.result.length)
      }))

    it.effect("A2 getWalletNFTTransfers: the wallet's transfers; walking the cursor returns each once", () =>
      Effect.gen(function*() {
        const sim = yield* Simulator.Simulator
        const client = yield* EvmClient.EvmClient
        const { chain, wallet } = busiest(sim)
        const truth = (chain.transfersByWallet.get(wallet) ?? []).map((i) => `${chain.transfers[i]!.txHash}:${chain.transfers[i]!.logIndex}`)
        const seen: Array<string> = []
        let cursor: string | undefined
        let pages = 0
        do {
          const page = yield* client.getWalletNFTTransfers({ address: wallet, chain: "eth", limit: 25, cursor })
          assert.deepStrictEqual(page.rejected, [])
          assert.isTrue(page.result.every((t) => t.from_address === wallet || t.to_address === wallet))
          seen.push(...page.result.map((t) => `${t.transaction_hash}:${t.log_index}`))
          cursor = Option.getOrUndefined(page.cursor)
          pages++
        } while (cursor !== undefined)
        assert.isTrue(pages > 1, "several pages")
        assert.deepStrictEqual(seen.toSorted(), truth.toSorted())
      }))

    it.effect("A2: a checksummed address, two contracts (sent as contract_addresses[]) and a block range", () =>
      Effect.gen(function*() {
        const sim = yield* Simulator.Simulator
        const client = yield* EvmClient.EvmClient
        const { chain, wallet } = busiest(sim)
        const mine = (chain.transfersByWallet.get(wallet) ?? []).map((i) => chain.transfers[i]!)
        const contracts = [...new Set(mine.map((t) => t.contract))].slice(0, 2)
        assert.strictEqual(contracts.length, 2)
        const filtered = yield* client.getWalletNFTTransfers({
          address: wallet.toUpperCase().replace("0X", "0x"),
          chain: "eth",
          contractAddresses: contracts,
          limit: 100
        })
        assert.isTrue(filtered.result.length > 0)
        assert.isTrue(filtered.result.every((t) => contracts.includes(t.token_address)))
        assert.strictEqual(filtered.result.length, Math.min(100, mine.filter((t) => contracts.includes(t.contract)).length))
        assert.deepStrictEqual(
          new Set(filtered.result.map((t) => t.token_address)),
          new Set(contracts),
          "both contracts reached the service, not only the first"
        )

        const from = mine[Math.floor(mine.length / 3)]!.block
        const to = mine[Math.floor((2 * mine.length) / 3)]!.block
        const ranged = yield* client.getWalletNFTTransfers({ address: wallet, chain: "eth", fromBlock: from, toBlock: String(to), limit: 100 })
        const expected = mine.filter((t) => t.block >= from && t.block <= to)
        assert.strictEqual(ranged.result.length, Math.min(100, expected.length))
        assert.isTrue(ranged.result.every((t) => t.block_number >= BigInt(from) && t.block_number <= BigInt(to)))
      }))

    it.effect("A2: a date range, given as a string, a Date and a DateTime", () =>
      Effect.gen(function*() {
        const sim = yield* Simulator.Simulator
        const client = yield* EvmClient.EvmClient
        const { chain, wallet } = busiest(sim)
        const mine = (chain.transfersByWallet.get(wallet) ?? []).map((i) => chain.transfers[i]!)
        const middle = chain.timestampOf(mine[Math.floor(mine.length / 2)]!.block)
        const since = new Date(middle)
        const expected = mine.filter((t) => chain.timestampOf(t.block) >= middle).length
        const asDate = yield* client.getWalletNFTTransfers({ address: wallet, chain: "eth", fromDate: since, limit: 100 })
        assert.strictEqual(asDate.result.length, Math.min(100, expected))
        assert.isTrue(asDate.result.every((t) => DateTime.toEpochMillis(t.block_timestamp) >= middle))
        const asString = yield* client.getWalletNFTTransfers({ address: wallet, chain: "eth", fromDate: since.toISOString(), limit: 100 })
        assert.strictEqual(asString.result.length, asDate.result.length)
        const before = yield* client.getWalletNFTTransfers({
          address: wallet,
          chain: "eth",
          toDate: DateTime.makeUnsafe(middle - 1),
          limit: 100
        })
        assert.strictEqual(before.result.length, Math.min(100, mine.length - expected))
      }))

    it.effect("A3 getNFTTransfers: one token's transfers, token id as bigint, decimal or hex", () =>
      Effect.gen(function*() {
        const sim = yield* Simulator.Simulator
        const client = yield* EvmClient.EvmClient
        const { chain, contract, tokenId } = busiest(sim)
        const truth = chain.transfersByToken.get(`${contract}:${tokenId}`) ?? []
        const page = yield* client.getNFTTransfers({ address: contract, tokenId, chain: "eth", order: "ASC", format: "decimal" })
        assert.strictEqual(page.result.length, truth.length)
        assert.isTrue(page.result.every((t) => t.token_address === contract && t.token_id === tokenId))
        const hex = yield* client.getNFTTransfers({ address: contract, tokenId: `0x${tokenId.toString(16)}`, chain: "eth", order: "ASC" })
        assert.deepStrictEqual(hex.result.map((t) => t.transaction_hash), page.result.map((t) => t.transaction_hash))
        const limited = yield* client.getNFTTransfers({ address: contract, tokenId: tokenId.toString(), chain: "eth", limit: 1 })
        assert.strictEqual(limited.result.length, 1)
      }))

    it.effect("A4 getNFTTradesByWallet: the wallet's trades, dates as seconds", () =>
      Effect.gen(function*() {
        const sim = yield* Simulator.Simulator
        const client = yield* EvmClient.EvmClient
        const { chain, trader } = busiest(sim)
        const truth = (chain.tradesByWallet.get(trader) ?? []).map((i) => chain.trades[i]!)
        const page = yield* client.getNFTTradesByWallet({ address: trader, chain: "eth", limit: 100 })
        assert.strictEqual(page.result.length, Math.min(100, truth.length))
        assert.isTrue(page.result.every((t) => t.buyer_address === trader || t.seller_address === trader))
        assert.deepStrictEqual(page.rejected, [])
        const seconds = Math.floor(chain.timestampOf(chain.head + 1) / 1000) + 3600
        const none = yield* client.getNFTTradesByWallet({ address: trader, chain: 1, fromDate: seconds })
        assert.strictEqual(none.result.length, 0)
      }))

    it.effect("A5 getNFTOwners: the contract's owners, with normalised metadata and each token's minter", () =>
      Effect.gen(function*() {
        const sim = yield* Simulator.Simulator
        const client = yield* EvmClient.EvmClient
        const { chain, contract } = busiest(sim)
        const page = yield* client.getNFTOwners({ address: contract, chain: "eth", normalizeMetadata: true, mediaItems: false, limit: 100 })
        assert.isTrue(page.result.length > 0)
        assert.deepStrictEqual(page.status, Option.some("SYNCED"))
        assert.isTrue(page.result.every((o) => o.token_address === contract && o.amount > 0n))
        assert.isTrue(Option.isSome(page.result[0]!.normalized_metadata))
        for (const owner of page.result) {
          assert.deepStrictEqual(owner.minter_address, Option.some(chain.minterOf(contract, owner.token_id)!))
        }
        const plain = yield* client.getNFTOwners({ address: contract, chain: "eth", limit: 2, format: "decimal" })
        assert.strictEqual(plain.result.length, 2)
        assert.isTrue(Option.isSome(plain.cursor))
      }))

    it.effect("A6 getBlock: by number and hash, with internal transactions and the base fee; unknown blocks are Option.none()", () =>
      Effect.gen(function*() {
        const sim = yield* Simulator.Simulator
        const client = yield* EvmClient.EvmClient
        const { chain, block } = busiest(sim)
        const found = yield* client.getBlock({ block, chain: "eth", includeInternalTransactions: true })
        assert.isTrue(Option.isSome(found))
        const value = Option.getOrThrow(found)
        assert.strictEqual(value.number, BigInt(block))
        assert.strictEqual(value.hash, chain.block(block)!.hash)
        assert.strictEqual(value.transactions.length, chain.block(block)!.txs.length)
        assert.isTrue(Option.isSome(value.base_fee_per_gas))
        assert.isTrue(value.transactions.every((tx) => Option.isSome(tx.transfer_index)))
        const byHash = yield* client.getBlock({ block: value.hash, chain: "eth" })
        assert.strictEqual(Option.getOrThrow(byHash).number, BigInt(block))
        assert.deepStrictEqual(yield* client.getBlock({ block: chain.head + 1000, chain: "eth" }), Option.none())
        assert.deepStrictEqual(yield* client.getBlock({ block: `0x${"ab".repeat(32)}` }), Option.none())
      }))

    it.effect("A7 getDefiPositionsSummary: a list of protocol summaries", () =>
      Effect.gen(function*() {
        const sim = yield* Simulator.Simulator
        const client = yield* EvmClient.EvmClient
        const { chain } = busiest(sim)
        const wallets = [...chain.transfersByWallet.keys()].slice(0, 20)
        let withPositions = 0
        for (const wallet of wallets) {
          const summaries = yield* client.getDefiPositionsSummary({ address: wallet, chain: "eth" })
          assert.isTrue(Array.isArray(summaries))
          for (const summary of summaries) {
            assert.isTrue(summary.protocol_name.length > 0 && summary.positions.length > 0)
            assert.isTrue(summary.positions.every((p) => p.balance_usd > 0))
          }
          if (summaries.length > 0) withPositions++
        }
        assert.isTrue(withPositions > 0, "some wallet has positions")
      }))
  })
})
