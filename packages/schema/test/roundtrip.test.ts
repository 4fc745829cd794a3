/**
 * Property tests of every record and page envelope: for values generated from each schema's
 * decoded Type,
 * - `decode(encode(x))` is `x` (compared with `Schema.toEquivalence`, which knows Option, DateTime
 *   and bigint), also when the encoded form went through `JSON.stringify`/`JSON.parse`, and
 *   also with `Decode.decoder` (the compiled fast path, which must agree with the schema);
 * - the encoded form is plain JSON and has, field by field, the wire type service.md gives.
 *
 * One table drives both: each schema is listed with the wire kind of every encoded field (the
 * compiler checks that every field has one and that there are no others).
 */
import { describe, expect, it } from "@effect/vitest"
import { Arbitrary, DateTime, Equal, Option, Predicate, Result, Schema, SchemaAST } from "effect"
import {
  AptosCoin,
  AptosCollection,
  AptosToken,
  Block,
  Decode,
  DefiPositions,
  EvmPage,
  LedgerPage,
  NftOwner,
  NftTrade,
  NftTransfer
} from "../src/index.js"

// ---------------------------------------------------------------------------------------------
// Wire kinds: what service.md says a field is on the wire
// ---------------------------------------------------------------------------------------------

type Leaf =
  | "string"
  /** a string of decimal digits, optionally negative */
  | "numeric"
  /** a string holding a finite decimal number */
  | "decimal"
  /** "true" or "false" */
  | "flag"
  /** a JSON number that is a safe integer */
  | "integer"
  /** a finite JSON number */
  | "number"
  | "boolean"
  /** the JSON number 1 or 0 (a flag the service sends as a number) */
  | "bit"
  /** a JSON object */
  | "object"
  /** ISO 8601 date-time without a zone: 2023-07-17T21:27:59.000 */
  | "naive"
  /** ISO 8601 date-time with milliseconds and Z */
  | "millis"
  /** ISO 8601 date-time with six fractional digits and Z */
  | "micros"

interface RecordKind {
  readonly name: string
  readonly schema: Schema.Codec<any, any>
  readonly fields: { readonly [field: string]: Kind }
}

type Kind =
  | Leaf
  | { readonly nullable: Kind }
  | { readonly list: Kind }
  | { readonly oneOf: ReadonlyArray<string> }
  | RecordKind

const nullable = (kind: Kind): Kind => ({ nullable: kind })
const list = (kind: Kind): Kind => ({ list: kind })
const oneOf = (...values: ReadonlyArray<string>): Kind => ({ oneOf: values })

/** A record (or envelope) kind: one wire kind for each field of the schema's encoded form. */
const record = <S extends Schema.Codec<any, any>>(
  name: string,
  schema: S,
  fields: { readonly [K in keyof S["Encoded"]]-?: Kind }
): RecordKind => ({ name, schema, fields })

const isRecordKind = (kind: Kind): kind is RecordKind => typeof kind === "object" && "fields" in kind

const timestampLeaves: ReadonlySet<Kind> = new Set<Kind>(["naive", "millis", "micros"])

const leafChecks: { readonly [K in Leaf]: (value: unknown) => boolean } = {
  string: Predicate.isString,
  numeric: (value) => Predicate.isString(value) && /^-?\d+$/.test(value),
  decimal: (value) => Predicate.isString(value) && value.trim() !== "" && Number.isFinite(Number(value)),
  flag: (value) => value === "true" || value === "false",
  integer: (value) => Predicate.isNumber(value) && Number.isSafeInteger(value),
  number: (value) => Predicate.isNumber(value) && Number.isFinite(value),
  boolean: Predicate.isBoolean,
  bit: (value) => value === 0 || value === 1,
  object: (value) => Predicate.isObject(value) && !Array.isArray(value),
  naive: (value) => Predicate.isString(value) && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}$/.test(value),
  millis: (value) => Predicate.isString(value) && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/.test(value),
  micros: (value) => Predicate.isString(value) && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/.test(value)
}

const describeKind = (kind: Kind): string =>
  typeof kind === "string"
    ? kind
    : "nullable" in kind
    ? `${describeKind(kind.nullable)} or null`
    : "list" in kind
    ? `an array of ${describeKind(kind.list)}`
    : "oneOf" in kind
    ? `one of ${kind.oneOf.join(", ")}`
    : `a ${kind.name} object`

