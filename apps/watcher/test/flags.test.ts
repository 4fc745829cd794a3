/**
 * The `--backfill` flag's parser: what `Backfill.decodeFrom` refuses is refused by the flag too,
 * with the same message saying what is valid (the CLI exits 2 on it, see `e2e/badInput.test.ts`).
 */
import { assert, describe, it } from "@effect/vitest"
import { parseBackfill } from "../src/internal/flags.js"

describe("--backfill", () => {
  it("refuses what is neither a block number nor a date, saying what is valid", () => {
    for (const text of ["yesterday-ish", "", "-5", "1e6", "2026-02-30", "2026-13-01", "2026-11-01T25:00:00Z", "2026-11-01T12:00:00+24:00", "11/01/2026"]) {
      assert.throws(() => parseBackfill(text), /expected a block number/)
    }
  })

  it("reads a block number and a date", () => {
    assert.deepStrictEqual(parseBackfill("19000000"), { _tag: "Block", block: 19_000_000n })
    const date = parseBackfill("2026-11-01")
    assert.strictEqual(date._tag, "Date")
  })
})
