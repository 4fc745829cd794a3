/**
 * Family A against the simulator over real HTTP on 127.0.0.1: every operation decodes with the
 * schema package, the error cases answer like the service, listings paginate consistently while
 * the world advances, and the world's invariants hold.
 */
import { Block, DefiPositions, EvmPage } from "@chainquery/schema"
import { assert, describe, layer } from "@effect/vitest"
import { DateTime, Effect, Option, Schema } from "effect"
import { Simulator } from "../src/index.js"
import { World } from "../src/internal/World.js"
import { get, post } from "./support/http.js"

const decode = <S extends Schema.Decoder<unknown>>(schema: S, body: unknown): S["Type"] => Schema.decodeUnknownSync(schema)(body)

/** A unix second as an ISO date. */
const iso = (second: number) => DateTime.formatIso(DateTime.makeUnsafe(second * 1000))

/** The busiest wallet, token and contract of a chain, read from the world for test inputs. */
const top = (map: Map<string, Array<number>>) => [...map].toSorted((a, b) => b[1].length - a[1].length)[0]![0]

const busiest = (sim: Simulator.Simulator["Service"], chainId: "0x1" | "0x89" = "0x1") => {
  const chain = sim.world.evm.chain(chainId)
  const token = top(chain.transfersByToken)
  const [contract, tokenId] = token.split(":") as [string, string]
  const traders = [...chain.tradesByWallet].toSorted((a, b) => b[1].length - a[1].length)[0]![0]
  return { chain, wallet: top(chain.transfersByWallet), contract, tokenId, trader: traders }
}

/** Everything a world generated, as plain values: wallets, and per chain its blocks, transfers and trades. */
const fingerprint = (world: World) => ({
  wallets: world.evm.wallets,
  chains: [...world.evm.chains].map(([id, chain]) => ({
    id,
    blocks: chain.blocks.map((b) => `${b.number}:${b.hash}:${b.parentHash}:${b.timestamp}:${b.miner}:${b.txs.map((tx) => tx.hash).join(",")}`),
    transfers: chain.transfers.map((t) => `${t.block}:${t.txHash}:${t.logIndex}:${t.contract}:${t.tokenId}:${t.from}:${t.to}:${t.amount}`),
    trades: chain.trades.map((t) => `${t.block}:${t.txHash}:${t.seller}:${t.buyer}:${t.price}:${t.marketplace}`)
  }))
})

/** The fingerprint of the world of a second simulator, started with `seed` and stopped again. */
const worldOf = (seed: number) =>
  Effect.map(Simulator.Simulator, (sim) => fingerprint(sim.world)).pipe(Effect.provide(Simulator.layer({ seed, history: 5 })))

