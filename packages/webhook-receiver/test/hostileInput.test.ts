/**
 * Hostile input, signed (a sender holding the secret, or a bug of one) or not: a body that is not
 * JSON, JSON of the wrong shape, numbers beyond what a batch can hold, a sequence as a string,
 * headers missing or repeated in each form they arrive in (a Node array, a Node header joined with
 * ", ", a fetch `Headers`). Each is a typed error naming what is wrong, never a defect; what a batch
 * can hold (huge block numbers, deep events, `__proto__` keys) is received exactly.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import { Receive, type ReceiveError, ReceiverState } from "../src/index.js"
import { batchRequest, body, now, request, secret, sign } from "./support/signing.js"

type Signed = { readonly headers: Receive.HeadersInput; readonly body: string | Uint8Array }

/** The outcome of receiving `signed` on the initial state: never a defect. */
const outcome = (signed: Signed) =>
  Effect.gen(function*() {
    const exit = yield* Effect.exit(Receive.receive({ ...signed, secret, state: ReceiverState.initial, now }))
    assert.isFalse(Exit.hasDies(exit), String(exit))
    return exit
  })

/** The typed error of receiving `signed`, asserted to be of `tag`. */
const refused = <Tag extends ReceiveError.ReceiveError["_tag"]>(signed: Signed, tag: Tag) =>
  Effect.gen(function*() {
    const exit = yield* outcome(signed)
    assert.isTrue(Exit.isFailure(exit), `${tag} expected, the request was received`)
    const error = yield* Effect.flip(Effect.suspend(() => exit))
    assert.strictEqual(error._tag, tag, error.message)
    return error as Extract<ReceiveError.ReceiveError, { readonly _tag: Tag }>
  })

/** Batch 1's body with `field` written last as the JSON `value` (the last of a key wins in JSON). */
const batchWith = (field: string, value: string) => body({ last: null }).replace("\"last\":null", `${JSON.stringify(field)}:${value}`)

describe("hostile bodies", () => {
  it.effect("not JSON, empty, truncated, or JSON that is no batch: a MalformedBatch on body", () =>
    Effect.gen(function*() {
      for (const text of ["", " ", "{", "{\"streamId\":\"s\"", "undefined", "NaN", "{'a':1}", "true", "[{}]", "\u0000"]) {
        const error = yield* refused(request(text), "MalformedBatch")
        assert.strictEqual(error.field, "body", JSON.stringify(text))
      }
      assert.strictEqual((yield* refused(request(new Uint8Array()), "MalformedBatch")).field, "body")
    }))

  it.effect("numbers a batch cannot hold, and a sequence as a string: a MalformedBatch naming the field", () =>
    Effect.gen(function*() {
      const cases: ReadonlyArray<readonly [string, string, string]> = [
        ["sequence", "\"1\"", "sequence"],
        ["sequence", "1e400", "sequence"],
        ["sequence", "-1e400", "sequence"],
        ["sequence", "9007199254740993", "sequence"],
        ["sequence", "null", "sequence"],
        ["coverage", "[{\"chain\":\"0x1\",\"fromBlock\":\"1\",\"toBlock\":1e999}]", "coverage[0].toBlock"],
        ["coverage", "[{\"chain\":\"0x1\",\"fromBlock\":\"1\",\"toBlock\":\"1e999\"}]", "coverage[0].toBlock"],
        ["coverage", "[{\"chain\":\"0x1\",\"fromBlock\":\"-0\",\"toBlock\":\"1\"}]", "coverage[0].fromBlock"],
        ["coverage", "{\"0\":{\"chain\":\"0x1\",\"fromBlock\":\"1\",\"toBlock\":\"2\"},\"length\":1}", "coverage"],
        ["events", "{\"length\":1e9}", "events"],
        ["wallets", "[{\"chain\":\"0x1\",\"address\":\"\",\"coveredFrom\":\"1\"}]", "wallets[0].address"]
      ]
      for (const [field, value, path] of cases) {
        const error = yield* refused(request(batchWith(field, value)), "MalformedBatch")
        assert.strictEqual(error.field, path, `${field}: ${value}`)
      }
    }))

  it.effect("block numbers of thousands of digits, events nested deep, __proto__ keys: received exactly", () =>
    Effect.gen(function*() {
      const huge = `1${"0".repeat(4000)}`
      const text = batchWith(
        "coverage",
        JSON.stringify([{ chain: "0x1", fromBlock: huge, toBlock: `${huge.slice(0, -1)}9` }])
      ).replace("\"events\":[", `"events":[{"id":"ev_deep","nested":${"[".repeat(5000)}${"]".repeat(5000)}},{"__proto__":{"polluted":true},"id":"ev_proto"},`)
      const exit = yield* outcome(request(text))
      assert.isTrue(Exit.isSuccess(exit), String(exit))
      const { batch, state } = yield* Effect.suspend(() => exit)
      assert.deepStrictEqual(state.coverage, { "0x1": { from: huge, to: `${huge.slice(0, -1)}9` } })
      assert.deepStrictEqual(batch.events.map((event) => event.id), ["ev_deep", "ev_proto", "ev_1"])
      assert.isUndefined(({} as Record<string, unknown>).polluted)
    }))
})

