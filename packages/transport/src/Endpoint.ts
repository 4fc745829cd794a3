/**
 * What a client asks the transport to do for one operation: where to send the request (path and
 * wire query, already built and encoded) and how to read the answer (a decoder for the success
 * body). `Endpoint.fromHttpApi` builds these from the HttpApi definitions of
 * `@chainquery/schema`, so the clients use the same paths, query spellings and schemas the
 * simulator serves.
 *
 * @since 0.1.0
 */
import { Decode } from "@chainquery/schema"
import type { Result, Schema } from "effect"
import type { HttpApiEndpoint } from "effect/http-api"
import { Schema as S } from "effect"

/**
 * One request of one operation, ready to send.
 *
 * @example
 * ```ts
 * import { Endpoint } from "@chainquery/transport"
 *
 * const request: Endpoint.Request<unknown> = {
 *   operation: "getBlock",
 *   path: "/api/v2.2/block/15846571",
 *   query: [["chain", "0x1"]],
 *   decode: (body) => ({ _tag: "Success", success: body }) as never
 * }
 * ```
 * @since 0.1.0
 */
export interface Request<A> {
  /** The service's operation id, e.g. `getWalletNFTTransfers`: names spans and picks the weight. */
  readonly operation: string
  /** Path from the base URL, with path parameters filled in and percent-encoded. */
  readonly path: string
  /** Query parameters as wire pairs; list parameters appear once per element as `name[]`. */
  readonly query: ReadonlyArray<readonly [string, string]>
  /** Reads a JSON body into the operation's response. */
  readonly decode: (body: unknown) => Result.Result<A, Schema.SchemaError>
  /** The chain or network, for spans. */
  readonly chain?: string | undefined
}

/**
 * Builds requests for one HttpApi endpoint: `build(params, query)` takes the endpoint's decoded
 * path parameters and query (the `Type` side of its schemas, i.e. already validated values),
 * encodes them with the endpoint's own schemas, fills the path template, and spells list
 * parameters as `name[]=` (as the official SDK does). A query value `undefined` is a parameter
 * left out.
 *
 * @example
 * ```ts
 * import { EvmApi } from "@chainquery/schema"
 * import { Endpoint } from "@chainquery/transport"
 *
 * const getBlock = Endpoint.fromHttpApi(EvmApi.EvmGroup.endpoints.getBlock)
 * const request = getBlock.build({ block_number_or_hash: 15846571n }, { chain: "0x1" })
 * request.path // "/api/v2.2/block/15846571"
 * ```
 * @since 0.1.0
 */
export const fromHttpApi = <E extends HttpApiEndpoint.Constraint>(endpoint: E) => {
  const paramsSchema = (endpoint as unknown as { readonly params: Schema.Top | undefined }).params
  const querySchema = (endpoint as unknown as { readonly query: Schema.Top | undefined }).query
  const success = [...(endpoint as unknown as { readonly success: ReadonlySet<Schema.Top> }).success][0]!
  const encodeParams = paramsSchema === undefined ? undefined : remembered(S.encodeSync(paramsSchema as Schema.Codec<unknown, unknown>))
  const encodeQuery = querySchema === undefined ? undefined : remembered(S.encodeSync(querySchema as Schema.Codec<unknown, unknown>))
  const decode = Decode.decoder(success as Schema.Decoder<unknown>)
  const { identifier: name, path: template } = endpoint as unknown as { readonly identifier: string; readonly path: string }
  // The path template split once: text, parameter name, text, … (`/block/:block` -> ["/block/", "block", ""]).
  const segments = template.split(/:([A-Za-z_]+)/)
  return {
    name,
    build: <A = SuccessOf<E>>(
      params: Record<string, unknown> | undefined,
      query: Record<string, unknown> | undefined,
      chain?: string
    ): Request<A> => {
      const wireParams = (encodeParams === undefined ? {} : encodeParams(params ?? {})) as Record<string, string>
      let path = segments[0]!
      for (let i = 1; i < segments.length; i += 2) path += encodeURIComponent(String(wireParams[segments[i]!])) + segments[i + 1]!
      const wireQuery = (encodeQuery === undefined ? {} : encodeQuery(definedOnly(query))) as Record<string, unknown>
      const pairs: Array<readonly [string, string]> = []
      for (const [key, value] of Object.entries(wireQuery)) {
        if (value === undefined) continue
        // A list parameter is always spelled `name[]`, even with one element (which the schema
        // encodes as a bare value).
        if (Array.isArray(query?.[key])) {
          for (const item of Array.isArray(value) ? value : [value]) pairs.push([`${key}[]`, String(item)])
        } else pairs.push([key, String(value)])
      }
      return { operation: name, path, query: pairs, decode: decode as Request<A>["decode"], chain }
    }
  }
}

/** The query without its `undefined` values: an absent parameter (the schemas' keys are optional, not `undefined`). */
const definedOnly = (query: Record<string, unknown> | undefined): Record<string, unknown> => {
  const defined: Record<string, unknown> = {}
  for (const key in query) if (query[key] !== undefined) defined[key] = query[key]
  return defined
}

/** Most remembered encodings per endpoint part; past it, its memory starts again. */
const rememberedEncodings = 512

/**
 * The key of a record whose values are all strings, numbers, booleans, lists of them or
 * `undefined` (the parameters of nearly every call), telling every value, type, order and
 * explicit `undefined` apart; `undefined` for any other record, which is not remembered.
 */
const keyOf = (record: Record<string, unknown>): string | undefined => {
  let key = ""
  for (const name in record) {
    const value = record[name]
    if (Array.isArray(value)) {
      key += `${name}[`
      for (const item of value) {
        const part = plainKeyOf(item)
        if (part === undefined) return undefined
        key += `${part},`
      }
      key += "];"
    } else {
      const part = value === undefined ? "u" : plainKeyOf(value)
      if (part === undefined) return undefined
      key += `${name}=${part};`
    }
  }
  return key
}

/** A string, number or boolean as text that tells every value and type apart; else `undefined`. */
const plainKeyOf = (value: unknown): string | undefined => {
  if (typeof value === "string") return `s${JSON.stringify(value)}`
  if (typeof value === "number") return Object.is(value, -0) ? "n-0" : `n${String(value)}`
  if (typeof value === "boolean") return value ? "t" : "f"
  return undefined
}

/**
 * An encoder that remembers what it encoded for records of plain values: encoding is pure, and a
 * stream asks the same of the same parameters page after page (only the cursor changes).
 */
const remembered = (encode: (input: unknown) => unknown) => {
  const encodings = new Map<string, unknown>()
  return (input: Record<string, unknown>): unknown => {
    const key = keyOf(input)
    if (key === undefined) return encode(input)
    let encoded = encodings.get(key)
    if (encoded === undefined) {
      encoded = encode(input)
      if (encodings.size >= rememberedEncodings) encodings.clear()
      encodings.set(key, encoded)
    }
    return encoded
  }
}

/** The decoded success type of an endpoint. */
type SuccessOf<E> = E extends { readonly "~Success": infer Success extends Schema.Top } ? Success["Type"] : unknown
