/**
 * Family B against the simulator over real HTTP on 127.0.0.1: every operation on both networks
 * decodes with the schema package, errors have the service's shape, listings paginate
 * consistently while the ledger advances, and holdings equal the fold of the transfers.
 */
import { LedgerPage } from "@chainquery/schema"
import { assert, describe, layer } from "@effect/vitest"
import { Effect, Option, Schema } from "effect"
import { Simulator } from "../src/index.js"
import { get } from "./support/http.js"

const decode = <S extends Schema.Decoder<unknown>>(schema: S, body: unknown): S["Type"] => Schema.decodeUnknownSync(schema)(body)

interface Sample {
  readonly wallets: ReadonlyArray<string>
  readonly creators: ReadonlyArray<string>
  readonly collections: ReadonlyArray<string>
  readonly tokens: ReadonlyArray<string>
}

const sampleOf = (sim: Simulator.Simulator["Service"], network: "mainnet" | "testnet") =>
  Effect.map(get(`${sim.url}/__sim/sample?chain=aptos-${network}`), (answer) => answer.json as Sample)

describe("simulator, family B", () => {
  layer(Simulator.layer({ seed: 21, indexing: false, history: 30 }))((test) => {
    test.effect("serves all seven operations on both networks, each decoding with @chainquery/schema", () =>
      Effect.gen(function*() {
        const sim = yield* Simulator.Simulator
        for (const network of ["mainnet", "testnet"] as const) {
          const base = sim.ledgerUrl[network]
          const sample = yield* sampleOf(sim, network)
          const key = sim.apiKey
          const check = <S extends Schema.Decoder<unknown>>(schema: S, path: string) =>
            Effect.map(get(`${base}${path}`, { key }), (answer) => {
              assert.strictEqual(answer.status, 200, `${network} ${path}: ${answer.text.slice(0, 200)}`)
              const page = decode(schema, answer.json) as { readonly rejected: ReadonlyArray<unknown>; readonly result: ReadonlyArray<unknown> }
              assert.deepStrictEqual(page.rejected, [])
              return page
            })
          const b1 = yield* check(LedgerPage.HoldingsPage, `/nfts/collections/${sample.collections[0]}/owners?limit=10`)
          assert.isTrue(b1.result.length > 0)
          yield* check(LedgerPage.TransfersPage, `/nfts/transfers/creators?limit=10&creator_addresses[]=${sample.creators[0]}`)
          const b3 = yield* check(LedgerPage.TransfersPage, `/wallets/nfts/transfers?limit=10&wallet_addresses[0]=${sample.wallets[0]}`)
          assert.isTrue(b3.result.length > 0)
          yield* check(LedgerPage.CollectionsPage, `/collections?limit=10&fromName=A&toName=z`)
          yield* check(LedgerPage.HoldingsPage, `/wallets/nfts?limit=10&owner_addresses=${sample.wallets[0]}`)
          yield* check(LedgerPage.HoldingsPage, `/nfts/owners?limit=10&token_ids=${sample.tokens[0]}`)
          const coins = yield* check(LedgerPage.CoinsPage, `/coins/names?limit=100&from_name=B&to_name=D`)
          const names = (coins.result as ReadonlyArray<{ readonly name: string }>).map((c) => c.name)
          assert.isTrue(names.length > 0 && names.every((n) => n >= "B" && n <= "D"))
          assert.deepStrictEqual(names, [...names].toSorted())
        }
      }))

    test.effect("mainnet and testnet are separate worlds", () =>
      Effect.gen(function*() {
        const sim = yield* Simulator.Simulator
        const main = yield* sampleOf(sim, "mainnet")
        const testnet = yield* sampleOf(sim, "testnet")
        assert.notDeepEqual(main.wallets, testnet.wallets)
        const url = (network: "mainnet" | "testnet") => `${sim.ledgerUrl[network]}/wallets/nfts?limit=5&owner_addresses=${main.wallets[0]}`
        const onMain = decode(LedgerPage.HoldingsPage, (yield* get(url("mainnet"), { key: sim.apiKey })).json)
        const onTest = decode(LedgerPage.HoldingsPage, (yield* get(url("testnet"), { key: sim.apiKey })).json)
        assert.isTrue(onMain.result.length > 0)
        assert.strictEqual(onTest.result.length, 0)
      }))

    test.effect("answers bad requests with 400 in family B's shape", () =>
      Effect.gen(function*() {
        const sim = yield* Simulator.Simulator
        const base = sim.ledgerUrl.mainnet
        const cases: ReadonlyArray<readonly [string, string]> = [
          ["/coins/names", "limit should not be empty"],
          ["/coins/names?limit=101", "limit must not be greater than 100"],
          ["/wallets/nfts?limit=5", "owner_addresses should not be empty"],
          ["/wallets/nfts?limit=5&owner_addresses=0xnothex", "owner_addresses must be 0x followed by 1 to 64 hex digits"]
        ]
        for (const [path, message] of cases) {
          const answer = yield* get(`${base}${path}`, { key: sim.apiKey })
          assert.strictEqual(answer.status, 400, path)
          assert.deepStrictEqual(answer.json, { statusCode: 400, message: [message], error: "Bad Request" }, path)
        }
        assert.strictEqual((yield* get(`${base}/coins/names?limit=5`)).status, 401)
      }))

    test.effect("a full walk of B3 returns each transfer once while the ledger advances", () =>
      Effect.gen(function*() {
        const sim = yield* Simulator.Simulator
        const world = sim.world.aptos.mainnet
        const sample = yield* sampleOf(sim, "mainnet")
        const wallets = sample.wallets.slice(0, 3)
        const snapshot = world.latestVersion()
        const truth = world.transfersSince(0n).filter((t) =>
          t.transaction_version <= snapshot &&
          wallets.some((w) => Option.contains(t.from_address, w) || Option.contains(t.to_address, w))
        ).map((t) => `${t.transaction_version}:${t.event_sequence_number}:${t.event_creation_number}:${t.token_data_id_hash}`)
        const seen: Array<string> = []
        let cursor: string | undefined
        do {
          const query = `limit=9&${wallets.map((w) => `wallet_addresses=${w}`).join("&")}${cursor === undefined ? "" : `&cursor=${cursor}`}`
          const page = decode(LedgerPage.TransfersPage, (yield* get(`${sim.ledgerUrl.mainnet}/wallets/nfts/transfers?${query}`, { key: sim.apiKey })).json)
          seen.push(...page.result.map((t) => `${t.transaction_version}:${t.event_sequence_number}:${t.event_creation_number}:${t.token_data_id_hash}`))
          assert.strictEqual(page.hasNextPage, Option.isSome(page.cursor))
          cursor = Option.getOrUndefined(page.cursor)
          yield* sim.advance(1)
        } while (cursor !== undefined)
        assert.strictEqual(new Set(seen).size, seen.length, "no duplicates")
        assert.deepStrictEqual([...seen].toSorted(), [...truth].toSorted(), "no misses")
      }))

    test.effect("holdings (B5) equal the fold of the transfers (B3)", () =>
      Effect.gen(function*() {
        const sim = yield* Simulator.Simulator
        const sample = yield* sampleOf(sim, "testnet")
        const base = sim.ledgerUrl.testnet
        for (const wallet of sample.wallets.slice(0, 4)) {
          const held = new Map<string, bigint>()
          let cursor: string | undefined
          do {
            const answer = yield* get(`${base}/wallets/nfts?limit=50&owner_addresses=${wallet}${cursor ? `&cursor=${cursor}` : ""}`, { key: sim.apiKey })
            const page: LedgerPage.HoldingsPage = decode(LedgerPage.HoldingsPage, answer.json)
            for (const h of page.result) held.set(`${h.token_data_id_hash}:${h.property_version}`, h.amount)
            cursor = Option.getOrUndefined(page.cursor)
          } while (cursor !== undefined)
          const folded = new Map<string, bigint>()
          cursor = undefined
          do {
            const answer = yield* get(`${base}/wallets/nfts/transfers?limit=50&wallet_addresses=${wallet}${cursor ? `&cursor=${cursor}` : ""}`, { key: sim.apiKey })
            const page: LedgerPage.TransfersPage = decode(LedgerPage.TransfersPage, answer.json)
            for (const t of page.result) {
              const k = `${t.token_data_id_hash}:${t.property_version}`
              if (Option.contains(t.to_address, wallet)) folded.set(k, (folded.get(k) ?? 0n) + t.token_amount)
              if (Option.contains(t.from_address, wallet)) folded.set(k, (folded.get(k) ?? 0n) - t.token_amount)
            }
            cursor = Option.getOrUndefined(page.cursor)
          } while (cursor !== undefined)
          for (const [k, v] of folded) if (v === 0n) folded.delete(k)
          assert.deepStrictEqual(new Map([...held].toSorted()), new Map([...folded].toSorted()), wallet)
        }
      }))
  })
})
