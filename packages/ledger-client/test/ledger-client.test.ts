/**
 * LedgerClient against the simulator over real HTTP: every operation with real data, checked
 * against the simulator's ground truth where it has one; mainnet and testnet routing; full
 * pagination walks by cursor.
 */
import { Simulator } from "@chainquery/simulator"
import { assert, describe, layer } from "@effect/vitest"
import { Effect, Option } from "effect"
import { LedgerClient } from "../src/index.js"
import { sampleOf, stats, TestLayer, Testnet } from "./support.js"

const transferKey = (t: { readonly transaction_version: bigint; readonly event_sequence_number: bigint; readonly event_creation_number: bigint; readonly token_data_id_hash: string }) =>
  `${t.transaction_version}:${t.event_sequence_number}:${t.event_creation_number}:${t.token_data_id_hash}`

describe("LedgerClient", () => {
  layer(TestLayer, { excludeTestServices: true })((it) => {
    it.effect("exposes its network and base URL", () =>
      Effect.gen(function*() {
        const sim = yield* Simulator.Simulator
        const mainnet = yield* LedgerClient.LedgerClient
        const testnet = yield* Testnet
        assert.strictEqual(mainnet.network, "mainnet")
        assert.strictEqual(mainnet.baseUrl, sim.ledgerUrl.mainnet)
        assert.strictEqual(testnet.network, "testnet")
        assert.strictEqual(testnet.baseUrl, sim.ledgerUrl.testnet)
      }))

    it.effect("B1 getNFTOwnersByCollection: the owners of a collection, with wallet filters", () =>
      Effect.gen(function*() {
        const ledger = yield* LedgerClient.LedgerClient
        const { collections } = yield* sampleOf("mainnet")
        const collection = collections[0]!
        const page = yield* ledger.getNFTOwnersByCollection({ collectionDataIdHash: collection, limit: 20 })
        assert.isTrue(page.result.length > 0)
        assert.deepStrictEqual(page.rejected, [])
        for (const holding of page.result) {
          assert.strictEqual(holding.collection_data_id_hash, collection)
          assert.isTrue(holding.amount > 0n)
        }
        const owner = page.result[0]!.owner_address
        // An upper-case, `0x`-prefixed hash and an upper-case address are normalised before sending.
        const only = yield* ledger.getNFTOwnersByCollection({
          collectionDataIdHash: `0x${collection.toUpperCase()}`,
          limit: 100,
          walletWhitelist: [`0x${owner.slice(2).toUpperCase()}`]
        })
        assert.isTrue(only.result.length > 0)
        assert.isTrue(only.result.every((h) => h.owner_address === owner))
        const without = yield* ledger.getNFTOwnersByCollection({ collectionDataIdHash: collection, limit: 100, walletBlacklist: [owner] })
        assert.isTrue(without.result.every((h) => h.owner_address !== owner))
      }))

    it.effect("B2 getNFTTransfersByCreators: transfers of a creator's tokens, newest first, with collection filters", () =>
      Effect.gen(function*() {
        const sim = yield* Simulator.Simulator
        const ledger = yield* LedgerClient.LedgerClient
        const { creators } = yield* sampleOf("mainnet")
        const creator = creators[0]!
        const page = yield* ledger.getNFTTransfersByCreators({ creatorAddresses: [creator], limit: 25 })
        assert.strictEqual(page.result.length, 25)
        assert.isTrue(page.hasNextPage)
        assert.isTrue(page.result.every((t) => t.creator_address === creator))
        const versions = page.result.map((t) => t.transaction_version)
        assert.deepStrictEqual(versions, [...versions].toSorted((a, b) => (a > b ? -1 : a < b ? 1 : 0)))
        const truth = new Set(sim.world.aptos.mainnet.transfersSince(0n).map(transferKey))
        assert.isTrue(page.result.every((t) => truth.has(transferKey(t))))
        const collection = page.result[0]!.collection_data_id_hash
        const inCollection = yield* ledger.getNFTTransfersByCreators({ creatorAddresses: [creator], limit: 25, collectionWhitelist: [collection] })
        assert.isTrue(inCollection.result.length > 0)
        assert.isTrue(inCollection.result.every((t) => t.collection_data_id_hash === collection))
        const outside = yield* ledger.getNFTTransfersByCreators({ creatorAddresses: [creator], limit: 25, collectionBlacklist: [collection] })
        assert.isTrue(outside.result.every((t) => t.collection_data_id_hash !== collection))
      }))

    it.effect("B3 getWalletsNFTTransfers: transfers from or to a wallet", () =>
      Effect.gen(function*() {
        const ledger = yield* LedgerClient.LedgerClient
        const { wallets } = yield* sampleOf("mainnet")
        const wallet = wallets[0]!
        const page = yield* ledger.getWalletsNFTTransfers({ walletAddresses: [wallet], limit: 10 })
        assert.strictEqual(page.result.length, 10)
        assert.isTrue(page.result.every((t) => Option.contains(t.from_address, wallet) || Option.contains(t.to_address, wallet)))
        const skipped = yield* ledger.getWalletsNFTTransfers({ walletAddresses: [wallet], limit: 5, offset: 5 })
        assert.deepStrictEqual(skipped.result.map(transferKey), page.result.slice(5).map(transferKey))
      }))

    it.effect("B4 getNFTCollections: collections in name order within a name range", () =>
      Effect.gen(function*() {
        const ledger = yield* LedgerClient.LedgerClient
        const all = yield* ledger.getNFTCollections({ limit: 100 })
        assert.isTrue(all.result.length > 0)
        const names = all.result.map((c) => c.collection_name)
        assert.deepStrictEqual(names, [...names].toSorted())
        const page = yield* ledger.getNFTCollections({ limit: 100, fromName: "C", toName: "R" })
        const inRange = page.result.map((c) => c.collection_name)
        assert.isTrue(inRange.length > 0)
        assert.isTrue(inRange.every((name) => name >= "C" && name <= "R"))
        assert.deepStrictEqual(inRange, names.filter((name) => name >= "C" && name <= "R"))
      }))

    it.effect("B5 getNFTByOwners: a wallet's NFTs equal the simulator's ground truth", () =>
      Effect.gen(function*() {
        const sim = yield* Simulator.Simulator
        const ledger = yield* LedgerClient.LedgerClient
        const { wallets } = yield* sampleOf("mainnet")
        const wallet = wallets[1]!
        const held = new Set<string>()
        let cursor: string | undefined
        do {
          const page = yield* ledger.getNFTByOwners({ ownerAddresses: [wallet], limit: 7, ...(cursor === undefined ? {} : { cursor }) })
          for (const h of page.result) {
            assert.strictEqual(h.owner_address, wallet)
            held.add(`${h.token_data_id_hash}:${h.property_version}:${h.amount}`)
          }
          cursor = Option.getOrUndefined(page.cursor)
        } while (cursor !== undefined)
        const truth = sim.world.aptos.mainnet.holdingsOf(wallet).map((h) => `${h.token_data_id_hash}:${h.property_version}:${h.amount}`)
        assert.isTrue(truth.length > 0)
        assert.deepStrictEqual([...held].toSorted(), [...truth].toSorted())
      }))

    it.effect("B6 getNFTOwnersByTokens: the holders of a token", () =>
      Effect.gen(function*() {
        const ledger = yield* LedgerClient.LedgerClient
        const { tokens } = yield* sampleOf("mainnet")
        const page = yield* ledger.getNFTOwnersByTokens({ tokenIds: tokens.slice(0, 2), limit: 50 })
        assert.isTrue(page.result.length > 0)
        assert.isTrue(page.result.every((h) => tokens.slice(0, 2).includes(h.token_data_id_hash)))
      }))

    it.effect("B7 getCoinsByNameRange: coins in A-Z order within a name range", () =>
      Effect.gen(function*() {
        const ledger = yield* LedgerClient.LedgerClient
        const page = yield* ledger.getCoinsByNameRange({ limit: 100, fromName: "B", toName: "D" })
        const names = page.result.map((coin) => coin.name)
        assert.isTrue(names.length > 0)
        assert.isTrue(names.every((name) => name >= "B" && name <= "D"))
        assert.deepStrictEqual(names, [...names].toSorted())
        const first = yield* ledger.getCoinsByNameRange({ limit: 3 })
        assert.strictEqual(first.result.length, 3)
        assert.isTrue(first.hasNextPage)
      }))

    it.effect("routes by network: a mainnet wallet has NFTs on mainnet and none on testnet", () =>
      Effect.gen(function*() {
        const mainnet = yield* LedgerClient.LedgerClient
        const testnet = yield* Testnet
        const { wallets } = yield* sampleOf("mainnet")
        const before = yield* stats
        const onMainnet = yield* mainnet.getNFTByOwners({ ownerAddresses: [wallets[0]!], limit: 5 })
        const onTestnet = yield* testnet.getNFTByOwners({ ownerAddresses: [wallets[0]!], limit: 5 })
        const after = yield* stats
        assert.isTrue(onMainnet.result.length > 0)
        assert.strictEqual(onTestnet.result.length, 0)
        assert.isFalse(onTestnet.hasNextPage)
        assert.strictEqual(after.requests.byNetwork.mainnet - before.requests.byNetwork.mainnet, 1)
        assert.strictEqual(after.requests.byNetwork.testnet - before.requests.byNetwork.testnet, 1)
        const testWallet = (yield* sampleOf("testnet")).wallets[0]!
        assert.isTrue((yield* testnet.getNFTByOwners({ ownerAddresses: [testWallet], limit: 5 })).result.length > 0)
      }))

    it.effect("a full walk of B3 by cursor returns each transfer once while the ledger advances", () =>
      Effect.gen(function*() {
        const sim = yield* Simulator.Simulator
        const ledger = yield* LedgerClient.LedgerClient
        const world = sim.world.aptos.mainnet
        const wallets = (yield* sampleOf("mainnet")).wallets.slice(0, 3)
        const snapshot = world.latestVersion()
        const truth = world.transfersSince(0n).filter((t) =>
          t.transaction_version <= snapshot &&
          wallets.some((w) => Option.contains(t.from_address, w) || Option.contains(t.to_address, w))
        ).map(transferKey)
        const seen: Array<string> = []
        let cursor: string | undefined
        let pages = 0
        do {
          const page = yield* ledger.getWalletsNFTTransfers({ walletAddresses: wallets, limit: 9, ...(cursor === undefined ? {} : { cursor }) })
          seen.push(...page.result.map(transferKey))
          assert.strictEqual(page.hasNextPage, Option.isSome(page.cursor))
          cursor = Option.getOrUndefined(page.cursor)
          pages++
          yield* sim.advance(1)
        } while (cursor !== undefined)
        assert.isTrue(pages > 2, "several pages")
        assert.strictEqual(new Set(seen).size, seen.length, "no duplicates")
        assert.deepStrictEqual([...seen].toSorted(), [...truth].toSorted(), "no misses")
      }))

    it.effect("a full walk of B4 by cursor lists every collection once, in name order", () =>
      Effect.gen(function*() {
        const sim = yield* Simulator.Simulator
        const ledger = yield* LedgerClient.LedgerClient
        const ids: Array<string> = []
        const names: Array<string> = []
        let cursor: string | undefined
        do {
          const page = yield* ledger.getNFTCollections({ limit: 8, ...(cursor === undefined ? {} : { cursor }) })
          ids.push(...page.result.map((c) => c.collection_data_id_hash))
          names.push(...page.result.map((c) => c.collection_name))
          cursor = Option.getOrUndefined(page.cursor)
        } while (cursor !== undefined)
        const truth = sim.world.aptos.mainnet.ledger.genesis.collections.map((c) => c.id)
        assert.strictEqual(new Set(ids).size, ids.length)
        assert.deepStrictEqual([...ids].toSorted(), [...truth].toSorted())
        assert.deepStrictEqual(names, [...names].toSorted())
      }))
  })
})
