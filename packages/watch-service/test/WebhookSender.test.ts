/**
 * WebhookSender: real requests to `node:http` servers on 127.0.0.1. What arrives (headers, exact
 * body bytes), each class of status, a redirect that is not followed, a timeout and an interruption
 * that drop the connection, a closed port, and private hosts refused before any connection.
 */
import { assert, describe, it } from "@effect/vitest"
import { NodeCrypto } from "@effect/platform-node"
import { type Duration, Effect, Fiber, Redacted } from "effect"
import * as http from "node:http"
import type { AddressInfo, Socket } from "node:net"
import * as WebhookSender from "../src/delivery/WebhookSender.js"
import * as WebhookSignature from "../src/delivery/WebhookSignature.js"
import { refusedUrl } from "./support/scriptedReceiver.js"

interface Received {
  readonly method: string | undefined
  readonly url: string | undefined
  readonly headers: http.IncomingHttpHeaders
  readonly body: Buffer
}

/** Answers by path: `/status/<code>`, `/big` (a 500 with 1 MB), `/redirect?to=<url>`, `/silent`, `/partial`, `/endless` (100 KiB that never end), else 200. */
const answer = (request: http.IncomingMessage, response: http.ServerResponse) => {
  const url = new URL(request.url ?? "/", "http://test")
  if (url.pathname.startsWith("/status/")) {
    response.writeHead(Number(url.pathname.slice("/status/".length)), { "content-type": "text/plain" })
    response.end(`  status ${url.pathname.slice(8)}: ${"é".repeat(300)}`)
  } else if (url.pathname === "/big") {
    response.writeHead(500, { "content-type": "text/plain" })
    response.end(`${"é".repeat(250)}${"x".repeat(1024 * 1024)}`)
  } else if (url.pathname === "/redirect") {
    response.writeHead(302, { location: url.searchParams.get("to") ?? "/" })
    response.end()
  } else if (url.pathname === "/endless") {
    response.writeHead(200, { "content-type": "text/plain" })
    response.write("x".repeat(100 * 1024))
  } else if (url.pathname === "/partial") {
    response.writeHead(200, { "content-type": "text/plain" })
    response.write("partial")
  } else if (url.pathname !== "/silent") {
    response.writeHead(200, { "content-type": "text/plain" })
    response.end("ok")
  }
}

/** The `detail` of a `/status/<code>` answer: its body's first 200 characters, trimmed. */
const detail = (status: number) => `status ${status}: ${"é".repeat(200)}`.slice(0, 200)

/** A server on 127.0.0.1 that records each request and its connections, closed with the scope. */
const serve = Effect.acquireRelease(
  Effect.callback<{
    readonly server: http.Server
    readonly port: number
    readonly received: Array<Received>
    readonly sockets: Array<Socket>
    readonly firstRequest: Promise<void>
  }>((resume) => {
    const received: Array<Received> = []
    const sockets: Array<Socket> = []
    const server = http.createServer((request, response) => {
      const chunks: Array<Buffer> = []
      request.on("data", (chunk: Buffer) => chunks.push(chunk))
      request.on("end", () => {
        received.push({ method: request.method, url: request.url, headers: request.headers, body: Buffer.concat(chunks) })
        server.emit("recorded")
        answer(request, response)
      })
    })
    const firstRequest = new Promise<void>((resolve) => server.once("recorded", () => resolve()))
    server.on("connection", (socket) => sockets.push(socket))
    server.listen(0, "127.0.0.1", () => resume(Effect.succeed({ server, port: (server.address() as AddressInfo).port, received, sockets, firstRequest })))
  }),
  ({ server }) =>
    Effect.callback<void>((resume) => {
      server.closeAllConnections()
      server.close(() => resume(Effect.void))
    })
)

/** Resolves once every connection the server accepted has closed. */
const allClosed = (sockets: ReadonlyArray<Socket>) =>
  Effect.promise(() => Promise.all(sockets.map((socket) => socket.closed ? Promise.resolve() : new Promise((resolve) => socket.once("close", resolve))))).pipe(
    Effect.timeout("20 seconds")
  )