const show = (value: unknown): string => {
  try {
    return JSON.stringify(value, (_, v) => (typeof v === "bigint" ? `${v}n` : v)) ?? String(value)
  } catch {
    return String(value)
  }
}

/** Where an encoded value departs from its wire kind, one line per departure. */
const wireViolations = (kind: Kind, value: unknown, path = "$"): ReadonlyArray<string> => {
  const violation = [`${path}: expected ${describeKind(kind)}, got ${show(value)}`]
  if (typeof kind === "string") return leafChecks[kind](value) ? [] : violation
  if ("nullable" in kind) return value === null ? [] : wireViolations(kind.nullable, value, path)
  if ("oneOf" in kind) return kind.oneOf.includes(value as string) ? [] : violation
  if ("list" in kind) {
    if (!Array.isArray(value)) return violation
    return value.flatMap((item, index) => wireViolations(kind.list, item, `${path}[${index}]`))
  }
  if (!Predicate.isObject(value) || Array.isArray(value)) return violation
  const expected = Object.keys(kind.fields)
  const missing = expected.filter((field) => !Object.hasOwn(value, field)).map((field) => `${path}.${field}: missing`)
  const extra = Object.keys(value).filter((field) => !Object.hasOwn(kind.fields, field))
    .map((field) => `${path}.${field}: not a field of service.md or of a real capture`)
  return [
    ...missing,
    ...extra,
    ...expected.flatMap((field) =>
      Object.hasOwn(value, field) ? wireViolations(kind.fields[field]!, (value as any)[field], `${path}.${field}`) : []
    )
  ]
}

/** Where a value is not plain JSON data (a bigint, undefined, a Date, a class instance, NaN…). */
const jsonViolations = (value: unknown, path = "$"): ReadonlyArray<string> => {
  if (value === null || Predicate.isString(value) || Predicate.isBoolean(value)) return []
  if (Predicate.isNumber(value)) return Number.isFinite(value) ? [] : [`${path}: non-finite number ${value}`]
  if (Array.isArray(value)) return value.flatMap((item, index) => jsonViolations(item, `${path}[${index}]`))
  if (Predicate.isObject(value)) {
    const proto = Object.getPrototypeOf(value)
    if (proto !== Object.prototype && proto !== null) return [`${path}: not a plain object (${show(value)})`]
    return Object.entries(value).flatMap(([key, item]) => jsonViolations(item, `${path}[${JSON.stringify(key)}]`))
  }
  return [`${path}: ${typeof value} is not JSON (${show(value)})`]
}

// ---------------------------------------------------------------------------------------------
// The table: every record and envelope with its wire kinds
// ---------------------------------------------------------------------------------------------

const text = "string" as const
const nullableText = nullable(text)

const nftTransfer = record("NftTransfer.NftTransfer", NftTransfer.NftTransfer, {
  token_address: text,
  token_id: "numeric",
  from_address_entity: nullableText,
  from_address_entity_logo: nullableText,
  from_address: text,
  from_address_label: nullableText,
  to_address_entity: nullableText,
  to_address_entity_logo: nullableText,
  to_address: text,
  to_address_label: nullableText,
  value: "numeric",
  amount: "numeric",
  contract_type: nullableText,
  block_number: "numeric",
  block_timestamp: "naive",
  block_hash: text,
  transaction_hash: text,
  transaction_type: nullableText,
  transaction_index: "numeric",
  log_index: "numeric",
  operator: nullableText,
  possible_spam: nullable("flag"),
  verified_collection: nullable("flag"),
  verified: nullable("bit")
})

const nftTrade = record("NftTrade.NftTrade", NftTrade.NftTrade, {
  transaction_hash: text,
  transaction_index: "numeric",
  token_ids: list("numeric"),
  seller_address: text,
  buyer_address: text,
  token_address: text,
  marketplace_address: text,
  price_token_address: nullableText,
  price: "numeric",
  block_timestamp: "naive",
  block_number: "numeric",
  block_hash: text,
  verified_collection: nullable("boolean")
})

