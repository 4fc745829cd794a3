/**
 * The management API over real HTTP on 127.0.0.1, on a real PostgreSQL: every route's happy path,
 * a 401 on every route without the token or with a wrong one, a 400 naming the field for each
 * kind of bad input (and nothing stored), 404 for unknown streams, the OpenAPI document listing
 * every route, and the body cap.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { serviceApi } from "./serviceHarness.js"
import { withApi } from "./support/apiFixtures.js"

const eth = "eth:0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed"
const polygon = "polygon:0xfb6916095ca1df60bb79ce92ce3ea74c37c5d359"
const aptos = "aptos:0x1"
const receiver = "http://127.0.0.1:9/hook"

/** Every route, with a body where it takes one. */
const routes = (id: string, deliveryId = "msg_000000000000000000000") =>
  [
    ["POST", "/v1/streams", { url: receiver }],
    ["GET", "/v1/streams", undefined],
    ["GET", `/v1/streams/${id}`, undefined],
    ["PATCH", `/v1/streams/${id}`, { description: "x" }],
    ["DELETE", `/v1/streams/${id}`, undefined],
    ["POST", `/v1/streams/${id}/pause`, undefined],
    ["POST", `/v1/streams/${id}/resume`, undefined],
    ["POST", `/v1/streams/${id}/test`, undefined],
    ["POST", `/v1/streams/${id}/secret`, { graceSeconds: 60 }],
    ["POST", `/v1/streams/${id}/wallets`, { wallets: [eth] }],
    ["POST", `/v1/streams/${id}/wallets/remove`, { wallets: [eth] }],
    ["GET", `/v1/streams/${id}/wallets`, undefined],
    ["GET", `/v1/streams/${id}/deliveries`, undefined],
    ["POST", `/v1/streams/${id}/replay`, { fromTime: "2026-01-01T00:00:00Z" }],
    ["GET", `/v1/streams/${id}/stats`, undefined],
    ["GET", `/v1/streams/${id}/deliveries/${deliveryId}`, undefined],
    ["GET", `/v1/streams/${id}/activity`, undefined],
    ["GET", "/v1/session", undefined],
    ["DELETE", "/v1/session", undefined]
  ] as const

/** A wallet cursor as the service makes them (base64url of a JSON pair), of any value. */
const walletCursor = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString("base64url")

/** An address a wallet cursor may hold (40 hex digits). */
const anAddress = `0x${"ab".repeat(20)}`

/** The checkpoint of a wallet in a scan's namespace. */
const checkpoint = async (api: Effect.Success<ReturnType<typeof serviceApi>>, namespace: string, wallet: string) =>
  BigInt((await Effect.runPromise(api.sql<{ position: string }>`SELECT position::text FROM watch_checkpoints
    WHERE namespace = ${namespace} AND wallet = ${wallet}`))[0]!.position)

const count = async (api: Effect.Success<ReturnType<typeof serviceApi>>, table: string) =>
  Number((await Effect.runPromise(api.sql<{ n: string }>`SELECT count(*)::text AS n FROM ${api.sql(table)}`))[0]!.n)

