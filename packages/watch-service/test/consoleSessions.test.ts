/**
 * The console's sign-in (SERVE.md, "The console"): the API token exchanged for an `HttpOnly`,
 * `SameSite=Strict` session cookie whose id PostgreSQL never holds (its HMAC under the token: a
 * service given another token knows none of the sessions); every change made with the cookie needs
 * the session's CSRF token (a cross-site form post changes nothing); sign-out ends the session on
 * the server, and so does a new sign-in in the same browser; a bearer token, when given, is judged alone.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Option, Redacted } from "effect"
import { createHmac } from "node:crypto"
import * as ConsoleSessions from "../src/store/ConsoleSessions.js"
import { rowsOf, withApi } from "./support/apiFixtures.js"
import { apiToken } from "./serviceHarness.js"

const receiver = "http://127.0.0.1:9/hook"

/** A request with the session cookie `cookie` (and these headers), no bearer token. */
const withCookie = (url: string, cookie: string, method: string, path: string, options?: { readonly body?: string; readonly headers?: Record<string, string> }) =>
  fetch(`${url}${path}`, {
    method,
    headers: { cookie: `chainquery_session=${cookie}`, ...(options?.body === undefined ? {} : { "content-type": "application/json" }), ...options?.headers },
    ...(options?.body === undefined ? {} : { body: options.body })
  })

/** Signs in with `token` (and these headers): the answer, its cookie's value and attributes. */
const signIn = async (url: string, token: string, headers?: Record<string, string>) => {
  const response = await fetch(`${url}/v1/session`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify({ token })
  })
  const setCookie = response.headers.get("set-cookie") ?? ""
  const value = /^chainquery_session=([^;]*)/.exec(setCookie)?.[1] ?? ""
  return { status: response.status, body: await response.json() as any, setCookie, value }
}

