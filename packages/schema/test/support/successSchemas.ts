/**
 * The schema each 200 fixture decodes with: its operation's response schema, except the one
 * fixture that is a single record pasted from a page rather than an envelope.
 */
import type { Schema } from "effect"
import { AptosToken, Block, DefiPositions, EvmPage, LedgerPage } from "../../src/index.js"

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