describe("the management API", () => {
  it.live("streams: create (the secret shown once), get, list by pages, update, pause, resume, delete", () =>
    withApi(async (api) => {
      const created = await api.call("POST", "/v1/streams", {
        body: { url: receiver, events: ["nft.received", "nft.sent"], chains: ["eth", "polygon"], confirmations: 2, description: "mine" }
      })
      assert.strictEqual(created.status, 201, created.text)
      assert.match(created.body.id, /^str_[0-9a-z]{21}$/)
      assert.match(created.body.secret, /^whsec_[A-Za-z0-9+/]{32}$/)
      assert.deepStrictEqual(
        { ...created.body, id: "", secret: "", createdAt: "", updatedAt: "" },
        {
          id: "",
          secret: "",
          url: receiver,
          description: "mine",
          events: ["nft.received", "nft.sent"],
          chains: ["eth", "polygon"],
          confirmations: 2,
          status: "active",
          statusReason: null,
          createdAt: "",
          updatedAt: "",
          filters: null,
          secretRotation: null
        }
      )
      const id: string = created.body.id
      const got = await api.call("GET", `/v1/streams/${id}`)
      assert.strictEqual(got.status, 200)
      assert.notProperty(got.body, "secret", "the secret is shown at creation only")
      const all = await api.call("POST", "/v1/streams", { body: { url: receiver } })
      assert.strictEqual(all.body.chains.length, 27, "every chain and Aptos network when chains are left out")
      assert.strictEqual(all.body.description, "", "no description when it is left out")
      assert.deepStrictEqual(
        all.body.events,
        ["nft.received", "nft.sent", "trade.bought", "trade.sold", "aptos.token.in", "aptos.token.out", "retracted"],
        "every kind but DeFi and holdings (read per wallet) when events are left out"
      )
      await api.call("POST", "/v1/streams", { body: { url: receiver } })
      const first = await api.call("GET", "/v1/streams?limit=2")
      assert.strictEqual(first.body.streams.length, 2)
      assert.isString(first.body.nextCursor)
      const second = await api.call("GET", `/v1/streams?limit=2&cursor=${first.body.nextCursor}`)
      assert.strictEqual(second.body.streams.length, 1)
      assert.isNull(second.body.nextCursor)
      assert.deepStrictEqual(
        [...first.body.streams, ...second.body.streams].map((s: { id: string }) => s.id),
        [id, all.body.id, second.body.streams[0].id],
        "in creation order"
      )
      const updated = await api.call("PATCH", `/v1/streams/${id}`, { body: { chains: ["aptos-testnet"], confirmations: 2 } })
      assert.strictEqual(updated.status, 200, updated.text)
      assert.deepStrictEqual([updated.body.chains, updated.body.confirmations, updated.body.description], [["aptos-testnet"], 2, "mine"])
      const paused = await api.call("POST", `/v1/streams/${id}/pause`)
      assert.strictEqual(paused.body.status, "paused")
      const resumed = await api.call("POST", `/v1/streams/${id}/resume`)
      assert.strictEqual(resumed.body.status, "active")
      assert.deepStrictEqual(await Effect.runPromise(api.woken), [id], "resuming wakes the stream's delivery")
      const removed = await api.call("DELETE", `/v1/streams/${id}`)
      assert.strictEqual(removed.status, 204)
      assert.strictEqual((await api.call("GET", `/v1/streams/${id}`)).status, 404)
      assert.strictEqual((await api.call("DELETE", `/v1/streams/${id}`)).status, 404)
    }))

  it.live("wallets: added and removed in bulk, listed by pages; a bad spec rejects the whole request, naming each", () =>
    withApi(async (api) => {
      const { body: stream } = await api.call("POST", "/v1/streams", { body: { url: receiver } })
      const added = await api.call("POST", `/v1/streams/${stream.id}/wallets`, { body: { wallets: [eth, `${polygon}`, aptos, eth] } })
      assert.strictEqual(added.status, 200, added.text)
      // Each wallet is covered from the block after the checkpoint it was given in its scan: there
      // was no scan, so the chain's safe head (the Aptos newest version of its transfers).
      const ethFrom = (await checkpoint(api, "scan:0x1:0", "0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed")) + 1n
      const polygonFrom = (await checkpoint(api, "scan:0x89:0", "0xfb6916095ca1df60bb79ce92ce3ea74c37c5d359")) + 1n
      const aptosFrom = (await checkpoint(api, "scan:aptos:mainnet:0", `0x${"0".repeat(63)}1`)) + 1n
      assert.isAbove(Number(ethFrom), 1, "eth is covered from past its head, not from block 1")
      assert.deepStrictEqual(added.body, {
        added: 3,
        wallets: 3,
        coverage: [
          { wallet: eth, coveredFrom: String(ethFrom), history: null },
          { wallet: polygon, coveredFrom: String(polygonFrom), history: null },
          { wallet: `aptos-mainnet:0x${"0".repeat(63)}1`, coveredFrom: String(aptosFrom), history: null },
          { wallet: eth, coveredFrom: String(ethFrom), history: null }
        ]
      })
      const again = await api.call("POST", `/v1/streams/${stream.id}/wallets`, { body: { wallets: ["base,eth:0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed"] } })
      const baseFrom = (await checkpoint(api, "scan:0x2105:0", "0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed")) + 1n
      assert.deepStrictEqual(again.body, {
        added: 1,
        wallets: 4,
        coverage: [
          { wallet: "base:0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed", coveredFrom: String(baseFrom), history: null },
          { wallet: eth, coveredFrom: String(ethFrom), history: null }
        ]
      }, "a spec may name several chains; the wallet already held is kept, with the block it was covered from")
      const page1 = await api.call("GET", `/v1/streams/${stream.id}/wallets?limit=3`)
      const page2 = await api.call("GET", `/v1/streams/${stream.id}/wallets?limit=3&cursor=${page1.body.nextCursor}`)
      assert.deepStrictEqual([...page1.body.wallets, ...page2.body.wallets], [
        "eth:0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed",
        "base:0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed",
        "polygon:0xfb6916095ca1df60bb79ce92ce3ea74c37c5d359",
        "aptos-mainnet:0x0000000000000000000000000000000000000000000000000000000000000001"
      ])
      assert.isNull(page2.body.nextCursor)
      const bad = await api.call("POST", `/v1/streams/${stream.id}/wallets`, { body: { wallets: [eth, "eht:0x1", "aptos-testnet:0xzz", polygon] } })
      assert.strictEqual(bad.status, 400)
      assert.strictEqual(bad.body.field, "wallets")
      assert.deepStrictEqual(bad.body.invalid.map((i: { position: number; spec: string }) => [i.position, i.spec]), [[1, "eht:0x1"], [2, "aptos-testnet:0xzz"]])
      assert.match(bad.body.invalid[0].reason, /unknown chain/)
      assert.match(bad.body.message, /2 of 4 wallet specs are invalid, so none was stored/)
      const tooMany = await api.call("POST", `/v1/streams/${stream.id}/wallets`, { body: { wallets: Array.from({ length: 10_001 }, () => eth) } })
      assert.strictEqual(tooMany.status, 400)
      assert.match(tooMany.body.message, /at most 10000 wallet specs per request \(this one has 10001\)/)
      const empty = await api.call("POST", `/v1/streams/${stream.id}/wallets`, { body: { wallets: [] } })
      assert.strictEqual(empty.status, 400)
      assert.strictEqual(await count(api, "stream_wallets"), 4, "nothing stored by the bad requests")
      const removed = await api.call("POST", `/v1/streams/${stream.id}/wallets/remove`, { body: { wallets: [eth, "optimism:0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed"] } })
      assert.deepStrictEqual(removed.body, { removed: 1, wallets: 3 })
      const { body: ethOnly } = await api.call("POST", "/v1/streams", { body: { url: receiver, chains: ["eth"] } })
      const outside = await api.call("POST", `/v1/streams/${ethOnly.id}/wallets`, { body: { wallets: [polygon] } })
      assert.strictEqual(outside.status, 400)
      assert.match(outside.body.invalid[0].reason, /receives events of eth only, not of polygon/)
      const tenThousand = Array.from({ length: 10_000 }, (_, i) => `eth:0x${(i + 1).toString(16).padStart(40, "0")}`)
      const bulk = await api.call("POST", `/v1/streams/${ethOnly.id}/wallets`, { body: { wallets: tenThousand } })
      assert.deepStrictEqual({ ...bulk.body, coverage: undefined }, { added: 10_000, wallets: 10_000, coverage: undefined })
      // A scan already reads eth: the new wallets join it at its lowest checkpoint (that of the first stream's wallet).
      assert.deepStrictEqual(new Set(bulk.body.coverage.map((c: { coveredFrom: string }) => c.coveredFrom)), new Set([String(ethFrom)]))
      assert.strictEqual(bulk.body.coverage.length, 10_000)
    }))

  it.live("deliveries, replay and stats of a stream with none yet", () =>
    withApi(async (api) => {
      const { body: stream } = await api.call("POST", "/v1/streams", { body: { url: receiver } })
      const list = await api.call("GET", `/v1/streams/${stream.id}/deliveries?status=pending`)
      assert.deepStrictEqual(list.body, { deliveries: [], nextCursor: null })
      const replay = await api.call("POST", `/v1/streams/${stream.id}/replay`, { body: { fromTime: "2026-01-01T00:00:00Z" } })
      assert.strictEqual(replay.status, 202)
      assert.deepStrictEqual(replay.body, { deliveries: 0, events: 0 })
      const unknown = await api.call("POST", `/v1/streams/${stream.id}/replay`, { body: { fromEventId: "evm:0x1:nope" } })
      assert.strictEqual(unknown.status, 400)
      assert.strictEqual(unknown.body.field, "fromEventId")
      const stats = await api.call("GET", `/v1/streams/${stream.id}/stats`)
      assert.deepStrictEqual(stats.body, {
        lastDeliveredSequence: null,
        coverage: [],
        filteredEvents: 0,
        attempts: 0,
        successRate: null,
        pending: 0,
        failed: 0,
        oldestPendingAgeSeconds: null,
        lastError: null,
        lastErrorAt: null,
        history: []
      })
    }))

  it.live("every route answers 401 without the token and with a wrong one, and stores nothing", () =>
    withApi(async (api) => {
      const { body: stream } = await api.call("POST", "/v1/streams", { body: { url: receiver } })
      for (const [method, path, body] of routes(stream.id)) {
        for (const token of [null, "wrong-token", "test-token-0123456789abcdeF", "test-token-0123456789abcdef0"]) {
          const answer = await api.call(method, path, { body, token })
          assert.strictEqual(answer.status, 401, `${method} ${path} with ${token}`)
          assert.strictEqual(answer.body.error, "unauthorized")
        }
      }
      assert.strictEqual(await count(api, "streams"), 1)
      assert.strictEqual(await count(api, "stream_wallets"), 0)
      assert.strictEqual((await api.call("GET", `/v1/streams/${stream.id}`)).body.status, "active")
    }))

  it.live("each kind of bad input is a 400 naming the field and what is valid, with nothing stored", () =>
    withApi(async (api) => {
      const { body: stream } = await api.call("POST", "/v1/streams", { body: { url: receiver } })
      const cases: ReadonlyArray<readonly [string, string, unknown, string, RegExp]> = [
        ["POST", "/v1/streams", {}, "url", /Missing key/],
        ["POST", "/v1/streams", { url: 42 }, "url", /Expected string/],
        ["POST", "/v1/streams", { url: "not a url" }, "url", /not an absolute URL/],
        ["POST", "/v1/streams", { url: "ftp://example.com/x" }, "url", /scheme ftp: is not supported/],
        ["POST", "/v1/streams", { url: receiver, events: ["nft.recieved"] }, "events[0]", /Expected "nft.received" \| /],
        ["POST", "/v1/streams", { url: receiver, events: [] }, "events", /at least one event kind/],
        ["POST", "/v1/streams", { url: receiver, chains: ["eth", "eht"] }, "chains[1]", /unknown chain "eht"; valid: eth, sepolia/],
        ["POST", "/v1/streams", { url: receiver, confirmations: 65 }, "confirmations", /between 0 and 64/],
        ["POST", "/v1/streams", { url: receiver, confirmations: 1.5 }, "confirmations", /integer/],
        ["POST", "/v1/streams", { url: receiver, description: "x".repeat(501) }, "description", /at most 500/],
        ["POST", "/v1/streams", { url: receiver, colour: "red" }, "colour", /not a field of this request/],
        ["GET", "/v1/streams?limit=0", undefined, "limit", /between 1 and 1000/],
        ["GET", "/v1/streams?limit=ten", undefined, "limit", /number/],
        ["GET", "/v1/streams?cursor=abc", undefined, "cursor", /nextCursor of the previous page/],
        ["GET", "/v1/streams?cursor=str_%00", undefined, "cursor", /without NUL characters/],
        ["GET", "/v1/streams?cursor=xstr_000000000000000000000", undefined, "cursor", /nextCursor/],
        ["GET", "/v1/streams?cursor=str_000000000000000000000x", undefined, "cursor", /nextCursor/],
        ["GET", "/v1/streams/nope", undefined, "id", /str_/],
        ["PATCH", `/v1/streams/${stream.id}`, { chains: [] }, "chains", /at least one chain/],
        ["PATCH", `/v1/streams/${stream.id}`, { url: "http://user:pw@example.com/" }, "url", /credentials/],
        ["POST", `/v1/streams/${stream.id}/wallets`, { wallet: [eth] }, "wallet", /wallet is not a field of this request \(and 1 more problem\)/],
        ["POST", `/v1/streams/${stream.id}/wallets`, { wallets: eth }, "wallets", /Expected array/],
        ["GET", `/v1/streams/${stream.id}/wallets?cursor=!!`, undefined, "cursor", /nextCursor/],
        // A wallet cursor's every part is checked: a NUL inside, a bad or padded base64url, a wrong number of parts, no array, an address not a string,
        // an address not of whole bytes or of another length (an odd number of digits once reached the query as a 500).
        ["GET", `/v1/streams/${stream.id}/wallets?cursor=${walletCursor(["0x1", "0xabc"])}`, undefined, "cursor", /nextCursor/],
        ["GET", `/v1/streams/${stream.id}/wallets?cursor=${walletCursor(["0x1", `0x${"a".repeat(39)}`])}`, undefined, "cursor", /nextCursor/],
        ["GET", `/v1/streams/${stream.id}/wallets?cursor=${walletCursor(["0x1", `0x${"a".repeat(42)}`])}`, undefined, "cursor", /nextCursor/],
        ["GET", `/v1/streams/${stream.id}/wallets?cursor=${walletCursor(["0x1", `0x\u0000${"ab".repeat(19)}`])}`, undefined, "cursor", /nextCursor/],
        ["GET", `/v1/streams/${stream.id}/wallets?cursor=${walletCursor(["0x1\u0000", anAddress])}`, undefined, "cursor", /nextCursor/],
        ["GET", `/v1/streams/${stream.id}/wallets?cursor=${walletCursor(["0x1", anAddress])}%3D`, undefined, "cursor", /nextCursor/],
        ["GET", `/v1/streams/${stream.id}/wallets?cursor=%3F${walletCursor(["0x1", anAddress])}`, undefined, "cursor", /nextCursor/],
        ["GET", `/v1/streams/${stream.id}/wallets?cursor=${walletCursor(["0x1"])}`, undefined, "cursor", /nextCursor/],
        ["GET", `/v1/streams/${stream.id}/wallets?cursor=${walletCursor(["0x1", anAddress, anAddress])}`, undefined, "cursor", /nextCursor/],
        ["GET", `/v1/streams/${stream.id}/wallets?cursor=${walletCursor({ 0: "0x1", 1: anAddress, length: 2 })}`, undefined, "cursor", /nextCursor/],
        ["GET", `/v1/streams/${stream.id}/wallets?cursor=${walletCursor(["0x1", [anAddress]])}`, undefined, "cursor", /nextCursor/],
        ["GET", `/v1/streams/${stream.id}/deliveries?status=lost`, undefined, "status", /"pending" \| "delivered" \| "failed"/],
        ["GET", `/v1/streams/${stream.id}/deliveries?cursor=-1`, undefined, "cursor", /nextCursor/],
        ["GET", `/v1/streams/${stream.id}/deliveries?cursor=1%00`, undefined, "cursor", /without NUL characters/],
        ["GET", `/v1/streams/${stream.id}/deliveries?cursor=99999999999999999`, undefined, "cursor", /nextCursor/],
        ["POST", `/v1/streams/${stream.id}/replay`, {}, "fromEventId", /exactly one of fromEventId/],
        ["POST", `/v1/streams/${stream.id}/replay`, { fromTime: "yesterday" }, "fromTime", /ISO 8601/],
        ["POST", `/v1/streams/${stream.id}/replay`, { fromTime: "+099999-01-01T00:00:00Z" }, "fromTime", /from 1970 to 9999/],
        ["POST", `/v1/streams/${stream.id}/replay`, { fromEventId: "evm:\u0000" }, "fromEventId", /without NUL characters/],
        ["POST", "/v1/streams", { url: receiver, description: "a\u0000b" }, "description", /without NUL characters/],
        ["PATCH", `/v1/streams/${stream.id}`, { confirmations: 3 }, "confirmations", /cannot be changed \(0 for this stream\)/]
      ]
      for (const [method, path, body, field, message] of cases) {
        const answer = await api.call(method, path, { body })
        assert.strictEqual(answer.status, 400, `${method} ${path} ${JSON.stringify(body)}: ${answer.text}`)
        assert.strictEqual(answer.body.error, "bad_request")
        assert.strictEqual(answer.body.field, field, `${method} ${path} ${JSON.stringify(body)}: ${answer.text}`)
        assert.match(answer.body.message, message, `${method} ${path} ${JSON.stringify(body)}`)
      }
      const malformed = await api.call("POST", "/v1/streams", { raw: "{not json" })
      assert.strictEqual(malformed.status, 400)
      assert.strictEqual(malformed.body.field, "body")
      assert.strictEqual(await count(api, "streams"), 1, "nothing stored by the bad requests")
      const unchanged = await api.call("GET", `/v1/streams/${stream.id}`)
      assert.strictEqual(unchanged.body.chains.length, 27)
    }))

  it.live("unknown streams are 404 on every route that names one", () =>
    withApi(async (api) => {
      for (const [method, path, body] of routes("str_000000000000000000000").filter(([, where]) => where.includes("str_"))) {
        const answer = await api.call(method, path, { body })
        assert.strictEqual(answer.status, 404, `${method} ${path}: ${answer.text}`)
        assert.strictEqual(answer.body.error, "not_found")
      }
    }))

  it.live("/openapi.json lists every route, /docs is served (and / leads there), /healthz and /readyz answer, and unknown routes are a JSON 404", () =>
    withApi(async (api) => {
      const openapi = await api.call("GET", "/openapi.json", { token: null })
      assert.strictEqual(openapi.status, 200)
      const listed = Object.entries(openapi.body.paths as Record<string, Record<string, unknown>>)
        .flatMap(([path, methods]) => Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`))
        .toSorted()
      // Beside the routes behind the token, the console's sign-in (which takes the token in its body).
      const expected = [...routes("{id}", "{deliveryId}").map(([method, path]) => `${method} ${path}`), "POST /v1/session"].toSorted()
      assert.deepStrictEqual(listed, expected)
      assert.deepStrictEqual(Object.keys(openapi.body.components.securitySchemes), ["bearer", "session"])
      assert.deepStrictEqual(openapi.body.components.securitySchemes.session, {
        type: "apiKey",
        in: "cookie",
        name: "chainquery_session",
        description: openapi.body.components.securitySchemes.session.description
      })
      // Each stream control with an example: a test event's answer, verify, a rotation, a filter.
      const paths = openapi.body.paths
      const payloadOf = (path: string) => paths[path].post.requestBody.content["application/json"].schema
      assert.deepStrictEqual(paths["/v1/streams/{id}/test"].post.responses["200"].content["application/json"].schema.examples[0].status, 500)
      assert.deepStrictEqual(payloadOf("/v1/streams/{id}/resume").anyOf[0].examples, [{ verify: true }])
      assert.deepStrictEqual(payloadOf("/v1/streams/{id}/secret").anyOf[0].examples, [{ graceSeconds: 3600 }])
      assert.deepStrictEqual(payloadOf("/v1/streams").properties.filters.examples[0].minValue, { eth: "1000000000000000000" })
      const docs = await api.call("GET", "/docs", { token: null })
      assert.strictEqual(docs.status, 200)
      assert.include(docs.text, "<html")
      const root = await fetch(`${api.url}/`, { redirect: "manual" })
      assert.strictEqual(root.status, 302, "the root leads to the docs")
      assert.strictEqual(root.headers.get("location"), "/docs")
      assert.deepStrictEqual((await api.call("GET", "/healthz", { token: null })).body, { status: "ok" })
      assert.deepStrictEqual((await api.call("GET", "/readyz", { token: null })).body, { ready: true })
      const missing = await api.call("GET", "/v2/nothing", { token: null })
      assert.strictEqual(missing.status, 404)
      assert.strictEqual(missing.body.error, "not_found")
    }))

  it.live("a request body over the cap is refused with a 413", () =>
    withApi(async (api) => {
      const { body: stream } = await api.call("POST", "/v1/streams", { body: { url: receiver } })
      const huge = await api.call("POST", `/v1/streams/${stream.id}/wallets`, { raw: JSON.stringify({ wallets: ["x".repeat(5 * 1024 * 1024)] }) })
      assert.strictEqual(huge.status, 413)
      assert.strictEqual(huge.body.error, "payload_too_large")
      assert.strictEqual(await count(api, "stream_wallets"), 0)
    }))

  it.live("without --allow-private-webhooks, a webhook URL to a private address is refused at creation and at update", () =>
    Effect.scoped(Effect.flatMap(serviceApi({ allowPrivateWebhooks: false }), (api) =>
      Effect.promise(async () => {
        for (const url of ["http://127.0.0.1:8080/hook", "http://10.0.0.5/hook", "http://[::1]/hook", "http://169.254.169.254/latest", "http://localhost/hook"]) {
          const answer = await api.call("POST", "/v1/streams", { body: { url } })
          assert.strictEqual(answer.status, 400, url)
          assert.strictEqual(answer.body.field, "url")
          assert.match(answer.body.message, /--allow-private-webhooks/)
        }
        const ok = await api.call("POST", "/v1/streams", { body: { url: "https://93.184.215.14/hook" } })
        assert.strictEqual(ok.status, 201, ok.text)
        const update = await api.call("PATCH", `/v1/streams/${ok.body.id}`, { body: { url: "http://192.168.1.1/" } })
        assert.strictEqual(update.status, 400)
        assert.strictEqual(await count(api, "streams"), 1)
      }))))
})
