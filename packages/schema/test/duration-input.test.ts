/**
 * The one duration grammar of every CLI (`--block-time`, `--interval`, ...): each unit and its
 * long forms, decimals (exact, not floats), a bare number as seconds, whitespace; bad text,
 * negative values and empty text refused; the minimum check; and the wording of each failure for
 * a flag, which both CLIs print as is.
 */
import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Result, Schema } from "effect"
import { DurationInput, Errors, Input } from "../src/index.js"

const millisOf = (text: string): number | undefined => {
  const duration = DurationInput.parse(text)
  return duration === undefined ? undefined : Duration.toMillis(duration)
}

describe("DurationInput.parse", () => {
  const good: ReadonlyArray<readonly [string, number]> = [
    // milliseconds
    ["500ms", 500],
    ["500 ms", 500],
    ["500millis", 500],
    ["1 millisecond", 1],
    ["250 milliseconds", 250],
    // seconds
    ["10s", 10_000],
    ["1 sec", 1000],
    ["3 secs", 3000],
    ["1 second", 1000],
    ["1.5 seconds", 1500],
    // minutes
    ["2m", 120_000],
    ["1 min", 60_000],
    ["5 mins", 300_000],
    ["1 minute", 60_000],
    ["0.5 minutes", 30_000],
    // hours
    ["1h", 3_600_000],
    ["2 hour", 7_200_000],
    ["1.5 hours", 5_400_000],
    // a bare number is seconds
    ["30", 30_000],
    ["2.25", 2250],
    ["0", 0],
    // case and whitespace
    ["10S", 10_000],
    ["1H", 3_600_000],
    ["500MS", 500],
    ["  2s  ", 2000],
    ["\t1 Minute\n", 60_000]
  ]
  for (const [text, millis] of good) {
    it(`reads ${JSON.stringify(text)} as ${millis} ms`, () => {
      expect(millisOf(text)).toBe(millis)
    })
  }

  it("is exact with decimals, where floating point would not be", () => {
    expect(Duration.equals(DurationInput.parse("1.1h")!, Duration.millis(3_960_000))).toBe(true)
    // 123456789.123456789 * 1e9 has more digits than a double holds.
    expect(Duration.toNanosUnsafe(DurationInput.parse("123456789.123456789s")!)).toBe(123_456_789_123_456_789n)
    expect(Duration.toNanosUnsafe(DurationInput.parse("0.000001ms")!)).toBe(1n)
    expect(Duration.toNanosUnsafe(DurationInput.parse("1.0000000005s")!)).toBe(1_000_000_001n)
  })

  const bad = [
    "",
    "   ",
    "5x",
    "soon",
    "-1s",
    "-5",
    "+5s",
    "s",
    "ms",
    ".5s",
    "5.s",
    "1e3ms",
    "1 d",
    "2 days",
    "1h30m",
    "1,5s",
    "10 s s",
    "Infinity",
    "NaN"
  ]
  for (const text of bad) {
    it(`refuses ${JSON.stringify(text)}`, () => {
      expect(DurationInput.parse(text)).toBeUndefined()
    })
  }
})

