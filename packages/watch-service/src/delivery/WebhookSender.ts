/**
 * One webhook request: a POST of a JSON body to a stream's URL, and what came of it
 * ({@link SendOutcome}), for the delivery loop to decide whether to retry, give up or pause the
 * stream. Redirects are not followed, the response body is read (at most 64 KB) and dropped but
 * for its first 200 characters, and, unless private webhooks are allowed, the host is checked at
 * connection time ({@link AddressPolicy.guardedLookup}).
 *
 * @since 0.2.0
 */
import * as http from "node:http"
import * as https from "node:https"
import { Data, Duration, Effect } from "effect"
import * as AddressPolicy from "./AddressPolicy.js"

/**
 * What came of a request:
 *
 * - `Delivered`: a 2xx status;
 * - `Rejected`: any other status. `retryable` for 5xx, 408 and 429; `gone` for 410 (the receiver
 *   asks to stop); a 3xx is not followed and not retryable, its `detail` names the `Location`;
 *   otherwise `detail` is the first 200 characters of the response body;
 * - `TimedOut`: no status within the timeout;
 * - `Unreachable`: no connection (refused, reset, unknown name, bad TLS certificate, or a host
 *   that resolves to a private address), `message` says which without naming an address.
 *
 * @example
 * ```ts
 * import { WebhookSender } from "@chainquery/watch-service"
 *
 * const retry = (outcome: WebhookSender.SendOutcome): boolean =>
 *   WebhookSender.SendOutcome.$match(outcome, {
 *     Delivered: () => false,
 *     Rejected: ({ retryable }) => retryable,
 *     TimedOut: () => true,
 *     Unreachable: () => true
 *   })
 * ```
 * @since 0.2.0
 */
export type SendOutcome = Data.TaggedEnum<{
  Delivered: { readonly status: number }
  Rejected: { readonly status: number; readonly retryable: boolean; readonly gone: boolean; readonly detail: string }
  TimedOut: {}
  Unreachable: { readonly message: string }
}>

/**
 * The constructors and matchers of {@link SendOutcome}.
 *
 * @example
 * ```ts
 * import { WebhookSender } from "@chainquery/watch-service"
 *
 * WebhookSender.SendOutcome.Delivered({ status: 204 })
 * ```
 * @since 0.2.0
 */
export const SendOutcome = Data.taggedEnum<SendOutcome>()

/**
 * What went wrong, in words for the deliveries list and the test's answer: a status and the start
 * of the body, a timeout, a connection error; `null` when the receiver answered 2xx.
 *
 * @example
 * ```ts
 * import { WebhookSender } from "@chainquery/watch-service"
 *
 * WebhookSender.errorOf(WebhookSender.SendOutcome.Rejected({ status: 500, retryable: true, gone: false, detail: "down" })) // "HTTP 500: down"
 * ```
 * @since 0.5.0
 */
export const errorOf = (outcome: SendOutcome): string | null => {
  switch (outcome._tag) {
    case "Delivered":
      return null
    case "Rejected":
      return `HTTP ${outcome.status}${outcome.detail === "" ? "" : `: ${outcome.detail}`}`
    case "TimedOut":
      return "no answer within the delivery timeout"
    case "Unreachable":
      return outcome.message
  }
}

/** How much of a response body is read before the connection is dropped. */
const bodyCap = 64 * 1024
/** How much of it is kept, in bytes, for its first 200 characters. */
const headCap = 1024

/** Keep-alive connections, one pool per scheme and policy (a socket opened with private addresses allowed is never reused without). */
const agents = {
  "http:": { open: new http.Agent({ keepAlive: true }), guarded: new http.Agent({ keepAlive: true }) },
  "https:": { open: new https.Agent({ keepAlive: true }), guarded: new https.Agent({ keepAlive: true }) }
}
const lookups = { open: AddressPolicy.guardedLookup(true), guarded: AddressPolicy.guardedLookup(false) }

const privateHost = "the host resolves to a private address (refused unless the service runs with --allow-private-webhooks)"

/** A connection error, in words that name no address. */
const describe = (error: NodeJS.ErrnoException): string => {
  switch (error.code) {
    case "EUNSAFEADDRESS":
      return privateHost
    case "ECONNREFUSED":
      return "connection refused"
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return "the host does not resolve"
    case "ECONNRESET":
    case "EPIPE":
      return "the connection was reset"
    case "EHOSTUNREACH":
    case "ENETUNREACH":
    case "ETIMEDOUT":
      return "the host is unreachable"
    case undefined:
      return "connection failed"
    default:
      return /CERT|TLS|SSL/.test(error.code) ? `the TLS certificate is not valid (${error.code})` : `connection failed (${error.code})`
  }
}

/** The outcome of a response's status. */
const outcomeOf = (status: number, location: string | undefined, head: string): SendOutcome => {
  if (status >= 200 && status < 300) return SendOutcome.Delivered({ status })
  if (status >= 300 && status < 400) {
    const target = location === undefined ? "no Location" : `Location: ${location.slice(0, 200)}`
    return SendOutcome.Rejected({ status, retryable: false, gone: false, detail: `redirect not followed (${target}); the webhook URL must answer itself` })
  }
  const retryable = status >= 500 || status === 408 || status === 429
  return SendOutcome.Rejected({ status, retryable, gone: status === 410, detail: head.trim().slice(0, 200) })
}