const post = (url: string, options: { readonly allowPrivate?: boolean; readonly timeout?: Duration.Input } = {}) =>
  WebhookSender.post({
    url: new URL(url),
    headers: { "webhook-id": "msg_1" },
    body: "{}",
    timeout: options.timeout ?? "20 seconds",
    allowPrivate: options.allowPrivate ?? true
  })

describe("WebhookSender.post", () => {
  it.live("a 2xx is Delivered, and the receiver gets the method, path, headers and exact body bytes", () =>
    Effect.gen(function*() {
      const { port, received } = yield* serve
      const secret = Redacted.make("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
      const body = JSON.stringify({ events: [{ id: "évènement 😀", value: "1000000000000000000" }] })
      const timestamp = Math.floor(Date.now() / 1000)
      const headers = yield* WebhookSignature.headers({ secret, id: "msg_42", timestamp, body })
      const outcome = yield* WebhookSender.post({ url: new URL(`http://127.0.0.1:${port}/hooks/a?x=1`), headers, body, timeout: "20 seconds", allowPrivate: true })
      assert.deepStrictEqual(outcome, WebhookSender.SendOutcome.Delivered({ status: 200 }))
      assert.strictEqual(received.length, 1)
      const [request] = received
      assert.strictEqual(request?.method, "POST")
      assert.strictEqual(request?.url, "/hooks/a?x=1")
      assert.isTrue(request?.body.equals(Buffer.from(body, "utf8")))
      assert.strictEqual(request?.headers["content-type"], "application/json")
      assert.strictEqual(request?.headers["user-agent"], "chainquery-watcher")
      assert.strictEqual(request?.headers["content-length"], String(Buffer.byteLength(body)))
      assert.strictEqual(request?.headers["webhook-id"], "msg_42")
      assert.strictEqual(request?.headers["webhook-timestamp"], String(timestamp))
      assert.strictEqual(request?.headers["webhook-signature"], headers["webhook-signature"])
      // What the receiver got verifies, as a receiver's library would check it.
      const arrived = request!.headers as Record<string, string | undefined>
      yield* WebhookSignature.verify({ secret, headers: arrived, body: request!.body.toString("utf8"), now: timestamp })
      for (const status of [201, 204, 299]) {
        assert.deepStrictEqual(yield* post(`http://127.0.0.1:${port}/status/${status}`), WebhookSender.SendOutcome.Delivered({ status }))
      }
    }).pipe(Effect.provide(NodeCrypto.layerMac)))

  it.live("a 5xx, 408 and 429 are retryable Rejections, 410 is gone, other 4xx are final; detail is the body's first 200 characters", () =>
    Effect.gen(function*() {
      const { port } = yield* serve
      const expected = [
        [500, true, false],
        [503, true, false],
        [599, true, false],
        [408, true, false],
        [429, true, false],
        [410, false, true],
        [404, false, false],
        [400, false, false],
        [499, false, false]
      ] as const
      for (const [status, retryable, gone] of expected) {
        const outcome = yield* post(`http://127.0.0.1:${port}/status/${status}`)
        assert.deepStrictEqual(outcome, WebhookSender.SendOutcome.Rejected({ status, retryable, gone, detail: detail(status) }), String(status))
      }
      // A large body is not read to its end: the outcome comes with its first 200 characters.
      const big = yield* post(`http://127.0.0.1:${port}/big`)
      assert.deepStrictEqual(big, WebhookSender.SendOutcome.Rejected({ status: 500, retryable: true, gone: false, detail: "é".repeat(200) }))
    }))

  it.live("a redirect is not followed: a final Rejection naming the Location, and its target receives nothing", () =>
    Effect.gen(function*() {
      const source = yield* serve
      const target = yield* serve
      const location = `http://127.0.0.1:${target.port}/elsewhere`
      const outcome = yield* post(`http://127.0.0.1:${source.port}/redirect?to=${encodeURIComponent(location)}`)
      assert.strictEqual(outcome._tag, "Rejected")
      if (outcome._tag !== "Rejected") return
      assert.deepInclude(outcome, { status: 302, retryable: false, gone: false })
      assert.include(outcome.detail, location)
      assert.strictEqual(source.received.length, 1)
      assert.strictEqual(target.received.length, 0)
      assert.strictEqual(target.sockets.length, 0)
      // Every 3xx, with or without a Location.
      for (const status of [300, 399]) {
        assert.deepStrictEqual(
          yield* post(`http://127.0.0.1:${source.port}/status/${status}`),
          WebhookSender.SendOutcome.Rejected({ status, retryable: false, gone: false, detail: "redirect not followed (no Location); the webhook URL must answer itself" })
        )
      }
    }))

  it.live("a receiver that does not answer in time: TimedOut, and the connection is dropped", () =>
    Effect.gen(function*() {
      const { port, received, sockets } = yield* serve
      const started = Date.now()
      const outcome = yield* post(`http://127.0.0.1:${port}/silent`, { timeout: "300 millis" })
      const elapsed = Date.now() - started
      assert.deepStrictEqual(outcome, WebhookSender.SendOutcome.TimedOut())
      assert.isAtLeast(elapsed, 250)
      assert.isBelow(elapsed, 15_000)
      assert.strictEqual(received.length, 1)
      yield* allClosed(sockets)
      // A status that came before the timeout is the outcome, though the body never ends.
      assert.deepStrictEqual(yield* post(`http://127.0.0.1:${port}/partial`, { timeout: "300 millis" }), WebhookSender.SendOutcome.Delivered({ status: 200 }))
    }))

  it.live("a body past 64 KiB is not read on: the outcome comes at once, not at the timeout, and the connection is dropped", () =>
    Effect.gen(function*() {
      const { port, sockets } = yield* serve
      assert.deepStrictEqual(yield* post(`http://127.0.0.1:${port}/endless`, { timeout: "1 hour" }), WebhookSender.SendOutcome.Delivered({ status: 200 }))
      yield* allClosed(sockets)
    }))

  it.live("interrupting the request drops the connection", () =>
    Effect.gen(function*() {
      const { firstRequest, port, sockets } = yield* serve
      const fiber = yield* Effect.forkChild(post(`http://127.0.0.1:${port}/silent`, { timeout: "60 seconds" }))
      yield* Effect.promise(() => firstRequest).pipe(Effect.timeout("20 seconds"))
      yield* Fiber.interrupt(fiber)
      assert.strictEqual(sockets.length, 1)
      yield* allClosed(sockets)
    }))

  it.live("a port nobody listens on is Unreachable: connection refused", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* post(refusedUrl("/")), WebhookSender.SendOutcome.Unreachable({ message: "connection refused" }))
      // A scheme other than http: and https: is not tried.
      assert.deepStrictEqual(yield* post("ftp://127.0.0.1:9/"), WebhookSender.SendOutcome.Unreachable({ message: "the scheme ftp: is not supported" }))
    }))

  it.live("without allowPrivate, a private host is Unreachable and nothing connects: IP literals and a name that resolves to loopback", () =>
    Effect.gen(function*() {
      const { port, received, sockets } = yield* serve
      for (const host of ["127.0.0.1", "[::ffff:127.0.0.1]", "localhost"]) {
        const outcome = yield* post(`http://${host}:${port}/`, { allowPrivate: false })
        assert.strictEqual(outcome._tag, "Unreachable", host)
        if (outcome._tag === "Unreachable") assert.include(outcome.message, "the host resolves to a private address")
      }
      assert.strictEqual(received.length, 0)
      assert.strictEqual(sockets.length, 0)
      // The same name, allowed: the guarded lookup resolves it.
      assert.deepStrictEqual(yield* post(`http://localhost:${port}/`, { allowPrivate: true }), WebhookSender.SendOutcome.Delivered({ status: 200 }))
    }))
})
