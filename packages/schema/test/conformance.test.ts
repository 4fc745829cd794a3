/**
 * Conformance: every real response in test/fixtures decodes with the schema of its
 * operation (200s) or the error body schema (others). A fixture that needs a liberal rule names
 * the rule below.
 */
import { Equal, Exit, Result, Schema } from "effect"
import { describe, expect, it } from "vitest"
import { Decode, DefiPositions, ErrorBody, EvmPage } from "../src/index.js"
import { type Fixture, loadFixtures } from "./support/fixtures.js"
import { successSchemaOf, successSchemas } from "./support/successSchemas.js"

/**
 * The liberal rules some fixtures need, by file. Every other fixture must decode with no record
 * rejected.
 */
const rules: Record<string, { readonly rule: string; readonly rejected?: number }> = {
  "A4/swagger-example-onchain-skills.json": {
    rule: "a page never fails because of one odd record: the swagger example's placeholder " +
      "transaction_index ('transaction_index_example') is reported in `rejected`, the page decodes",
    rejected: 1
  },
  "B5/code-comment-single-item-2024.json": {
    rule: "a single record pasted from a page, not an envelope: decodes with the record schema " +
      "(support/successSchemas.ts)"
  }
}

const errorSchemaOf = (fixture: Fixture): Schema.Decoder<unknown> =>
  fixture.operation.startsWith("B") || fixture.file.startsWith("aptos-")
    ? Schema.Union([ErrorBody.LedgerBadRequestBody, ErrorBody.MessageBody])
    : ErrorBody.MessageBody

const fixtures = loadFixtures()
const find = (key: string) => fixtures.find((f) => `${f.operation}/${f.file}` === key)!.body

describe("conformance with the real responses in test/fixtures", () => {
  it("finds fixtures for all 14 operations and the error folder", () => {
    const operations = new Set(fixtures.map((f) => f.operation))
    expect([...operations].toSorted()).toEqual([...Object.keys(successSchemas), "_errors"].toSorted())
  })

  it.each(fixtures.map((f) => [`${f.operation}/${f.file} (${f.status})`, f] as const))("%s decodes", (_, fixture) => {
    const key = `${fixture.operation}/${fixture.file}`
    const rule = rules[key]
    if (fixture.status !== 200) {
      const exit = Schema.decodeUnknownExit(errorSchemaOf(fixture))(fixture.body)
      expect(Exit.isSuccess(exit)).toBe(true)
      expect(ErrorBody.messageOf(fixture.body)).not.toBe("")
      return
    }
    const schema = successSchemaOf(key)
    const exit = Schema.decodeUnknownExit(schema)(fixture.body)
    if (Exit.isFailure(exit)) throw new Error(`${key} did not decode: ${String(exit.cause)}`)
    const decoded = exit.value as { readonly rejected?: ReadonlyArray<{ readonly path: string }> }
    expect(decoded.rejected?.length ?? 0).toBe(rule?.rejected ?? 0)
    // The compiled fast path gives exactly what the schema gives.
    const fast = Decode.decoder(schema)(fixture.body)
    expect(Result.isSuccess(fast) && Equal.equals(Result.getOrThrow(fast), exit.value)).toBe(true)
  })

  it("normalises the looser real forms", () => {
    const a2 = Schema.decodeUnknownSync(EvmPage.TransfersPage)(find("A2/docs-howto-wallet-0xd8da-2023-07.json"))
    const transfer = a2.result[0]!
    expect(typeof transfer.block_number).toBe("bigint")
    expect(typeof transfer.transaction_index).toBe("number")
    expect(transfer.possible_spam._tag).toBe("Some")
    const a7 = Schema.decodeUnknownSync(DefiPositions.DefiPositionsSummary)(find("A7/swagger-example-onchain-skills.json"))
    expect(a7[0]!.positions.length).toBe(1)
    expect(a7[0]!.positions[0]!.balance_usd).toBe(1000000)
  })
})
