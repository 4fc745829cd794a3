/**
 * One HTTP exchange of an attempt: send a GET, read its answer under the body cap, within the
 * attempt's timeout, on either of two ways to send it. The answer's body is read unless it is a
 * redirect or came from another origin (both refused, see `redirect.ts`).
 *
 * - `onHttpClient`: through the `HttpClient` in context (any client, with its own spans and
 *   middleware), guarded so that redirects are never followed and the key stays out of its spans.
 * - `onFetch`: straight to `fetch`, the common case and the fast one: the request and the reading
 *   of its body are one promise (one wait for the fiber, no per-request client span, trace headers,
 *   URL re-parsing or header conversion), and the attempt's timeout is a timer that aborts it (a
 *   wall-clock timer, as the network is). The `FetchHttpClient.Fetch` and
 *   `FetchHttpClient.RequestInit` of the caller's context are honoured as `FetchHttpClient.layer`
 *   would (the `fetch` of the caller, else the one where the transport was made, else the global
 *   one; our method, headers, `redirect: "manual"` and signal win over the `RequestInit`). One
 *   `AbortController` covers the request and its body: an interruption, a timeout or a failure
 *   aborts both, so a stalled body never holds its socket.
 */
import { Errors } from "@chainquery/schema"
import { Context, Duration, Effect } from "effect"
import { FetchHttpClient, type HttpClient, HttpClientRequest } from "effect/http"
import * as ResponseBody from "../ResponseBody.js"
import * as Body from "./body.js"
import * as Redirect from "./redirect.js"

/**
 * What an attempt brought back. `text` is `undefined` for an answer refused unread (a redirect, or
 * one from elsewhere: see `Redirect.refused`).
 */
export interface Answer {
  readonly status: number
  /** A response header, by its lower-case name. */
  readonly header: (name: string) => string | undefined
  /** Where the answer came from (`""` when the client does not say). */
  readonly url: string
  readonly text: string | undefined
}

/** What every exchange of a transport shares. */
export interface Settings {
  /** The request's headers (the key among them). */
  readonly headers: Readonly<Record<string, string>>
  /** The origin of the base URL: an answer from elsewhere is refused unread. */
  readonly origin: string
  readonly maxBodyBytes: number
  /** A failure to send, as the transport reports it (scrubbed). */
  readonly failed: (error: { readonly message: string }) => Errors.Transport
  /** A failure while reading, with its message scrubbed. */
  readonly scrubbed: (error: Errors.Transport) => Errors.Transport
}

/** How long an exchange may take, and its error past that (the attempt's or the call's timeout). */
export interface Limit {
  readonly millis: number
  readonly timedOut: () => Errors.Transport
}

/** How a transport sends: `GET url`, its answer back within `limit`. */
export interface Exchange {
  readonly send: (url: string, limit: Limit) => Effect.Effect<Answer, Errors.Transport>
  /**
   * The same started at once, as a promise, where there is one (the fetch way), with the context
   * of the call: `answer` rejects with an `Errors.Transport` only; `cancel` lets go of the request,
   * its body and its timer.
   */
  readonly start?: ((context: Context.Context<never>, url: string, limit: Limit) => Pending) | undefined
}

/** An exchange under way. */
export interface Pending {
  readonly answer: Promise<Answer>
  readonly cancel: () => void
}

/** The exchange through the `HttpClient` `client`; `madeIn` is the context the transport was made in. */
export const onHttpClient = (client: HttpClient.HttpClient, madeIn: Context.Context<never>) => (settings: Settings): Exchange => {
  const guarded = Redirect.guard(madeIn)
  const send: Exchange["send"] = (url, limit) =>
    guarded(client.execute(HttpClientRequest.get(url, { headers: settings.headers }))).pipe(
      Effect.mapError(settings.failed),
      Effect.flatMap((response) => {
        const answer = (text: string | undefined): Answer => ({
          status: response.status,
          header: (name) => response.headers[name],
          url: response.url,
          text
        })
        if (Redirect.refused(response.status, response.url, url, settings.origin)) return Effect.succeed(answer(undefined))
        return Effect.map(Effect.mapError(ResponseBody.readText(response, settings.maxBodyBytes), settings.scrubbed), answer)
      }),
      Effect.timeoutOrElse({ duration: Duration.millis(limit.millis), orElse: () => Effect.fail(limit.timedOut()) })
    )
  return { send }
}

/** Merges a `RequestInit`'s headers under ours (ours win, names compared without case). */
type HeaderInput = NonNullable<ConstructorParameters<typeof Headers>[0]>

const mergeHeaders = (theirs: HeaderInput | undefined, ours: Readonly<Record<string, string>>): HeaderInput => {
  if (theirs === undefined) return { ...ours }
  const merged = new Headers(theirs)
  for (const name in ours) merged.set(name, ours[name]!)
  return merged
}

