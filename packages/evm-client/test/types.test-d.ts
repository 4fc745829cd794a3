/**
 * Type-level checks. They are compile-time facts, so they live here and not in the runtime test
 * count: `pnpm check` (`tsc -p tsconfig.json`, which includes `test/`) fails when one is wrong,
 * and vitest (which collects only files ending in `.test.ts`) never runs this file. Alternatives that the
 * service would resolve silently cannot be written together, and the inputs accept every form the
 * schemas do.
 */
import type { Block, Errors } from "@chainquery/schema"
import { DateTime, type Effect, type Option } from "effect"
import type { EvmClient, GetBlock, GetNFTTradesByWallet, GetWalletNFTTransfers } from "../src/index.js"

/** `true` when `A` and `B` are the same type (not merely assignable one way or the other). */
type Equals<A, B> = (<T>() => T extends A ? 1 : 2) extends (<T>() => T extends B ? 1 : 2) ? true : false

/** Compiles only when given `true`. */
type Expect<T extends true> = T

const wallet = "0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed"

// A block and a date for the same bound do not compile (the service would silently use the block).
// @ts-expect-error fromBlock and fromDate together
export const bothFrom: GetWalletNFTTransfers.Parameters = { address: wallet, fromBlock: 1, fromDate: "2024-01-01" }
// @ts-expect-error toBlock and toDate together
export const bothTo: GetNFTTradesByWallet.Parameters = { address: wallet, toBlock: 1n, toDate: 1700000000 }
// @ts-expect-error unix seconds are for trades (A4) only
export const notSeconds: GetWalletNFTTransfers.Parameters = { address: wallet, fromDate: 1700000000 }

// One of each pair, in any of the accepted forms, does.
export const mixed: GetWalletNFTTransfers.Parameters = { address: wallet, fromBlock: "17000000", toDate: new Date() }
export const seconds: GetNFTTradesByWallet.Parameters = { address: wallet, fromDate: 1700000000, toDate: DateTime.makeUnsafe(0) }

/** getBlock gives an Option (a missing block is `None`) and has no NotFound in its errors. */
export type GetBlockChecks = [
  Expect<Equals<ReturnType<EvmClient.Service["getBlock"]>, Effect.Effect<Option.Option<Block.Block>, GetBlock.ErrorType>>>,
  Expect<Equals<Extract<GetBlock.ErrorType, Errors.NotFound>, never>>
]
