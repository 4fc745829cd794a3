/**
 * The simulator's front door: a plain node:http request listener that every request meets
 * first. It normalises the URL (array query forms, family B network prefix), hands control
 * requests to the control API, counts (and keeps the latest requests in a request log, when
 * asked to), rate-limits, injects faults, and passes the rest to the service's own handler
 * (`next`).
 *
 * A request that draws no fault costs one URL classification, a route match, four random draws
 * and a few counter increments: no buffering and no wrapping of the response (except in the
 * `real` wire flavour, whose rewritten answers are buffered; see `RealWire.ts`).
 *
 * @internal
 */
import type { IncomingMessage, ServerResponse } from "node:http"
import { performance } from "node:perf_hooks"
import { alterResponse } from "./AlterResponse.js"
import { resetConnection, sendMalformed, sendRateLimited, sendServerError, streamHuge } from "./FaultResponses.js"
import { type FaultConfig, type FaultDecision, Faults } from "./Faults.js"
import { normaliseUrl } from "./Normalise.js"
import { OpenResponses } from "./OpenResponses.js"
import { apiKeyOf, RateLimiter } from "./RateLimit.js"
import { realWire, type WireFlavour } from "./RealWire.js"
import { RequestLog } from "./RequestLog.js"
import { matchRoute, type OperationId, operationIds } from "./Routes.js"
import { Stats } from "./Stats.js"
import { sendUnknownRoute } from "./UnknownRoute.js"

/** Real time for latency, whatever clock the rate limiter is given. */
const clock = (): number => performance.now()

/**
 * The request header through which family B handlers learn the network (`mainnet` or
 * `testnet`); the front door sets it for family B and removes any a client sent.
 *
 * Behind `/aptos/testnet/...`, a handler reads `"testnet"` from `req.headers[networkHeaderName]`.
 */
export const networkHeaderName = "x-chainquery-network"

/**
 * A node:http request listener.
 *
 * The service's handler (`next`) and the front door's own `handle` both have this type.
 */
export type Handler = (req: IncomingMessage, res: ServerResponse) => void

/**
 * What the front door needs: the seed of its fault stream, the service's handler, the control
 * API's handler, and optionally the initial faults, a rate limit, how many requests the request
 * log keeps (default 0, none), and a clock for the limiter, the stats and the request log
 * (milliseconds; default `Date.now`). Latency always runs on real time.
 *
 * `{ seed: "42", next, control, rateLimit: { unitsPerSecond: 25 } }`, for instance, makes a front
 * door with no faults that lets each key spend 25 units per second.
 */
export interface FrontDoorOptions {
  readonly seed: string
  readonly next: Handler
  readonly control: (req: IncomingMessage, res: ServerResponse, url: URL) => void
  readonly faults?: FaultConfig | undefined
  readonly rateLimit?: {
    readonly unitsPerSecond: number
    readonly weights?: Readonly<Partial<Record<OperationId, number>>> | undefined
  } | undefined
  readonly requestLog?: number | undefined
  readonly now?: (() => number) | undefined
  /** The JSON types of the 200 answers: service.md's (`spec`, the default) or the captured ones (`real`). */
  readonly wire?: WireFlavour | undefined
}

/**
 * A front door: `handle` is the server's request listener; `faults`, `rateLimit`, `stats` and
 * `requestLog` are live (the control API reads and changes them); `resetStats` zeroes the stats
 * and empties the request log; `close` ends every response a fault holds open (stalled, delayed,
 * huge) and must be called when the server shuts down.
 *
 * Pass `handle` to `createServer`; change the faults at run time with `faults.set(...)`, read
 * the counters with `stats.snapshot()` and the latest requests with `requestLog.entries()`.
 */
export interface FrontDoor {
  readonly handle: Handler
  readonly faults: Faults
  readonly rateLimit: RateLimiter
  readonly stats: Stats
  readonly requestLog: RequestLog
  readonly resetStats: () => void
  readonly close: () => void
}

/**
 * Builds a front door. Per request: normalise the URL (rewriting `req.url`, setting or removing
 * the network header); send `/__sim/...` to `control` untouched; count (and log, when the
 * request log keeps requests); rate-limit (429 with `Retry-After`); draw faults (at most one
 * replacing fault, plus latency); then pass on to `next`, through a response wrapper only when
 * the fault alters the real response or the `real` wire flavour rewrites it. Throws when
 * the fault configuration, the rate-limit weights or the request log capacity are not valid.
 *
 * Typically `createServer(makeFrontDoor({ seed, next, control }).handle)`; at shutdown, call the
 * front door's `close()`, then `server.close()`, so that no response a fault holds keeps the server
 * open.
 */
