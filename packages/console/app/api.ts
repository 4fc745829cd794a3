/**
 * The console's client of the management API: `ManagementClient.makeForSession` of
 * `@chainquery/watch-service` (the same `HttpApi` the service serves, so a request that does not fit
 * it does not compile), over the browser's `fetch`, on the page's own origin. `run` answers a
 * request's value, or throws an `ApiFailure` that says what went wrong in words.
 */
import { Cause, Effect, Exit } from "effect"
import { FetchHttpClient, HttpClientError } from "effect/http"
import { BadRequest, Forbidden, NotFound, Unauthorized, Unavailable } from "@chainquery/watch-service/ManagementApi"
import * as ManagementClient from "@chainquery/watch-service/ManagementClient"

/** The typed client: `client.streams.list(…)`, `client.session.signIn(…)`. */
export type Client = ManagementClient.Client

/** A bad wallet spec of a bulk request, as the API names it. */
export type InvalidSpec = NonNullable<BadRequest["invalid"]>[number]

/** What went wrong, in words: an error's message. */
export const messageOf = (failure: unknown): string => failure instanceof Error ? failure.message : String(failure)

/** A request that failed: what kind of failure, the API's message, the field and bad specs of a 400. */
export class ApiFailure extends Error {
  constructor(
    readonly kind: "unauthorized" | "forbidden" | "bad_request" | "not_found" | "unavailable" | "unreachable" | "unexpected",
    message: string,
    readonly field?: string,
    readonly invalid?: ReadonlyArray<InvalidSpec>
  ) {
    super(message)
  }
}

const failureOf = (error: unknown): ApiFailure => {
  if (error instanceof Unauthorized) return new ApiFailure("unauthorized", error.message)
  if (error instanceof Forbidden) return new ApiFailure("forbidden", error.message)
  if (error instanceof BadRequest) return new ApiFailure("bad_request", error.message, error.field, error.invalid)
  if (error instanceof NotFound) return new ApiFailure("not_found", error.message)
  if (error instanceof Unavailable) return new ApiFailure("unavailable", error.message)
  if (HttpClientError.isHttpClientError(error)) return new ApiFailure("unreachable", "the service did not answer; is it running?")
  return new ApiFailure("unexpected", `the service answered what the console did not expect (${messageOf(error)})`)
}

/** Runs a request of the client: its value, or an `ApiFailure`. */
export const run = async <A, E>(request: Effect.Effect<A, E>): Promise<A> => {
  const exit = await Effect.runPromiseExit(request)
  if (Exit.isSuccess(exit)) return exit.value
  throw failureOf(Cause.squash(exit.cause))
}

/** A client of the page's origin whose changes carry `csrfToken` (empty before a sign-in). */
export const connect = (csrfToken: string): Promise<Client> =>
  Effect.runPromise(ManagementClient.makeForSession({ baseUrl: location.origin, csrfToken }).pipe(Effect.provide(FetchHttpClient.layer)))