describe("simulator, family A", () => {
  layer(Simulator.layer({ seed: 11, indexing: false, history: 40 }))((test) => {
    test.effect("serves all seven operations, each decoding with @chainquery/schema", () =>
      Effect.gen(function*() {
        const sim = yield* Simulator.Simulator
        const { chain, wallet, contract, tokenId, trader } = busiest(sim)
        const key = sim.apiKey
        const api = `${sim.evmUrl}/api/v2.2`
        const head = chain.head

        const a1 = yield* get(`${api}/block/${head}/nft/transfers?chain=eth`, { key })
        assert.strictEqual(a1.status, 200)
        const byBlock = decode(EvmPage.TransfersByBlockPage, a1.json)
        assert.strictEqual(byBlock.result.length, chain.block(head)!.transferEnd - chain.block(head)!.transferStart)
        assert.deepStrictEqual(byBlock.rejected, [])

        const a2 = decode(EvmPage.TransfersPage, (yield* get(`${api}/${wallet}/nft/transfers?chain=0x1&limit=5`, { key })).json)
        assert.strictEqual(a2.result.length, 5)
        assert.isTrue(a2.result.every((t) => t.from_address === wallet || t.to_address === wallet))

        const a3 = decode(EvmPage.TransfersPage, (yield* get(`${api}/nft/${contract}/${tokenId}/transfers?chain=eth`, { key })).json)
        assert.isTrue(a3.result.length > 0 && a3.result.every((t) => t.token_address === contract && t.token_id === BigInt(tokenId)))

        const a4 = decode(EvmPage.TradesPage, (yield* get(`${api}/wallets/${trader}/nfts/trades?chain=eth`, { key })).json)
        assert.isTrue(a4.result.length > 0 && a4.result.every((t) => t.buyer_address === trader || t.seller_address === trader))

        const a5 = decode(EvmPage.OwnersPage, (yield* get(`${api}/nft/${contract}/owners?chain=eth&normalizeMetadata=true`, { key })).json)
        assert.deepStrictEqual(a5.status, Option.some("SYNCED"))
        assert.isTrue(a5.result.length > 0 && Option.isSome(a5.result[0]!.normalized_metadata))

        const a6 = decode(Block.Block, (yield* get(`${api}/block/${head}?chain=eth&include=internal_transactions`, { key })).json)
        assert.strictEqual(a6.number, BigInt(head))
        const byHash = decode(Block.Block, (yield* get(`${api}/block/${a6.hash}?chain=eth`, { key })).json)
        assert.strictEqual(byHash.number, BigInt(head))

        const a7 = yield* get(`${api}/wallets/${wallet}/defi/positions?chain=eth`, { key })
        assert.isTrue(Array.isArray(a7.json), "A7 answers with the real form, an array")
        decode(DefiPositions.DefiPositionsSummary, a7.json)
      }))

    test.effect("answers bad requests with 400 and the service's body", () =>
      Effect.gen(function*() {
        const sim = yield* Simulator.Simulator
        const { wallet } = busiest(sim)
        const api = `${sim.evmUrl}/api/v2.2`
        const key = sim.apiKey
        const cases: ReadonlyArray<readonly [string, string]> = [
          [`${api}/${wallet}/nft/transfers?limit=101`, "limit must not be greater than 100"],
          [`${api}/${wallet}/nft/transfers?limit=0`, "limit must not be less than 1"],
          [`${api}/0x123/nft/transfers`, "[C0005] Invalid address provided"],
          [`${api}/block/not-a-block/nft/transfers`, "[C0005] Invalid block_number_or_hash provided"],
          [`${api}/wallets/${wallet}/nfts/trades?chain=fantom`, "[C0005] Invalid chain provided"],
          [`${api}/${wallet}/nft/transfers?chain=solana`, "[C0005] Invalid chain provided"],
          [`${api}/${wallet}/nft/transfers?cursor=not-ours`, "Invalid cursor: pass the cursor of the previous page of the same listing"]
        ]
        for (const [url, message] of cases) {
          const answer = yield* get(url, { key })
          assert.strictEqual(answer.status, 400, url)
          assert.deepStrictEqual(answer.json, { message }, url)
        }
      }))

    test.effect("A4 takes from_date and to_date in unix seconds too, for the same page as the ISO form; a malformed number is a malformed date's 400; A2 keeps date strings", () =>
      Effect.gen(function*() {
        const sim = yield* Simulator.Simulator
        const { trader, wallet } = busiest(sim)
        const key = sim.apiKey
        const a4 = `${sim.evmUrl}/api/v2.2/wallets/${trader}/nfts/trades?chain=eth`
        const all = decode(EvmPage.TradesPage, (yield* get(a4, { key })).json).result
        // Bounds that cut the trader's trades: from the second newest trade's second back to the newest's.
        const seconds = all.map((trade) => Math.floor(DateTime.toEpochMillis(trade.block_timestamp) / 1000)).toSorted((a, b) => a - b)
        const [from, to] = [seconds.at(-2)! - 1, seconds.at(-1)!]
        const bySeconds = yield* get(`${a4}&from_date=${from}&to_date=${to}`, { key })
        const byIso = yield* get(`${a4}&from_date=${iso(from)}&to_date=${iso(to)}`, { key })
        assert.strictEqual(bySeconds.status, 200)
        assert.deepStrictEqual(bySeconds.json, byIso.json)
        const page = decode(EvmPage.TradesPage, bySeconds.json).result
        assert.isTrue(page.length > 0 && page.length < all.length, `${page.length} of ${all.length} trades between the bounds`)
        const cases: ReadonlyArray<readonly [string, string]> = [
          [`${a4}&from_date=1700000000x`, "[C0005] Invalid from_date provided"],
          [`${a4}&from_date=yesterday`, "[C0005] Invalid from_date provided"],
          [`${a4}&to_date=-1700000000`, "[C0005] Invalid to_date provided"],
          [`${a4}&to_date=1700000000.5`, "[C0005] Invalid to_date provided"],
          [`${a4}&to_date=99999999999999`, "[C0005] Invalid to_date provided"],
          [`${sim.evmUrl}/api/v2.2/${wallet}/nft/transfers?from_date=1700000000`, "[C0005] Invalid from_date provided"]
        ]
        for (const [url, message] of cases) {
          const answer = yield* get(url, { key })
          assert.strictEqual(answer.status, 400, url)
          assert.deepStrictEqual(answer.json, { message }, url)
        }
      }))

    test.effect("an unknown block is a 404 on A6, and block_exists false on A1", () =>
      Effect.gen(function*() {
        const sim = yield* Simulator.Simulator
        const api = `${sim.evmUrl}/api/v2.2`
        const key = sim.apiKey
        const beyond = sim.world.evm.chain("0x1").head + 1000
        const missing = yield* get(`${api}/block/${beyond}?chain=eth`, { key })
        assert.strictEqual(missing.status, 404)
        assert.deepStrictEqual(missing.json, { message: "Block not found" })
        const unknownHash = yield* get(`${api}/block/0x${"ab".repeat(32)}?chain=eth`, { key })
        assert.strictEqual(unknownHash.status, 404)
        const beforeHistory = yield* get(`${api}/block/1?chain=eth`, { key })
        assert.deepStrictEqual([beforeHistory.status, beforeHistory.json], [404, { message: "Block not found" }])
        const a1 = decode(EvmPage.TransfersByBlockPage, (yield* get(`${api}/block/${beyond}/nft/transfers`, { key })).json)
        assert.deepStrictEqual(a1.block_exists, Option.some(false))
      }))

    test.effect("a block before the simulated history exists and is empty on A1 (block 0 too)", () =>
      Effect.gen(function*() {
        const sim = yield* Simulator.Simulator
        const api = `${sim.evmUrl}/api/v2.2`
        const before = sim.world.evm.chain("0x1").profile.firstBlock - 1
        for (const block of [0, before]) {
          const answer = yield* get(`${api}/block/${block}/nft/transfers?chain=eth`, { key: sim.apiKey })
          assert.strictEqual(answer.status, 200, String(block))
          const page = decode(EvmPage.TransfersByBlockPage, answer.json)
          assert.deepStrictEqual(page.result, [])
          assert.deepStrictEqual(page.block_exists, Option.some(true))
          assert.deepStrictEqual(page.index_complete, Option.some(true))
        }
      }))

    test.effect("requires the API key: X-API-Key or Authorization: Bearer, else 401", () =>
      Effect.gen(function*() {
        const sim = yield* Simulator.Simulator
        const url = `${sim.evmUrl}/api/v2.2/block/${sim.world.evm.chain("0x1").head}?chain=eth`
        const none = yield* get(url)
        assert.strictEqual(none.status, 401)
        assert.deepStrictEqual(none.json, { message: "API KEY missing from x-api-key header" })
        const wrong = yield* get(url, { key: "nope" })
        assert.strictEqual(wrong.status, 401)
        assert.deepStrictEqual(wrong.json, { message: "Invalid key" })
        assert.strictEqual((yield* get(url, { headers: { authorization: "Bearer nope" } })).status, 401)
        assert.strictEqual((yield* get(url, { headers: { authorization: `Bearer ${sim.apiKey}` } })).status, 200)
      }))

    test.effect("accepts x[]=, x[0]= and repeated x= alike", () =>
      Effect.gen(function*() {
        const sim = yield* Simulator.Simulator
        const { chain, wallet } = busiest(sim)
        const contracts = [...new Set((chain.transfersByWallet.get(wallet) ?? []).map((i) => chain.transfers[i]!.contract))].slice(0, 2)
        const api = `${sim.evmUrl}/api/v2.2/${wallet}/nft/transfers?chain=eth&limit=100`
        const forms = [
          contracts.map((c) => `contract_addresses[]=${c}`).join("&"),
          contracts.map((c, i) => `contract_addresses%5B${i}%5D=${c}`).join("&"),
          contracts.map((c) => `contract_addresses=${c}`).join("&")
        ]
        const answers = []
        for (const form of forms) answers.push((yield* get(`${api}&${form}`, { key: sim.apiKey })).json)
        assert.isTrue(answers[0].result.length > 0)
        assert.isTrue(answers[0].result.every((t: { token_address: string }) => contracts.includes(t.token_address)))
        assert.deepStrictEqual(answers[1], answers[0])
        assert.deepStrictEqual(answers[2], answers[0])
      }))

    test.effect("a full walk of a listing returns each record once while blocks advance", () =>
      Effect.gen(function*() {
        const sim = yield* Simulator.Simulator
        const { chain, wallet } = busiest(sim)
        const snapshot = chain.head
        const truth = (chain.transfersByWallet.get(wallet) ?? []).filter((i) => chain.transfers[i]!.block <= snapshot)
          .map((i) => `${chain.transfers[i]!.txHash}:${chain.transfers[i]!.logIndex}`)
        const seen: Array<string> = []
        let cursor: string | undefined
        let pages = 0
        do {
          const url = `${sim.evmUrl}/api/v2.2/${wallet}/nft/transfers?chain=eth&limit=7${cursor === undefined ? "" : `&cursor=${cursor}`}`
          const page = decode(EvmPage.TransfersPage, (yield* get(url, { key: sim.apiKey })).json)
          assert.strictEqual(page.page, pages)
          seen.push(...page.result.map((t) => `${t.transaction_hash}:${t.log_index}`))
          cursor = Option.getOrUndefined(page.cursor)
          pages++
          yield* sim.advance(1)
        } while (cursor !== undefined)
        assert.isTrue(pages > 2)
        assert.strictEqual(new Set(seen).size, seen.length, "no duplicates")
        assert.deepStrictEqual([...seen].toSorted(), [...truth].toSorted(), "no misses")
      }))

    test.effect("a date bound past the head keeps the cursor valid while blocks arrive", () =>
      Effect.gen(function*() {
        const sim = yield* Simulator.Simulator
        const { wallet } = busiest(sim)
        const url = (cursor?: string) =>
          `${sim.evmUrl}/api/v2.2/${wallet}/nft/transfers?chain=eth&limit=2&to_date=2030-01-01T00:00:00Z${cursor === undefined ? "" : `&cursor=${cursor}`}`
        const first = decode(EvmPage.TransfersPage, (yield* get(url(), { key: sim.apiKey })).json)
        yield* sim.advance(1)
        const second = yield* get(url(Option.getOrThrow(first.cursor)), { key: sim.apiKey })
        assert.strictEqual(second.status, 200, second.text)
      }))

    test.effect("owners (A5) equal the fold of the token transfers (A3)", () =>
      Effect.gen(function*() {
        const sim = yield* Simulator.Simulator
        const { chain } = busiest(sim, "0x89")
        const api = `${sim.evmUrl}/api/v2.2`
        for (const collection of chain.collections.slice(0, 3)) {
          const owners = new Map<string, bigint>()
          let cursor: string | undefined
          do {
            const page = decode(EvmPage.OwnersPage, (yield* get(`${api}/nft/${collection.address}/owners?chain=polygon&limit=50${cursor ? `&cursor=${cursor}` : ""}`, { key: sim.apiKey })).json)
            for (const o of page.result) owners.set(`${o.token_id}:${o.owner_of}`, o.amount)
            cursor = Option.getOrUndefined(page.cursor)
          } while (cursor !== undefined)
          const folded = new Map<string, bigint>()
          for (const token of chain.tokensByContract.get(collection.address) ?? []) {
            const transfers = decode(EvmPage.TransfersPage, (yield* get(`${api}/nft/${collection.address}/${token.tokenId}/transfers?chain=polygon&order=ASC`, { key: sim.apiKey })).json).result
            for (const t of transfers) {
              const from = `${t.token_id}:${t.from_address}`, to = `${t.token_id}:${t.to_address}`
              if (!t.from_address.startsWith("0x0000000000")) folded.set(from, (folded.get(from) ?? 0n) - t.amount)
              if (!t.to_address.startsWith("0x0000000000")) folded.set(to, (folded.get(to) ?? 0n) + t.amount)
            }
          }
          for (const [k, v] of folded) if (v === 0n) folded.delete(k)
          assert.deepStrictEqual(new Map([...owners].toSorted()), new Map([...folded].toSorted()), collection.name)
        }
      }))

    test.effect("a block's A1 transfers are the NFT logs of its A6 transactions; trades are transfers", () =>
      Effect.gen(function*() {
        const sim = yield* Simulator.Simulator
        const { chain, trader } = busiest(sim)
        const api = `${sim.evmUrl}/api/v2.2`
        for (let number = chain.head - 5; number <= chain.head; number++) {
          const a1 = decode(EvmPage.TransfersByBlockPage, (yield* get(`${api}/block/${number}/nft/transfers?chain=eth`, { key: sim.apiKey })).json)
          const a6 = decode(Block.Block, (yield* get(`${api}/block/${number}?chain=eth`, { key: sim.apiKey })).json)
          const logs = new Set(a6.transactions.flatMap((tx) => tx.logs.map((log) => `${tx.hash}:${log.log_index}:${log.address}`)))
          assert.strictEqual(logs.size, a1.result.length)
          for (const t of a1.result) assert.isTrue(logs.has(`${t.transaction_hash}:${t.log_index}:${t.token_address}`))
        }
        const trades = decode(EvmPage.TradesPage, (yield* get(`${api}/wallets/${trader}/nfts/trades?chain=eth`, { key: sim.apiKey })).json)
        for (const trade of trades.result) {
          const moves = decode(EvmPage.TransfersPage, (yield* get(`${api}/nft/${trade.token_address}/${trade.token_ids[0]}/transfers?chain=eth`, { key: sim.apiKey })).json)
          assert.isTrue(moves.result.some((t) =>
            t.transaction_hash === trade.transaction_hash && t.from_address === trade.seller_address && t.to_address === trade.buyer_address
          ))
        }
      }))

    test.effect("a reorg replaces the last blocks and their transfers; the control API reports the head", () =>
      Effect.gen(function*() {
        const sim = yield* Simulator.Simulator
        const chain = sim.world.evm.chain("0x1")
        const before = chain.block(chain.head)!.hash
        const head = (yield* get(`${sim.url}/__sim/head`)).json
        assert.strictEqual(head.evm["0x1"], chain.head)
        assert.strictEqual(Object.keys(head.evm).length, 25)
        assert.isTrue(typeof head.aptos.mainnet === "number" && typeof head.aptos.testnet === "number")
        const reorg = yield* post(`${sim.url}/__sim/reorg?chain=eth&depth=2`)
        assert.strictEqual(reorg.json.fromBlock, chain.head - 1)
        assert.notStrictEqual(chain.block(chain.head)!.hash, before)
        const events = (yield* get(`${sim.url}/__sim/events?chain=0x1&fromBlock=${chain.head - 1}`)).json.events
        const truth = chain.transfers.filter((t) => t.block >= chain.head - 1)
        assert.strictEqual(events.length, truth.length)
        assert.isTrue(events.every((e: { block_hash: string; block_number: string }) => chain.block(Number(e.block_number))!.hash === e.block_hash))
      }))
  })

  layer(Simulator.layer({ seed: 5, history: 20, indexing: { lagProbability: 1, syncBlocks: 2 } }))("indexing states", (test) => {
    test.effect("a collection not yet indexed answers SYNCING with part of its owners, then SYNCED", () =>
      Effect.gen(function*() {
        const sim = yield* Simulator.Simulator
        const chain = sim.world.evm.chain("0x89")
        const collection = chain.collections.find((c) => !c.preIndexed && (chain.tokensByContract.get(c.address)?.length ?? 0) > 3)!
        const url = `${sim.evmUrl}/api/v2.2/nft/${collection.address}/owners?chain=polygon&limit=100`
        const first = decode(EvmPage.OwnersPage, (yield* get(url, { key: sim.apiKey })).json)
        assert.deepStrictEqual(first.status, Option.some("SYNCING"))
        yield* sim.advance(2)
        const later = decode(EvmPage.OwnersPage, (yield* get(url, { key: sim.apiKey })).json)
        assert.deepStrictEqual(later.status, Option.some("SYNCED"))
        assert.isTrue(later.result.length > first.result.length)
      }))

    test.effect("the newest block is not yet indexed: A1 says index_complete false, A2 leaves it out", () =>
      Effect.gen(function*() {
        const sim = yield* Simulator.Simulator
        const chain = sim.world.evm.chain("0x1")
        const api = `${sim.evmUrl}/api/v2.2`
        const a1 = decode(EvmPage.TransfersByBlockPage, (yield* get(`${api}/block/${chain.head}/nft/transfers?chain=eth`, { key: sim.apiKey })).json)
        assert.deepStrictEqual(a1.index_complete, Option.some(false))
        assert.deepStrictEqual(a1.block_exists, Option.some(true))
        assert.strictEqual(a1.result.length, 0)
        const wallet = [...chain.transfersByWallet].toSorted((a, b) => b[1].length - a[1].length)[0]![0]
        const a2 = decode(EvmPage.TransfersPage, (yield* get(`${api}/${wallet}/nft/transfers?chain=eth`, { key: sim.apiKey })).json)
        assert.deepStrictEqual(a2.index_complete, Option.some(false))
        assert.isTrue(a2.result.every((t) => t.block_number < BigInt(chain.head)))
      }))
  })

  layer(Simulator.layer({ seed: 5, history: 5 }))("determinism", (test) => {
    test.effect("the same seed gives the same world; another seed gives another world", () =>
      Effect.gen(function*() {
        const sim = yield* Simulator.Simulator
        const mine = fingerprint(sim.world)
        assert.isTrue(mine.chains.some((chain) => chain.transfers.length > 0) && mine.chains.some((chain) => chain.trades.length > 0))
        // The same seed, as a world and as a second simulator: identical, record for record.
        assert.deepStrictEqual(fingerprint(new World(sim.world.options)), mine)
        assert.deepStrictEqual(yield* worldOf(5), mine)
        // Another seed: other wallets, and on every chain other blocks and other transfers.
        for (const other of [fingerprint(new World({ ...sim.world.options, seed: "6" })), yield* worldOf(6)]) {
          assert.notDeepEqual(other.wallets, mine.wallets)
          for (const [i, chain] of other.chains.entries()) {
            const twin = mine.chains[i]!
            assert.strictEqual(chain.id, twin.id)
            assert.isTrue(chain.blocks.every((block, n) => block !== twin.blocks[n]), `${chain.id}: every block differs`)
            if (chain.transfers.length + twin.transfers.length > 0) assert.notDeepEqual(chain.transfers, twin.transfers, chain.id)
          }
        }
      }))
  })
})
