/**
 * Property tests of input validation: generated bad values of every input type are rejected by
 * `Input.validate` with an `InvalidInput` that names the field, renders the value and says what
 * was expected; a few good values decode to their canonical form (so the tests fail both ways);
 * `Input.validateAll` names the failing element and enforces `nonEmpty`.
 */
import { describe, expect, it } from "@effect/vitest"
import { Arbitrary, Cause, DateTime, Effect, Equal, Exit, Result, Schema } from "effect"
import {
  AptosAddress,
  BlockNumberOrHash,
  Chain,
  DateInput,
  Errors,
  EvmAddress,
  Input,
  Paging,
  TokenId
} from "../src/index.js"
import { toChecksumAddress } from "../src/internal/eip55.js"

// ---------------------------------------------------------------------------------------------
// Checking one value
// ---------------------------------------------------------------------------------------------

/** How `InvalidInput.value` should show a value: short, one line, recognisably the input. */
const rendered = (value: unknown): string => {
  const text = typeof value === "string"
    ? JSON.stringify(value)
    : typeof value === "number"
    ? String(value)
    : typeof value === "bigint"
    ? `${value}n`
    : value instanceof Date
    ? Number.isNaN(value.getTime()) ? "Invalid Date" : `Date(${value.toISOString()})`
    : value === undefined
    ? "undefined"
    : JSON.stringify(value)
  return text.length > 120 ? `${text.slice(0, 117)}...` : text
}

const validate = (schema: Schema.Decoder<unknown>, field: string, value: unknown) =>
  Effect.runSync(Effect.result(Input.validate(schema, field, value)))

/** The distinct bad values checked, by field, type and rendering. */
const badValues = new Set<string>()
const countBad = (field: string, value: unknown) => badValues.add(`${field} ${typeof value} ${rendered(value)}`)

/** Asserts that `value` is rejected as `field`, and counts it. */
const expectRejected = (schema: Schema.Decoder<unknown>, field: string, value: unknown): void => {
  const result = validate(schema, field, value)
  if (Result.isSuccess(result)) {
    expect.fail(`${rendered(value)} was accepted as ${field} (decoded to ${String(result.success)})`)
  } else {
    const error = result.failure
    expect(error).toBeInstanceOf(Errors.InvalidInput)
    expect(error.field).toBe(field)
    expect(error.value).toBe(rendered(value))
    expect(error.expected).not.toBe("")
    expect(error.message).toContain(field)
  }
  countBad(field, value)
}

/** Asserts that `value` is accepted as `field` and decodes to `canonical`. */
const expectAccepted = (schema: Schema.Decoder<unknown>, field: string, value: unknown, canonical: unknown) => {
  const result = validate(schema, field, value)
  if (Result.isFailure(result)) expect.fail(`${rendered(value)} was rejected: ${result.failure.message}`)
  else expect(Equal.equals(result.success, canonical), `decoded to ${String(result.success)}`).toBe(true)
}

// ---------------------------------------------------------------------------------------------
// Generators
// ---------------------------------------------------------------------------------------------

/** Strings matching a pattern (generated constructively from the regular expression). */
const matching = (pattern: RegExp) => Arbitrary.schema(Schema.String.check(Schema.isPattern(pattern)))

const integerBetween = (minimum: number, maximum: number) =>
  Arbitrary.schema(Schema.Int.check(Schema.isBetween({ minimum, maximum })))

/** One of several arbitraries, chosen uniformly. */
const oneOf = (...arbitraries: ReadonlyArray<Arbitrary.Arbitrary<unknown>>): Arbitrary.Arbitrary<unknown> =>
  integerBetween(0, arbitraries.length - 1).pipe(Arbitrary.flatMap((index) => arbitraries[index]!))

const hex40 = matching(/^[0-9a-f]{40}$/)

/** Values no input type accepts: neither string nor number (nor bigint, nor a date). */
const notAScalar = Arbitrary.schema(Schema.Union([
  Schema.Boolean,
  Schema.Null,
  Schema.Undefined,
  Schema.Array(Schema.String),
  Schema.Record(Schema.String, Schema.Number)
]))