const nftOwner = record("NftOwner.NftOwner", NftOwner.NftOwner, {
  token_address: text,
  token_id: "numeric",
  contract_type: nullableText,
  owner_of: text,
  block_number: "numeric",
  block_number_minted: nullable("numeric"),
  token_uri: nullableText,
  metadata: nullableText,
  normalized_metadata: nullable("object"),
  media: nullable("object"),
  amount: "numeric",
  name: nullableText,
  symbol: nullableText,
  token_hash: nullableText,
  rarity_rank: nullable("number"),
  rarity_label: nullableText,
  rarity_percentage: nullable("number"),
  last_token_uri_sync: nullable("millis"),
  last_metadata_sync: nullable("millis"),
  possible_spam: nullable("flag"),
  verified_collection: nullable("flag"),
  minter_address: nullableText
})

/** A6's `transfer_index`: block number, transaction index (and log index) as JSON numbers. */
const transferIndex = nullable(list("integer"))

const blockLog = record("Block.BlockLog", Block.BlockLog, {
  log_index: "numeric",
  transaction_hash: text,
  transaction_index: "numeric",
  address: text,
  data: text,
  topic0: nullableText,
  topic1: nullableText,
  topic2: nullableText,
  topic3: nullableText,
  block_timestamp: "millis",
  block_number: "numeric",
  block_hash: text,
  transaction_value: nullable("numeric"),
  transfer_index: transferIndex
})

const internalTransaction = record("Block.InternalTransaction", Block.InternalTransaction, {
  transaction_hash: text,
  block_number: "integer",
  block_hash: text,
  type: text,
  from: text,
  to: text,
  value: "numeric",
  gas: "numeric",
  gas_used: "numeric",
  input: text,
  output: text
})

const blockTransaction = record("Block.BlockTransaction", Block.BlockTransaction, {
  hash: text,
  nonce: "numeric",
  transaction_index: "numeric",
  from_address: text,
  to_address: nullableText,
  from_address_label: nullableText,
  to_address_label: nullableText,
  value: "numeric",
  gas: "numeric",
  gas_price: "numeric",
  input: text,
  receipt_cumulative_gas_used: "numeric",
  receipt_gas_used: "numeric",
  receipt_contract_address: nullableText,
  receipt_root: nullableText,
  receipt_status: "numeric",
  block_timestamp: "millis",
  block_number: "numeric",
  block_hash: text,
  logs: list(blockLog),
  internal_transactions: list(internalTransaction),
  transfer_index: transferIndex
})

const block = record("Block.Block", Block.Block, {
  timestamp: "millis",
  number: "integer",
  hash: text,
  parent_hash: text,
  nonce: text,
  sha3_uncles: text,
  logs_bloom: text,
  transactions_root: text,
  state_root: text,
  receipts_root: text,
  miner: text,
  difficulty: "numeric",
  total_difficulty: "numeric",
  size: "numeric",
  extra_data: text,
  gas_limit: "numeric",
  gas_used: "numeric",
  transaction_count: "numeric",
  transactions: list(blockTransaction),
  base_fee_per_gas: nullable("numeric")
})

const positionToken = record("DefiPositions.PositionToken", DefiPositions.PositionToken, {
  token_type: text,
  name: text,
  symbol: text,
  contract_address: text,
  decimals: "integer",
  logo: nullableText,
  thumbnail: nullableText,
  balance: text,
  balance_formatted: text,
  usd_price: nullable("number"),
  usd_value: nullable("number")
})

const nullableNumber = nullable("number")
const nullableBoolean = nullable("boolean")

const positionDetails = record("DefiPositions.PositionDetails", DefiPositions.PositionDetails, {
  fee_tier: nullableNumber,
  range_tnd: nullableNumber,
  current_price: nullableNumber,
  price_upper: nullableNumber,
  price_lower: nullableNumber,
  liquidity: nullableNumber,
  range_start: nullableNumber,
  apy: nullableNumber,
  share_of_pool: nullableNumber,
  reserves: nullable(list(text)),
  is_in_range: nullableBoolean,
  is_debt: nullableBoolean,
  is_variable_debt: nullableBoolean,
  is_stable_debt: nullableBoolean,
  price_label: nullableText,
  pool_address: nullableText,
  position_key: nullableText,
  asset_standard: nullableText,
  shares: nullableText,
  reserve0: nullableText,
  reserve1: nullableText,
  factory: nullableText,
  pair: nullableText
})

const position = record("DefiPositions.Position", DefiPositions.Position, {
  label: text,
  tokens: list(positionToken),
  address: text,
  balance_usd: "number",
  total_unclaimed_usd_value: nullableNumber,
  position_details: nullable(positionDetails)
})

