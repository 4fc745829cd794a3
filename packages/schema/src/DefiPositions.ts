/**
 * The DeFi positions summary of family A (A7). service.md describes one summary object; the real
 * service answers with a JSON array of them (and its example has one `position` where service.md
 * has a `positions` list). Decoding accepts every form and gives a list of summaries, each with a
 * list of positions; encoding gives the real form, the array.
 *
 * @since 0.1.0
 */
import { Schema, SchemaGetter } from "effect"
import * as Wire from "./Wire.js"

/**
 * A token inside a position.
 *
 * @example
 * ```ts
 * import type { DefiPositions } from "@chainquery/schema"
 *
 * const label = (token: DefiPositions.PositionToken) => `${token.balance_formatted} ${token.symbol}`
 * ```
 * @since 0.1.0
 */
export const PositionToken = Schema.Struct({
  token_type: Schema.String,
  name: Schema.String,
  symbol: Schema.String,
  contract_address: Schema.String,
  decimals: Wire.IntNumber,
  logo: Wire.nullable(Schema.String),
  thumbnail: Wire.nullable(Schema.String),
  balance: Schema.String,
  balance_formatted: Schema.String,
  usd_price: Wire.nullable(Wire.FloatNumber),
  usd_value: Wire.nullable(Wire.FloatNumber)
})

/**
 * @example
 * ```ts
 * import type { DefiPositions } from "@chainquery/schema"
 *
 * const worth = (token: DefiPositions.PositionToken) => token.usd_value
 * ```
 * @since 0.1.0
 */
export type PositionToken = typeof PositionToken.Type

/**
 * Protocol-specific details of a position; every field is optional, as each protocol fills its
 * own.
 *
 * @example
 * ```ts
 * import { Option } from "effect"
 * import type { DefiPositions } from "@chainquery/schema"
 *
 * const inRange = (details: DefiPositions.PositionDetails) => Option.getOrElse(details.is_in_range, () => true)
 * ```
 * @since 0.1.0
 */
export const PositionDetails = Schema.Struct({
  fee_tier: Wire.nullable(Wire.FloatNumber),
  range_tnd: Wire.nullable(Wire.FloatNumber),
  current_price: Wire.nullable(Wire.FloatNumber),
  price_upper: Wire.nullable(Wire.FloatNumber),
  price_lower: Wire.nullable(Wire.FloatNumber),
  liquidity: Wire.nullable(Wire.FloatNumber),
  range_start: Wire.nullable(Wire.FloatNumber),
  apy: Wire.nullable(Wire.FloatNumber),
  share_of_pool: Wire.nullable(Wire.FloatNumber),
  reserves: Wire.nullable(Schema.Array(Schema.String)),
  is_in_range: Wire.nullable(Wire.BooleanValue),
  is_debt: Wire.nullable(Wire.BooleanValue),
  is_variable_debt: Wire.nullable(Wire.BooleanValue),
  is_stable_debt: Wire.nullable(Wire.BooleanValue),
  price_label: Wire.nullable(Schema.String),
  pool_address: Wire.nullable(Schema.String),
  position_key: Wire.nullable(Schema.String),
  asset_standard: Wire.nullable(Schema.String),
  shares: Wire.nullable(Schema.String),
  reserve0: Wire.nullable(Schema.String),
  reserve1: Wire.nullable(Schema.String),
  factory: Wire.nullable(Schema.String),
  pair: Wire.nullable(Schema.String)
})

/**
 * @example
 * ```ts
 * import type { DefiPositions } from "@chainquery/schema"
 *
 * const apy = (details: DefiPositions.PositionDetails) => details.apy
 * ```
 * @since 0.1.0
 */
export type PositionDetails = typeof PositionDetails.Type

/**
 * One position in a protocol: its label (liquidity, supplied, borrowed…), tokens and value.
 *
 * @example
 * ```ts
 * import type { DefiPositions } from "@chainquery/schema"
 *
 * const usd = (position: DefiPositions.Position) => position.balance_usd
 * ```
 * @since 0.1.0
 */
export const Position = Schema.Struct({
  label: Schema.String,
  tokens: Wire.list(PositionToken),
  address: Schema.String,
  balance_usd: Wire.FloatNumber,
  total_unclaimed_usd_value: Wire.nullable(Wire.FloatNumber),
  position_details: Wire.nullable(PositionDetails)
})

/**
 * @example
 * ```ts
 * import type { DefiPositions } from "@chainquery/schema"
 *
 * const labels = (positions: ReadonlyArray<DefiPositions.Position>) => positions.map((p) => p.label)
 * ```
 * @since 0.1.0
 */
export type Position = typeof Position.Type

const summaryFields = {
  protocol_name: Schema.String,
  protocol_id: Schema.String,
  protocol_url: Wire.nullable(Schema.String),
  protocol_logo: Wire.nullable(Schema.String),
  total_unclaimed_usd_value: Wire.nullable(Wire.FloatString)
}

const WireSummary = Schema.Struct({
  ...summaryFields,
  positions: Schema.optional(Schema.NullOr(Schema.Array(Position))),
  position: Schema.optional(Schema.NullOr(Position))
})

const DecodedSummary = Schema.Struct({ ...summaryFields, positions: Schema.Array(Position) })

/**
 * The positions of a wallet in one protocol.
 *
 * @example
 * ```ts
 * import type { DefiPositions } from "@chainquery/schema"
 *
 * const total = (summary: DefiPositions.ProtocolSummary) =>
 *   summary.positions.reduce((sum, p) => sum + p.balance_usd, 0)
 * ```
 * @since 0.1.0
 */
export const ProtocolSummary: Schema.Codec<typeof DecodedSummary.Type, typeof DecodedSummary.Encoded> = WireSummary
  .pipe(
    Schema.decodeTo(Schema.toType(DecodedSummary), {
      decode: SchemaGetter.transform(({ position, positions, ...rest }: typeof WireSummary.Type) => ({
        ...rest,
        positions: positions ?? (position ? [position] : [])
      })),
      encode: SchemaGetter.transform((summary: typeof DecodedSummary.Type) => summary)
    })
  ) as any

/**
 * @example
 * ```ts
 * import type { DefiPositions } from "@chainquery/schema"
 *
 * const name = (summary: DefiPositions.ProtocolSummary) => summary.protocol_name
 * ```
 * @since 0.1.0
 */
export type ProtocolSummary = typeof DecodedSummary.Type

/**
 * The A7 response: an array of protocol summaries, or (as service.md has it) one summary.
 * Always decoded to a list.
 *
 * @example
 * ```ts
 * import { Schema } from "effect"
 * import { DefiPositions } from "@chainquery/schema"
 *
 * Schema.decodeUnknownSync(DefiPositions.DefiPositionsSummary)([]) // []
 * ```
 * @since 0.1.0
 */
export const DefiPositionsSummary: Schema.Codec<
  ReadonlyArray<ProtocolSummary>,
  ReadonlyArray<typeof DecodedSummary.Encoded>
> = Schema.Union([Schema.Array(ProtocolSummary), ProtocolSummary]).pipe(
  Schema.decodeTo(Schema.Array(Schema.toType(ProtocolSummary)), {
    decode: SchemaGetter.transform((input: ReadonlyArray<ProtocolSummary> | ProtocolSummary) =>
      Array.isArray(input) ? input : [input as ProtocolSummary]
    ),
    encode: SchemaGetter.passthroughSupertype()
  })
) as any

