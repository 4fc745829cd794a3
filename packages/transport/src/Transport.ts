/**
 * The request pipeline both clients share. For each operation call: wait for the compute-unit
 * budget and a concurrency slot, send `GET base + path?query` with the API key (`X-API-Key`, from a
 * `Redacted` that is never logged or put in an error), `Accept: application/json` and a
 * `User-Agent`, bound each attempt and the whole call by timeouts, retry what is worth retrying,
 * read at most `maxBodyBytes`, map statuses to the typed errors, and decode the body. One span per
 * call, with the operation, chain, final status and number of attempts.
 *
 * The key goes only where it was sent: a `baseUrl` with `http:` is refused unless its host is
 * loopback (or `allowInsecureHttp` is set), redirects are never followed (`Redirected`), and the
 * key is scrubbed out of every string read from a response before it goes into an error or a log.
 *
 * @since 0.1.0
 */
import { Errors, ErrorBody, IssuePath } from "@chainquery/schema"
import { Clock, Context, Duration, Effect, Option, Redacted, Result, type Tracer } from "effect"
import { HttpClient } from "effect/http"
import * as BaseUrl from "./BaseUrl.js"
import * as ComputeBudget from "./ComputeBudget.js"
import type { Request } from "./Endpoint.js"
import * as ResponseBody from "./ResponseBody.js"
import * as Exchange from "./internal/exchange.js"
import * as Redirect from "./internal/redirect.js"
import { countAnswer } from "./internal/requestMetrics.js"
import * as Slots from "./internal/slots.js"
import * as RetryPolicy from "./RetryPolicy.js"
import * as Scrub from "./Scrub.js"
import { version } from "./Version.js"

/**
 * How a transport behaves. Only `baseUrl` and `apiKey` are required.
 *
 * @example
 * ```ts
 * import { Redacted } from "effect"
 * import type { Transport } from "@chainquery/transport"
 *
 * const options: Transport.Options = {
 *   baseUrl: "https://deep-index.moralis.io",
 *   apiKey: Redacted.make(process.env.MORALIS_API_KEY ?? ""),
 *   retry: { times: 5 },
 *   rateLimit: { unitsPerSecond: 25, maxConcurrency: 4 }
 * }
 * ```
 * @since 0.1.0
 */
export interface Options {
  readonly baseUrl: string
  readonly apiKey: string | Redacted.Redacted<string>
  /** Longest wait for one attempt (headers and body). Default 10 s. */
  readonly attemptTimeout?: Duration.Input | undefined
  /** Longest wait for a whole call, retries included. Default 60 s. */
  readonly totalTimeout?: Duration.Input | undefined
  /** Retry policy; `{ times: 0 }` disables retries. Default: 3 retries, see `RetryPolicy`. */
  readonly retry?: RetryPolicy.RetryPolicy | undefined
  /** Compute-unit budget and concurrency cap (default 8 requests in flight). */
  readonly rateLimit?: (ComputeBudget.BudgetOptions & { readonly maxConcurrency?: number | undefined }) | undefined
  /** Largest response body read. Default 16 MiB. */
  readonly maxBodyBytes?: number | undefined
  /** Extra text for the `User-Agent` header, after `chainquery/<version>`. */
  readonly userAgent?: string | undefined
  /**
   * Send the API key over plain `http:` to a host that is not loopback (it can then be read on
   * the way; a warning is logged once). Default false: such a `baseUrl` fails with `InvalidConfig`.
   */
  readonly allowInsecureHttp?: boolean | undefined
}

/**
 * Per-call overrides.
 *
 * @example
 * ```ts
 * import type { Transport } from "@chainquery/transport"
 *
 * const urgent: Transport.CallOptions = { retry: { times: 0 }, timeout: "2 seconds" }
 * ```
 * @since 0.1.0
 */
export interface CallOptions {
  readonly retry?: RetryPolicy.RetryPolicy | undefined
  /** Overrides `totalTimeout` for this call. */
  readonly timeout?: Duration.Input | undefined
}

