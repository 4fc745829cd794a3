/**
 * One HTTP exchange of an attempt: send a GET and read its answer with `read`, on either of two
 * ways to send it.
 *
 * - `onHttpClient`: through the `HttpClient` in context (any client, with its own spans and
 *   middleware), guarded so that redirects are never followed and the key stays out of its spans.
 * - `onFetch`: straight to `fetch`, the common case and the fast one: no per-request client span,
 *   trace headers or URL re-parsing. The `FetchHttpClient.Fetch` and `FetchHttpClient.RequestInit`
 *   of the caller's context are honoured as `FetchHttpClient.layer` would (the `fetch` of the
 *   caller, else the one where the transport was made, else the global one; our method, headers,
 *   `redirect: "manual"` and signal win over the `RequestInit`). One `AbortController` covers the
 *   request and the reading of its body: an interruption (a timeout) or a failure aborts both, so
 *   a stalled body never holds its socket.
 */
import { Context, Effect, Exit } from "effect"
import { FetchHttpClient, type HttpClient, HttpClientRequest, HttpClientResponse } from "effect/http"
import * as Redirect from "./redirect.js"

/** Sends `GET url` with `headers` and reads the answer with `read`; `failed` maps a network failure. */
export type Exchange = <A, E, F>(
  url: string,
  headers: Readonly<Record<string, string>>,
  read: (response: HttpClientResponse.HttpClientResponse) => Effect.Effect<A, E>,
  failed: (error: { readonly message: string }) => F
) => Effect.Effect<A, E | F>

/** The exchange through the `HttpClient` `client`; `madeIn` is the context the transport was made in. */
export const onHttpClient = (client: HttpClient.HttpClient, madeIn: Context.Context<never>): Exchange => {
  const guarded = Redirect.guard(madeIn)
  return (url, headers, read, failed) =>
    guarded(client.execute(HttpClientRequest.get(url, { headers }))).pipe(
      Effect.mapError(failed),
      Effect.flatMap(read)
    )
}

/** Merges a `RequestInit`'s headers under ours (ours win, names compared without case). */
type HeaderInput = NonNullable<ConstructorParameters<typeof Headers>[0]>

const mergeHeaders = (theirs: HeaderInput | undefined, ours: Readonly<Record<string, string>>): HeaderInput => {
  if (theirs === undefined) return ours
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

/**
 * The answer with its `text` read by `fetch` itself, decoded as it arrives: no copy of the bytes
 * into an `ArrayBuffer` first, as `HttpClientResponse.text` does. Its abort is the exchange's.
 */
const readByFetch = (answer: HttpClientResponse.HttpClientResponse, source: Response): HttpClientResponse.HttpClientResponse =>
  Object.create(answer, {
    text: {
      get: () => Effect.tryPromise({ try: () => source.text(), catch: (cause) => ({ message: describeFailure(cause) }) })
    }
  })

/** The exchange straight on `fetch`; `madeIn` is the context the transport was made in. */
export const onFetch = (madeIn: Context.Context<never>): Exchange => {
  const madeWith = Context.getOrUndefined(madeIn, FetchHttpClient.Fetch)
  return (url, headers, read, failed) =>
    Effect.contextWith((context: Context.Context<never>) => {
      const fetch = Context.getOrUndefined(context, FetchHttpClient.Fetch) ?? madeWith ?? globalThis.fetch
      const init = Context.getOrUndefined(context, FetchHttpClient.RequestInit)
      const controller = new AbortController()
      const request = HttpClientRequest.get(url)
      return Effect.tryPromise({
        try: () =>
          fetch(url, {
            ...init,
            method: "GET",
            headers: mergeHeaders(init?.headers, headers),
            redirect: "manual",
            signal: controller.signal
          }),
        catch: (cause) => failed({ message: describeFailure(cause) })
      }).pipe(
        Effect.flatMap((response) => read(readByFetch(HttpClientResponse.fromWeb(request, response), response))),
        Effect.onExit((exit) => Exit.isSuccess(exit) ? Effect.void : Effect.sync(() => controller.abort()))
      )
    })
}
