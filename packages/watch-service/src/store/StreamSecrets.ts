/**
 * The streams' signing secrets at rest. With a secrets key (`serve --secrets-key-file`), each
 * secret is stored sealed with AES-256-GCM (`effect/crypto`'s `Aead`) as
 * `enc:v1:<nonce>:<ciphertext>` (base64url; the ciphertext ends with its tag), bound to its
 * stream's id; without one, as it is. The version in the format leaves room for another key or
 * algorithm later.
 *
 * The database remembers that its secrets are sealed, and under which key (a value sealed with it,
 * in `secrets_key`): a runner started without the key, or with another one, stops at start-up
 * with a {@link SecretsKeyError} and changes nothing. Every runner of a cluster needs the same key.
 *
 * @since 0.5.0
 */
import { Context, Effect, Layer, Redacted, Schema } from "effect"
import { Aead, SecureRandom } from "effect/crypto"
import { SqlClient, type SqlError } from "effect/sql"

/** What begins a sealed secret of the first format. */
const sealedPrefix = "enc:v1:"

/** Whether a stored secret is sealed (of any format: one this version does not read is refused, not taken as plain). */
const isSealed = (stored: string): boolean => stored.startsWith("enc:")

/** The additional data a stream's sealed secret is bound to: it cannot be moved to another stream. */
const streamAad = (streamId: string): Uint8Array => new TextEncoder().encode(`chainquery stream secret ${streamId}`)

/** The value sealed in `secrets_key`, and what it is bound to: opening it proves the key. */
const checkText = "chainquery secrets key check"
const checkAad = new TextEncoder().encode(checkText)

/** At most this many opened secrets are kept in memory (as `Redacted`); past it, the cache starts afresh. */
const cacheLimit = 10_000

/**
 * Why the service cannot read its secrets: the database's are sealed and no key was given
 * (`missing`), or the key given is not theirs (`mismatch`), or a stored secret is not of a
 * format this version reads (`format`). The message never holds a secret or the key.
 *
 * @example
 * ```ts
 * import { StreamSecrets } from "@chainquery/watch-service"
 *
 * const error = new StreamSecrets.SecretsKeyError({ reason: "missing", message: "no key" })
 * ```
 * @since 0.5.0
 */
export class SecretsKeyError extends Schema.TaggedError<SecretsKeyError>()("SecretsKeyError", {
  reason: Schema.Literals(["missing", "mismatch", "format"]),
  message: Schema.String
}) {}

const missing = new SecretsKeyError({
  reason: "missing",
  message: "the stream secrets in this database are encrypted, and no secrets key was given: start every runner with the same " +
    "--secrets-key-file (or CHAINQUERY_SECRETS_KEY) as the runner that encrypted them"
})

const mismatch = new SecretsKeyError({
  reason: "mismatch",
  message: "the secrets key given is not the one the stream secrets in this database were encrypted with: start every runner " +
    "with the same --secrets-key-file (or CHAINQUERY_SECRETS_KEY); nothing was changed"
})

const unknownFormat = new SecretsKeyError({
  reason: "format",
  message: "a stream secret is stored in a format this version does not read (only enc:v1): upgrade the service"
})

/**
 * Reads a secrets key: 32 bytes, as base64 (44 characters, such as the output of
 * `openssl rand -base64 32`) or hex (64 digits); surrounding spaces and newlines are ignored.
 * `undefined` when it is neither (what is valid is the caller's to say; the text is never shown).
 *
 * @example
 * ```ts
 * import { Redacted } from "effect"
 * import { StreamSecrets } from "@chainquery/watch-service"
 *
 * StreamSecrets.parseKey(Redacted.make("00".repeat(32))) // a key of 32 zero bytes
 * StreamSecrets.parseKey(Redacted.make("too-short")) // undefined
 * ```
 * @since 0.5.0
 */
