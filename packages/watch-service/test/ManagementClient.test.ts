/**
 * `ManagementClient`, the typed client of the management API, over real HTTP against the service's
 * API on a real PostgreSQL: a stream created, wallets added, its deliveries listed, a replay asked
 * for, the stream read back as the API answers it; and the API's errors as typed values (a stream
 * that does not exist, a bad request naming its field, a wrong token), never a defect. The
 * session's client (`makeForSession`, the console's) signs in through the API's sign-in and sends
 * each change with the session's CSRF token (with another, a typed `Forbidden`).
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Redacted } from "effect"
import { FetchHttpClient, HttpClient, HttpClientRequest } from "effect/http"
import { BadRequest, Forbidden, NotFound, Unauthorized } from "../src/api/ManagementApi.js"
import * as ManagementClient from "../src/api/ManagementClient.js"
import { apiToken } from "./serviceHarness.js"
import { withApi } from "./support/apiFixtures.js"

const eth = "eth:0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed"

/** Runs `program` with a client of `url` holding `token`. */
const withClient = <A, E>(url: string, token: string, program: (client: ManagementClient.Client) => Effect.Effect<A, E>) =>
  Effect.runPromise(
    ManagementClient.make({ baseUrl: url, apiToken: Redacted.make(token) }).pipe(
      Effect.flatMap(program),
      Effect.provide(FetchHttpClient.layer)
    )
  )

describe("ManagementClient", () => {
  it.live("creates a stream, adds wallets, lists deliveries, replays, reads the stream back", () =>
    withApi(async (api) => {
      const result = await withClient(api.url, apiToken, (client) =>
        Effect.gen(function*() {
          const stream = yield* client.streams.create({ payload: { url: "http://127.0.0.1:9/hook", chains: ["eth"], description: "typed" } })
          const added = yield* client.streams.addWallets({ params: { id: stream.id }, payload: { wallets: [eth] } })
          const deliveries = yield* client.streams.listDeliveries({ params: { id: stream.id }, query: { limit: 10 } })
          const replayed = yield* client.streams.replay({ params: { id: stream.id }, payload: { fromTime: "2026-01-01T00:00:00Z" } })
          const read = yield* client.streams.get({ params: { id: stream.id } })
          return { stream, added, deliveries, replayed, read }
        }))
      assert.match(result.stream.id, /^str_[0-9a-z]{21}$/)
      assert.match(result.stream.secret, /^whsec_/)
      assert.strictEqual(result.added.added, 1)
      assert.strictEqual(result.added.wallets, 1)
      assert.deepStrictEqual(result.added.coverage.map((c) => c.wallet), [eth])
      assert.deepStrictEqual(result.deliveries, { deliveries: [], nextCursor: null })
      assert.strictEqual(result.replayed.deliveries, 0)
      assert.deepStrictEqual({ ...result.read, createdAt: "", updatedAt: "" }, {
        id: result.stream.id,
        url: "http://127.0.0.1:9/hook",
        description: "typed",
        events: result.stream.events,
        chains: ["eth"],
        confirmations: 0,
        status: "active",
        statusReason: null,
        createdAt: "",
        updatedAt: "",
        filters: null,
        secretRotation: null
      })
      // What the API stored is what the client was told.
      const listed = await api.call("GET", `/v1/streams/${result.stream.id}/wallets`)
      assert.deepStrictEqual(listed.body.wallets, [eth])
    }))

  it.live("answers the API's errors as typed values: NotFound, BadRequest naming the field, Unauthorized", () =>
    withApi(async (api) => {
      const errors = await withClient(api.url, apiToken, (client) =>
        Effect.gen(function*() {
          const missing = yield* Effect.flip(client.streams.get({ params: { id: "str_000000000000000000000" } }))
          const refused = yield* Effect.flip(client.streams.create({ payload: { url: "ftp://example.com/hook" } }))
          return { missing, refused }
        }))
      assert.instanceOf(errors.missing, NotFound)
      assert.strictEqual((errors.missing as NotFound).message, "no stream str_000000000000000000000")
      assert.instanceOf(errors.refused, BadRequest)
      assert.strictEqual((errors.refused as BadRequest).field, "url")
      const stranger = await withClient(api.url, "not-the-token", (client) => Effect.flip(client.streams.list({ query: {} })))
      assert.instanceOf(stranger, Unauthorized)
    }))

  it.live("the session's client: signed in by the API, each change sent with the session's CSRF token; with another, Forbidden", () =>
    withApi(async (api) => {
      // Signed in as the console is; the cookie carried by hand (a browser would send it).
      const signedIn = await Effect.runPromise(ManagementClient.makeForSession({ baseUrl: api.url, csrfToken: "" }).pipe(
        Effect.flatMap((client) => client.session.signIn({ payload: { token: Redacted.make(apiToken) }, responseMode: "decoded-and-response" })),
        Effect.provide(FetchHttpClient.layer)
      ))
      const [session, response] = signedIn
      const cookie = /^chainquery_session=[^;]+/.exec(response.headers["set-cookie"] ?? "")![0]
      const withCookie = Layer.effect(HttpClient.HttpClient, Effect.map(HttpClient.HttpClient, (client) => HttpClient.mapRequest(client, HttpClientRequest.setHeader("cookie", cookie)))).pipe(
        Layer.provide(FetchHttpClient.layer)
      )
      const asSession = <A, E>(csrfToken: string, program: (client: ManagementClient.Client) => Effect.Effect<A, E>) =>
        Effect.runPromise(ManagementClient.makeForSession({ baseUrl: api.url, csrfToken }).pipe(Effect.flatMap(program), Effect.provide(withCookie)))
      const created = await asSession(session.csrfToken!, (client) => client.streams.create({ payload: { url: "http://127.0.0.1:9/hook" } }))
      assert.match(created.id, /^str_[0-9a-z]{21}$/)
      const refused = await asSession("not-the-session's", (client) => Effect.flip(client.streams.pause({ params: { id: created.id } })))
      assert.instanceOf(refused, Forbidden)
      assert.strictEqual((await api.call("GET", `/v1/streams/${created.id}`)).body.status, "active", "nothing changed")
    }))
})