/**
 * A transport: sends one operation's request and returns its decoded response.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Transport } from "@chainquery/transport"
 *
 * const program = Effect.gen(function*() {
 *   const transport = yield* Transport.make({ baseUrl: "http://127.0.0.1:4000", apiKey: "key" })
 *   // yield* transport.send(request)
 * })
 * ```
 * @since 0.1.0
 */
export interface Transport {
  readonly send: <A>(request: Request<A>, options?: CallOptions) => Effect.Effect<A, Errors.RequestError | Errors.NotFound>
}

type AttemptError = Errors.RequestError | Errors.NotFound

const statusError = (
  status: number,
  body: unknown,
  retryAfter: Option.Option<Duration.Duration>,
  scrub: Scrub.Scrubber
): AttemptError => {
  const message = scrub(ErrorBody.messageOf(body) || `HTTP ${status}`)
  if (status === 400) return new Errors.BadRequest({ message })
  if (status === 401 || status === 403) return new Errors.Unauthorized({ status, message })
  if (status === 404) return new Errors.NotFound({ message })
  if (status === 429) return new Errors.RateLimited({ message, retryAfter })
  return new Errors.ServerError({ status, message })
}

const networkError = (error: { readonly message: string }, scrub: Scrub.Scrubber) =>
  new Errors.Transport({ reason: "Network", message: scrub(`the request failed: ${error.message}`) })

/** A `Transport` error whose message (read from the response) has the key scrubbed out. */
const scrubTransport = (error: Errors.Transport, scrub: Scrub.Scrubber) => {
  const message = scrub(error.message)
  return message === error.message ? error : new Errors.Transport({ reason: error.reason, message })
}

const describeQuery = (pairs: ReadonlyArray<readonly [string, string]>) =>
  pairs.map(([key, value]) => `${encodeURIComponent(key)}=${encodeURIComponent(value)}`).join("&")

/**
 * Makes a transport on the `HttpClient` in context: every request goes through it, with its own
 * spans and middleware. {@link makeOnFetch} is the faster choice when plain `fetch` will do.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { FetchHttpClient } from "effect/http"
 * import { Transport } from "@chainquery/transport"
 *
 * const transport = Transport.make({ baseUrl: "http://127.0.0.1:4000", apiKey: "key" }).pipe(
 *   Effect.provide(FetchHttpClient.layer)
 * )
 * ```
 * @since 0.1.0
 */
export const make = (options: Options): Effect.Effect<Transport, Errors.InvalidConfig, HttpClient.HttpClient> =>
  Effect.flatMap(HttpClient.HttpClient, (client) =>
    Effect.flatMap(Effect.context<never>(), (madeIn) => build(options, Exchange.onHttpClient(client, madeIn))))

/**
 * Makes a transport that sends its requests straight with `fetch`, without an `HttpClient`: the
 * same promises (typed errors, retries, timeouts, the body cap, the budget, redirects refused,
 * the key kept out of logs and errors, one span per call), less work per request. A
 * `FetchHttpClient.Fetch` or `FetchHttpClient.RequestInit` in context is used as
 * `FetchHttpClient.layer` would use it.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Transport } from "@chainquery/transport"
 *
 * const transport = Transport.makeOnFetch({ baseUrl: "http://127.0.0.1:4000", apiKey: "key" })
 * ```
 * @since 0.2.0
 */
export const makeOnFetch = (options: Options): Effect.Effect<Transport, Errors.InvalidConfig> =>
  Effect.flatMap(Effect.context<never>(), (madeIn) => build(options, Exchange.onFetch(madeIn)))

