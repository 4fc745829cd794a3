/**
 * Reading a page again when its body arrived corrupt: a 2xx answer that is not JSON at all (cut
 * short or garbled on the way). The clients do not retry that (a body that is not JSON may be the
 * service's own bug), but the engine's reads are idempotent and cheap, and a cycle that fails for
 * one cut-short page would read everything again.
 *
 * @internal
 */
import { Errors } from "@chainquery/schema"
import { Effect, Predicate } from "effect"

/** A body that is not JSON at all, also as the cause of a stream's `PageFailed`: no field to blame. */
const isCorruptBody = (error: unknown): boolean => {
  const cause = Predicate.isTagged(error, "PageFailed") && Predicate.hasProperty(error, "cause") ? error.cause : error
  return cause instanceof Errors.ResponseDecode && cause.path === ""
}

/**
 * Runs `read` again, twice at most, while it fails with a corrupt body; any other failure (a
 * record with a wrong field is the service's answer) is returned at once.
 *
 * The engine's EVM pages (A1, A2) and Aptos listings are read through it: a corrupt body costs
 * two more reads of that page at most, not the whole cycle.
 */
export const againIfCorrupt = <A, E, R>(read: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.retry(read, { times: 2, while: isCorruptBody })
