import { EvmApi, LedgerApi } from "@chainquery/schema"
import { DateTime } from "effect"
import { describe, expect, it } from "vitest"
import { Endpoint } from "../src/index.js"

describe("Endpoint.fromHttpApi", () => {
  it("fills the path template (with the family prefix) and encodes the query in the wire's spelling", () => {
    const wallet = "0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed"
    const request = Endpoint.fromHttpApi(EvmApi.EvmGroup.endpoints.getWalletNFTTransfers).build(
      { address: wallet },
      {
        chain: "0x89",
        contract_addresses: [wallet, wallet],
        from_block: 5n,
        to_date: DateTime.makeUnsafe("2024-01-02T03:04:05Z"),
        limit: 10
      },
      "0x89"
    )
    expect(request.operation).toBe("getWalletNFTTransfers")
    expect(request.path).toBe(`/api/v2.2/${wallet}/nft/transfers`)
    expect(request.query).toEqual([
      ["chain", "0x89"],
      ["contract_addresses[]", wallet],
      ["contract_addresses[]", wallet],
      ["from_block", "5"],
      ["to_date", "2024-01-02T03:04:05.000Z"],
      ["limit", "10"]
    ])
  })

  it("leaves out a query value that is undefined, as if it were not given", () => {
    const wallet = "0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed"
    const transfers = Endpoint.fromHttpApi(EvmApi.EvmGroup.endpoints.getWalletNFTTransfers)
    const request = transfers.build({ address: wallet }, { chain: "0x1", cursor: undefined, limit: 5, order: undefined })
    expect(request.query).toEqual([["chain", "0x1"], ["limit", "5"]])
  })

  it("encodings are remembered per value and type: different values never share one, and more than the memo holds still encode right", () => {
    const wallet = "0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed"
    const owners = Endpoint.fromHttpApi(EvmApi.EvmGroup.endpoints.getNFTOwners)
    const queryOf = (query: Record<string, unknown>) => owners.build({ address: wallet }, query).query
    // Each asked twice, interleaved: the second answer comes from the memo and must be its own.
    const cases: ReadonlyArray<readonly [Record<string, unknown>, ReadonlyArray<readonly [string, string]>]> = [
      [{ chain: "0x1" }, [["chain", "0x1"]]],
      [{ chain: "0x89" }, [["chain", "0x89"]]],
      [{ chain: "0x1", normalizeMetadata: true }, [["chain", "0x1"], ["normalizeMetadata", "true"]]],
      [{ chain: "0x1", normalizeMetadata: false }, [["chain", "0x1"], ["normalizeMetadata", "false"]]],
      [{ chain: "0x1", limit: 2 }, [["chain", "0x1"], ["limit", "2"]]],
      [{ chain: "0x1", limit: 1 }, [["chain", "0x1"], ["limit", "1"]]],
      [{ chain: "0x1", cursor: "1" }, [["chain", "0x1"], ["cursor", "1"]]],
      [{ chain: "0x1", cursor: "2" }, [["chain", "0x1"], ["cursor", "2"]]]
    ]
    for (let round = 0; round < 2; round++) {
      for (const [query, expected] of cases) expect(queryOf(query), JSON.stringify(query)).toEqual(expected)
    }
    // A list and its lone element are different parameters.
    const transfers = Endpoint.fromHttpApi(EvmApi.EvmGroup.endpoints.getWalletNFTTransfers)
    for (let round = 0; round < 2; round++) {
      expect(transfers.build({ address: wallet }, { contract_addresses: [wallet] }).query).toEqual([["contract_addresses[]", wallet]])
      expect(transfers.build({ address: wallet }, { contract_addresses: [wallet, wallet] }).query).toEqual([
        ["contract_addresses[]", wallet],
        ["contract_addresses[]", wallet]
      ])
    }
    // Past the memo's size (512), every query is still its own.
    for (let round = 0; round < 2; round++) {
      for (let cursor = 0; cursor < 1200; cursor++) expect(queryOf({ cursor: `c${cursor}` })).toEqual([["cursor", `c${cursor}`]])
    }
  })

  it("builds family B paths without a prefix", () => {
    const request = Endpoint.fromHttpApi(LedgerApi.LedgerGroup.endpoints.getNFTOwnersByCollection).build(
      { collection_data_id_hash: "ab".repeat(32) },
      { limit: 5 }
    )
    expect(request.path).toBe(`/nfts/collections/${"ab".repeat(32)}/owners`)
    expect(request.query).toEqual([["limit", "5"]])
  })

  it("spells a list of one element with brackets too", () => {
    const request = Endpoint.fromHttpApi(LedgerApi.LedgerGroup.endpoints.getNFTByOwners).build(
      undefined,
      { limit: 5, owner_addresses: [`0x${"1".repeat(64)}`] }
    )
    expect(request.query).toEqual([["limit", "5"], ["owner_addresses[]", `0x${"1".repeat(64)}`]])
  })
})

