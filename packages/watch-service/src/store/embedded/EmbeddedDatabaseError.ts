/**
 * The embedded PostgreSQL could not be set up or started: the message says what and where, with
 * the server's last log lines when it exited.
 *
 * @since 0.2.0
 */
import { Schema } from "effect"

/**
 * The embedded PostgreSQL could not be set up or started.
 *
 * @example
 * ```ts
 * import { EmbeddedDatabase } from "@chainquery/watch-service"
 *
 * new EmbeddedDatabase.EmbeddedDatabaseError({ message: "cannot create ./chainquery-data: permission denied" })
 * ```
 * @since 0.2.0
 */
export class EmbeddedDatabaseError extends Schema.TaggedError<EmbeddedDatabaseError>()("EmbeddedDatabaseError", {
  message: Schema.String
}) {}

/**
 * A function from a thrown cause to an {@link EmbeddedDatabaseError} saying `what` failed, e.g.
 * `Effect.try({ try: () => readFileSync(file), catch: failedTo(\`cannot read ${file}\`) })`.
 *
 * @internal
 */
export const failedTo = (what: string) => (cause: unknown): EmbeddedDatabaseError =>
  new EmbeddedDatabaseError({ message: `${what}: ${cause instanceof Error ? cause.message : String(cause ?? "the server exited")}` })