/** Numbers that are not safe integers: fractions, NaN, infinities, beyond 2^53. */
const notAnInteger = oneOf(
  Arbitrary.schema(Schema.Finite).pipe(Arbitrary.filter((n) => !Number.isInteger(n))),
  Arbitrary.Constant(Number.NaN),
  Arbitrary.Constant(Number.POSITIVE_INFINITY),
  Arbitrary.Constant(Number.NEGATIVE_INFINITY),
  Arbitrary.schema(Schema.Finite).pipe(Arbitrary.filter((n) => Math.abs(n) > Number.MAX_SAFE_INTEGER))
)

const negativeInteger = oneOf(
  integerBetween(Number.MIN_SAFE_INTEGER, -1),
  integerBetween(Number.MIN_SAFE_INTEGER, -1).pipe(Arbitrary.map(BigInt)),
  integerBetween(Number.MIN_SAFE_INTEGER, -1).pipe(Arbitrary.map(String))
)

/** A letter of `text` at a generated position has its case flipped. */
const flipOneLetter = (text: Arbitrary.Arbitrary<string>) =>
  Arbitrary.all([text, integerBetween(0, 1000)]).pipe(
    Arbitrary.filterMap(([value, pick]) => {
      const letters = [...value].flatMap((char, index) => (/[a-fA-F]/.test(char) && index > 1 ? [index] : []))
      const at = letters[pick % Math.max(letters.length, 1)]
      if (at === undefined) return Result.failVoid
      const char = value.charAt(at)
      const flipped = char === char.toUpperCase() ? char.toLowerCase() : char.toUpperCase()
      return Result.succeed(`${value.slice(0, at)}${flipped}${value.slice(at + 1)}`)
    })
  )

const checksummed = hex40.pipe(Arbitrary.map(toChecksumAddress))

const chainNames: ReadonlyArray<string> = Chain.chains.map(([name]) => name)
const chainIds: ReadonlyArray<string> = Chain.chains.map(([, id]) => id)
const nonTradeChains = Chain.chains.filter(([, id]) => !(Chain.tradeChainIds as ReadonlyArray<string>).includes(id))

/** Whether a string names a chain the way `Chain` reads it (any case, spaces or hyphens, hex id). */
const namesAChain = (input: string): boolean => {
  const key = input.trim().toLowerCase().replace(/-/g, " ")
  if (chainNames.includes(key)) return true
  return /^0x[0-9a-f]+$/.test(key) && chainIds.includes(`0x${BigInt(key).toString(16)}`)
}

const isoDateTime = integerBetween(0, Date.UTC(9999, 11, 31)).pipe(
  Arbitrary.map((millis) => new Date(millis).toISOString())
)

// ---------------------------------------------------------------------------------------------
// The table of bad values
// ---------------------------------------------------------------------------------------------

interface BadCase {
  readonly label: string
  readonly values: Arbitrary.Arbitrary<unknown>
  readonly runs: number
}

interface InputCase {
  readonly name: string
  readonly schema: Schema.Decoder<unknown>
  readonly field: string
  readonly rejects: ReadonlyArray<BadCase>
}

const bad = (label: string, values: Arbitrary.Arbitrary<unknown>, runs = 80): BadCase => ({ label, values, runs })

/** A single bad value: checked once. */
const once = (label: string, value: unknown): BadCase => bad(label, Arbitrary.Constant(value), 1)