export const parseKey = (text: Redacted.Redacted<string>): Redacted.Redacted<Uint8Array> | undefined => {
  const value = Redacted.value(text).trim()
  if (/^[0-9a-fA-F]{64}$/.test(value)) return Redacted.make(new Uint8Array(Buffer.from(value, "hex")), { label: "secrets key" })
  if (/^[A-Za-z0-9+/]{43}=$/.test(value)) return Redacted.make(new Uint8Array(Buffer.from(value, "base64")), { label: "secrets key" })
  return undefined
}

/**
 * What a valid secrets key looks like, for messages.
 *
 * @example
 * ```ts
 * import { StreamSecrets } from "@chainquery/watch-service"
 *
 * console.error(`--secrets-key-file: expected ${StreamSecrets.keyFormat}`)
 * ```
 * @since 0.5.0
 */
export const keyFormat = "32 bytes as base64 (44 characters, e.g. made by `openssl rand -base64 32`) or as hex (64 hex digits)"

/**
 * Seals and opens the streams' secrets.
 *
 * @example
 * ```ts
 * import { Effect, Redacted } from "effect"
 * import { StreamSecrets } from "@chainquery/watch-service"
 *
 * const roundTrip = Effect.gen(function*() {
 *   const secrets = yield* StreamSecrets.StreamSecrets
 *   const stored = yield* secrets.seal("str_1", Redacted.make("whsec_c2VjcmV0"))
 *   return yield* secrets.open("str_1", stored)
 * })
 * ```
 * @since 0.5.0
 */