describe("console sessions", () => {
  it.live("the token for an HttpOnly, SameSite=Strict cookie of 12 hours; PostgreSQL holds its digest only", () =>
    withApi(async (api) => {
      const wrong = await signIn(api.url, "not-the-token")
      assert.strictEqual(wrong.status, 401)
      assert.strictEqual(wrong.setCookie, "", "no cookie for a wrong token")
      assert.strictEqual(await api.run(rowsOf("console_sessions")), 0)

      const before = Date.now()
      const session = await signIn(api.url, apiToken)
      assert.strictEqual(session.status, 200, JSON.stringify(session.body))
      assert.match(session.value, /^[A-Za-z0-9_-]{43}$/)
      const attributes = session.setCookie.split(";").map((part) => part.trim().toLowerCase())
      for (const attribute of ["httponly", "samesite=strict", "path=/", "max-age=43200"]) assert.include(attributes, attribute)
      assert.notInclude(attributes, "secure", "no Secure over plain HTTP (the browser would drop the cookie)")
      assert.strictEqual(session.body.via, "session")
      assert.match(session.body.csrfToken, /^[A-Za-z0-9_-]{43}$/)
      assert.notStrictEqual(session.body.csrfToken, session.value)
      const lasts = Date.parse(session.body.expiresAt) - before
      assert.isTrue(lasts >= 12 * 3600_000 - 60_000 && lasts <= 12 * 3600_000 + 60_000, `${lasts} ms`)
      assert.notInclude(JSON.stringify(session.body), apiToken)

      const rows = await api.run(Effect.flatMap(Effect.succeed(api.sql), (sql) => sql<{ digest: Uint8Array }>`SELECT digest FROM console_sessions`))
      assert.strictEqual(rows.length, 1)
      const stored = Buffer.from(rows[0]!.digest)
      assert.deepStrictEqual(stored, createHmac("sha256", apiToken).update(session.value).digest(), "the id's HMAC under the token, not the id")
      const under = (token: string) => api.run(ConsoleSessions.find(Redacted.make(token), Redacted.make(session.value)))
      assert.isTrue(Option.isSome(await under(apiToken)))
      assert.isTrue(Option.isNone(await under(`${apiToken}-rotated`)), "a service given another token knows none of the sessions")

      const streams = await withCookie(api.url, session.value, "GET", "/v1/streams")
      assert.strictEqual(streams.status, 200, "the cookie opens the API")
      const current = await (await withCookie(api.url, session.value, "GET", "/v1/session")).json() as any
      assert.deepStrictEqual(current, session.body, "a reloaded console reads its CSRF token back")
      const bearer = await api.call("GET", "/v1/session")
      assert.deepStrictEqual(bearer.body, { via: "bearer", csrfToken: null, expiresAt: null })
    }))

  it.live("behind an HTTPS proxy the cookie is Secure (X-Forwarded-Proto or Forwarded); a new sign-in in the same browser ends its session before", () =>
    withApi(async (api) => {
      for (const headers of [{ "x-forwarded-proto": "https" }, { forwarded: "for=192.0.2.60;proto=https;by=203.0.113.43" }]) {
        const session = await signIn(api.url, apiToken, headers)
        assert.strictEqual(session.status, 200)
        assert.include(session.setCookie.split(";").map((part) => part.trim().toLowerCase()), "secure", JSON.stringify(headers))
      }
      const plain = await signIn(api.url, apiToken, { forwarded: "for=192.0.2.60;proto=http" })
      assert.notInclude(plain.setCookie.split(";").map((part) => part.trim().toLowerCase()), "secure")
      const again = await signIn(api.url, apiToken, { cookie: `chainquery_session=${plain.value}` })
      assert.strictEqual(again.status, 200)
      assert.strictEqual((await withCookie(api.url, plain.value, "GET", "/v1/streams")).status, 401, "the session before ended")
      assert.strictEqual((await withCookie(api.url, again.value, "GET", "/v1/streams")).status, 200)
    }))

  it.live("a change with the cookie needs the session's CSRF token: without it, or with another, 403 and nothing stored", () =>
    withApi(async (api) => {
      const session = await signIn(api.url, apiToken)
      const other = await signIn(api.url, apiToken)
      const body = JSON.stringify({ url: receiver, chains: ["eth"] })
      const refusals = [
        await withCookie(api.url, session.value, "POST", "/v1/streams", { body }),
        await withCookie(api.url, session.value, "POST", "/v1/streams", { body, headers: { "x-csrf-token": other.body.csrfToken } }),
        // What a cross-site form would send, were the cookie sent at all (SameSite=Strict keeps it home).
        await fetch(`${api.url}/v1/streams`, {
          method: "POST",
          headers: { cookie: `chainquery_session=${session.value}`, "content-type": "application/x-www-form-urlencoded", origin: "https://evil.example" },
          body: `url=${encodeURIComponent(receiver)}`
        })
      ]
      for (const refusal of refusals) {
        assert.strictEqual(refusal.status, 403)
        const answer = await refusal.json() as any
        assert.strictEqual(answer.error, "forbidden")
        assert.match(answer.message, /x-csrf-token; nothing was changed$/)
      }
      assert.strictEqual(await api.run(rowsOf("streams")), 0)

      const created = await withCookie(api.url, session.value, "POST", "/v1/streams", { body, headers: { "x-csrf-token": session.body.csrfToken } })
      assert.strictEqual(created.status, 201, await created.text())
      assert.strictEqual(await api.run(rowsOf("streams")), 1)
    }))

  it.live("sign-out ends the session on the server and expires the cookie; a bearer token is judged alone", () =>
    withApi(async (api) => {
      const session = await signIn(api.url, apiToken)
      const kept = await signIn(api.url, apiToken)
      const wrongBearer = await withCookie(api.url, session.value, "GET", "/v1/streams", { headers: { authorization: "Bearer nope" } })
      assert.strictEqual(wrongBearer.status, 401, "a wrong bearer token is refused whatever the cookie")
      assert.match((await wrongBearer.json() as any).message, /^the bearer token is not the service's --api-token$/)

      const unguarded = await withCookie(api.url, session.value, "DELETE", "/v1/session")
      assert.strictEqual(unguarded.status, 403, "sign-out is a change: it needs the CSRF token")
      assert.strictEqual((await withCookie(api.url, session.value, "GET", "/v1/streams")).status, 200)

      const out = await withCookie(api.url, session.value, "DELETE", "/v1/session", { headers: { "x-csrf-token": session.body.csrfToken } })
      assert.strictEqual(out.status, 204)
      const cleared = out.headers.get("set-cookie") ?? ""
      assert.match(cleared, /^chainquery_session=;/)
      assert.match(cleared.toLowerCase(), /max-age=0/)
      const after = await withCookie(api.url, session.value, "GET", "/v1/streams")
      assert.strictEqual(after.status, 401)
      assert.match((await after.json() as any).message, /^the console session has ended \(signed out or expired\): sign in again$/)
      assert.strictEqual((await withCookie(api.url, kept.value, "GET", "/v1/streams")).status, 200, "another session goes on")
      assert.strictEqual(await api.run(rowsOf("console_sessions")), 1)
    }))

  it.live("an ended session opens nothing: expired, unknown, empty; a sign-in without a token is a 400 naming it", () =>
    withApi(async (api) => {
      const session = await signIn(api.url, apiToken)
      await api.run(Effect.asVoid(api.sql`UPDATE console_sessions SET expires_at = now() - interval '1 second'`))
      for (const cookie of [session.value, "A".repeat(43), ""]) {
        const answer = await withCookie(api.url, cookie, "GET", "/v1/streams")
        assert.strictEqual(answer.status, 401, JSON.stringify(cookie))
      }
      const empty = await fetch(`${api.url}/v1/session`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" })
      assert.strictEqual(empty.status, 400)
      assert.strictEqual((await empty.json() as any).field, "token")
      const fresh = await signIn(api.url, apiToken)
      assert.strictEqual(fresh.status, 200)
      assert.strictEqual(await api.run(rowsOf("console_sessions")), 1, "a sign-in removes the sessions that ended")
    }))
})