const inputs: ReadonlyArray<InputCase> = [
  {
    name: "EvmAddress.EvmAddress",
    schema: EvmAddress.EvmAddress,
    field: "address",
    rejects: [
      bad("wrong length", oneOf(matching(/^0x[0-9a-fA-F]{0,39}$/), matching(/^0x[0-9a-fA-F]{41,80}$/))),
      bad(
        "a non-hex character",
        Arbitrary.all([hex40, integerBetween(0, 39), matching(/^[g-zG-Z_ .!-]$/)]).pipe(
          Arbitrary.map(([hex, at, char]) => `0x${hex.slice(0, at)}${char}${hex.slice(at + 1)}`)
        )
      ),
      bad("missing 0x", oneOf(hex40, hex40.pipe(Arbitrary.map((hex) => `0X${hex}`)), matching(/^x[0-9a-f]{40}$/))),
      bad(
        "a checksummed address with one letter's case flipped",
        // Flipping the only upper-case (or only lower-case) letter leaves an address without a
        // checksum, which is valid: those are not bad values.
        flipOneLetter(checksummed).pipe(
          Arbitrary.filter((address) => /[a-f]/.test(address.slice(2)) && /[A-F]/.test(address))
        )
      ),
      bad("not a string", oneOf(notAScalar, Arbitrary.schema(Schema.Number), Arbitrary.schema(Schema.BigInt)))
    ]
  },
  {
    name: "AptosAddress.AptosAddress",
    schema: AptosAddress.AptosAddress,
    field: "ownerAddress",
    rejects: [
      bad("no digits or more than 64", oneOf(Arbitrary.Constant("0x"), matching(/^0x[0-9a-fA-F]{65,90}$/))),
      bad(
        "a non-hex character",
        Arbitrary.all([matching(/^[0-9a-f]{0,30}$/), matching(/^[g-zG-Z_ .!-]$/), matching(/^[0-9a-f]{0,30}$/)]).pipe(
          Arbitrary.map(([before, char, after]) => `0x${before}${char}${after}`)
        )
      ),
      bad("missing 0x", oneOf(matching(/^[0-9a-f]{1,64}$/), matching(/^0X[0-9a-f]{1,64}$/))),
      bad("not a string", oneOf(notAScalar, Arbitrary.schema(Schema.Number)))
    ]
  },
  {
    name: "AptosAddress.AptosHash",
    schema: AptosAddress.AptosHash,
    field: "collectionDataIdHash",
    rejects: [
      bad(
        "wrong length",
        oneOf(
          matching(/^[0-9a-fA-F]{0,63}$/),
          matching(/^[0-9a-fA-F]{65,90}$/),
          matching(/^0x[0-9a-fA-F]{0,63}$/)
        )
      ),
      bad(
        "a non-hex character",
        Arbitrary.all([matching(/^[0-9a-f]{64}$/), integerBetween(0, 63), matching(/^[g-zG-Z_ .!-]$/)]).pipe(
          Arbitrary.map(([hex, at, char]) => `${hex.slice(0, at)}${char}${hex.slice(at + 1)}`)
        )
      ),
      bad("not a string", oneOf(notAScalar, Arbitrary.schema(Schema.Number)))
    ]
  },
  {
    name: "Chain.Chain",
    schema: Chain.Chain,
    field: "chain",
    rejects: [
      bad("an unknown name", Arbitrary.schema(Schema.String).pipe(Arbitrary.filter((name) => !namesAChain(name)))),
      bad("an unknown hex id", matching(/^0x[0-9a-fA-F]{1,12}$/).pipe(Arbitrary.filter((id) => !namesAChain(id)))),
      bad(
        "a number that is no chain id",
        oneOf(
          Arbitrary.schema(Schema.Int).pipe(Arbitrary.filter((n) => !chainIds.includes(`0x${n.toString(16)}`))),
          notAnInteger
        )
      ),
      bad("neither string nor number", oneOf(notAScalar, Arbitrary.Constant(1n)))
    ]
  },
  {
    name: "Chain.TradeChain",
    schema: Chain.TradeChain,
    field: "chain",
    rejects: [
      bad(
        "a chain without trades, by name, upper-case name, hex id or number",
        Arbitrary.all([integerBetween(0, nonTradeChains.length - 1), integerBetween(0, 3)]).pipe(
          Arbitrary.map(([index, form]) => {
            const [name, id] = nonTradeChains[index]!
            return [name, name.toUpperCase(), id, Number(id)][form]
          })
        )
      ),
      bad("an unknown name", Arbitrary.schema(Schema.String).pipe(Arbitrary.filter((name) => !namesAChain(name))))
    ]
  },
  {
    name: "BlockNumberOrHash.BlockNumberOrHash",
    schema: BlockNumberOrHash.BlockNumberOrHash,
    field: "blockNumberOrHash",
    rejects: [
      bad("a negative number", negativeInteger),
      bad("not an integer", oneOf(notAnInteger, matching(/^\d{1,10}\.\d{1,5}$/), matching(/^\d{1,5}e\d{1,2}$/))),
      bad(
        "a hash of the wrong length",
        oneOf(matching(/^0x[0-9a-fA-F]{1,63}$/), matching(/^0x[0-9a-fA-F]{65,90}$/), matching(/^[0-9a-f]{64}x$/))
      ),
      bad("neither string, number nor bigint", notAScalar)
    ]
  },
  {
    name: "BlockNumberOrHash.BlockNumber",
    schema: BlockNumberOrHash.BlockNumber,
    field: "fromBlock",
    rejects: [
      bad("a negative number", negativeInteger),
      bad("not an integer", oneOf(notAnInteger, matching(/^\d{1,10}\.\d{1,5}$/), matching(/^ \d{1,10}$/))),
      bad("a block hash", matching(/^0x[0-9a-fA-F]{64}$/)),
      bad("neither string, number nor bigint", notAScalar)
    ]
  },
  {
    name: "TokenId.TokenId",
    schema: TokenId.TokenId,
    field: "tokenId",
    rejects: [
      bad("negative", negativeInteger),
      bad(
        "above 2^256-1",
        oneOf(
          Arbitrary.schema(Schema.BigInt.check(Schema.isGreaterThanBigInt((1n << 256n) - 1n))),
          Arbitrary.schema(Schema.BigInt.check(Schema.isGreaterThanBigInt((1n << 256n) - 1n))).pipe(
            Arbitrary.map(String)
          ),
          matching(/^0x[1-9a-f][0-9a-f]{64}$/),
          matching(/^[1-9]\d{78,90}$/)
        )
      ),
      bad(
        "an exponent or a fraction",
        oneOf(matching(/^\d{1,5}e\d{1,3}$/), matching(/^\d{1,10}\.\d{1,5}$/), notAnInteger)
      ),
      bad("not a number at all", oneOf(matching(/^[g-z ]{0,10}$/), Arbitrary.Constant("0x"), notAScalar))
    ]
  },
  {
    name: "DateInput.DateInput",
    schema: DateInput.DateInput,
    field: "fromDate",
    rejects: [
      bad("a string that is no date", matching(/^[a-zA-Z :./-]{0,30}$/)),
      bad(
        "an impossible date",
        oneOf(
          matching(/^\d{4}-(1[3-9]|[2-9]\d)-\d{2}$/),
          matching(/^\d{4}-\d{2}-(3[2-9]|[4-9]\d)T\d{2}:\d{2}:\d{2}Z$/),
          matching(/^\d{4}-\d{2}-\d{2}T(2[5-9]|[3-9]\d):\d{2}:\d{2}$/)
        )
      ),
      once("an invalid Date", new Date(Number.NaN)),
      bad("seconds, where they are not allowed", oneOf(integerBetween(0, 4_000_000_000), notAnInteger)),
      bad("not a date", notAScalar)
    ]
  },
  {
    name: "DateInput.DateInputOrSeconds",
    schema: DateInput.DateInputOrSeconds,
    field: "fromDate",
    rejects: [
      bad("negative seconds", integerBetween(Number.MIN_SAFE_INTEGER, -1)),
      bad("seconds past the last date there is", integerBetween(8_640_000_000_001, Number.MAX_SAFE_INTEGER)),
      bad("seconds that are not an integer", notAnInteger),
      bad("a string that is no date", matching(/^[a-zA-Z :./-]{0,30}$/)),
      bad("numeric text instead of seconds", integerBetween(0, 4_000_000_000).pipe(Arbitrary.map(String))),
      bad("not a date", oneOf(notAScalar, Arbitrary.Constant(new Date(Number.NaN))))
    ]
  },
  {
    name: "Paging.Limit",
    schema: Paging.Limit,
    field: "limit",
    rejects: [
      bad(
        "out of 1 to 100",
        oneOf(
          Arbitrary.Constant(0),
          Arbitrary.Constant(101),
          integerBetween(Number.MIN_SAFE_INTEGER, 0),
          integerBetween(101, Number.MAX_SAFE_INTEGER)
        )
      ),
      bad("not an integer", notAnInteger),
      bad("numeric text", integerBetween(1, 100).pipe(Arbitrary.map(String))),
      bad("not a number", notAScalar)
    ]
  },
  {
    name: "Paging.Order",
    schema: Paging.Order,
    field: "order",
    rejects: [
      bad(
        "another word",
        Arbitrary.schema(Schema.String).pipe(
          Arbitrary.filter((order) => !["ASC", "DESC", "asc", "desc"].includes(order))
        )
      ),
      bad("mixed case", oneOf(Arbitrary.Constant("Asc"), Arbitrary.Constant("Desc"), Arbitrary.Constant("dESC"))),
      bad("not a string", oneOf(notAScalar, Arbitrary.schema(Schema.Number)))
    ]
  },
  {
    name: "Paging.Offset",
    schema: Paging.Offset,
    field: "offset",
    rejects: [
      bad("negative", integerBetween(Number.MIN_SAFE_INTEGER, -1)),
      bad("not an integer", notAnInteger),
      bad("not a number", oneOf(notAScalar, integerBetween(0, 1000).pipe(Arbitrary.map(String))))
    ]
  },
  {
    name: "Paging.Cursor",
    schema: Paging.Cursor,
    field: "cursor",
    rejects: [
      once("empty", ""),
      bad("not a string", oneOf(notAScalar, Arbitrary.schema(Schema.Number)))
    ]
  }
]

