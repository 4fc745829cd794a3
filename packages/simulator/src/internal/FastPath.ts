/**
 * The fast path: answers the hottest requests (the paged family A listings, A1..A4) without the
 * Effect HttpApi machinery, and hands every other request to the HttpApi app (`next`).
 *
 * The route set is the HttpApi's own: every endpoint of the given APIs is registered, in the
 * HttpApi's order and with its path, on a router of the same kind the HttpApi app uses
 * (`FindMyWay`, default configuration), so a URL finds the endpoint it would find there, with the
 * same path parameters and the same parsed query. Path parameters and query are decoded with the
 * endpoint's own schemas and parse options, the same decoding the HttpApi applies, only without
 * an effect around it; both depend on the URL alone, so the last few hundred URLs that decoded are
 * kept with their decoded inputs. The body is written by the same function the HttpApi handler
 * answers with.
 *
 * A request is served here only when it is a plain `GET` without a body, matches an endpoint of
 * the fast set, carries the API key (`ApiKeyCheck.ts`), decodes, and its operation returns a page;
 * anything else (a missing or wrong key, a bad parameter, a foreign cursor, `HEAD`, any other
 * endpoint or family) goes to `next` untouched, which answers as it always did. The operations are
 * pure reads of the world, so running one again on `next` after it threw changes nothing.
 *
 * @internal
 */
import { Context, Result, Schema } from "effect"
import * as FindMyWay from "effect/http/FindMyWay"
import { HttpApi, type HttpApiEndpoint, type HttpApiGroup } from "effect/http-api"
import type { IncomingHttpHeaders, IncomingMessage } from "node:http"
import { BoundedMap } from "./BoundedMap.js"
import type { Handler } from "./front/FrontDoor.js"

/** An operation of the fast set: decoded path parameters and query in, body chunks out. */
export type FastAnswer = (params: any, query: any) => ReadonlyArray<Uint8Array>

/** An endpoint of an HttpApi, with its group and the annotations that apply to it. */
export interface ApiEndpoint {
  readonly group: HttpApiGroup.Top
  readonly endpoint: HttpApiEndpoint.Top
  readonly mergedAnnotations: Context.Context<never>
}

/** The endpoints of an HttpApi, in the order the HttpApi builder registers them. */
export const endpointsOf = <Id extends string, Groups extends HttpApiGroup.Constraint>(
  api: HttpApi.HttpApi<Id, Groups>
): Array<ApiEndpoint> => {
  const endpoints: Array<ApiEndpoint> = []
  HttpApi.reflect(api, {
    onGroup: () => undefined,
    onEndpoint: ({ endpoint, group, mergedAnnotations }) => endpoints.push({ endpoint, group, mergedAnnotations })
  })
  return endpoints
}

/** What the fast path needs. */
export interface FastPathOptions {
  /** Every endpoint the HttpApi app serves, in its order ({@link endpointsOf} each API). */
  readonly endpoints: ReadonlyArray<ApiEndpoint>
  /** The group whose endpoints `answers` names. */
  readonly group: string
  /** The fast set: an answer per endpoint name of `group`. */
  readonly answers: Readonly<Record<string, FastAnswer>>
  /** The API key check. */
  readonly accepts: (headers: IncomingHttpHeaders) => boolean
  /** The HttpApi app, for everything else. */
  readonly next: Handler
}

/** The fast path's request listener, and how many requests it answered itself. */
export interface FastPath {
  readonly handle: Handler
  readonly served: () => number
}

type Decode = (input: unknown) => Result.Result<unknown, unknown>

interface FastRoute {
  readonly answer: FastAnswer
  readonly params: Decode
  readonly query: Decode
}

const decoder = (schema: Schema.Top | undefined, options: object | undefined): Decode =>
  schema === undefined ? () => Result.succeed({}) : Schema.decodeUnknownResult(schema as Schema.Decoder<unknown>, options)

/** A route of the fast set, its decoders built as the HttpApi builds them. */
const fastRoute = (endpoint: HttpApiEndpoint.Top, annotations: Context.Context<never>, answer: FastAnswer): FastRoute => {
  const fallback = Context.getOrUndefined(annotations, HttpApi.ParseOptions)
  const query = endpoint.query as Schema.Top | undefined
  return {
    answer,
    params: decoder(endpoint.params as Schema.Top | undefined, Context.getOrUndefined(annotations, HttpApi.ParamsParseOptions) ?? fallback),
    query: decoder(
      query === undefined ? undefined : Schema.toCodecArrayFromSingle(query),
      Context.getOrUndefined(annotations, HttpApi.QueryParseOptions) ?? fallback
    )
  }
}

/** A URL of the fast set, routed and decoded. */
interface Decoded {
  readonly route: FastRoute
  readonly params: unknown
  readonly query: unknown
}

/** Decoded URLs kept. */
const urlsKept = 256

/** A request the fast path may answer: HTTP/1 `GET` with no body and no `Expect`. */
const plainGet = (req: IncomingMessage): boolean =>
  req.method === "GET" && req.httpVersionMajor === 1 && req.headers["content-length"] === undefined &&
  req.headers["transfer-encoding"] === undefined && req.headers["expect"] === undefined

/** Builds the fast path in front of `next`. */
export const makeFastPath = (options: FastPathOptions): FastPath => {
  const router = FindMyWay.make<FastRoute | undefined>()
  for (const { endpoint, group, mergedAnnotations } of options.endpoints) {
    const answer = group.identifier === options.group ? options.answers[endpoint.identifier] : undefined
    router.on(endpoint.method, endpoint.path as FindMyWay.PathInput, answer && fastRoute(endpoint, mergedAnnotations, answer))
  }
  let served = 0

  /** The route and decoded inputs of a URL, or `undefined` when it is not one of the fast set's. */
  const decode = (url: string): Decoded | undefined => {
    const found = router.find("GET", url)
    const route = found?.handler
    if (found === undefined || route === undefined) return undefined
    const params = route.params(found.params)
    const query = route.query(found.searchParams)
    return Result.isFailure(params) || Result.isFailure(query) ? undefined : { route, params: params.success, query: query.success }
  }

  // Routing and decoding depend on the URL alone, so the URLs asked for again skip both.
  const decodedUrls = new BoundedMap<string, Decoded>(urlsKept)
  const decodedOf = (url: string): Decoded | undefined => {
    let decoded = decodedUrls.get(url)
    if (decoded === undefined) {
      decoded = decode(url)
      if (decoded !== undefined) decodedUrls.set(url, decoded)
    }
    return decoded
  }

  const answer = (req: IncomingMessage): ReadonlyArray<Uint8Array> | undefined => {
    if (!plainGet(req) || req.url === undefined) return undefined
    const decoded = decodedOf(req.url)
    if (decoded === undefined || !options.accepts(req.headers)) return undefined
    try {
      return decoded.route.answer(decoded.params, decoded.query)
    } catch {
      return undefined
    }
  }

  const handle: Handler = (req, res) => {
    const body = answer(req)
    if (body === undefined) return options.next(req, res)
    served++
    let length = 0
    for (const chunk of body) length += chunk.length
    // corked, the head and every chunk leave in one write
    res.cork()
    res.writeHead(200, { "content-type": "application/json", "content-length": String(length) })
    for (const chunk of body) res.write(chunk)
    res.end()
    res.uncork()
  }

  return { handle, served: () => served }
}