describe("DurationInput.validate and flagMessage", () => {
  it("succeeds with the duration", () => {
    const result = DurationInput.validate("--block-time", "1h")
    expect(Result.isSuccess(result) && Duration.toMillis(result.success)).toBe(3_600_000)
  })

  it("fails on bad text with an InvalidInput naming the flag, the text and the grammar", () => {
    const result = DurationInput.validate("--block-time", "5x")
    if (!Result.isFailure(result)) throw new Error("expected a failure")
    expect(result.failure).toBeInstanceOf(Errors.InvalidInput)
    expect(result.failure.field).toBe("--block-time")
    expect(result.failure.value).toBe("\"5x\"")
    expect(result.failure.expected).toBe("a duration such as 10s, 500ms, 2m or 1h")
    expect(DurationInput.flagMessage(result.failure)).toBe(
      "--block-time: expected a duration such as 10s, 500ms, 2m or 1h, got \"5x\""
    )
  })

  it("words a negative or empty value like any other bad text", () => {
    for (const text of ["-1s", ""]) {
      const result = DurationInput.validate("--interval", text)
      if (!Result.isFailure(result)) throw new Error(`expected a failure for ${JSON.stringify(text)}`)
      expect(DurationInput.flagMessage(result.failure)).toBe(
        `--interval: expected a duration such as 10s, 500ms, 2m or 1h, got ${JSON.stringify(text)}`
      )
    }
  })

  it("checks the minimum, inclusive, and words a value below it", () => {
    const minimum = { minimum: Duration.millis(100) }
    const below = DurationInput.validate("--interval", "50ms", minimum)
    if (!Result.isFailure(below)) throw new Error("expected a failure")
    expect(below.failure.expected).toBe("at least 100ms")
    expect(DurationInput.flagMessage(below.failure)).toBe("--interval must be at least 100ms, got \"50ms\"")
    expect(Result.isSuccess(DurationInput.validate("--interval", "100ms", minimum))).toBe(true)
    expect(Result.isSuccess(DurationInput.validate("--interval", "0.1", minimum))).toBe(true)
    // A minimum given as any Duration.Input, here as text.
    const tooShort = DurationInput.validate("--request-timeout", "0.05s", { minimum: "100 millis" })
    expect(Result.isFailure(tooShort) && DurationInput.flagMessage(tooShort.failure)).toBe(
      "--request-timeout must be at least 100ms, got \"0.05s\""
    )
  })

  it("checks the grammar before the minimum", () => {
    const result = DurationInput.validate("--interval", "1 fortnight", { minimum: Duration.millis(100) })
    expect(Result.isFailure(result) && result.failure.expected).toBe(DurationInput.expected)
  })

  it("parseFlagUnsafe returns the duration or throws the flag's message", () => {
    expect(Duration.toMillis(DurationInput.parseFlagUnsafe("--interval", "2m"))).toBe(120_000)
    expect(() => DurationInput.parseFlagUnsafe("--block-time", "5x")).toThrow(
      "--block-time: expected a duration such as 10s, 500ms, 2m or 1h, got \"5x\""
    )
    expect(() => DurationInput.parseFlagUnsafe("--interval", "50ms", { minimum: Duration.millis(100) })).toThrow(
      "--interval must be at least 100ms, got \"50ms\""
    )
  })
})

describe("DurationInput.DurationInput", () => {
  it("decodes the grammar and says what it expected otherwise", () => {
    const decode = Schema.decodeUnknownSync(DurationInput.DurationInput)
    expect(Duration.toMillis(decode("2m"))).toBe(120_000)
    expect(() => decode("5x")).toThrow(/a duration such as 10s, 500ms, 2m or 1h/)
    expect(() => decode(5)).toThrow()
  })

  it("encodes exact milliseconds that decode back to the same duration", () => {
    const encode = Schema.encodeSync(DurationInput.DurationInput)
    const decode = Schema.decodeUnknownSync(DurationInput.DurationInput)
    for (const duration of [Duration.zero, Duration.millis(1500), Duration.hours(1), Duration.nanos(1n), Duration.nanos(1_000_000_001n)]) {
      const text = encode(duration)
      expect(Duration.equals(decode(text), duration), text).toBe(true)
    }
    expect(encode(Duration.millis(1500))).toBe("1500ms")
    expect(() => encode(Duration.infinity)).toThrow()
  })

  it("gives Input.validate its description as the expectation", () => {
    const error = Effect.runSync(Effect.flip(Input.validate(DurationInput.DurationInput, "blockTime", "soon")))
    expect(error.message).toBe("Invalid blockTime: expected a duration such as 10s, 500ms, 2m or 1h, got \"soon\"")
  })
})