describe("Endpoint.fromHttpApi remembers recent encodings", () => {
  const transfers = Endpoint.fromHttpApi(EvmApi.EvmGroup.endpoints.getWalletNFTTransfers)
  const wallet = "0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed"

  it("the same parameters give the same request; any change of value, type or list gives its own", () => {
    const query = (limit: number, cursor?: string) =>
      transfers.build({ address: wallet }, cursor === undefined ? { chain: "0x1", limit } : { chain: "0x1", limit, cursor }).query
    expect(query(10)).toEqual(query(10))
    expect(query(10, "abc")).toEqual([["chain", "0x1"], ["limit", "10"], ["cursor", "abc"]])
    expect(query(11, "abc")).toEqual([["chain", "0x1"], ["limit", "11"], ["cursor", "abc"]])
    expect(query(10, "abd")).toEqual([["chain", "0x1"], ["limit", "10"], ["cursor", "abd"]])
    const listed = (addresses: Array<string>) =>
      transfers.build({ address: wallet }, { contract_addresses: addresses }).query.map(([, value]) => value)
    const other = "0x0000000000000000000000000000000000000001"
    expect(listed([wallet, other])).toEqual([wallet, other])
    expect(listed([other, wallet])).toEqual([other, wallet])
    expect(listed([wallet])).toEqual([wallet])
    // A value that is not plain (a block number as a bigint) is encoded each time, never confused.
    const fromBlock = (block: bigint) => transfers.build({ address: wallet }, { from_block: block }).query
    expect(fromBlock(5n)).toEqual([["from_block", "5"]])
    expect(fromBlock(6n)).toEqual([["from_block", "6"]])
  })
})

describe("Endpoint encodings remembered: values that print alike stay apart", () => {
  const endpoint = LedgerApi.LedgerGroup.endpoints.getCoinsByNameRange
  /** What building gives, or "throws". */
  const outcome = (encoder: ReturnType<typeof Endpoint.fromHttpApi<typeof endpoint>>, query: Record<string, unknown>) => {
    try {
      return encoder.build(undefined, query).query
    } catch {
      return "throws"
    }
  }
  const queries: Array<Record<string, unknown>> = [
    { limit: 10 },
    { limit: 10, from_name: undefined },
    { limit: Number.NaN },
    { limit: Number.POSITIVE_INFINITY },
    { limit: -0 },
    { limit: 0 },
    { limit: 10, from_name: "a" },
    { limit: "10" }
  ]

  it("each query encodes as it would on an encoder that never saw the others (NaN, Infinity, -0, an explicit undefined)", () => {
    const warmed = Endpoint.fromHttpApi(endpoint)
    for (const query of queries) outcome(warmed, query)
    for (const query of queries) expect(outcome(warmed, query)).toEqual(outcome(Endpoint.fromHttpApi(endpoint), query))
  })
})
