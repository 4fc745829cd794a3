/**
 * The block of family A (A6) with its transactions, their logs and (when asked for with
 * `include=internal_transactions`) their internal transactions.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import * as Wire from "./Wire.js"

/**
 * Where a transaction or a log sits in the chain, as the service numbers it in A6:
 * `[block_number, transaction_index]` for a transaction, `[block_number, transaction_index,
 * log_index]` for a log. Tuples of this kind sort in chain order.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { Block } from "@chainquery/schema"
 *
 * Schema.decodeUnknownSync(Block.TransferIndex)([15863321, 22, 52]) // [15863321, 22, 52]
 * ```
 * @since 0.1.0
 */
export const TransferIndex = Schema.Array(Wire.IntNumber)

/**
 * An event log emitted by a transaction.
 *
 * @example
 * ```ts
 * import type { Block } from "@chainquery/schema"
 * import { Option } from "effect"
 *
 * // The topics are nullable on the wire, so they decode to `Option<string>` (`None` when absent)
 * const isTransfer = (log: Block.BlockLog) =>
 *   Option.getOrNull(log.topic0) === "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef"
 * ```
 * @since 0.1.0
 */
export const BlockLog = Schema.Struct({
  log_index: Wire.IntString,
  transaction_hash: Schema.String,
  transaction_index: Wire.IntString,
  address: Schema.String,
  data: Schema.String,
  topic0: Wire.nullable(Schema.String),
  topic1: Wire.nullable(Schema.String),
  topic2: Wire.nullable(Schema.String),
  topic3: Wire.nullable(Schema.String),
  block_timestamp: Wire.Timestamp("millis"),
  block_number: Wire.BigIntString,
  block_hash: Schema.String,
  /** The value (in wei) of the transaction that emitted the log (not in service.md). */
  transaction_value: Wire.nullable(Wire.BigIntString),
  /** The log's position as the service numbers it: `[block_number, transaction_index, log_index]`. */
  transfer_index: Wire.nullable(TransferIndex)
})

/**
 * @since 0.1.0
 * @example
 * ```ts
 * import type { Block } from "@chainquery/schema"
 *
 * const topics = (log: Block.BlockLog) => [log.topic0, log.topic1]
 * ```
 */
export type BlockLog = typeof BlockLog.Type

/**
 * A call made inside a transaction (a trace).
 *
 * @example
 * ```ts
 * import type { Block } from "@chainquery/schema"
 *
 * const moved = (call: Block.InternalTransaction) => call.value > 0n
 * ```
 * @since 0.1.0
 */
export const InternalTransaction = Schema.Struct({
  transaction_hash: Schema.String,
  block_number: Wire.BigIntNumber,
  block_hash: Schema.String,
  type: Schema.String,
  from: Schema.String,
  to: Schema.String,
  value: Wire.BigIntString,
  gas: Wire.BigIntString,
  gas_used: Wire.BigIntString,
  input: Schema.String,
  output: Schema.String
})

/**
 * @example
 * ```ts
 * import type { Block } from "@chainquery/schema"
 *
 * const kind = (call: Block.InternalTransaction) => call.type
 * ```
 * @since 0.1.0
 */
export type InternalTransaction = typeof InternalTransaction.Type

/**
 * A transaction of a block, with its receipt fields, logs and internal transactions.
 *
 * @example
 * ```ts
 * import type { Block } from "@chainquery/schema"
 *
 * const succeeded = (tx: Block.BlockTransaction) => tx.receipt_status === 1
 * ```
 * @since 0.1.0
 */
export const BlockTransaction = Schema.Struct({
  hash: Schema.String,
  nonce: Wire.BigIntString,
  transaction_index: Wire.IntString,
  from_address: Schema.String,
  to_address: Wire.nullable(Schema.String),
  from_address_label: Wire.nullable(Schema.String),
  to_address_label: Wire.nullable(Schema.String),
  value: Wire.BigIntString,
  gas: Wire.BigIntString,
  gas_price: Wire.BigIntString,
  input: Schema.String,
  receipt_cumulative_gas_used: Wire.BigIntString,
  receipt_gas_used: Wire.BigIntString,
  receipt_contract_address: Wire.nullable(Schema.String),
  receipt_root: Wire.nullable(Schema.String),
  receipt_status: Wire.IntString,
  block_timestamp: Wire.Timestamp("millis"),
  block_number: Wire.BigIntString,
  block_hash: Schema.String,
  logs: Wire.list(BlockLog),
  internal_transactions: Wire.list(InternalTransaction),
  /** The transaction's position as the service numbers it: `[block_number, transaction_index]`. */
  transfer_index: Wire.nullable(TransferIndex)
})

/**
 * @example
 * ```ts
 * import type { Block } from "@chainquery/schema"
 *
 * const fee = (tx: Block.BlockTransaction) => tx.receipt_gas_used * tx.gas_price
 * ```
 * @since 0.1.0
 */
export type BlockTransaction = typeof BlockTransaction.Type

/**
 * A block: its header fields and its transactions.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { Block } from "@chainquery/schema"
 *
 * const decode = Schema.decodeUnknownSync(Block.Block)
 * // decode(body).number is a bigint, decode(body).transactions a list
 * ```
 * @since 0.1.0
 */
export const Block = Schema.Struct({
  timestamp: Wire.Timestamp("millis"),
  number: Wire.BigIntNumber,
  hash: Schema.String,
  parent_hash: Schema.String,
  nonce: Schema.String,
  sha3_uncles: Schema.String,
  logs_bloom: Schema.String,
  transactions_root: Schema.String,
  state_root: Schema.String,
  receipts_root: Schema.String,
  miner: Schema.String,
  difficulty: Wire.BigIntString,
  total_difficulty: Wire.BigIntString,
  size: Wire.BigIntString,
  extra_data: Schema.String,
  gas_limit: Wire.BigIntString,
  gas_used: Wire.BigIntString,
  transaction_count: Wire.BigIntString,
  transactions: Wire.list(BlockTransaction),
  /**
   * The block's base fee per gas in wei (EIP-1559; what gas analytics read). `None` for blocks
   * before the London fork and where the service leaves it out (not in service.md).
   */
  base_fee_per_gas: Wire.nullable(Wire.BigIntString)
})

/**
 * @example
 * ```ts
 * import type { Block } from "@chainquery/schema"
 *
 * const count = (block: Block.Block) => block.transactions.length
 * ```
 * @since 0.1.0
 */
export type Block = typeof Block.Type
