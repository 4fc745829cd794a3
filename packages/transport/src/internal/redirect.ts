/**
 * Redirects are never followed: the API key goes only to the configured base URL. `fetch`
 * follows them by default (keeping `X-API-Key` even to another origin), so each request runs with
 * a `FetchHttpClient.Fetch` that adds `redirect: "manual"` to whatever `RequestInit` it is called
 * with (the `RequestInit` in context, wherever it was provided, is kept whole). A `3xx` answer, or
 * an answer from another origin (an HTTP client that followed a redirect anyway), becomes
 * `Redirected`.
 *
 * The `fetch` it wraps is the one in the caller's context, else the one where the transport was
 * made, else the global one. (The caller's context wins over the HttpClient layer's own, so a
 * `Fetch` provided only to the HttpClient layer is not seen: the README says so.)
 *
 * Tracing of the HTTP client: `X-API-Key` stays among the redacted header names, and response
 * headers (which a hostile server could fill with the key) are never recorded on its span.
 */
import { Errors } from "@chainquery/schema"
import { Context, Effect } from "effect"
import { FetchHttpClient, Headers, HttpClient } from "effect/http"
import type * as Scrub from "../Scrub.js"

type Fetch = typeof globalThis.fetch

/** `fetch` with redirects left to the caller, one wrapper per wrapped function. */
const manualOf = (() => {
  const wrappers = new WeakMap<Fetch, Fetch>()
  const made = new WeakSet<Fetch>()
  return (fetch: Fetch): Fetch => {
    if (made.has(fetch)) return fetch
    let manual = wrappers.get(fetch)
    if (manual === undefined) {
      manual = ((input: Parameters<Fetch>[0], init?: Parameters<Fetch>[1]) => fetch(input, { ...init, redirect: "manual" })) as Fetch
      wrappers.set(fetch, manual)
      made.add(manual)
    }
    return manual
  }
})()

type HeaderFilter = (name: string, phase: "request" | "response") => boolean

/** A tracer header filter that never records response headers, one per filter it narrows. */
const requestOnlyOf = (() => {
  const narrowed = new WeakMap<HeaderFilter, HeaderFilter>()
  return (filter: HeaderFilter): HeaderFilter => {
    let requestOnly = narrowed.get(filter)
    if (requestOnly === undefined) {
      requestOnly = (name, phase) => phase === "request" && filter(name, phase)
      narrowed.set(filter, requestOnly)
      narrowed.set(requestOnly, requestOnly)
    }
    return requestOnly
  }
})()

/**
 * Runs one request with redirects left to the transport and the key kept out of spans.
 * `madeIn` is the context the transport was made in.
 */
export const guard = (madeIn: Context.Context<never>) => {
  const madeWith = Context.getOrUndefined(madeIn, FetchHttpClient.Fetch)
  return <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.updateContext(effect, (context: Context.Context<R>) => {
      const fetch = Context.getOrUndefined(context, FetchHttpClient.Fetch) ?? madeWith ?? globalThis.fetch
      const redacted = Context.get(context, Headers.CurrentRedactedNames)
      let guarded = Context.add(
        Context.add(context, FetchHttpClient.Fetch, manualOf(fetch)),
        HttpClient.TracerHeaderFilter,
        requestOnlyOf(Context.get(context, HttpClient.TracerHeaderFilter))
      )
      if (!redacted.includes("x-api-key")) guarded = Context.add(guarded, Headers.CurrentRedactedNames, [...redacted, "x-api-key"])
      return guarded
    })
}

/**
 * Where a redirect points, as shown in an error: origin and path, never the query. `scrub`
 * ignores case: the URL parser lowercases a host name that may hold the key.
 */
const target = (location: string | undefined, from: string, scrub: Scrub.Scrubber): string => {
  if (location === undefined || location.trim() === "") return "(none)"
  try {
    const url = new URL(location, from)
    return scrub(`${url.origin}${url.pathname}`)
  } catch {
    return "(an invalid URL)"
  }
}

/** Whether an answer is a redirect (a `3xx`), never followed. */
const isRedirect = (status: number): boolean => status >= 300 && status < 400

/**
 * Whether an answer is refused whatever its body says (and its body left unread): a redirect, or
 * an answer from elsewhere than `origin` (an HTTP client that followed a redirect anyway);
 * `answeredFrom` is `""` when the client does not say.
 */
export const refused = (status: number, answeredFrom: string, requestUrl: string, origin: string): boolean =>
  isRedirect(status) || (answeredFrom !== "" && answeredFrom !== requestUrl && !answeredFrom.startsWith(`${origin}/`))

/** The `Redirected` error of an answer that {@link refused} refused. */
export const refusal = (
  response: { readonly status: number; readonly header: (name: string) => string | undefined; readonly url: string },
  requestUrl: string,
  scrub: Scrub.Scrubber
): Errors.Redirected =>
  isRedirect(response.status)
    ? new Errors.Redirected({ status: response.status, location: target(response.header("location"), requestUrl, scrub), followed: false })
    : new Errors.Redirected({ status: response.status, location: target(response.url, requestUrl, scrub), followed: true })
