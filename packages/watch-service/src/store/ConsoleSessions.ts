/**
 * The console's sessions: an operator signs in with the API token and gets a session, whose id
 * goes only into an `HttpOnly` cookie; PostgreSQL keeps the HMAC-SHA256 of the id under the API
 * token, and when the session ends (so every runner of a cluster knows it, and a restart keeps
 * it). A service started with another token knows none of the sessions of the one before: a
 * leaked token, once changed, leaves no session open. Each session has a CSRF token, derived from
 * its id one way (it shows nothing of the id), that every change made through the session must
 * carry in the `x-csrf-token` header.
 *
 * @since 0.5.0
 */
import { DateTime, Duration, Effect, Option, Redacted } from "effect"
import { SecureRandom } from "effect/crypto"
import { SqlClient, type SqlError } from "effect/sql"
import { createHmac } from "node:crypto"
import { sameSecret, sha256 } from "../model/secrets.js"
import { millis, utcOf } from "./sqlTime.js"

/**
 * How long a session lasts from its sign-in: 12 hours (then the console asks for the token again).
 *
 * @example
 * ```ts
 * import { Duration } from "effect"
 * import { ConsoleSessions } from "@chainquery/watch-service"
 *
 * Duration.toHours(ConsoleSessions.lifetime) // 12
 * ```
 * @since 0.5.0
 */
export const lifetime = Duration.hours(12)

/**
 * A session: its id (the cookie's value, a secret), its CSRF token and its end.
 *
 * @example
 * ```ts
 * import type { ConsoleSessions } from "@chainquery/watch-service"
 *
 * const endsAt = (session: ConsoleSessions.Session) => session.expiresAt
 * ```
 * @since 0.5.0
 */
export interface Session {
  readonly id: Redacted.Redacted<string>
  readonly csrfToken: string
  readonly expiresAt: DateTime.Utc
}

/**
 * The CSRF token of the session `id`: the SHA-256 of `csrf:` and the id, in base64url.
 *
 * @example
 * ```ts
 * import { Redacted } from "effect"
 * import { ConsoleSessions } from "@chainquery/watch-service"
 *
 * ConsoleSessions.csrfTokenOf(Redacted.make("an id")).length // 43
 * ```
 * @since 0.5.0
 */
export const csrfTokenOf = (id: Redacted.Redacted<string>): string => sha256(`csrf:${Redacted.value(id)}`).toString("base64url")

/**
 * Whether `given` is `session`'s CSRF token, in time that depends on neither.
 *
 * @example
 * ```ts
 * import { ConsoleSessions } from "@chainquery/watch-service"
 *
 * declare const session: ConsoleSessions.Session
 * ConsoleSessions.isCsrfTokenOf(session, session.csrfToken) // true
 * ```
 * @since 0.5.0
 */
export const isCsrfTokenOf = (session: Session, given: string | undefined): boolean => given !== undefined && sameSecret(given, session.csrfToken)

/**
 * What the service's API token is to a session: the key its id's digest is made with (the token
 * itself, `Redacted`).
 *
 * @example
 * ```ts
 * import { Redacted } from "effect"
 * import type { ConsoleSessions } from "@chainquery/watch-service"
 *
 * const key: ConsoleSessions.Key = Redacted.make("the service's --api-token")
 * ```
 * @since 0.5.0
 */
export type Key = Redacted.Redacted<string>

/** The id as PostgreSQL keeps it: its HMAC-SHA256 under the API token. */
const digestOf = (key: Key, id: Redacted.Redacted<string>): Buffer =>
  createHmac("sha256", Redacted.value(key)).update(Redacted.value(id), "utf8").digest()

/**
 * A new session under `key` (the API token), from now for {@link lifetime}; sessions past their
 * end are removed on the way.
 *
 * @example
 * ```ts
 * import { Redacted } from "effect"
 * import { ConsoleSessions } from "@chainquery/watch-service"
 *
 * const session = ConsoleSessions.open(Redacted.make("the token")) // Effect<Session, SqlError, SqlClient | SecureRandom>
 * ```
 * @since 0.5.0
 */
export const open = (key: Key): Effect.Effect<Session, SqlError.SqlError, SqlClient.SqlClient | SecureRandom.SecureRandom> => Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const random = yield* SecureRandom.SecureRandom
  const id = Redacted.make(Buffer.from(yield* random.randomBytes(32)).toString("base64url"), { label: "console session" })
  const now = yield* DateTime.now
  const expiresAt = DateTime.addDuration(now, lifetime)
  yield* sql`DELETE FROM console_sessions WHERE expires_at <= ${DateTime.toDateUtc(now)}`
  yield* sql`INSERT INTO console_sessions (digest, created_at, expires_at)
    VALUES (${digestOf(key, id)}, ${DateTime.toDateUtc(now)}, ${DateTime.toDateUtc(expiresAt)})`
  return { id, csrfToken: csrfTokenOf(id), expiresAt }
})

/**
 * The session whose id is `id`, opened under `key` (the API token), if it exists and has not ended.
 *
 * @example
 * ```ts
 * import { Redacted } from "effect"
 * import { ConsoleSessions } from "@chainquery/watch-service"
 *
 * const session = ConsoleSessions.find(Redacted.make("the token"), Redacted.make("an id")) // Effect<Option<Session>, SqlError, SqlClient>
 * ```
 * @since 0.5.0
 */
export const find = (key: Key, id: Redacted.Redacted<string>): Effect.Effect<Option.Option<Session>, SqlError.SqlError, SqlClient.SqlClient> =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const now = yield* DateTime.now
    const rows = yield* sql<{ readonly expires_at: string }>`SELECT ${sql.literal(millis("expires_at"))} FROM console_sessions
      WHERE digest = ${digestOf(key, id)} AND expires_at > ${DateTime.toDateUtc(now)}`
    const row = rows[0]
    return row === undefined ? Option.none() : Option.some({ id, csrfToken: csrfTokenOf(id), expiresAt: utcOf(row.expires_at) })
  })

/**
 * Ends the session `id`, opened under `key` (sign-out): its cookie opens nothing from then on, on
 * every runner.
 *
 * @example
 * ```ts
 * import { Redacted } from "effect"
 * import { ConsoleSessions } from "@chainquery/watch-service"
 *
 * const ended = ConsoleSessions.end(Redacted.make("the token"), Redacted.make("an id")) // Effect<void, SqlError, SqlClient>
 * ```
 * @since 0.5.0
 */
export const end = (key: Key, id: Redacted.Redacted<string>): Effect.Effect<void, SqlError.SqlError, SqlClient.SqlClient> =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* sql`DELETE FROM console_sessions WHERE digest = ${digestOf(key, id)}`
  })
