/**
 * The wire records of the simulated EVM rows: transfers, trades (one record object per stored
 * row, so that its wire JSON can be cached) and blocks with their transactions and logs.
 *
 * @internal
 */
import type { Block, NftTrade, NftTransfer } from "@chainquery/schema"
import { DateTime, Option } from "effect"
import { Random } from "../Random.js"
import type { EvmChain } from "./EvmChain.js"
import type { BlockRow, TradeRow, TransferRow, TxRow } from "./EvmRows.js"

const some = Option.some
const none = Option.none()

const transferRecords = new WeakMap<TransferRow, NftTransfer.NftTransfer>()

/** The record of one stored transfer (one object per row, so its wire JSON can be cached). */
export const transferRecord = (chain: EvmChain, row: TransferRow): NftTransfer.NftTransfer => {
  let record = transferRecords.get(row)
  if (record === undefined) {
    record = makeTransferRecord(chain, row)
    transferRecords.set(row, record)
  }
  return record
}

const makeTransferRecord = (chain: EvmChain, row: TransferRow): NftTransfer.NftTransfer => {
  const block = chain.block(row.block)!
  const collection = chain.collectionAt(row.contract)
  return {
    token_address: row.contract,
    token_id: row.tokenId,
    from_address_entity: none,
    from_address_entity_logo: none,
    from_address: row.from,
    from_address_label: none,
    to_address_entity: none,
    to_address_entity_logo: none,
    to_address: row.to,
    to_address_label: none,
    value: row.value,
    amount: row.amount,
    contract_type: some(row.kind),
    block_number: BigInt(row.block),
    block_timestamp: DateTime.makeUnsafe(block.timestamp),
    block_hash: block.hash,
    transaction_hash: row.txHash,
    transaction_type: some(row.batch ? "Batch" : "Single"),
    transaction_index: row.txIndex,
    log_index: row.logIndex,
    operator: row.operator === null ? none : some(row.operator),
    possible_spam: some(false),
    verified_collection: some(collection?.preIndexed ?? false),
    verified: some(true)
  }
}

const tradeRecords = new WeakMap<TradeRow, NftTrade.NftTrade>()

export const tradeRecord = (chain: EvmChain, row: TradeRow): NftTrade.NftTrade => {
  const cached = tradeRecords.get(row)
  if (cached !== undefined) return cached
  const block = chain.block(row.block)!
  const record: NftTrade.NftTrade = {
    transaction_hash: row.txHash,
    transaction_index: row.txIndex,
    token_ids: row.tokenIds,
    seller_address: row.seller,
    buyer_address: row.buyer,
    token_address: row.contract,
    marketplace_address: row.marketplace,
    price_token_address: some(row.priceToken),
    price: row.price,
    block_timestamp: DateTime.makeUnsafe(block.timestamp),
    block_number: BigInt(row.block),
    block_hash: block.hash,
    verified_collection: some(chain.collectionAt(row.contract)?.preIndexed ?? false)
  }
  tradeRecords.set(row, record)
  return record
}

const pad32 = (hex: string) => `0x${hex.replace(/^0x/, "").padStart(64, "0")}`
const erc721Transfer = "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef"
const erc1155Single = "0xc3d58168c5ae7397731d063d5bbf3d657854427343f4c083240f7aacaa2d0f62"

/** The A6 record of a block (internal transactions only when asked). */
export const blockRecord = (chain: EvmChain, row: BlockRow, internal: boolean): Block.Block => {
  const r = new Random(row.hash)
  const timestamp = DateTime.makeUnsafe(row.timestamp)
  const transactions = row.txs.map((tx) => transactionRecord(chain, row, tx, timestamp, internal))
  return {
    timestamp,
    number: BigInt(row.number),
    hash: row.hash,
    parent_hash: row.parentHash,
    nonce: "0x0000000000000000",
    sha3_uncles: "0x1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347",
    logs_bloom: `0x${"0".repeat(512)}`,
    transactions_root: `0x${r.hex(32)}`,
    state_root: `0x${r.hex(32)}`,
    receipts_root: `0x${r.hex(32)}`,
    miner: row.miner,
    difficulty: 0n,
    total_difficulty: 58750003716598352816469n,
    size: BigInt(600 + row.txs.length * 180),
    extra_data: "0x",
    gas_limit: 30_000_000n,
    gas_used: row.txs.reduce((sum, tx) => sum + tx.gasUsed, 0n),
    transaction_count: BigInt(row.txs.length),
    transactions,
    // 1 to 4.999 gwei: below every simulated gas price (5 to 80 gwei), so each pays a tip.
    base_fee_per_gas: some(BigInt(r.between(1_000, 4_999)) * 10n ** 6n)
  }
}

const transactionRecord = (
  chain: EvmChain,
  block: BlockRow,
  tx: TxRow,
  timestamp: DateTime.Utc,
  internal: boolean
): Block.BlockTransaction => ({
  hash: tx.hash,
  nonce: tx.nonce,
  transaction_index: tx.index,
  from_address: tx.from,
  to_address: tx.to === null ? none : some(tx.to),
  from_address_label: none,
  to_address_label: none,
  value: tx.value,
  gas: tx.gas,
  gas_price: tx.gasPrice,
  input: tx.input,
  receipt_cumulative_gas_used: block.txs.slice(0, tx.index + 1).reduce((sum, t) => sum + t.gasUsed, 0n),
  receipt_gas_used: tx.gasUsed,
  receipt_contract_address: none,
  receipt_root: none,
  receipt_status: 1,
  block_timestamp: timestamp,
  block_number: BigInt(block.number),
  block_hash: block.hash,
  logs: tx.transfers.map((index) => {
    const transfer = chain.transfers[index]!
    const single = transfer.kind === "ERC721"
    return {
      log_index: transfer.logIndex,
      transaction_hash: tx.hash,
      transaction_index: tx.index,
      address: transfer.contract,
      data: single ? "0x" : `0x${transfer.tokenId.toString(16).padStart(64, "0")}${transfer.amount.toString(16).padStart(64, "0")}`,
      topic0: some(single ? erc721Transfer : erc1155Single),
      topic1: some(pad32(single ? transfer.from : (transfer.operator ?? transfer.from))),
      topic2: some(pad32(single ? transfer.to : transfer.from)),
      topic3: some(single ? pad32(transfer.tokenId.toString(16)) : pad32(transfer.to)),
      block_timestamp: timestamp,
      block_number: BigInt(block.number),
      block_hash: block.hash,
      transaction_value: some(tx.value),
      transfer_index: some([block.number, tx.index, transfer.logIndex])
    }
  }),
  internal_transactions: internal
    ? tx.internal.map((call) => ({
      transaction_hash: tx.hash,
      block_number: BigInt(block.number),
      block_hash: block.hash,
      type: call.type,
      from: call.from,
      to: call.to,
      value: call.value,
      gas: call.gas,
      gas_used: call.gasUsed,
      input: "0x",
      output: "0x"
    }))
    : [],
  transfer_index: some([block.number, tx.index])
})
