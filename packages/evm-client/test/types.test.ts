/**
 * Type-level checks (verified by `tsc -p tsconfig.json`): alternatives that the service would
 * resolve silently cannot be written together, and the inputs accept every form the schemas do.
 */
import { DateTime, type Effect, type Option } from "effect"
import type { Block, Errors } from "@chainquery/schema"
import { describe, expectTypeOf, it } from "vitest"
import type { EvmClient, GetBlock, GetNFTTradesByWallet, GetWalletNFTTransfers } from "../src/index.js"

const wallet = "0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed"

describe("EvmClient types", () => {
  it("rejects a block and a date for the same bound", () => {
    // @ts-expect-error fromBlock and fromDate together
    const from: GetWalletNFTTransfers.Parameters = { address: wallet, fromBlock: 1, fromDate: "2024-01-01" }
    // @ts-expect-error toBlock and toDate together
    const to: GetNFTTradesByWallet.Parameters = { address: wallet, toBlock: 1n, toDate: 1700000000 }
    const mixed: GetWalletNFTTransfers.Parameters = { address: wallet, fromBlock: "17000000", toDate: new Date() }
    const seconds: GetNFTTradesByWallet.Parameters = { address: wallet, fromDate: 1700000000, toDate: DateTime.makeUnsafe(0) }
    // @ts-expect-error unix seconds are for trades (A4) only
    const notSeconds: GetWalletNFTTransfers.Parameters = { address: wallet, fromDate: 1700000000 }
    expectTypeOf([from, to, mixed, seconds, notSeconds]).toBeArray()
  })

  it("getBlock gives an Option and no NotFound", () => {
    type Call = EvmClient.Service["getBlock"]
    expectTypeOf<ReturnType<Call>>().toEqualTypeOf<Effect.Effect<Option.Option<Block.Block>, GetBlock.ErrorType>>()
    expectTypeOf<Extract<GetBlock.ErrorType, Errors.NotFound>>().toBeNever()
  })
})