/**
 * POSTs `body` to `url` with `headers` (besides `content-type: application/json` and
 * `user-agent: chainquery-watcher`), and never fails: whatever happens is a {@link SendOutcome}.
 * `timeout` bounds the whole request; past it the connection is dropped and the outcome is
 * `TimedOut` (or the status, if it had come). Unless `allowPrivate`, a private IP literal is not
 * called and a name is resolved by {@link AddressPolicy.guardedLookup}. Interrupting the effect
 * drops the connection. `headers` must be valid HTTP header names and values (a defect otherwise).
 *
 * @example
 * ```ts
 * import { WebhookSender } from "@chainquery/watch-service"
 *
 * const outcome = WebhookSender.post({
 *   url: new URL("https://hooks.example.com/chainquery"),
 *   headers: { "webhook-id": "msg_1" },
 *   body: "{\"events\":[]}",
 *   timeout: "10 seconds",
 *   allowPrivate: false
 * }) // Effect<SendOutcome>
 * ```
 * @since 0.2.0
 */
export const post = (request: PostRequest): Effect.Effect<SendOutcome> =>
  // A kept-alive connection the receiver closed as it was reused: the request never reached it
  // (Node's advice: send it again, once, on a new connection).
  Effect.flatMap(sendOnce(request), (outcome) =>
    outcome === staleConnection
      ? Effect.map(sendOnce(request), (again) => again === staleConnection ? SendOutcome.Unreachable({ message: "the connection was reset" }) : again)
      : Effect.succeed(outcome))

/** What `post` sends. */
interface PostRequest {
  readonly url: URL
  readonly headers: Readonly<Record<string, string>>
  readonly body: string
  readonly timeout: Duration.Input
  readonly allowPrivate: boolean
}

/** A reused kept-alive connection reset before any answer: the receiver had closed it. */
const staleConnection: unique symbol = Symbol("staleConnection")

/** One request; `staleConnection` when it went on a kept-alive connection the receiver had closed. */
const sendOnce = (request: PostRequest): Effect.Effect<SendOutcome | typeof staleConnection> => {
  const { url } = request
  const protocol = url.protocol
  if (protocol !== "http:" && protocol !== "https:") {
    return Effect.succeed(SendOutcome.Unreachable({ message: `the scheme ${protocol} is not supported` }))
  }
  // Node does not look IP literals up, so the guarded lookup would not see them.
  if (!request.allowPrivate && AddressPolicy.isPrivateAddress(url.hostname)) {
    return Effect.succeed(SendOutcome.Unreachable({ message: privateHost }))
  }
  const policy = request.allowPrivate ? "open" : "guarded"
  const millis = Duration.toMillis(request.timeout)
  return Effect.callback<SendOutcome | typeof staleConnection>((resume) => {
    let settled = false
    let status: number | undefined
    let location: string | undefined
    const head: Array<Buffer> = []
    let received = 0
    let timer: ReturnType<typeof setTimeout> | undefined
    const statusOutcome = (code: number) => outcomeOf(code, location, Buffer.concat(head).toString("utf8"))
    const finish = (outcome: () => SendOutcome | typeof staleConnection) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      resume(Effect.succeed(outcome()))
    }
    const afterStatus = (otherwise: () => SendOutcome) => finish(() => status === undefined ? otherwise() : statusOutcome(status))
    const body = Buffer.from(request.body, "utf8")
    const options: http.RequestOptions = {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "user-agent": "chainquery-watcher",
        ...request.headers,
        "content-length": String(body.length)
      },
      agent: agents[protocol][policy],
      lookup: lookups[policy]
    }
    const req = (protocol === "https:" ? https : http).request(url, options, (response) => {
      status = response.statusCode ?? 0
      location = response.headers.location
      response.on("data", (chunk: Buffer) => {
        if (received < headCap) head.push(chunk.subarray(0, headCap - received))
        received += chunk.length
        if (received > bodyCap) {
          afterStatus(SendOutcome.TimedOut)
          req.destroy()
        }
      })
      response.on("end", () => afterStatus(SendOutcome.TimedOut))
      response.on("error", () => afterStatus(SendOutcome.TimedOut))
      response.on("close", () => afterStatus(SendOutcome.TimedOut))
    })
    req.on("error", (error) => {
      if (status === undefined && req.reusedSocket && (error as NodeJS.ErrnoException).code === "ECONNRESET") return finish(() => staleConnection)
      afterStatus(() => SendOutcome.Unreachable({ message: describe(error) }))
    })
    if (Number.isFinite(millis)) {
      timer = setTimeout(() => {
        afterStatus(SendOutcome.TimedOut)
        req.destroy()
      }, Math.min(Math.max(millis, 1), 2 ** 31 - 1))
    }
    req.end(body)
    return Effect.sync(() => {
      settled = true
      clearTimeout(timer)
      req.destroy()
    })
  })
}
