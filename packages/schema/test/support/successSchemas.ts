/**
 * The schema each 200 fixture decodes with: its operation's response schema, except the one
 * fixture that is a single record pasted from a page rather than an envelope.
 */
import type { Schema } from "effect"
import * as Chainquery from "../../src/index.js"

const { AptosCoin, AptosCollection, AptosToken, Block, DefiPositions, EvmPage, LedgerPage, NftOwner, NftTrade, NftTransfer } =
  Chainquery

/** The 200 response schema of each operation folder. */
export const successSchemas: Readonly<Record<string, Schema.Codec<any, any>>> = {
  A1: EvmPage.TransfersByBlockPage,
  A2: EvmPage.TransfersPage,
  A3: EvmPage.TransfersPage,
  A4: EvmPage.TradesPage,
  A5: EvmPage.OwnersPage,
  A6: Block.Block,
  A7: DefiPositions.DefiPositionsSummary,
  B1: LedgerPage.HoldingsPage,
  B2: LedgerPage.TransfersPage,
  B3: LedgerPage.TransfersPage,
  B4: LedgerPage.CollectionsPage,
  B5: LedgerPage.HoldingsPage,
  B6: LedgerPage.HoldingsPage,
  B7: LedgerPage.CoinsPage
}

/** Fixtures (`operation/file`) that are one record, not an envelope, with the record's schema. */
export const singleRecords: Readonly<Record<string, Schema.Codec<any, any>>> = {
  "B5/code-comment-single-item-2024.json": AptosToken.TokenHolding
}

/** The schema a 200 fixture (`operation/file`) decodes with. */
export const successSchemaOf = (key: string): Schema.Codec<any, any> => {
  const schema = singleRecords[key] ?? successSchemas[key.split("/")[0]!]
  if (schema === undefined) throw new Error(`no success schema for ${key}`)
  return schema
}

/** The record schema of each operation whose 200 is a page of records. */
const recordSchemas: Readonly<Record<string, Schema.Struct<Schema.Struct.Fields>>> = {
  A1: NftTransfer.NftTransfer,
  A2: NftTransfer.NftTransfer,
  A3: NftTransfer.NftTransfer,
  A4: NftTrade.NftTrade,
  A5: NftOwner.NftOwner,
  B1: AptosToken.TokenHolding,
  B2: AptosToken.TokenTransfer,
  B3: AptosToken.TokenTransfer,
  B4: AptosCollection.Collection,
  B5: AptosToken.TokenHolding,
  B6: AptosToken.TokenHolding,
  B7: AptosCoin.Coin
}

/** The record schema of a 200 fixture's page (`undefined`: not a page). */
export const recordSchemaOf = (key: string): Schema.Codec<any, any> | undefined =>
  (singleRecords[key] === undefined ? recordSchemas[key.split("/")[0]!] : undefined) as Schema.Codec<any, any> | undefined

/** The wire field names of the records of a 200 fixture's page (`undefined`: not a page). */
export const recordFieldsOf = (key: string): ReadonlySet<string> | undefined => {
  const schema = recordSchemas[key.split("/")[0]!]
  return schema === undefined ? undefined : new Set(Object.keys(schema.fields))
}