const build = Effect.fnUntraced(function*(options: Options, makeExchange: (settings: Exchange.Settings) => Exchange.Exchange) {
  const checked = BaseUrl.check(options.baseUrl, { allowInsecureHttp: options.allowInsecureHttp })
  if (Result.isFailure(checked)) return yield* checked.failure
  const baseUrl = checked.success.url
  const origin = new URL(baseUrl).origin
  if (checked.success.insecure) {
    yield* Effect.logWarning(`the API key is sent in clear text to ${origin} (allowInsecureHttp is set): anyone on the way can read it`)
  }
  const apiKey = Redacted.isRedacted(options.apiKey) ? options.apiKey : Redacted.make(options.apiKey)
  const scrub = Scrub.make(apiKey)
  const scrubTarget = Scrub.make(apiKey, { ignoreCase: true })
  const budget = yield* ComputeBudget.make(options.rateLimit ?? {})
  const slots = Slots.make(options.rateLimit?.maxConcurrency ?? 8)
  const attemptTimeout = Duration.fromInputUnsafe(options.attemptTimeout ?? "10 seconds")
  const totalTimeout = Duration.fromInputUnsafe(options.totalTimeout ?? "60 seconds")
  const maxBodyBytes = options.maxBodyBytes ?? ResponseBody.defaultMaxBytes
  const userAgent = `chainquery/${version}${options.userAgent === undefined ? "" : ` ${options.userAgent}`}`
  const headers: Readonly<Record<string, string>> = {
    "x-api-key": Redacted.value(apiKey),
    accept: "application/json",
    "user-agent": userAgent
  }
  // The longest Retry-After waited for, parsed once for the policies a call usually has: the
  // transport's own, or one without `maxRetryAfter`.
  const defaultMaxPause = Duration.fromInputUnsafe(RetryPolicy.defaults.maxRetryAfter)
  const configuredMaxPause = Duration.fromInputUnsafe(options.retry?.maxRetryAfter ?? RetryPolicy.defaults.maxRetryAfter)
  const exchange = makeExchange({
    headers,
    origin,
    maxBodyBytes,
    failed: (error) => networkError(error, scrub),
    scrubbed: (error) => scrubTransport(error, scrub),
  })
  const attemptLimit: Exchange.Limit = {
    millis: Duration.toMillis(attemptTimeout),
    timedOut: () => new Errors.Transport({ reason: "Timeout", message: `no complete answer within ${Duration.format(attemptTimeout)}` })
  }
  /** The typed error of an answer that is not a 2xx; a 429 also pauses the budget. */
  const statusFailure = (answer: Exchange.Answer, body: unknown, maxPause: Duration.Duration) =>
    Effect.flatMap(Clock.currentTimeMillis, (now): Effect.Effect<never, AttemptError> => {
      const retryAfter = RetryPolicy.parseRetryAfter(answer.header("retry-after"), now)
      const error = statusError(answer.status, body, retryAfter, scrub)
      // Everyone waits for the service's Retry-After, but never longer than the retry policy
      // would: a longer one fails this call at once and must not stall the others.
      if (error._tag !== "RateLimited") return Effect.fail(error)
      return Effect.andThen(
        budget.rateLimited(Option.getOrUndefined(Option.map(retryAfter, (asked) => Duration.min(asked, maxPause)))),
        Effect.fail(error)
      )
    })

  const readAnswer = (answer: Exchange.Answer, url: string, maxPause: Duration.Duration): Effect.Effect<unknown, AttemptError> => {
    // Refused unread by the exchange: a redirect, or an answer from elsewhere.
    if (answer.text === undefined) return Effect.fail(Redirect.refusal(answer, url, scrubTarget))
    const text = answer.text
    const body = ResponseBody.parseJson(text)
    if (answer.status < 200 || answer.status >= 300) return statusFailure(answer, body ?? text, maxPause)
    if (body !== undefined) return Effect.succeed(body)
    // Cut short or garbled on the way: a failure of the exchange, retried like a 5xx.
    return Effect.fail(new Errors.Transport({
      reason: "MalformedBody",
      message: scrub(
        `the body of a ${answer.status} answer is not valid JSON (${text.length} characters${text.length > 0 ? `, starting ${JSON.stringify(text.slice(0, 40))}` : ""})`
      )
    }))
  }

  const send = <A>(request: Request<A>, callOptions?: CallOptions): Effect.Effect<A, AttemptError> => {
    const url = `${baseUrl}${request.path}${request.query.length === 0 ? "" : `?${describeQuery(request.query)}`}`
    const total = callOptions?.timeout === undefined ? totalTimeout : Duration.fromInputUnsafe(callOptions.timeout)
    const totalMillis = Duration.toMillis(total)
    const policy = callOptions?.retry ?? options.retry ?? {}
    const maxPause = policy === options.retry
      ? configuredMaxPause
      : policy.maxRetryAfter === undefined
      ? defaultMaxPause
      : Duration.fromInputUnsafe(policy.maxRetryAfter)
    const callTimedOut = () =>
      new Errors.Transport({ reason: "Timeout", message: `the call did not complete within ${Duration.format(total)}` })
    const attributes = {
      "chainquery.operation": request.operation,
      "chainquery.chain": request.chain ?? "",
      "http.status_code": 0,
      "chainquery.attempts": 0
    }

    // One run of the call (the returned effect may be run more than once). The call's deadline
    // covers everything: waiting for compute units or a slot, attempts, retries. An attempt is
    // bounded by whichever comes first, its own timeout or the deadline; a wait is raced against
    // the deadline only when there is one (a metered budget, no free slot, a retry), so the
    // common call runs no race at all, and its span's attributes are set as they change.
    const run = (context: Context.Context<never>, span: Tracer.Span): Effect.Effect<A, AttemptError> => {
      const clock = Context.get(context, Clock.Clock)
      const deadline = clock.currentTimeMillisUnsafe() + totalMillis
      let attempts = 0
      const withinDeadline = <X, Y>(effect: Effect.Effect<X, Y>) =>
        Effect.suspend(() =>
          Effect.timeoutOrElse(effect, {
            duration: Duration.millis(Math.max(0, deadline - clock.currentTimeMillisUnsafe())),
            orElse: () => Effect.fail(callTimedOut())
          })
        )
      /** The limit of the next attempt, counted; `undefined` once the deadline has passed. */
      const nextLimit = (): Exchange.Limit | undefined => {
        const left = deadline - clock.currentTimeMillisUnsafe()
        if (left <= 0) return undefined
        span.attribute("chainquery.attempts", ++attempts)
        return left < attemptLimit.millis ? { millis: left, timedOut: callTimedOut } : attemptLimit
      }
      const answered = (answer: Exchange.Answer) => {
        span.attribute("http.status_code", answer.status)
        return Effect.andThen(countAnswer(request.operation, answer.status), readAnswer(answer, url, maxPause))
      }
      const exchanged = Effect.suspend(() => {
        const limit = nextLimit()
        return limit === undefined ? Effect.fail(callTimedOut()) : Effect.flatMap(exchange.send(url, limit), answered)
      })
      // What runs inside the call may make spans of its own (an HttpClient does): it runs with the
      // call's span as its parent. The common attempt has nothing inside and skips that step.
      const within = <X, Y>(effect: Effect.Effect<X, Y>) => Effect.withParentSpan(effect, span, noStackTrace)
      /** The general attempt: waits for compute units and a slot when it must, within the deadline. */
      const general = (): Effect.Effect<unknown, AttemptError> => {
        const slotted = slots.withSlot(exchanged, withinDeadline)
        if (budget.unmetered()) return within(slotted)
        return within(Effect.andThen(withinDeadline(budget.take(request.operation)), Effect.tap(slotted, () => budget.succeeded)))
      }
      // The common attempt (on the fetch way, nothing to count, a free slot) is one promise: the
      // slot is taken and given back without a fiber step. Anything else goes the general way.
      const attempt = Effect.callback<unknown, AttemptError>((resume) => {
        const start = exchange.start
        if (start === undefined || !budget.unmetered() || !slots.tryTake()) return resume(general())
        let holding = true
        const letGo = () => {
          if (holding) slots.release()
          holding = false
        }
        // Outside the fiber, a throw (a tracer's, a `fetch` of the user's answering nonsense) would
        // be lost: it ends the attempt as a defect instead, the slot given back.
        const settle = (outcome: () => Effect.Effect<unknown, AttemptError>) => {
          letGo()
          try {
            resume(outcome())
          } catch (defect) {
            resume(Effect.die(defect))
          }
        }
        let pending: Exchange.Pending
        try {
          const limit = nextLimit()
          if (limit === undefined) return settle(() => Effect.fail(callTimedOut()))
          pending = start(context, url, limit)
        } catch (defect) {
          return settle(() => Effect.die(defect))
        }
        pending.answer.then(
          (answer) => settle(() => answered(answer)),
          (error: Errors.Transport) => settle(() => Effect.fail(error))
        )
        // Interrupted (the call's deadline, or the caller): let go of the slot and the request.
        return Effect.sync(() => {
          letGo()
          pending.cancel()
        })
      })
      const retrying = <X, Y>(retries: Effect.Effect<X, Y>) => within(withinDeadline(retries))
      return Effect.flatMap(RetryPolicy.retry(attempt, policy, retrying), (body) => decodeBody(request, body, within))
    }

    return Effect.useSpan(`chainquery.${request.operation}`, { attributes }, (span) => Effect.contextWith((context: Context.Context<never>) => run(context, span)))
  }

  /** The page or value of a 2xx body, or a `ResponseDecode` naming where it does not fit. */
  const decodeBody = <A>(
    request: Request<A>,
    body: unknown,
    within: (log: Effect.Effect<void>) => Effect.Effect<void>
  ): Effect.Effect<A, AttemptError> => {
    const decoded = request.decode(body)
    if (Result.isSuccess(decoded)) {
      const value = scrubRejected(decoded.success, scrub)
      const rejected = rejectedOf(value)
      return rejected === undefined || rejected.length === 0 ? Effect.succeed(value) : Effect.as(within(logRejected(request.operation, rejected)), value)
    }
    return Effect.fail(new Errors.ResponseDecode({
      path: scrub(IssuePath.format(IssuePath.of(decoded.failure.issue))),
      message: scrub(decoded.failure.message.split("\n")[0] ?? "the response does not match the operation's schema")
    }))
  }

  return { send } satisfies Transport
})

