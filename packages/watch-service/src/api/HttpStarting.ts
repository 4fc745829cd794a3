/**
 * The answer of the service's HTTP server between the moment it listens and the moment its routes
 * are served (the layers in between are still being built): `503 {"error":"starting"}` with
 * `Retry-After: 1`, where Node would otherwise leave the request unanswered for ever (a request
 * event with no listener). A probe of `/readyz` at start-up, or a client that retries, gets an
 * answer at once.
 *
 * @since 0.5.0
 */
import type { IncomingMessage, Server, ServerResponse } from "node:http"

const starting = (_request: IncomingMessage, response: ServerResponse): void => {
  response.writeHead(503, { "content-type": "application/json", "retry-after": "1", connection: "close" })
  response.end(JSON.stringify({ error: "starting", message: "the service is starting: try again in a moment" }))
}

/**
 * Has `server` answer every request with a 503 until another request listener is added (the
 * routes, once served); answers the same server.
 *
 * @example
 * ```ts
 * import { createServer } from "node:http"
 * import { HttpStarting } from "@chainquery/watch-service"
 *
 * const server = HttpStarting.answerWhileStarting(createServer())
 * ```
 * @since 0.5.0
 */
export const answerWhileStarting = <S extends Server>(server: S): S => {
  const served = (event: string | symbol, listener: unknown) => {
    if (event !== "request" || listener === starting) return
    server.off("request", starting)
    server.off("newListener", served)
  }
  server.on("request", starting)
  server.on("newListener", served)
  return server
}