const protocolSummary = record("DefiPositions.ProtocolSummary", DefiPositions.ProtocolSummary, {
  protocol_name: text,
  protocol_id: text,
  protocol_url: nullableText,
  protocol_logo: nullableText,
  total_unclaimed_usd_value: nullable("decimal"),
  positions: list(position)
})

const tokenHolding = record("AptosToken.TokenHolding", AptosToken.TokenHolding, {
  amount: "numeric",
  collection_data_id_hash: text,
  collection_name: text,
  creator_address: text,
  last_transaction_timestamp: "micros",
  last_transaction_version: "numeric",
  name: text,
  owner_address: text,
  property_version: "numeric",
  table_type: text,
  token_data_id_hash: text,
  token_properties: text
})

const tokenTransfer = record("AptosToken.TokenTransfer", AptosToken.TokenTransfer, {
  coin_amount: nullable("numeric"),
  coin_type: nullableText,
  collection_data_id_hash: text,
  collection_name: text,
  creator_address: text,
  event_account_address: text,
  event_creation_number: "numeric",
  event_sequence_number: "numeric",
  from_address: nullableText,
  name: text,
  property_version: "numeric",
  to_address: nullableText,
  token_amount: "numeric",
  token_data_id_hash: text,
  transaction_timestamp: "micros",
  transaction_version: "numeric",
  transfer_type: text
})

const collection = record("AptosCollection.Collection", AptosCollection.Collection, {
  collection_data_id_hash: text,
  collection_name: text,
  creator_address: text,
  description: text,
  description_mutable: "flag",
  last_transaction_timestamp: "micros",
  last_transaction_version: "numeric",
  maximum: "numeric",
  maximum_mutable: "flag",
  metadata_uri: text,
  supply: "numeric",
  table_handle: text,
  uri_mutable: "flag"
})

const coin = record("AptosCoin.Coin", AptosCoin.Coin, {
  coin_type: text,
  coin_type_hash: text,
  creator_address: text,
  decimals: "integer",
  name: text,
  supply_aggregator_table_handle: nullableText,
  supply_aggregator_table_key: nullableText,
  symbol: text,
  transaction_created_timestamp: "micros",
  transaction_version_created: "numeric"
})

/** Family A: page/page_size numbers, cursor a string ("" when there is no further page). */
const evmPageFields = { page: "integer", page_size: "integer", cursor: text } as const
/** A2 to A5: the listing's count, a JSON number (null unless the service counted). */
const evmTotal = { total: nullable("integer") }
const indexingFields = { block_exists: nullableBoolean, index_complete: nullableBoolean }
/** Family B: cursor a string or null, hasNextPage a boolean. */
const ledgerPageFields = { cursor: nullableText, hasNextPage: "boolean" } as const

interface Case {
  readonly name: string
  readonly schema: Schema.Codec<any, any>
  readonly kind: Kind
}

const recordCase = (kind: RecordKind): Case => ({ name: kind.name, schema: kind.schema, kind })

const cases: ReadonlyArray<Case> = [
  ...[
    nftTransfer,
    nftTrade,
    nftOwner,
    blockLog,
    internalTransaction,
    blockTransaction,
    block,
    positionToken,
    positionDetails,
    position,
    protocolSummary
  ].map(recordCase),
  // The A7 response encodes to an array of summaries.
  {
    name: "DefiPositions.DefiPositionsSummary",
    schema: DefiPositions.DefiPositionsSummary,
    kind: list(protocolSummary)
  },
  ...[
    tokenHolding,
    tokenTransfer,
    collection,
    coin,
    record("EvmPage.TransfersByBlockPage", EvmPage.TransfersByBlockPage, {
      total: nullable("numeric"),
      ...evmPageFields,
      ...indexingFields,
      result: list(nftTransfer)
    }),
    record("EvmPage.TransfersPage", EvmPage.TransfersPage, {
      ...evmTotal,
      ...evmPageFields,
      ...indexingFields,
      result: list(nftTransfer)
    }),
    record("EvmPage.TradesPage", EvmPage.TradesPage, { ...evmTotal, ...evmPageFields, result: list(nftTrade) }),
    record("EvmPage.OwnersPage", EvmPage.OwnersPage, {
      status: nullable(oneOf("SYNCING", "SYNCED")),
      ...evmTotal,
      ...evmPageFields,
      result: list(nftOwner)
    }),
    record("LedgerPage.HoldingsPage", LedgerPage.HoldingsPage, { ...ledgerPageFields, result: list(tokenHolding) }),
    record("LedgerPage.TransfersPage", LedgerPage.TransfersPage, { ...ledgerPageFields, result: list(tokenTransfer) }),
    record("LedgerPage.CollectionsPage", LedgerPage.CollectionsPage, {
      ...ledgerPageFields,
      result: list(collection)
    }),
    record("LedgerPage.CoinsPage", LedgerPage.CoinsPage, { ...ledgerPageFields, result: list(coin) })
  ].map(recordCase)
]

