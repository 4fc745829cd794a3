/**
 * The streams' secrets at rest (`StreamSecrets`), over a real PostgreSQL (a fresh database per
 * test). It proves that:
 *
 * - a key is 32 bytes as base64 (44 characters) or hex (64 digits), spaces around it ignored;
 *   anything else is refused;
 * - a sealed secret is `enc:v1:…`, opens to what was sealed, and differs each time (a fresh
 *   nonce); it does not open for another stream (bound to its id), nor once changed, nor with
 *   another key, nor without a key; a plain one opens as it is, key or not;
 * - `prepare`: the first key is recorded and the plain rows sealed (then nothing to do); no key,
 *   or another key, on a sealed database fails with `missing` or `mismatch` and changes nothing;
 *   a database never sealed is fine without a key; a key is recorded at the first start, even
 *   before any stream exists.
 */
import { assert, describe, it } from "@effect/vitest"
import { NodeCrypto } from "@effect/platform-node"
import { Effect, Layer, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { freshDatabase } from "../../watch/test/support/postgres.js"
import * as ServiceMigrations from "../src/store/ServiceMigrations.js"
import { parseKey, StreamSecrets } from "../src/store/StreamSecrets.js"

const keyA = Redacted.make(new Uint8Array(32).fill(7))
const keyB = Redacted.make(new Uint8Array(32).fill(9))
const secret = Redacted.make("whsec_c2VjcmV0LW9mLXRoZS1zdHJlYW0=")

/** A migrated fresh database. */
const database = Layer.effectDiscard(ServiceMigrations.run).pipe(Layer.provideMerge(freshDatabase))

/** Runs `self` with the secrets of `key` (none: plain) on the context's database. */
const withKey = <A, E>(key: Redacted.Redacted<Uint8Array> | undefined, self: Effect.Effect<A, E, StreamSecrets>) =>
  Effect.provide(self, StreamSecrets.layer(key).pipe(Layer.provide(Layer.merge(NodeCrypto.layerAead, NodeCrypto.layerSecureRandom))))

/** Inserts a stream whose stored secret is `stored`. */
const insertStream = (id: string, stored: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`INSERT INTO streams (id, url, confirmations, secret, status, created_at, updated_at)
      VALUES (${id}, 'https://example.com/hook', 0, ${stored}, 'active', now(), now())`)

const storedRows = Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ id: string; secret: string }>`SELECT id, secret FROM streams ORDER BY id`)

/** Prepares the database with the secrets of `key` (none: plain), as a service starting with it does. */
const prepare = (key: Redacted.Redacted<Uint8Array> | undefined) => withKey(key, Effect.flatMap(StreamSecrets, (s) => s.prepare))

const run = <A, E>(self: Effect.Effect<A, E, SqlClient.SqlClient>) => self.pipe(Effect.provide(database), Effect.orDie)

