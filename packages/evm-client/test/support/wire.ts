/**
 * Test support: a server on 127.0.0.1 in front of the simulator that writes down the request
 * target of every request exactly as it arrived (path and query, percent-encoding and all) and
 * forwards it with its API key, so a test can check what a client put on the wire and still get
 * the simulator's answer.
 */
import { Effect, type Scope } from "effect"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"

/** The recorder: its base URL, and the request targets it saw, oldest first. */
export interface WireRecorder {
  readonly url: string
  readonly targets: ReadonlyArray<string>
}

/** Answers with the simulator's status, content type and body. */
const forward = async (origin: string, request: IncomingMessage, response: ServerResponse): Promise<void> => {
  try {
    const answer = await fetch(new URL(request.url ?? "/", origin), {
      headers: { "x-api-key": String(request.headers["x-api-key"] ?? ""), accept: "application/json" }
    })
    const body = Buffer.from(await answer.arrayBuffer())
    response.writeHead(answer.status, { "content-type": answer.headers.get("content-type") ?? "application/json" }).end(body)
  } catch {
    response.writeHead(502).end()
  }
}

/** A recorder in front of `origin` (the simulator's `evmUrl`), closed with its scope. */
export const wireRecorder = (origin: string): Effect.Effect<WireRecorder, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.promise(() => {
      const targets: Array<string> = []
      const server = createServer((request, response) => {
        targets.push(request.url ?? "")
        void forward(origin, request, response)
      })
      return new Promise<{ readonly server: typeof server; readonly recorder: WireRecorder }>((resolve) =>
        server.listen(0, "127.0.0.1", () =>
          resolve({ server, recorder: { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, targets } }))
      )
    }),
    ({ server }) => Effect.promise(() => new Promise<void>((resolve) => server.close(() => resolve())))
  ).pipe(Effect.map(({ recorder }) => recorder))