export class StreamSecrets extends Context.Service<StreamSecrets, {
  /** What to store for the stream's secret: sealed with the key, else the secret as it is. */
  readonly seal: (streamId: string, secret: Redacted.Redacted<string>) => Effect.Effect<string>
  /** The stream's secret from what is stored (a plain one as it is, with or without a key). */
  readonly open: (streamId: string, stored: string) => Effect.Effect<Redacted.Redacted<string>, SecretsKeyError>
  /**
   * Checks the key against the database's (`secrets_key`): no key on a sealed database, or
   * another key, fails; a first key is recorded; then the plain secrets are sealed. All in one
   * transaction, under a lock (runners started together check one after the other): a failure
   * changes nothing. Run again, it finds nothing to seal. Answers how many it sealed.
   */
  readonly prepare: Effect.Effect<number, SecretsKeyError | SqlError.SqlError>
}>()("@chainquery/watcher/StreamSecrets") {
  /**
   * The service with the secrets key, or without one (`undefined`: secrets stored as they are),
   * on the context's `SqlClient` (the service's migrations must have run).
   */
  static readonly layer = (
    key: Redacted.Redacted<Uint8Array> | undefined
  ): Layer.Layer<StreamSecrets, never, SqlClient.SqlClient | Aead.Aead | SecureRandom.SecureRandom> =>
    Layer.effect(
      StreamSecrets,
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const aead = yield* Aead.Aead
        const random = yield* SecureRandom.SecureRandom
        // The key's length was checked when it was read: a failure here is a defect.
        const sealingKey = key === undefined ? undefined : yield* Effect.orDie(Aead.key(Aead.aes256Gcm, Redacted.value(key)))
        const opened = new Map<string, Redacted.Redacted<string>>()

        const sealWith = (sealer: Aead.Key, text: string, aad: Uint8Array) =>
          Effect.gen(function*() {
            const nonce = yield* random.randomBytes(Aead.aes256Gcm.nonceLength)
            const sealed = yield* aead.encrypt(sealer, new TextEncoder().encode(text), { nonce, aad })
            return `${sealedPrefix}${Buffer.from(nonce).toString("base64url")}:${Buffer.from(sealed).toString("base64url")}`
          }).pipe(Effect.orDie)

        /** The text sealed in `stored`; `undefined` when another key (or a change) makes it unreadable. */
        const openWith = (sealer: Aead.Key, stored: string, aad: Uint8Array): Effect.Effect<string | undefined, SecretsKeyError> => {
          const parts = /^enc:v1:([A-Za-z0-9_-]+):([A-Za-z0-9_-]+)$/.exec(stored)
          if (parts === null) return Effect.fail(unknownFormat)
          return aead.decrypt(sealer, new Uint8Array(Buffer.from(parts[2]!, "base64url")), {
            nonce: new Uint8Array(Buffer.from(parts[1]!, "base64url")),
            aad
          }).pipe(
            Effect.map((bytes): string | undefined => new TextDecoder().decode(bytes)),
            Effect.orElseSucceed(() => undefined)
          )
        }

        const open = (streamId: string, stored: string): Effect.Effect<Redacted.Redacted<string>, SecretsKeyError> => {
          if (!isSealed(stored)) return Effect.succeed(Redacted.make(stored, { label: "webhook secret" }))
          if (sealingKey === undefined) return Effect.fail(missing)
          const cached = opened.get(`${streamId} ${stored}`)
          if (cached !== undefined) return Effect.succeed(cached)
          return openWith(sealingKey, stored, streamAad(streamId)).pipe(
            Effect.flatMap((text) => {
              if (text === undefined) return Effect.fail(mismatch)
              if (opened.size >= cacheLimit) opened.clear()
              const secret = Redacted.make(text, { label: "webhook secret" })
              opened.set(`${streamId} ${stored}`, secret)
              return Effect.succeed(secret)
            })
          )
        }

        const prepare = sql.withTransaction(Effect.gen(function*() {
          yield* sql`SELECT pg_advisory_xact_lock(hashtext('chainquery secrets key'))`
          const [recorded] = yield* sql<{ check_value: string }>`SELECT check_value FROM secrets_key WHERE id = 1`
          if (sealingKey === undefined) {
            const [sealedRow] = yield* sql`SELECT 1 FROM streams WHERE secret LIKE 'enc:%' OR previous_secret LIKE 'enc:%' LIMIT 1`
            if (recorded !== undefined || sealedRow !== undefined) return yield* missing
            return 0
          }
          if (recorded === undefined) {
            // No key recorded (a partial restore, a row deleted by hand) but sealed rows: the key
            // must open one of them before it is recorded, or the right key would be refused later.
            const [sealedRow] = yield* sql<{ id: string; secret: string }>`SELECT id, secret FROM streams WHERE secret LIKE 'enc:%' LIMIT 1`
            if (sealedRow !== undefined && (yield* openWith(sealingKey, sealedRow.secret, streamAad(sealedRow.id))) === undefined) {
              return yield* mismatch
            }
            yield* sql`INSERT INTO secrets_key (id, check_value) VALUES (1, ${yield* sealWith(sealingKey, checkText, checkAad)})`
          } else if ((yield* openWith(sealingKey, recorded.check_value, checkAad)) !== checkText) {
            return yield* mismatch
          }
          const plain = yield* sql<{ id: string; secret: string; previous_secret: string | null }>`SELECT id, secret, previous_secret FROM streams
            WHERE secret NOT LIKE 'enc:%' OR previous_secret NOT LIKE 'enc:%' FOR UPDATE`
          for (const row of plain) {
            const stored = isSealed(row.secret) ? row.secret : yield* sealWith(sealingKey, row.secret, streamAad(row.id))
            // The secret before a rotation, still signing in its grace, is sealed the same way.
            const previous = row.previous_secret === null || isSealed(row.previous_secret)
              ? row.previous_secret
              : yield* sealWith(sealingKey, row.previous_secret, streamAad(row.id))
            yield* sql`UPDATE streams SET secret = ${stored}, previous_secret = ${previous} WHERE id = ${row.id}`
          }
          return plain.length
        }))

        return StreamSecrets.of({
          seal: (streamId, secret) =>
            sealingKey === undefined ? Effect.succeed(Redacted.value(secret)) : sealWith(sealingKey, Redacted.value(secret), streamAad(streamId)),
          open,
          prepare
        })
      })
    )
}