describe("StreamSecrets", () => {
  it("parseKey: 32 bytes as base64 or hex, spaces around ignored; anything else refused", () => {
    const base64 = Buffer.alloc(32, 1).toString("base64")
    assert.deepStrictEqual(Redacted.value(parseKey(Redacted.make(`${base64}\n`))!), new Uint8Array(32).fill(1))
    assert.deepStrictEqual(Redacted.value(parseKey(Redacted.make(` ${"ab".repeat(32)} `))!), new Uint8Array(32).fill(0xab))
    const bads = [Buffer.alloc(31, 1).toString("base64"), Buffer.alloc(33, 1).toString("base64"), "ab".repeat(31), "ab".repeat(33), "zz".repeat(32), ""]
    // A valid key with something before or after it is no key.
    for (const bad of [...bads, `A${base64}`, `${base64}A`]) {
      assert.isUndefined(parseKey(Redacted.make(bad)), JSON.stringify(bad))
    }
  })

  it.effect("seal and open: enc:v1, a fresh nonce each time, bound to the stream, refused once changed, with another key or without one", () =>
    run(Effect.gen(function*() {
      const [first, second] = yield* withKey(keyA, Effect.flatMap(StreamSecrets, (s) => Effect.all([s.seal("str_a", secret), s.seal("str_a", secret)])))
      assert.match(first, /^enc:v1:[A-Za-z0-9_-]{16}:[A-Za-z0-9_-]+$/)
      assert.notStrictEqual(first, second, "a fresh nonce each time")
      assert.notInclude(first, "whsec_")
      const opened = yield* withKey(keyA, Effect.flatMap(StreamSecrets, (s) => s.open("str_a", first)))
      assert.strictEqual(Redacted.value(opened), Redacted.value(secret))
      const failure = (key: Redacted.Redacted<Uint8Array> | undefined, id: string, stored: string) =>
        withKey(key, Effect.flatMap(StreamSecrets, (s) => s.open(id, stored))).pipe(Effect.flip, Effect.map((error) => error.reason))
      assert.strictEqual(yield* failure(keyA, "str_b", first), "mismatch", "another stream's")
      const at = first.lastIndexOf(":") + 5
      const changed = first.slice(0, at) + (first[at] === "A" ? "B" : "A") + first.slice(at + 1)
      assert.strictEqual(yield* failure(keyA, "str_a", changed), "mismatch", "changed")
      assert.strictEqual(yield* failure(keyB, "str_a", first), "mismatch", "another key")
      assert.strictEqual(yield* failure(undefined, "str_a", first), "missing", "no key")
      assert.strictEqual(yield* failure(keyA, "str_a", "enc:v2:abc:def"), "format", "a later format")
      assert.strictEqual(yield* failure(keyA, "str_a", `${first}!`), "format", "more after the sealed text")
      assert.strictEqual(yield* failure(keyA, "str_a", `enc:v2:${first}`), "format", "a sealed text inside a later format")
      for (const key of [keyA, undefined]) {
        const plain = yield* withKey(key, Effect.flatMap(StreamSecrets, (s) => s.open("str_a", Redacted.value(secret))))
        assert.strictEqual(Redacted.value(plain), Redacted.value(secret))
      }
    })))

  it.effect("prepare: seals the plain rows once; a missing or another key fails and changes nothing", () =>
    run(Effect.gen(function*() {
      assert.strictEqual(yield* withKey(undefined, Effect.flatMap(StreamSecrets, (s) => s.prepare)), 0, "never sealed: fine without a key")
      yield* insertStream("str_a", "whsec_YWFhYWFhYWFhYWFhYWFhYQ==")
      yield* insertStream("str_b", "whsec_YmJiYmJiYmJiYmJiYmJiYg==")
      assert.strictEqual(yield* withKey(keyA, Effect.flatMap(StreamSecrets, (s) => s.prepare)), 2)
      const sealed = yield* storedRows
      for (const row of sealed) assert.match(row.secret, /^enc:v1:/)
      const opened = yield* withKey(keyA, Effect.flatMap(StreamSecrets, (s) => Effect.forEach(sealed, (row) => s.open(row.id, row.secret))))
      assert.deepStrictEqual(opened.map(Redacted.value), ["whsec_YWFhYWFhYWFhYWFhYWFhYQ==", "whsec_YmJiYmJiYmJiYmJiYmJiYg=="])
      assert.strictEqual(yield* withKey(keyA, Effect.flatMap(StreamSecrets, (s) => s.prepare)), 0, "again: nothing to do")
      assert.deepStrictEqual(yield* storedRows, sealed)

      // A plain row written since (by a runner without the key) is sealed at the next start with it.
      yield* insertStream("str_c", "whsec_Y2NjY2NjY2NjY2NjY2NjYw==")
      const refused = (key: Redacted.Redacted<Uint8Array> | undefined) =>
        withKey(key, Effect.flatMap(StreamSecrets, (s) => s.prepare)).pipe(Effect.flip, Effect.map((error) => error.reason))
      assert.strictEqual(yield* refused(undefined), "missing")
      assert.strictEqual(yield* refused(keyB), "mismatch")
      const after = yield* storedRows
      assert.deepStrictEqual(after.slice(0, 2), sealed, "nothing changed")
      assert.strictEqual(after[2]!.secret, "whsec_Y2NjY2NjY2NjY2NjY2NjYw==", "nothing changed")
      assert.strictEqual(yield* withKey(keyA, Effect.flatMap(StreamSecrets, (s) => s.prepare)), 1)

      // The record of the key lost (a partial restore): another key that opens none of the sealed
      // rows is refused, not recorded (which would lock the right key out).
      yield* Effect.flatMap(SqlClient.SqlClient, (sql) => sql`DELETE FROM secrets_key`)
      assert.strictEqual(yield* refused(keyB), "mismatch")
      assert.strictEqual(yield* refused(undefined), "missing", "sealed rows without a record of the key still need it")
      assert.strictEqual(yield* withKey(keyA, Effect.flatMap(StreamSecrets, (s) => s.prepare)), 0, "the right key is still taken")
    })))

  it.effect("prepare: a rotated stream's secret before, still in its grace, is sealed too, and both open", () =>
    run(Effect.gen(function*() {
      yield* insertStream("str_a", "whsec_bmV3LW5ldy1uZXctbmV3")
      yield* Effect.flatMap(SqlClient.SqlClient, (sql) =>
        sql`UPDATE streams SET previous_secret = 'whsec_b2xkLW9sZC1vbGQtb2xk', previous_secret_until = now() + interval '1 hour', rotated_at = now()`)
      assert.strictEqual(yield* prepare(keyA), 1)
      const [row] = yield* Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ secret: string; previous_secret: string }>`SELECT secret, previous_secret FROM streams`)
      assert.match(row!.secret, /^enc:v1:/)
      assert.match(row!.previous_secret, /^enc:v1:/)
      const opened = yield* withKey(keyA, Effect.flatMap(StreamSecrets, (s) => Effect.all([s.open("str_a", row!.secret), s.open("str_a", row!.previous_secret)])))
      assert.deepStrictEqual(opened.map(Redacted.value), ["whsec_bmV3LW5ldy1uZXctbmV3", "whsec_b2xkLW9sZC1vbGQtb2xk"])
      assert.strictEqual(yield* prepare(keyA), 0, "again: nothing to do")
    })))

  it.effect("prepare: the first key is recorded before any stream exists; another key, or none, is refused later", () =>
    run(Effect.gen(function*() {
      assert.strictEqual(yield* prepare(keyA), 0)
      assert.strictEqual(yield* Effect.flip(prepare(keyB)).pipe(Effect.map((error) => error.reason)), "mismatch")
      assert.strictEqual(yield* Effect.flip(prepare(undefined)).pipe(Effect.map((error) => error.reason)), "missing")
      assert.strictEqual(yield* prepare(keyA), 0)
    })))
})