// ---------------------------------------------------------------------------------------------
// Generation
// ---------------------------------------------------------------------------------------------

/**
 * Workaround: the decoded timestamp of `Wire.Timestamp` is `DateTimeUtc` checked by a plain filter
 * (years 1970 to 9999) that carries no arbitrary constraint, so `Arbitrary.schema` draws from the
 * whole DateTime range and discards ~90% of the draws: records with one timestamp mostly pass,
 * but a block (a timestamp per transaction and per log) exhausts the discard budget, and the few
 * blocks that survive have no transactions. This companion of the decoded type has the same
 * range as a constraint the generator understands, so every draw is valid.
 */
const lastWireMillis = Date.UTC(9999, 11, 31, 23, 59, 59, 999)
const WireUtc = Schema.DateTimeUtc.check(
  Schema.makeFilter((value: DateTime.Utc) => {
    const millis = DateTime.toEpochMillis(value)
    return millis >= 0 && millis <= lastWireMillis
  }, {
    arbitraryConstraint: {
      minimum: DateTime.makeUnsafe(0),
      maximum: DateTime.makeUnsafe(lastWireMillis),
      order: DateTime.Order
    }
  })
)

const holdsTimestamp = (kind: Kind): boolean =>
  typeof kind === "string"
    ? timestampLeaves.has(kind)
    : "nullable" in kind
    ? holdsTimestamp(kind.nullable)
    : "list" in kind
    ? holdsTimestamp(kind.list)
    : isRecordKind(kind) && Object.values(kind.fields).some(holdsTimestamp)

const optionOf = <A>(value: Arbitrary.Arbitrary<A>): Arbitrary.Arbitrary<Option.Option<A>> =>
  Arbitrary.all([Arbitrary.schema(Schema.Boolean), value]).pipe(
    Arbitrary.map(([some, a]) => (some ? Option.some(a) : Option.none()))
  )

/**
 * The arbitrary of a decoded value of the given kind: `Arbitrary.schema` of the decoded type,
 * except where a timestamp is inside (there {@link WireUtc} is used) and for records, which are
 * built property by property (see {@link recordArbitrary}). `schema` is needed only where
 * `Arbitrary.schema` is used.
 */
const arbitraryOf = (kind: Kind, schema?: Schema.Top): Arbitrary.Arbitrary<unknown> => {
  if (isRecordKind(kind)) return recordArbitrary(kind)
  if (!holdsTimestamp(kind)) {
    if (schema === undefined) throw new Error(`no schema to derive ${describeKind(kind)} from`)
    return Arbitrary.schema(schema)
  }
  if (typeof kind === "string") return Arbitrary.schema(WireUtc)
  if ("nullable" in kind) return optionOf(arbitraryOf(kind.nullable))
  if ("list" in kind) return Arbitrary.array(arbitraryOf(kind.list), { maxLength: 4 })
  throw new Error(`cannot generate ${describeKind(kind)}`)
}

/**
 * A record's (or envelope's) decoded value, property by property from its decoded type's AST.
 * Envelopes also have `rejected` (no wire field: records that failed to decode, with their raw
 * form as `Unknown`); it is always `[]` here, since encoding appends the raw rejected records to
 * `result`, which decodes back to `rejected` only for raw forms that really are invalid (checked
 * separately below).
 */
const recordArbitrary = (kind: RecordKind): Arbitrary.Arbitrary<unknown> => {
  const ast = SchemaAST.toType(kind.schema.ast)
  if (!SchemaAST.isObjects(ast)) throw new Error(`${kind.name} does not decode to an object`)
  return Arbitrary.all(Object.fromEntries(ast.propertySignatures.map((property) => {
    const name = String(property.name)
    const fieldKind = kind.fields[name]
    if (fieldKind === undefined) {
      if (name === "rejected") return [name, Arbitrary.Constant([])]
      throw new Error(`${kind.name}.${name} has no wire kind`)
    }
    return [name, arbitraryOf(fieldKind, Schema.make(property.type))]
  })))
}