// ---------------------------------------------------------------------------------------------
// The properties
// ---------------------------------------------------------------------------------------------

describe.each(inputs)("$name rejects", ({ field, rejects, schema }) => {
  for (const { label, runs, values } of rejects) {
    it.prop(label, [values], ([value]) => expectRejected(schema, field, value), { arbitrary: { runs } })
  }
})

describe("good values decode to their canonical form", () => {
  it.prop("a checksummed EVM address, in its own or upper case, is its lower case", [hex40], ([hex]) => {
    for (const spelling of [toChecksumAddress(hex), `0x${hex.toUpperCase()}`, `0x${hex}`]) {
      expectAccepted(EvmAddress.EvmAddress, "address", spelling, `0x${hex}`)
    }
  })

  it.prop("an Aptos address is padded to 64 lower-case digits", [matching(/^[0-9a-fA-F]{1,64}$/)], ([digits]) => {
    const padded = `0x${digits.toLowerCase().padStart(64, "0")}`
    expectAccepted(AptosAddress.AptosAddress, "ownerAddress", `0x${digits}`, padded)
  })

  it.prop("an Aptos hash drops 0x and is lower case", [matching(/^[0-9a-fA-F]{64}$/)], ([hex]) => {
    expectAccepted(AptosAddress.AptosHash, "collectionDataIdHash", `0x${hex}`, hex.toLowerCase())
    expectAccepted(AptosAddress.AptosHash, "collectionDataIdHash", hex, hex.toLowerCase())
  })

  it("examples", () => {
    const address = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed"
    expectAccepted(EvmAddress.EvmAddress, "address", address, address.toLowerCase())
    expectAccepted(AptosAddress.AptosAddress, "ownerAddress", "0x1", `0x${"1".padStart(64, "0")}`)
    expectAccepted(Chain.Chain, "chain", "Polygon", "0x89")
    expectAccepted(Chain.Chain, "chain", 137, "0x89")
    expectAccepted(Chain.Chain, "chain", "polygon-amoy", "0x13882")
    expectAccepted(Chain.Chain, "chain", "0X0089", "0x89")
    expectAccepted(Chain.TradeChain, "chain", "BASE", "0x2105")
    expectAccepted(BlockNumberOrHash.BlockNumberOrHash, "blockNumberOrHash", "15846571", 15846571n)
    const hash = `0x${"AB".repeat(32)}`
    expectAccepted(BlockNumberOrHash.BlockNumberOrHash, "blockNumberOrHash", hash, hash.toLowerCase())
    expectAccepted(BlockNumberOrHash.BlockNumber, "fromBlock", 0, 0n)
    expectAccepted(TokenId.TokenId, "tokenId", "0xff", 255n)
    expectAccepted(TokenId.TokenId, "tokenId", `0x${"f".repeat(64)}`, (1n << 256n) - 1n)
    expectAccepted(DateInput.DateInputOrSeconds, "fromDate", 1689629279, DateTime.makeUnsafe(1689629279000))
    expectAccepted(DateInput.DateInput, "fromDate", "2023-07-17T21:27:59", DateTime.makeUnsafe(1689629279000))
    expectAccepted(Paging.Limit, "limit", 100, 100)
    expectAccepted(Paging.Order, "order", "desc", "DESC")
    expectAccepted(Paging.Offset, "offset", 0, 0)
  })

  it.prop("an ISO date-time, a Date or a DateTime is the same instant", [isoDateTime], ([iso]) => {
    const instant = DateTime.makeUnsafe(iso)
    for (const input of [iso, new Date(iso), instant]) {
      expectAccepted(DateInput.DateInput, "fromDate", input, instant)
    }
  })
})

