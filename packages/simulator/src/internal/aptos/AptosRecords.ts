/**
 * The decoded records of family B (the types of `@chainquery/schema`) built from the ledger: a
 * transfer row, a holding at a snapshot, a collection at a snapshot, a coin.
 *
 * @internal
 */
import type { AptosCoin, AptosCollection, AptosToken } from "@chainquery/schema"
import { DateTime, Option } from "effect"
import { type CoinInfo, millisAt } from "./AptosGenesis.js"
import { type AptosLedger, lowerBound, type TransferRow, transferTypes } from "./AptosLedger.js"

/** `table_type` of every holding: token standard v1 token stores. */
const tableType = "0x3::token::TokenStore"

const account = (ledger: AptosLedger, index: number): Option.Option<string> =>
  index < 0 ? Option.none() : Option.some(ledger.genesis.accounts[index]!)

const instant = (ledger: AptosLedger, version: number): DateTime.Utc =>
  DateTime.makeUnsafe(millisAt(ledger.genesis.profile, version))

/**
 * The B2/B3 record of a transfer row.
 *
 * Its `transaction_version` is a `bigint`, as in the decoded schema type.
 */
export const transferRecord = (ledger: AptosLedger, row: TransferRow): AptosToken.TokenTransfer => {
  const token = ledger.tokens[row.token]!
  const collection = ledger.genesis.collections[token.collection]!
  return {
    coin_amount: Option.fromNullishOr(row.coinAmount),
    coin_type: Option.fromNullishOr(row.coinType),
    collection_data_id_hash: collection.id,
    collection_name: collection.name,
    creator_address: ledger.genesis.accounts[collection.creator]!,
    event_account_address: ledger.genesis.accounts[row.eventAccount]!,
    event_creation_number: BigInt(row.creationNumber),
    event_sequence_number: BigInt(row.sequenceNumber),
    from_address: account(ledger, row.from),
    name: token.name,
    property_version: BigInt(token.propertyVersion),
    to_address: account(ledger, row.to),
    token_amount: BigInt(row.amount),
    token_data_id_hash: token.id,
    transaction_timestamp: instant(ledger, row.version),
    transaction_version: BigInt(row.version),
    transfer_type: transferTypes[row.kind]
  }
}

/**
 * The B1/B5/B6 record of a holding as of a snapshot of `bound` rows (its balance and last
 * transaction then).
 *
 * For a holding open at the snapshot `amount` is its balance then, a positive `bigint`;
 * `ledger.live` lists the holdings open now.
 */
export const holdingRecord = (ledger: AptosLedger, id: number, bound: number): AptosToken.TokenHolding => {
  const holding = ledger.holdings[id]!
  const token = ledger.tokens[holding.token]!
  const collection = ledger.genesis.collections[token.collection]!
  const last = ledger.lastRowAt(holding, bound)
  return {
    amount: BigInt(ledger.amountAt(holding, bound)),
    collection_data_id_hash: collection.id,
    collection_name: collection.name,
    creator_address: ledger.genesis.accounts[collection.creator]!,
    last_transaction_timestamp: instant(ledger, last.version),
    last_transaction_version: BigInt(last.version),
    name: token.name,
    owner_address: ledger.genesis.accounts[holding.owner]!,
    property_version: BigInt(token.propertyVersion),
    table_type: tableType,
    token_data_id_hash: token.id,
    token_properties: token.properties
  }
}

/**
 * The B4 record of a collection as of a snapshot of `bound` rows: `supply` counts the tokens
 * created by then, the last transaction is its newest row then (its creation when none).
 *
 * With `bound = ledger.rows.length` it is the collection as of now; `supply` is a `bigint`.
 */
export const collectionRecord = (ledger: AptosLedger, index: number, bound: number): AptosCollection.Collection => {
  const info = ledger.genesis.collections[index]!
  const supply = lowerBound(ledger.collectionTokens[index]!, (token) => ledger.tokens[token]!.mintRow, bound)
  const rows = ledger.byCollection[index]!
  const lastRow = rows[lowerBound(rows, (id) => id, bound) - 1]
  const lastVersion = lastRow === undefined ? info.createdVersion : ledger.rows[lastRow]!.version
  return {
    collection_data_id_hash: info.id,
    collection_name: info.name,
    creator_address: ledger.genesis.accounts[info.creator]!,
    description: info.description,
    description_mutable: info.descriptionMutable,
    last_transaction_timestamp: instant(ledger, lastVersion),
    last_transaction_version: BigInt(lastVersion),
    maximum: info.maximum,
    maximum_mutable: info.maximumMutable,
    metadata_uri: info.metadataUri,
    supply: BigInt(supply),
    table_handle: info.tableHandle,
    uri_mutable: info.uriMutable
  }
}

/**
 * The B7 record of a coin.
 *
 * Coin 0 of every genesis is the native coin, so its record has the `symbol` `"APT"`.
 */
export const coinRecord = (ledger: AptosLedger, coin: CoinInfo): AptosCoin.Coin => ({
  coin_type: coin.coinType,
  coin_type_hash: coin.coinTypeHash,
  creator_address: coin.creator,
  decimals: coin.decimals,
  name: coin.name,
  supply_aggregator_table_handle: Option.fromNullishOr(coin.aggregatorHandle),
  supply_aggregator_table_key: Option.fromNullishOr(coin.aggregatorKey),
  symbol: coin.symbol,
  transaction_created_timestamp: instant(ledger, coin.createdVersion),
  transaction_version_created: BigInt(coin.createdVersion)
})