// ---------------------------------------------------------------------------------------------
// The properties
// ---------------------------------------------------------------------------------------------

const runs = { arbitrary: { runs: 100 } }

/** Generated decoded values, and the codecs and equivalence of their schema. */
const subject = ({ kind, schema }: Case) => ({
  arbitrary: arbitraryOf(kind, schema),
  encode: Schema.encodeUnknownSync(schema),
  decode: Schema.decodeUnknownSync(schema),
  fastDecode: Decode.decoder(schema),
  equivalent: Schema.toEquivalence(schema) as (self: unknown, that: unknown) => boolean
})

describe.each(cases)("$name", (testCase) => {
  const { arbitrary, decode, encode, equivalent, fastDecode } = subject(testCase)

  it.prop("decode(encode(x)) is x, also through JSON text and Decode.decoder", [arbitrary], ([value]) => {
    const encoded = encode(value)
    const decoded = decode(encoded)
    expect(equivalent(decoded, value), `decoded ${show(decoded)}`).toBe(true)
    expect(equivalent(decode(JSON.parse(JSON.stringify(encoded))), value)).toBe(true)
    const fast = fastDecode(encoded)
    if (Result.isFailure(fast)) expect.fail(`Decode.decoder failed: ${fast.failure.message}`)
    else expect(equivalent(fast.success, value), `Decode.decoder gave ${show(fast.success)}`).toBe(true)
  }, runs)

  it.prop("encodes to plain JSON of service.md's wire types", [arbitrary], ([value]) => {
    const encoded = encode(value)
    const notJson = jsonViolations(encoded)
    expect(notJson, notJson.join("\n")).toEqual([])
    expect(Equal.equals(JSON.parse(JSON.stringify(encoded)), encoded)).toBe(true)
    const offWire = wireViolations(testCase.kind, encoded)
    expect(offWire, offWire.join("\n")).toEqual([])
  }, runs)
})

describe("the equivalence used above", () => {
  const { arbitrary, equivalent } = subject(recordCase(nftTransfer))

  it.prop("tells a timestamp 1 ms off, a bigint 1 off and None for Some apart", [arbitrary], ([value]) => {
    const transfer = value as NftTransfer.NftTransfer
    expect(equivalent(transfer, { ...transfer })).toBe(true)
    for (
      const changed of [
        { ...transfer, block_timestamp: DateTime.add(transfer.block_timestamp, { milliseconds: 1 }) },
        { ...transfer, block_number: transfer.block_number + 1n },
        { ...transfer, operator: Option.isSome(transfer.operator) ? Option.none() : Option.some("0x") }
      ]
    ) {
      expect(equivalent(changed, transfer)).toBe(false)
    }
  })
})

/** Raw records that no record schema accepts (not even an object). */
const invalidRecord = Arbitrary.schema(
  Schema.Union([Schema.Finite, Schema.String, Schema.Boolean, Schema.Null, Schema.Array(Schema.Finite)])
)

const envelopeCases = cases.filter((testCase) => isRecordKind(testCase.kind) && "result" in testCase.kind.fields)

describe.each(envelopeCases)("$name with rejected records", (testCase) => {
  const { arbitrary, decode, encode, equivalent } = subject(testCase)

  it.prop(
    "writes them back after the result, and decoding rejects them again at those indexes",
    [arbitrary, Arbitrary.array(invalidRecord, { maxLength: 3 })],
    ([value, raws]) => {
      const page = value as { readonly result: ReadonlyArray<unknown> }
      const rejected = raws.map((raw, i) => ({ index: page.result.length + i, path: "", message: "", raw }))
      const encoded = encode({ ...page, rejected }) as { readonly result: ReadonlyArray<unknown> }
      expect(encoded.result.slice(page.result.length)).toEqual(raws)
      const decoded = decode(encoded) as typeof page & { readonly rejected: typeof rejected }
      expect(equivalent({ ...decoded, rejected: [] }, page)).toBe(true)
      const positions = (records: typeof rejected) => records.map(({ index, raw }) => ({ index, raw }))
      expect(positions(decoded.rejected)).toEqual(positions(rejected))
      expect(decoded.rejected.every(({ message }) => message !== "")).toBe(true)
    },
    { arbitrary: { runs: 50 } }
  )
})