describe("Input.validateAll", () => {
  const good = checksummed
  const badAddress = matching(/^0x[0-9a-f]{0,39}$/)

  it.prop(
    "names the first bad element by its index",
    [Arbitrary.array(good, { maxLength: 5 }), badAddress, Arbitrary.array(oneOf(good, badAddress), { maxLength: 5 })],
    ([before, wrong, after]) => {
      const result = Effect.runSync(Effect.result(
        Input.validateAll(EvmAddress.EvmAddress, "ownerAddresses", [...before, wrong, ...after])
      ))
      if (Result.isSuccess(result)) return expect.fail(`${wrong} was accepted`)
      expect(result.failure.field).toBe(`ownerAddresses[${before.length}]`)
      expect(result.failure.value).toBe(rendered(wrong))
      countBad("ownerAddresses[]", wrong)
    }
  )

  it.prop("decodes every element of a good list", [Arbitrary.array(matching(/^0x[0-9a-f]{1,64}$/))], ([owners]) => {
    const decoded = Effect.runSync(
      Input.validateAll(AptosAddress.AptosAddress, "ownerAddresses", owners, { nonEmpty: owners.length > 0 })
    )
    expect(decoded).toEqual(owners.map((owner) => `0x${owner.slice(2).padStart(64, "0")}`))
  })

  it("rejects an empty list with nonEmpty, and accepts it without", () => {
    const result = Effect.runSync(Effect.result(
      Input.validateAll(AptosAddress.AptosAddress, "ownerAddresses", [], { nonEmpty: true })
    ))
    if (Result.isSuccess(result)) return expect.fail("[] was accepted")
    expect(result.failure).toBeInstanceOf(Errors.InvalidInput)
    expect(result.failure.field).toBe("ownerAddresses")
    expect(result.failure.value).toBe("[]")
    expect(result.failure.expected).not.toBe("")
    expect(Effect.runSync(Input.validateAll(AptosAddress.AptosAddress, "ownerAddresses", []))).toEqual([])
    countBad("ownerAddresses", [])
  })

  it("rejects what is not a list", () => {
    for (const value of ["0x1", null, { 0: "0x1" }]) {
      const result = Effect.runSync(
        Effect.result(Input.validateAll(AptosAddress.AptosAddress, "ownerAddresses", value))
      )
      if (Result.isSuccess(result)) return expect.fail(`${rendered(value)} was accepted`)
      expect(result.failure.field).toBe("ownerAddresses")
      expect(result.failure.value).toBe(rendered(value))
      countBad("ownerAddresses", value)
    }
  })
})