describe("hostile headers", () => {
  const signed = batchRequest()
  const id = signed.headers["webhook-id"]!
  const timestamp = signed.headers["webhook-timestamp"]!
  const signature = signed.headers["webhook-signature"]!

  it.effect("missing, empty or blank, alone or all: an InvalidSignature missing-header naming each", () =>
    Effect.gen(function*() {
      for (const value of [undefined, "", "   ", [], [""]]) {
        for (const name of ["webhook-id", "webhook-timestamp", "webhook-signature"]) {
          const error = yield* refused({ headers: { ...signed.headers, [name]: value }, body: signed.body }, "InvalidSignature")
          assert.deepStrictEqual([error.reason, error.message], ["missing-header", `the request has no ${name} header`])
        }
      }
      const none = yield* refused({ headers: new Headers(), body: signed.body }, "InvalidSignature")
      assert.strictEqual(none.reason, "missing-header")
    }))

  it.effect("repeated: two ids or timestamps, as a Node array, joined by Node or by fetch, are refused; a signature repeated verifies", () =>
    Effect.gen(function*() {
      const other = String(now + 1)
      const malformed: ReadonlyArray<Receive.HeadersInput> = [
        { ...signed.headers, "webhook-id": [id, "msg_2"] },
        { ...signed.headers, "webhook-timestamp": [timestamp, other] },
        { ...signed.headers, "WEBHOOK-ID": "msg_2" }
      ]
      for (const headers of malformed) assert.strictEqual((yield* refused({ headers, body: signed.body }, "InvalidSignature")).reason, "malformed-header")
      // Node (and fetch) join a repeated header with ", ": an id with a space, a timestamp that is no number.
      const joinedId = new Headers(signed.headers)
      joinedId.append("webhook-id", id)
      assert.strictEqual((yield* refused({ headers: joinedId, body: signed.body }, "InvalidSignature")).reason, "malformed-header")
      const joinedTimestamp = { ...signed.headers, "webhook-timestamp": `${timestamp}, ${timestamp}` }
      assert.strictEqual((yield* refused({ headers: joinedTimestamp, body: signed.body }, "InvalidSignature")).reason, "bad-timestamp")
      // The same id or timestamp twice in an array is one value; signatures repeated are all tried.
      const rotated = sign({ id, timestamp, body: signed.body, secret: "whsec_c2Vjb25kIHNlY3JldCBvZiAyNCBieXRlcw==" })
      const repeated: ReadonlyArray<Receive.HeadersInput> = [
        { ...signed.headers, "webhook-id": [id, id], "webhook-timestamp": [timestamp, timestamp] },
        { ...signed.headers, "webhook-signature": [rotated, signature] },
        { ...signed.headers, "webhook-signature": `${rotated}, ${signature}` },
        new Headers([...Object.entries(signed.headers), ["webhook-signature", rotated]])
      ]
      for (const headers of repeated) assert.isTrue(Exit.isSuccess(yield* outcome({ headers, body: signed.body })), JSON.stringify(headers))
    }))

  it.effect("a header named get, a getter of padded values, a fetch Headers of blank values: read as headers, not as a getter", () =>
    Effect.gen(function*() {
      assert.isTrue(Exit.isSuccess(yield* outcome({ headers: { ...signed.headers, get: "x", Get: "y" }, body: signed.body })))
      const padded: Record<string, string> = { "webhook-id": ` ${id} `, "webhook-timestamp": `${timestamp}\t`, "webhook-signature": ` ${signature}` }
      assert.isTrue(Exit.isSuccess(yield* outcome({ headers: { get: (name: string) => padded[name] ?? null }, body: signed.body })))
      for (const name of ["webhook-id", "webhook-timestamp", "webhook-signature"]) {
        const blank = new Headers(signed.headers)
        blank.set(name, "  ")
        const error = yield* refused({ headers: blank, body: signed.body }, "InvalidSignature")
        assert.deepStrictEqual([error.reason, error.message], ["missing-header", `the request has no ${name} header`])
        const empty = yield* refused({ headers: { get: (header: string) => (header === name ? " " : padded[header] ?? null) }, body: signed.body }, "InvalidSignature")
        assert.strictEqual(empty.reason, "missing-header")
      }
    }))

  it.effect("the entries of a signature header: joined with a comma, among unknown tokens; an entry with no version is no entry", () =>
    Effect.gen(function*() {
      const rotated = sign({ id, timestamp, body: signed.body, secret: "whsec_c2Vjb25kIHNlY3JldCBvZiAyNCBieXRlcw==" })
      for (const value of [`${signature}, ${rotated}`, `${signature},`, `garbage ${signature}`, `${rotated}  \t ${signature}`]) {
        assert.isTrue(Exit.isSuccess(yield* outcome({ headers: { ...signed.headers, "webhook-signature": value }, body: signed.body })), value)
      }
      for (const value of [`,${signature.slice(3)}`, signature.slice(3), "v1"]) {
        const error = yield* refused({ headers: { ...signed.headers, "webhook-signature": value }, body: signed.body }, "InvalidSignature")
        assert.strictEqual(error.reason, "malformed-header", value)
      }
      // An entry that is not base64 among none that match: a mismatch, not a defect.
      assert.strictEqual((yield* refused({ headers: { ...signed.headers, "webhook-signature": "v1,!!!" }, body: signed.body }, "InvalidSignature")).reason, "mismatch")
    }))

  it.effect("a signature header of many entries, none matching, or of entries that are no base64: a mismatch", () =>
    Effect.gen(function*() {
      for (const value of [`${"v1,AAAA ".repeat(20_000)}v1,${"A".repeat(44)}`, "v1,!!! v1,=== v1,", `v1,${signature.slice(3, 20)}`]) {
        const error = yield* refused({ headers: { ...signed.headers, "webhook-signature": value }, body: signed.body }, "InvalidSignature")
        assert.strictEqual(error.reason, "mismatch", value.slice(0, 40))
      }
    }))
})
