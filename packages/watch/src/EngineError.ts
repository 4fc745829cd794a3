/**
 * What a watcher cycle fails with when the service could not be read (after the clients' own
 * retries), or a needed client is missing. Nothing of the cycle is committed then: the next
 * cycle reads the same blocks again.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"

/**
 * A read of the service failed, or the engine lacks a client (`operation` names the call or the
 * missing client).
 *
 * @example
 * ```ts
 * import { EngineError } from "@chainquery/watch"
 *
 * new EngineError.EngineError({ operation: "getNFTTransfersByBlock", message: "503 Service Unavailable", cause: undefined })
 * ```
 * @since 0.1.0
 */
export class EngineError extends Schema.TaggedError<EngineError>()("EngineError", {
  operation: Schema.String,
  message: Schema.String,
  cause: Schema.Defect()
}) {}

/**
 * Turns what a client call failed with into an `EngineError` naming the operation.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { EngineError } from "@chainquery/watch"
 *
 * const read = (call: Effect.Effect<number, Error>) => Effect.mapError(call, EngineError.fromClient("getNFTTransfersByBlock"))
 * ```
 * @since 0.1.0
 */
export const fromClient = (operation: string) => (cause: unknown): EngineError =>
  new EngineError({
    operation,
    message: typeof cause === "object" && cause !== null && "message" in cause ? String(cause.message) : String(cause),
    cause
  })

/**
 * The error of a cycle or a baseline that needs the Aptos client of `network` and was not given it.
 *
 * @example
 * ```ts
 * import { EngineError } from "@chainquery/watch"
 *
 * EngineError.noLedgerClient("testnet").message // "no ledger client for Aptos testnet: provide LedgerClients.TestnetLedger"
 * ```
 * @since 0.3.0
 */
export const noLedgerClient = (network: "mainnet" | "testnet"): EngineError =>
  new EngineError({
    operation: `LedgerClient(${network})`,
    message: `no ledger client for Aptos ${network}: provide LedgerClients.${network === "mainnet" ? "MainnetLedger" : "TestnetLedger"}`,
    cause: undefined
  })

/**
 * What to say when `error` is the data service refusing the API key (a 401 or 403 from it, which
 * no retry heals): `the data service refused the API key (HTTP 401: ...)`; `undefined` for any
 * other error. The service's message is the transport's, with the key scrubbed out.
 *
 * @example
 * ```ts
 * import { Errors } from "@chainquery/schema"
 * import { EngineError } from "@chainquery/watch"
 *
 * const error = EngineError.fromClient("getBlock")(new Errors.Unauthorized({ status: 401, message: "Invalid key" }))
 * EngineError.keyRefusal(error) // "the data service refused the API key (HTTP 401: Invalid key)"
 * ```
 * @since 0.5.0
 */
export const keyRefusal = (error: unknown): string | undefined => {
  if (!(error instanceof EngineError)) return undefined
  const cause: unknown = error.cause
  if (typeof cause !== "object" || cause === null || !("_tag" in cause) || cause._tag !== "Unauthorized") return undefined
  const status = "status" in cause && typeof cause.status === "number" ? cause.status : 401
  return `the data service refused the API key (HTTP ${status}${error.message === "" ? "" : `: ${error.message}`})`
}
