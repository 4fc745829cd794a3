/**
 * The rows a simulated EVM chain stores: its blocks, their transactions (with the calls inside
 * them), NFT transfers and trades, and the tokens of each collection. `EvmChain` keeps them with
 * their indexes, `BlockBuilder` makes a block's transactions, `EvmRecords` turns them into the
 * service's records.
 *
 * @internal
 */

/** An NFT transfer as stored. */
export interface TransferRow {
  readonly block: number
  readonly txIndex: number
  readonly logIndex: number
  readonly txHash: string
  readonly contract: string
  readonly tokenId: bigint
  readonly from: string
  readonly to: string
  readonly amount: bigint
  readonly kind: "ERC721" | "ERC1155"
  readonly batch: boolean
  readonly operator: string | null
  readonly value: bigint
}

/** An NFT sale as stored; its transfers are in the transfer list too. */
export interface TradeRow {
  readonly block: number
  readonly txIndex: number
  readonly txHash: string
  readonly tokenIds: ReadonlyArray<bigint>
  readonly seller: string
  readonly buyer: string
  readonly contract: string
  readonly marketplace: string
  readonly priceToken: string
  readonly price: bigint
}

/** A call inside a transaction. */
export interface InternalRow {
  readonly type: string
  readonly from: string
  readonly to: string
  readonly value: bigint
  readonly gas: bigint
  readonly gasUsed: bigint
}

/** A transaction; `transfers` are indexes into the chain's transfer list (its NFT logs). */
export interface TxRow {
  readonly hash: string
  readonly index: number
  readonly from: string
  readonly to: string | null
  readonly value: bigint
  readonly gas: bigint
  readonly gasUsed: bigint
  readonly gasPrice: bigint
  readonly nonce: bigint
  readonly input: string
  readonly transfers: ReadonlyArray<number>
  readonly internal: ReadonlyArray<InternalRow>
}

/** A block, with the ranges of its transfers and trades in the chain's lists. */
export interface BlockRow {
  readonly number: number
  readonly hash: string
  readonly parentHash: string
  readonly timestamp: number
  readonly miner: string
  readonly txs: ReadonlyArray<TxRow>
  readonly transferStart: number
  readonly transferEnd: number
  readonly tradeStart: number
  readonly tradeEnd: number
}

/** A token of a collection, in mint order. */
export interface TokenRow {
  readonly contract: string
  readonly tokenId: bigint
  readonly mintBlock: number
}