// Runs last (the tests of a file run in order): the properties above checked enough bad values.
it("checked at least 1,000 distinct bad values", () => {
  expect(badValues.size).toBeGreaterThanOrEqual(1000)
})

describe("Input.validate remembers recent decodings", () => {
  it("the same value gives the same answer again, field named each time; values equal as text but not in type stay apart", () => {
    const schema = Schema.Number.pipe(Schema.check(Schema.isInt()))
    const first = Effect.runSync(Effect.result(Input.validate(schema, "limit", 7)))
    const again = Effect.runSync(Effect.result(Input.validate(schema, "limit", 7)))
    expect(first).toEqual(again)
    expect(Result.isSuccess(again) && again.success).toBe(7)
    // "7" is not a number: remembered apart from 7, and its error names the field of this call.
    const asText = Effect.runSync(Effect.result(Input.validate(schema, "pageSize", "7")))
    expect(Result.isFailure(asText) && asText.failure.field).toBe("pageSize")
    const textAgain = Effect.runSync(Effect.result(Input.validate(schema, "size", "7")))
    expect(Result.isFailure(textAgain) && textAgain.failure.field).toBe("size")
    // More values than are remembered: every answer stays right.
    for (let i = 0; i < 2000; i++) {
      const value = i % 3 === 0 ? i + 0.5 : i
      const result = Effect.runSync(Effect.result(Input.validate(schema, "n", value)))
      expect(Result.isSuccess(result)).toBe(i % 3 !== 0)
    }
  })
})

