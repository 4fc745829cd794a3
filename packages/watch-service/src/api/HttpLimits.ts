/**
 * How long the service's HTTP server waits for its clients, and how many it holds at once: a
 * connection that sends nothing, sends its headers or its body too slowly, or sits idle after an
 * answer is closed, and connections over the maximum are refused. Node's defaults hold a silent
 * connection for a minute or more and a slow body for about five, with no cap on connections.
 *
 * @since 0.5.0
 */
import { Duration } from "effect"
import { createServer, type Server } from "node:http"

/**
 * The limits of the HTTP server (`serve`'s `--http-*` flags).
 *
 * @example
 * ```ts
 * import { Duration } from "effect"
 * import type { HttpLimits } from "@chainquery/watch-service"
 *
 * const strict: HttpLimits.HttpLimits = {
 *   headerTimeout: Duration.seconds(5),
 *   requestTimeout: Duration.seconds(30),
 *   idleTimeout: Duration.seconds(10),
 *   maxConnections: 256
 * }
 * ```
 * @since 0.5.0
 */
export interface HttpLimits {
  /** From a connection's opening (or the start of its next request) to the end of the request's headers. */
  readonly headerTimeout: Duration.Duration
  /** From the same start to the end of the request's body (at least `headerTimeout`). */
  readonly requestTimeout: Duration.Duration
  /** How long a connection may stay idle after an answer before it is closed. */
  readonly idleTimeout: Duration.Duration
  /** The most connections open at once; more are closed as they come. */
  readonly maxConnections: number
}

/**
 * The defaults: 10 s for the headers, 60 s for a whole request (4 MiB at 70 KB/s), 65 s idle
 * (longer than the 60 s after which load balancers commonly drop an idle connection, so that the
 * service never closes one they are about to reuse) and 1,000 connections.
 *
 * @example
 * ```ts
 * import { Duration } from "effect"
 * import { HttpLimits } from "@chainquery/watch-service"
 *
 * Duration.toSeconds(HttpLimits.defaults.idleTimeout) // 65
 * ```
 * @since 0.5.0
 */
export const defaults: HttpLimits = {
  headerTimeout: Duration.seconds(10),
  requestTimeout: Duration.seconds(60),
  idleTimeout: Duration.seconds(65),
  maxConnections: 1_000
}

/** How often the server checks the header and request timeouts: a tenth of the shorter, between 50 ms and 1 s. */
const checkingInterval = (limits: HttpLimits): number =>
  Math.min(1_000, Math.max(50, Math.floor(Duration.toMillis(Duration.min(limits.headerTimeout, limits.requestTimeout)) / 10)))

/**
 * A Node HTTP server that keeps to `limits`. Node starts a connection's header clock when it
 * opens, so one that sends nothing is closed after `headerTimeout` too (with a 408); one idle
 * after an answer is closed after `idleTimeout` (Node adds a second of grace); the header and
 * request timeouts are checked every tenth of the shorter (Node's default is every 30 s).
 *
 * @example
 * ```ts
 * import { HttpLimits } from "@chainquery/watch-service"
 *
 * const server = HttpLimits.createLimitedServer(HttpLimits.defaults)
 * ```
 * @since 0.5.0
 */
export const createLimitedServer = (limits: HttpLimits): Server => {
  const server = createServer({
    headersTimeout: Duration.toMillis(limits.headerTimeout),
    requestTimeout: Duration.toMillis(limits.requestTimeout),
    connectionsCheckingInterval: checkingInterval(limits)
  })
  server.keepAliveTimeout = Duration.toMillis(limits.idleTimeout)
  server.maxConnections = limits.maxConnections
  return server
}