export const makeFrontDoor = (options: FrontDoorOptions): FrontDoor => {
  const { next, control } = options
  const now = options.now ?? Date.now
  const faults = new Faults(options.seed, options.faults ?? {})
  const rateLimit = new RateLimiter(options.rateLimit ?? {}, now)
  const stats = new Stats(now)
  const requestLog = new RequestLog(options.requestLog ?? 0)
  const open = new OpenResponses()
  const rewrites: Partial<Record<OperationId, (body: Buffer) => Buffer>> = options.wire === "real"
    ? Object.fromEntries(operationIds.flatMap((id) => {
      const rewrite = realWire(id)
      return rewrite === undefined ? [] : [[id, rewrite]]
    }))
    : {}

  const answer = (req: IncomingMessage, res: ServerResponse, decision: FaultDecision): void => {
    switch (decision.kind) {
      case "rateLimited":
        return sendRateLimited(res, decision.retryAfterSeconds)
      case "serverError":
        return sendServerError(res, decision.status)
      case "reset":
        return resetConnection(req)
      case "malformed":
        return sendMalformed(res)
      case "huge":
        return streamHuge(res, decision.bytes, open)
      default:
        return undefined
    }
  }

  const injectFault = (
    req: IncomingMessage,
    res: ServerResponse,
    operation: OperationId | undefined,
    decision: FaultDecision,
    forward: Handler,
    rewrite: ((body: Buffer) => Buffer) | undefined
  ): void => {
    const { kind, latencyMs } = decision
    if (latencyMs !== undefined) stats.fault("latency")
    if (kind !== undefined) stats.fault(kind)
    if (kind === undefined || kind === "truncated" || kind === "stalled") {
      stats.spent(operation, rateLimit.weightOf(operation))
      alterResponse(res, { notBefore: clock() + (latencyMs ?? 0), cut: kind, rewrite }, open, clock)
      forward(req, res)
      return
    }
    if (latencyMs === undefined) return answer(req, res, decision)
    open.add(res)
    open.later(Math.ceil(latencyMs), () => answer(req, res, decision))
  }

  const handle: Handler = (req, res) => {
    // Clients that keep connections are told to keep an idle one 5 s (the server keeps it 65 s):
    // they close it first, and never reuse one the server is closing.
    if (req.httpVersion === "1.1" && !/close/i.test(req.headers.connection ?? "")) {
      res.setHeader("connection", "keep-alive")
      res.setHeader("keep-alive", "timeout=5")
    }
    const raw = req.url ?? "/"
    const target = normaliseUrl(raw)
    const family = target.family
    if (family === "control") {
      control(req, res, new URL(raw, "http://localhost"))
      return
    }
    if (target.url !== raw) req.url = target.url
    if (family === "B") req.headers[networkHeaderName] = target.network
    else if (req.headers[networkHeaderName] !== undefined) delete req.headers[networkHeaderName]
    const operation = family === "unknown" ? undefined : matchRoute(req.method, family, target.pathname)
    stats.request(family, target.network, operation)
    if (requestLog.enabled) {
      requestLog.add({
        at: now(),
        method: req.method ?? "GET",
        path: raw,
        operation: operation ?? "unknown",
        family,
        network: target.network,
        userAgent: req.headers["user-agent"]
      })
    }
    if (rateLimit.enabled) {
      const retryAfter = rateLimit.check(apiKeyOf(req), operation)
      if (retryAfter !== undefined) {
        stats.rateLimited()
        sendRateLimited(res, retryAfter)
        return
      }
    }
    // What the service would answer: the operation, or its 404 for a route it does not have.
    const forward = operation === undefined ? sendUnknownRoute(family, raw) : next
    // The real flavour's types. A HEAD is answered as its GET, whose body is rewritten to give the
    // length and then dropped by Node (the response was made for a HEAD: it never sends a body).
    const rewrite = operation === undefined ? undefined : rewrites[operation]
    if (rewrite !== undefined && req.method === "HEAD") req.method = "GET"
    const decision = faults.decide(operation)
    if (decision !== undefined) return injectFault(req, res, operation, decision, forward, rewrite)
    stats.spent(operation, rateLimit.weightOf(operation))
    if (rewrite !== undefined) alterResponse(res, { notBefore: clock(), cut: undefined, rewrite }, open, clock)
    forward(req, res)
  }

  const resetStats = (): void => {
    stats.reset()
    requestLog.clear()
  }

  return { handle, faults, rateLimit, stats, requestLog, resetStats, close: () => open.close() }
}