describe("Input.checked", () => {
  const wallet = "0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed"

  it("returns what was built when every check passes, with the decoded values", () => {
    const exit = Input.checked((check) => ({
      address: check.value(EvmAddress.EvmAddress, "address", toChecksumAddress(wallet.slice(2))),
      chain: check.optional(Chain.Chain, "chain", "polygon"),
      limit: check.optional(Paging.Limit, "limit", undefined),
      owners: check.all(AptosAddress.AptosAddress, "ownerAddresses", ["0x1"], { nonEmpty: true })
    }))
    expect(Exit.isSuccess(exit) && exit.value).toEqual({
      address: wallet,
      chain: "0x89",
      limit: undefined,
      owners: [`0x${"1".padStart(64, "0")}`]
    })
  })

  it("stops at the first failing check with the InvalidInput naming its field; later checks do not run", () => {
    let later = 0
    const exit = Input.checked((check) => {
      check.value(EvmAddress.EvmAddress, "address", wallet)
      check.optional(Paging.Limit, "limit", 0)
      later++
      return check.value(Chain.Chain, "chain", "nowhere")
    })
    if (!Exit.isFailure(exit)) return expect.fail("a limit of 0 was accepted")
    const error = Cause.squash(exit.cause)
    expect(error).toBeInstanceOf(Errors.InvalidInput)
    expect((error as Errors.InvalidInput).field).toBe("limit")
    expect((error as Errors.InvalidInput).value).toBe("0")
    expect(later).toBe(0)
  })

  it("fails with the same InvalidInput as Input.validate, for one value and for lists", () => {
    const viaChecked = Input.checked((check) => check.all(EvmAddress.EvmAddress, "contracts", [wallet, "0x12"], { nonEmpty: true }))
    const viaValidate = Effect.runSync(Effect.exit(Input.validate(EvmAddress.EvmAddress, "contracts[1]", "0x12")))
    expect(Exit.isFailure(viaChecked) && Cause.squash(viaChecked.cause)).toEqual(Exit.isFailure(viaValidate) && Cause.squash(viaValidate.cause))
    const empty = Input.checked((check) => check.all(EvmAddress.EvmAddress, "contracts", [], { nonEmpty: true }))
    expect(Exit.isFailure(empty) && (Cause.squash(empty.cause) as Errors.InvalidInput).value).toBe("[]")
    const given = new Errors.InvalidInput({ field: "range", value: "5..1", expected: "from <= to" })
    const failed = Input.checked((check) => check.fail(given))
    expect(Exit.isFailure(failed) && Cause.squash(failed.cause)).toBe(given)
  })

  it("lets any other exception through: a bug is not an InvalidInput", () => {
    expect(() => Input.checked(() => { throw new TypeError("a bug") })).toThrow(TypeError)
  })
})

describe("a list with holes", () => {
  it("checks every index, holes included: a hole is a bad element, named by its index", () => {
    const holed: Array<unknown> = Array.from({ length: 2 })
    delete holed[0]
    holed[1] = "0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed"
    expect(0 in holed).toBe(false)
    const viaChecked = Input.checked((check) => check.all(EvmAddress.EvmAddress, "contracts", holed, { nonEmpty: true }))
    expect(Exit.isFailure(viaChecked) && (Cause.squash(viaChecked.cause) as Errors.InvalidInput).field).toBe("contracts[0]")
    const viaValidate = Effect.runSync(Effect.result(Input.validateAll(EvmAddress.EvmAddress, "contracts", holed)))
    expect(Result.isFailure(viaValidate) && viaValidate.failure.field).toBe("contracts[0]")
    const onlyHole: Array<unknown> = ["0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed"]
    delete onlyHole[0]
    expect(Exit.isFailure(Input.checked((check) => check.all(EvmAddress.EvmAddress, "contracts", onlyHole, { nonEmpty: true })))).toBe(true)
  })
})
