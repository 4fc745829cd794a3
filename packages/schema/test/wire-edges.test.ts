/**
 * Edge values where the compiled fast path and the schema must agree (found in review).
 */
import { DateTime, Result, Schema } from "effect"
import { describe, expect, it } from "vitest"
import { DateInput, Decode, Wire } from "../src/index.js"

describe("wire edge values", () => {
  it.each(["1e400", "-1e400"])("a decimal that overflows to Infinity is rejected by both paths: %s", (input) => {
    for (const codec of [Wire.FloatNumber, Wire.FloatString]) {
      expect(Result.isFailure(Decode.decoder(codec)(input))).toBe(true)
      expect(Result.isFailure(Schema.decodeUnknownResult(codec)(input))).toBe(true)
    }
  })

  it("years 0 to 99 keep their leap days", () => {
    const leap = DateInput.parseIso("0000-02-29T00:00:00Z")
    expect(leap && DateTime.formatIso(leap)).toBe("0000-02-29T00:00:00.000Z")
    expect(DateInput.parseIso("0001-02-29T00:00:00Z")).toBeUndefined()
    const early = DateInput.parseIso("0050-06-15T12:00:00")
    expect(early && DateTime.formatIso(early)).toBe("0050-06-15T12:00:00.000Z")
  })
})
