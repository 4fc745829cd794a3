/**
 * The two ways a transport sends its requests: through an `HttpClient` (`Transport.make` on
 * `FetchHttpClient.layer`) and straight on `fetch` (`Transport.makeOnFetch`, what the clients'
 * `layer` uses). The tests of each promise run on both.
 */
import type { Errors } from "@chainquery/schema"
import { Effect } from "effect"
import { FetchHttpClient } from "effect/http"
import { Transport } from "../../src/index.js"

export interface Path {
  readonly name: string
  readonly make: (options: Transport.Options) => Effect.Effect<Transport.Transport, Errors.InvalidConfig>
  /** Whether each request also has a span of the `HttpClient`, with its headers (`fetch` has none). */
  readonly clientSpans: boolean
}

export const paths: ReadonlyArray<Path> = [
  { name: "on an HttpClient", make: (options) => Transport.make(options).pipe(Effect.provide(FetchHttpClient.layer)), clientSpans: true },
  { name: "on fetch", make: (options) => Transport.makeOnFetch(options), clientSpans: false }
]
