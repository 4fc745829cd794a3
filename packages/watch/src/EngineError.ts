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