/** What went wrong with a `fetch`: its message and, when there is one, the system error's code. */
const describeFailure = (cause: unknown): string => {
  if (!(cause instanceof Error)) return String(cause)
  const code = (cause.cause as { readonly code?: unknown } | undefined)?.code
  return typeof code === "string" ? `${cause.message} (${code})` : cause.message
}

/** Reads a fetch body chunk by chunk, failing as soon as it grows past `maxBytes`. */
const readCounted = async (body: ReadableStream<Uint8Array>, maxBytes: number): Promise<string> => {
  const reader = body.getReader()
  const collected = Body.collector(maxBytes)
  for (;;) {
    const { done, value } = await reader.read()
    if (done) return collected.text()
    if (!collected.add(value)) {
      await reader.cancel()
      throw Body.tooLarge(maxBytes)
    }
  }
}

/** Reads a fetch answer's body under the cap (see `Body.plan`); a redirect's is not read. */
const answerOf = async (response: Response, url: string, settings: Settings): Promise<Answer> => {
  const maxBytes = settings.maxBodyBytes
  const answer = (text: string | undefined): Answer => ({
    status: response.status,
    header: (name) => response.headers.get(name) ?? undefined,
    url: response.url,
    text
  })
  if (Redirect.refused(response.status, response.url, url, settings.origin)) {
    await response.body?.cancel()
    return answer(undefined)
  }
  const how = Body.plan(response.headers.get("content-length"), response.headers.get("content-encoding"), maxBytes)
  if (how === "tooLarge") {
    await response.body?.cancel()
    throw Body.tooLarge(maxBytes)
  }
  let text: string
  try {
    text = how === "whole" || response.body === null ? await response.text() : await readCounted(response.body, maxBytes)
  } catch (cause) {
    throw cause instanceof Errors.Transport ? cause : Body.readFailed({ message: describeFailure(cause) })
  }
  // Never more characters than bytes: a longer text is past the cap however it was framed.
  if (text.length > maxBytes) throw Body.tooLarge(maxBytes)
  return answer(text)
}

/** The longest delay `setTimeout` keeps (a longer one would fire at once). */
const longestTimer = 2_147_483_647

/** Calls `fire` after `millis`; never for an infinite `millis`, at most after `longestTimer`. */
const timerFor = (millis: number, fire: () => void): ReturnType<typeof setTimeout> | undefined =>
  Number.isFinite(millis) ? setTimeout(fire, Math.min(Math.max(0, millis), longestTimer)) : undefined

/** The exchange straight on `fetch`; `madeIn` is the context the transport was made in. */
export const onFetch = (madeIn: Context.Context<never>) => (settings: Settings): Exchange => {
  const madeWith = Context.getOrUndefined(madeIn, FetchHttpClient.Fetch)
  const start = (context: Context.Context<never>, url: string, limit: Limit): Pending => {
    const controller = new AbortController()
    let timer: ReturnType<typeof setTimeout> | undefined
    const answer = new Promise<Answer>((resolve, reject) => {
      const fetch = Context.getOrUndefined(context, FetchHttpClient.Fetch) ?? madeWith ?? globalThis.fetch
      const init = Context.getOrUndefined(context, FetchHttpClient.RequestInit)
      // The promise settles once: with the timer, or with the exchange.
      timer = timerFor(limit.millis, () => {
        controller.abort()
        reject(limit.timedOut())
      })
      let sent: Promise<Response>
      try {
        // A copy of our headers: a `fetch` of the user's may write to what it is given.
        const headers = mergeHeaders(init?.headers, settings.headers)
        sent = Promise.resolve(fetch(url, { ...init, method: "GET", headers, redirect: "manual", signal: controller.signal }))
      } catch (cause) {
        sent = Promise.reject(cause)
      }
      sent.then((response) => answerOf(response, url, settings)).then(
        (answered) => {
          clearTimeout(timer)
          resolve(answered)
        },
        (cause: unknown) => {
          clearTimeout(timer)
          controller.abort()
          // The body's failures are the transport's errors already; the rest are fetch's own.
          reject(cause instanceof Errors.Transport ? settings.scrubbed(cause) : settings.failed({ message: describeFailure(cause) }))
        }
      )
    })
    const cancel = () => {
      clearTimeout(timer)
      controller.abort()
    }
    return { answer, cancel }
  }
  const send: Exchange["send"] = (url, limit) =>
    Effect.contextWith((context: Context.Context<never>) =>
      Effect.callback<Answer, Errors.Transport>((resume) => {
        const pending = start(context, url, limit)
        pending.answer.then(
          (answer) => resume(Effect.succeed(answer)),
          (error: Errors.Transport) => resume(Effect.fail(error))
        )
        // Interrupted (the call's deadline, or the caller): let go of the request and its body.
        return Effect.sync(pending.cancel)
      })
    )
  return { send, start }
}
