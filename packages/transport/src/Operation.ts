/**
 * The shape every client operation shares: validate the caller's parameters into the endpoint's
 * wire values (failing with `InvalidInput` before anything is sent), build the request from the
 * HttpApi endpoint, send it through the transport. Operations that do not expect a 404 report an
 * unexpected one as a `ServerError`.
 *
 * @since 0.1.0
 */
import { Errors } from "@chainquery/schema"
import { Effect, Exit } from "effect"
import type { HttpApiEndpoint } from "effect/http-api"
import * as Endpoint from "./Endpoint.js"
import type { CallOptions, Transport } from "./Transport.js"

/**
 * What an operation's `prepare` returns: the endpoint's path parameters and query (decoded
 * values), and the chain or network for spans.
 *
 * @example
 * ```ts
 * import type { Operation } from "@chainquery/transport"
 *
 * const prepared: Operation.Prepared = { params: { address: "0x…" }, query: { chain: "0x1" }, chain: "0x1" }
 * ```
 * @since 0.1.0
 */
export interface Prepared {
  readonly params?: Record<string, unknown> | undefined
  readonly query?: Record<string, unknown> | undefined
  readonly chain?: string | undefined
}

/** The errors of an operation that does not expect a 404. */
export type ErrorType = Errors.InvalidInput | Errors.RequestError

/** The errors of an operation that answers 404 for a missing resource. */
export type ErrorTypeWithNotFound = ErrorType | Errors.NotFound

/**
 * Defines an operation from its HttpApi endpoint and a `prepare` that validates parameters.
 * Returns a function of a transport, giving the callable operation. `prepare` runs each time the
 * call runs; written with `Input.checked` (an `Exit`, read at once) it costs no trip through the
 * fiber, and any other `Effect` works too.
 *
 * @example
 * ```ts
 * import { EvmApi, Input, EvmAddress } from "@chainquery/schema"
 * import { Operation } from "@chainquery/transport"
 *
 * const getDefi = Operation.define(EvmApi.EvmGroup.endpoints.getDefiPositionsSummary, (params: { address: string }) =>
 *   Input.checked((check) => ({ params: { address: check.value(EvmAddress.EvmAddress, "address", params.address) } })))
 * ```
 * @since 0.1.0
 */
export const define = <E extends HttpApiEndpoint.Constraint, P, A = E extends { readonly "~Success": { readonly Type: infer T } } ? T : unknown>(
  endpoint: E,
  prepare: (params: P) => Effect.Effect<Prepared, Errors.InvalidInput>
) => {
  const builder = Endpoint.fromHttpApi(endpoint)
  // A `prepare` that answers with an `Exit` (as `Input.checked` does) is read at once, without a
  // trip through the fiber; the call stays lazy: nothing is prepared before it runs.
  const prepared = <X, E2>(
    params: P,
    send: (prepared: Prepared) => Effect.Effect<X, E2>
  ): Effect.Effect<X, E2 | Errors.InvalidInput> =>
    Effect.suspend((): Effect.Effect<X, E2 | Errors.InvalidInput> => {
      const preparing = prepare(params)
      if (!Exit.isExit(preparing)) return Effect.flatMap(preparing, send)
      const exit = preparing as Exit.Exit<Prepared, Errors.InvalidInput>
      return Exit.isSuccess(exit) ? send(exit.value) : Exit.failCause(exit.cause)
    })
  return {
    /** The call, for operations where a 404 is an error of its own (`NotFound`). */
    withNotFound: (transport: Transport) => (params: P, options?: CallOptions): Effect.Effect<A, ErrorTypeWithNotFound> =>
      prepared(params, (ready) => transport.send(builder.build<A>(ready.params, ready.query, ready.chain), options)),
    /** The call, for operations where the service has no 404: one is reported as a `ServerError`. */
    make: (transport: Transport) => (params: P, options?: CallOptions): Effect.Effect<A, ErrorType> =>
      prepared(params, (ready) =>
        transport.send(builder.build<A>(ready.params, ready.query, ready.chain), options).pipe(
          Effect.catchTag("NotFound", (error) => Effect.fail(new Errors.ServerError({ status: 404, message: error.message })))
        ))
  }
}
