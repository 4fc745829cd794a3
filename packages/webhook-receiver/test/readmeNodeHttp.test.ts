/**
 * The README's bare `node:http` server, run as written (see `support/readme.ts`: the kit from its
 * source, `loadState` and `processBatch` given by the test, the server listening on a free port of
 * 127.0.0.1 instead of 8080), on the system clock as in the README, against real requests: each
 * branch of its `switch` answers as the README says, the state it stores follows the stream, and
 * hostile requests (a body that is not JSON or not a batch, huge numbers, a sequence as a string,
 * headers missing or repeated) are answered 400 or 401 by a server that keeps running.
 */
import { afterAll, assert, beforeAll, describe, it, vi } from "@effect/vitest"
import { request as httpRequest, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import type { Batch, ReceiverState } from "../src/index.js"
import { ReceiverState as State } from "../src/index.js"
import { readme, runReadmeBlock } from "./support/readme.js"
import { batchRequest, body, evm, otherSecret, request, secret, sign, streamId } from "./support/signing.js"

/** What the example's storage saw: the state it holds and the sequences it processed. */
let stored: ReceiverState.ReceiverState = State.initial
const processed: Array<number> = []
readme.loadState = () => Promise.resolve(stored)
readme.processBatch = (batch: Batch.Batch, state: ReceiverState.ReceiverState) => {
  processed.push(batch.sequence)
  stored = state
  return Promise.resolve()
}

const warn = vi.spyOn(console, "warn").mockImplementation(() => {})
const error = vi.spyOn(console, "error").mockImplementation(() => {})
const secretBefore = process.env.WEBHOOK_SECRET
let server: Server | undefined
let port = 0

beforeAll(async () => {
  process.env.WEBHOOK_SECRET = secret
  const listening = new Promise<Server>((resolve) => {
    readme.listening = function(this: Server) {
      resolve(this)
    }
  })
  await runReadmeBlock("A bare `node:http` server", "nodeHttp", { replacements: [[".listen(8080)", ".listen(0, \"127.0.0.1\", readme.listening)"]] })
  server = await listening
  port = (server.address() as AddressInfo).port
})

afterAll(async () => {
  if (secretBefore === undefined) delete process.env.WEBHOOK_SECRET
  else process.env.WEBHOOK_SECRET = secretBefore
  warn.mockRestore()
  error.mockRestore()
  if (server === undefined) return
  server.closeAllConnections()
  await new Promise<void>((resolve) => server!.close(() => resolve()))
})

/** The system clock in unix seconds, as the example's `receivePromise` reads it. */
const seconds = () => Math.floor(Date.now() / 1000)

/**
 * POSTs `body` with `headers` (an array value is sent as that many header lines) over a fresh
 * connection; resolves to the status and the text answered.
 */
const post = (headers: Record<string, string | ReadonlyArray<string>>, payload: string | Uint8Array) =>
  new Promise<{ readonly status: number; readonly text: string }>((resolve, reject) => {
    const outgoing = httpRequest({ host: "127.0.0.1", port, path: "/webhooks", method: "POST", headers: headers as Record<string, string | Array<string>>, agent: false }, (response) => {
      const chunks: Array<Buffer> = []
      response.on("data", (chunk: Buffer) => chunks.push(chunk))
      response.on("end", () => resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") }))
      response.on("error", reject)
    })
    outgoing.on("error", reject)
    outgoing.end(payload)
  })

/** POSTs a signed request. */
const send = (signed: { readonly headers: Record<string, string>; readonly body: string | Uint8Array }) => post(signed.headers, signed.body)

/** Batch 9's body with `field` written last as the JSON `value` (the last of a key wins in JSON). */
const batch9With = (field: string, value: string) =>
  body({ sequence: 9, deliveryId: "msg_9", last: null }).replace("\"last\":null", `${JSON.stringify(field)}:${value}`)

/** The stored state after `sequence`, covering 0x1 from 100 to `to`. */
const storedAfter = (sequence: number, to: number): ReceiverState.ReceiverState => ({
  streamId,
  sequence,
  lastDeliveryId: `msg_${sequence}`,
  coverage: { "0x1": { from: "100", to: String(to) } }
})

describe("the README's bare node:http server, run as written", () => {
  it("answers each outcome as its switch says and stores the state of each batch it processes", async () => {
    const first = batchRequest({ sequence: 1, coverage: [evm("0x1", 100, 109)] }, { timestamp: seconds() })
    assert.deepStrictEqual(await send(first), { status: 200, text: "" })
    assert.deepStrictEqual([processed, stored], [[1], storedAfter(1, 109)])

    // A retry of batch 1: acknowledged, not processed again.
    assert.deepStrictEqual(await send(first), { status: 200, text: "" })
    assert.deepStrictEqual(processed, [1])

    // Refused without touching the state: a tampered body, another secret, an old request.
    const tampered = (first.body as string).replace("\"tokenId\":\"7\"", "\"tokenId\":\"8\"")
    assert.strictEqual((await send({ headers: first.headers, body: tampered })).status, 401)
    assert.strictEqual((await send(batchRequest({ sequence: 2 }, { timestamp: seconds(), secret: otherSecret }))).status, 401)
    assert.strictEqual((await send(batchRequest({ sequence: 2 }, { timestamp: seconds() - 3600 }))).status, 401)
    const other = await send(batchRequest({ sequence: 2, streamId: "str_other" }, { timestamp: seconds() }))
    assert.strictEqual(other.status, 409)
    assert.include(other.text, "str_other")
    const twice = await send(batchRequest({ sequence: 2, coverage: [evm("0x1", 105, 115)] }, { timestamp: seconds() }))
    assert.strictEqual(twice.status, 409)
    assert.include(twice.text, "0x1 105..109")
    assert.strictEqual(error.mock.calls.length, 2)
    assert.deepStrictEqual([processed, stored], [[1], storedAfter(1, 109)])

    // Batch 2 (blocks 110..119) is lost: batch 3 is taken, the gap logged with what is missing.
    assert.deepStrictEqual(await send(batchRequest({ sequence: 3, coverage: [evm("0x1", 120, 129)] }, { timestamp: seconds() })), { status: 200, text: "" })
    const hole = { sequences: [{ from: 2, to: 2 }], blocks: [{ scope: "0x1", from: "110", to: "119" }] }
    assert.deepStrictEqual([processed, stored], [[1, 3], { ...storedAfter(3, 129), missing: hole }])
    assert.strictEqual(warn.mock.calls.length, 1)
    const [message, missingSequences, missingBlocks] = warn.mock.calls[0]!
    assert.include(message, "sequences never received: 2; blocks never covered: 0x1 110..119")
    assert.deepStrictEqual([missingSequences, missingBlocks], [{ from: 2, to: 2 }, [{ scope: "0x1", from: "110", to: "119" }]])

    // A secret that is not whsec_<base64> is the server's fault: 500.
    process.env.WEBHOOK_SECRET = "whsec_not base64!"
    assert.strictEqual((await send(batchRequest({ sequence: 4, coverage: [evm("0x1", 130, 130)] }, { timestamp: seconds() }))).status, 500)
    process.env.WEBHOOK_SECRET = secret
    assert.strictEqual((await send(batchRequest({ sequence: 4, coverage: [evm("0x1", 130, 130)] }, { timestamp: seconds() }))).status, 200)
    assert.deepStrictEqual([processed, stored], [[1, 3, 4], { ...storedAfter(4, 130), missing: hole }])

    // Batch 2 sent again as it was (a replay by sequence): processed, the hole gone; again: processed already.
    const again = batchRequest({ sequence: 2, replay: true, coverage: [evm("0x1", 110, 119)] }, { timestamp: seconds() })
    assert.deepStrictEqual(await send(again), { status: 200, text: "" })
    assert.deepStrictEqual([processed, stored], [[1, 3, 4, 2], storedAfter(4, 130)])
    assert.deepStrictEqual(await send(again), { status: 200, text: "" })
    assert.deepStrictEqual(processed, [1, 3, 4, 2])
  })

  it("answers hostile requests 400 or 401, naming the field, and keeps running", async () => {
    const before = { processed: [...processed], stored }
    const signedText = (text: string) => request(text, { id: "msg_9", timestamp: seconds() })
    const malformed: ReadonlyArray<readonly [string, string]> = [
      ["{\"streamId\":", "body"],
      ["not json at all", "body"],
      ["[]", "body"],
      [batch9With("sequence", "\"9\""), "sequence"],
      [batch9With("sequence", "1e400"), "sequence"],
      [batch9With("sequence", "9007199254740993"), "sequence"],
      [batch9With("coverage", "[{\"chain\":\"0x1\",\"fromBlock\":131,\"toBlock\":1e300}]"), "coverage[0].fromBlock"],
      [batch9With("events", "{\"length\":1e9}"), "events"]
    ]
    for (const [text, field] of malformed) {
      const answer = await send(signedText(text))
      assert.strictEqual(answer.status, 400, text)
      assert.include(answer.text, field === "body" ? "the body is not a batch" : `the batch's ${field} is invalid`, text)
    }
    const good = batchRequest({ sequence: 5, coverage: [evm("0x1", 131, 131)] }, { timestamp: seconds() })
    const { "webhook-id": id, "webhook-timestamp": timestamp, "webhook-signature": signature, ...rest } = good.headers
    const refused: ReadonlyArray<Record<string, string | ReadonlyArray<string>>> = [
      rest,
      { ...rest, "webhook-id": id!, "webhook-timestamp": timestamp! },
      { ...rest, "webhook-id": [id!, "msg_6"], "webhook-timestamp": timestamp!, "webhook-signature": signature! },
      { ...rest, "webhook-id": id!, "webhook-timestamp": [timestamp!, timestamp!], "webhook-signature": signature! },
      { ...rest, "webhook-id": id!, "webhook-timestamp": `${timestamp!}000`, "webhook-signature": signature! }
    ]
    for (const headers of refused) assert.strictEqual((await post(headers, good.body)).status, 401, JSON.stringify(headers))
    assert.deepStrictEqual({ processed, stored }, before)
    // A signature header repeated (a second secret's entry on a line of its own) still verifies.
    const rotated = sign({ id: id!, timestamp: timestamp!, body: good.body, secret: otherSecret })
    assert.strictEqual((await post({ ...good.headers, "webhook-signature": [rotated, signature!] }, good.body)).status, 200)
    assert.deepStrictEqual([processed, stored], [[...before.processed, 5], storedAfter(5, 131)])
  })
})
