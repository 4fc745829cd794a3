/**
 * What the API-key tests share: real HTTP servers on loopback that record every request (and the
 * `X-API-Key` it carried), and a run of an effect that captures everything it could leak through:
 * the failure (`Cause.pretty`, its JSON), every log line, and every span (attributes, events and
 * how it ended).
 */
import { Cause, Effect, Exit, Logger, References, Tracer } from "effect"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"

/** A key with characters that URL-encoding changes (`+`, `/`, `=`), as base64 keys have. */
export const key = "cq+live/5f3a9c0e7b2d4a6f8e1c3b5d7a9f0e2c4b6d8f0a=="

/** The forms a leak could take: the key, URL-encoded, and its first 8 characters. */
export const leaks = (text: string): ReadonlyArray<string> =>
  [key, encodeURIComponent(key), key.slice(0, 8), encodeURIComponent(key).slice(0, 8)].filter((form) => text.includes(form))

export interface Seen {
  readonly url: string
  readonly apiKey: string | undefined
  readonly headers: IncomingMessage["headers"]
}

export interface TestServer {
  readonly url: string
  readonly seen: Array<Seen>
  readonly close: () => Promise<void>
}

/** A server on `host` (127.0.0.1, 127.0.0.2...) answering with `handler`, recording each request. */
export const startServer = (
  host: string,
  handler: (request: IncomingMessage, response: ServerResponse) => void
): Promise<TestServer> =>
  new Promise((resolve) => {
    const seen: Array<Seen> = []
    const server = createServer((request, response) => {
      seen.push({ url: request.url ?? "", apiKey: request.headers["x-api-key"] as string | undefined, headers: request.headers })
      handler(request, response)
    })
    server.listen(0, host, () => {
      const { port } = server.address() as AddressInfo
      resolve({
        url: `http://${host}:${port}`,
        seen,
        close: () =>
          new Promise<void>((done) => {
            server.closeAllConnections()
            server.close(() => done())
          })
      })
    })
  })

/** Everything a run left behind that could carry the key, as text. */
export interface Captured<A, E> {
  readonly exit: Exit.Exit<A, E>
  /** `Cause.pretty` of the failure, the error's JSON and message; empty on success. */
  readonly failure: string
  readonly logs: ReadonlyArray<string>
  /** Each span: name, attributes, events and its end (with `Cause.pretty` of a failure). */
  readonly spans: ReadonlyArray<string>
}

const describeSpan = (span: Tracer.NativeSpan): string => {
  const ended = span.status._tag === "Ended" && Exit.isFailure(span.status.exit) ? Cause.pretty(span.status.exit.cause) : ""
  return JSON.stringify({
    name: span.name,
    attributes: Object.fromEntries(span.attributes),
    events: span.events.map(([name, , attributes]) => ({ name, attributes })),
    ended
  }, (_, value) => (typeof value === "bigint" ? String(value) : value))
}

const describeFailure = <E>(exit: Exit.Exit<unknown, E>): string => {
  if (Exit.isSuccess(exit)) return ""
  const errors = exit.cause.reasons.flatMap((reason) => (reason._tag === "Fail" ? [reason.error] : []))
  return [
    Cause.pretty(exit.cause),
    ...errors.map((error) => `${JSON.stringify(error)} ${String((error as { message?: unknown }).message)} ${String(error)}`)
  ].join("\n")
}

/** Runs `effect` with every log level on, a logger and a tracer that keep all they are given. */
export const capture = <A, E>(effect: Effect.Effect<A, E>): Effect.Effect<Captured<A, E>> =>
  Effect.gen(function*() {
    const logs: Array<string> = []
    const spans: Array<Tracer.NativeSpan> = []
    const tracer = Tracer.make({
      span: (options) => {
        const span = new Tracer.NativeSpan(options)
        spans.push(span)
        return span
      }
    })
    const collect = Logger.map(Logger.formatJson, (line) => void logs.push(line))
    const exit = yield* effect.pipe(
      Effect.withSpan("test.root"),
      Effect.withTracer(tracer),
      Effect.provide(Logger.layer([collect])),
      Effect.provideService(References.MinimumLogLevel, "All"),
      Effect.exit
    )
    return { exit, failure: describeFailure(exit), logs, spans: spans.map(describeSpan) }
  })

/** Every place of a capture where the key was found, e.g. `["failure: cq+live/"]`; empty when clean. */
export const keyFoundIn = (captured: Captured<unknown, unknown>): ReadonlyArray<string> => [
  ...leaks(captured.failure).map((form) => `failure: ${form}`),
  ...captured.logs.flatMap((line) => leaks(line).map((form) => `log: ${form}`)),
  ...captured.spans.flatMap((span) => leaks(span).map((form) => `span: ${form}`))
]

/** Closes the servers that were started. */
export const closeAll = (servers: ReadonlyArray<TestServer | undefined>) =>
  Promise.all(servers.map((server) => server?.close()))
