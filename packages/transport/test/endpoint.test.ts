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