/**
 * The call's span names its operation, which says where it comes from; a stack trace captured
 * per call would cost more than the transport's own work.
 */
const noStackTrace = { captureStackTrace: false } as const

type RejectedRecords = ReadonlyArray<{ readonly index: number; readonly path: string; readonly message: string }>

/** The `rejected` records of a page; `undefined` for an answer that is not a page. */
const rejectedOf = (value: unknown): RejectedRecords | undefined => (value as { readonly rejected?: RejectedRecords })?.rejected

/**
 * A page's `rejected` records with the key scrubbed out of their paths and messages (which the
 * decoder wrote from the response's text); the page itself when there is nothing to scrub.
 */
const scrubRejected = <A>(value: A, scrub: Scrub.Scrubber): A => {
  const rejected = rejectedOf(value)
  if (rejected === undefined || rejected.length === 0) return value
  let changed = false
  const scrubbed = rejected.map((record) => {
    const path = scrub(record.path)
    const message = scrub(record.message)
    if (path === record.path && message === record.message) return record
    changed = true
    return { ...record, path, message }
  })
  return changed ? { ...value, rejected: scrubbed } : value
}

/** Pages report records that did not decode; they are logged (without their content) once per call. */
const logRejected = (operation: string, rejected: RejectedRecords) =>
  Effect.logWarning(`${operation}: ${rejected.length} record(s) of the page did not decode and are reported in \`rejected\``).pipe(
    Effect.annotateLogs({ first: `result[${rejected[0]!.index}].${rejected[0]!.path}: ${rejected[0]!.message}` })
  )
