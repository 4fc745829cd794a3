/**
 * A webhook receiver on 127.0.0.1 (`node:http`, keep-alive) that answers each request as a test
 * scripts it, records what arrived (headers, exact body, whether it came on a reused connection),
 * and is closed with the test's scope. With `closeReused`, it closes a kept-alive connection as the
 * next request arrives on it, without answering (a receiver whose idle timeout fired just then):
 * such a request is counted in `closed`, not in `hits`.
 */
import { Effect } from "effect"
import * as http from "node:http"
import type { AddressInfo, Socket } from "node:net"

/**
 * A URL where nothing listens: port 9 (discard) of 127.0.0.1. Not the port of a server just
 * closed, which another test's server (two test files run at once) may be given meanwhile.
 */
export const refusedUrl = (path: string): string => `http://127.0.0.1:9${path}`

/** A request as it arrived. */
export interface Hit {
  readonly path: string
  readonly headers: http.IncomingHttpHeaders
  readonly body: string
}

/**
 * How to answer: a status (with a short body), a status alone (no body) or with a `Location` header
 * (a redirect), `"close"` (the connection
 * closed, no answer) or `"silent"` (no answer, the connection left open).
 */
export type Answer = number | { readonly status: number; readonly location?: string } | "close" | "silent"

/** The `sequence` of a webhook batch's body. */
export const sequenceOf = (hit: Hit): number => (JSON.parse(hit.body) as { readonly sequence: number }).sequence

/** A receiver answering `answer(hit)` (200 unless told), recording every request. */
export const scriptedReceiver = (options: { readonly answer?: (hit: Hit) => Answer; readonly closeReused?: boolean } = {}) =>
  Effect.acquireRelease(
    Effect.callback<{
      readonly url: (path: string) => string
      readonly hits: Array<Hit>
      readonly closed: Array<string>
      readonly sockets: Array<Socket>
      readonly server: http.Server
    }>((resume) => {
      const hits: Array<Hit> = []
      const closed: Array<string> = []
      const sockets: Array<Socket> = []
      const served = new WeakMap<Socket, number>()
      const server = http.createServer({ keepAlive: true, keepAliveTimeout: 60_000 }, (request, response) => {
        const socket = request.socket
        const before = served.get(socket) ?? 0
        served.set(socket, before + 1)
        if (options.closeReused === true && before > 0) {
          closed.push(request.url ?? "/")
          socket.destroy()
          return
        }
        const chunks: Array<Buffer> = []
        request.on("data", (chunk: Buffer) => chunks.push(chunk))
        request.on("end", () => {
          const hit = { path: request.url ?? "/", headers: request.headers, body: Buffer.concat(chunks).toString("utf8") }
          hits.push(hit)
          const answer = options.answer?.(hit) ?? 200
          if (answer === "close") socket.destroy()
          else if (answer === "silent") return
          else if (typeof answer === "number") response.writeHead(answer, { "content-type": "text/plain" }).end(`answered ${answer}`)
          else response.writeHead(answer.status, answer.location === undefined ? {} : { location: answer.location }).end()
        })
      })
      server.on("connection", (socket) => sockets.push(socket))
      server.listen(0, "127.0.0.1", () => {
        const { port } = server.address() as AddressInfo
        resume(Effect.succeed({ url: (path: string) => `http://127.0.0.1:${port}${path}`, hits, closed, sockets, server }))
      })
    }),
    ({ server }) =>
      Effect.callback<void>((resume) => {
        server.closeAllConnections()
        server.close(() => resume(Effect.void))
      })
  )
