/**
 * Test support: real answers of the simulator for each of the 14 operations, with every option
 * that adds fields turned on (normalised metadata, media items, internal transactions), read over
 * HTTP on 127.0.0.1. The inputs come from the world (the busiest wallets, tokens and blocks), so
 * the answers hold records.
 */
import { Effect } from "effect"
import type { Simulator } from "../../src/index.js"
import { get } from "./http.js"

/** One answered request: the operation's label (`A1`..`B7`) and the parsed body. */
export interface Sample {
  readonly operation: string
  readonly url: string
  readonly body: unknown
}

type Sim = Simulator.Simulator["Service"]

/** The keys of the `count` longest lists of an index. */
const busiest = (index: ReadonlyMap<string, ReadonlyArray<number>>, count: number) =>
  [...index].toSorted((a, b) => b[1].length - a[1].length).slice(0, count).map(([key]) => key)

const familyA = (sim: Sim): ReadonlyArray<readonly [string, string]> => {
  const chain = sim.world.evm.chain("0x1")
  const api = `${sim.evmUrl}/api/v2.2`
  const blocks = chain.blocks.filter((block) => block.transferEnd > block.transferStart).slice(-3).map((b) => b.number)
  const tokens = busiest(chain.transfersByToken, 3).map((key) => key.split(":") as [string, string])
  const wallets = busiest(chain.transfersByWallet, 3)
  return [
    ...blocks.map((block) => ["A1", `${api}/block/${block}/nft/transfers?chain=eth`] as const),
    ...wallets.map((wallet) => ["A2", `${api}/${wallet}/nft/transfers?chain=eth`] as const),
    ...tokens.map(([contract, id]) => ["A3", `${api}/nft/${contract}/${id}/transfers?chain=eth`] as const),
    ...busiest(chain.tradesByWallet, 3).map((wallet) => ["A4", `${api}/wallets/${wallet}/nfts/trades?chain=eth`] as const),
    ...[...new Set(tokens.map(([contract]) => contract))].flatMap((contract) => [
      ["A5", `${api}/nft/${contract}/owners?chain=eth&normalizeMetadata=true&media_items=true`] as const,
      ["A5", `${api}/nft/${contract}/owners?chain=eth`] as const
    ]),
    ...blocks.flatMap((block) => [
      ["A6", `${api}/block/${block}?chain=eth&include=internal_transactions`] as const,
      ["A6", `${api}/block/${block}?chain=eth`] as const
    ]),
    ...sim.world.evm.wallets.slice(0, 20).map((wallet) => ["A7", `${api}/wallets/${wallet}/defi/positions?chain=eth`] as const)
  ]
}

interface LedgerSample {
  readonly wallets: ReadonlyArray<string>
  readonly creators: ReadonlyArray<string>
  readonly collections: ReadonlyArray<string>
  readonly tokens: ReadonlyArray<string>
}

const familyB = (sim: Sim) =>
  Effect.map(get(`${sim.url}/__sim/sample?chain=aptos-mainnet`), ({ json }): ReadonlyArray<readonly [string, string]> => {
    const sample = json as LedgerSample
    const base = sim.ledgerUrl.mainnet
    return [
      ["B1", `${base}/nfts/collections/${sample.collections[0]}/owners?limit=50`],
      ["B2", `${base}/nfts/transfers/creators?limit=50&creator_addresses[]=${sample.creators[0]}`],
      ["B3", `${base}/wallets/nfts/transfers?limit=50&wallet_addresses[]=${sample.wallets[0]}`],
      ["B4", `${base}/collections?limit=50`],
      ["B5", `${base}/wallets/nfts?limit=50&owner_addresses[]=${sample.wallets[0]}`],
      ["B6", `${base}/nfts/owners?limit=50&token_ids[]=${sample.tokens[0]}`],
      ["B7", `${base}/coins/names?limit=50`]
    ]
  })

/** The simulator's answers to a fixed set of requests covering the 14 operations (all 200). */
export const sampleAnswers = (sim: Sim): Effect.Effect<ReadonlyArray<Sample>, Error> =>
  Effect.gen(function*() {
    const requests = [...familyA(sim), ...yield* familyB(sim)]
    return yield* Effect.forEach(requests, ([operation, url]) =>
      Effect.flatMap(get(url, { key: sim.apiKey }), (answer) =>
        answer.status === 200
          ? Effect.succeed({ operation, url, body: answer.json as unknown })
          : Effect.fail(new Error(`${operation} ${url} answered ${answer.status}: ${answer.text.slice(0, 200)}`))))
  })
