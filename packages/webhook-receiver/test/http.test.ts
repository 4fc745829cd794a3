/**
 * The Promise API behind a bare node:http server, as the README shows it: the raw body read from
 * the request, 200 for a batch and for one processed already, a gap logged and accepted, 401 for
 * a bad signature or a stale timestamp, 400 for a malformed body, 409 for another stream. The
 * requests are real (fetch to 127.0.0.1, port 0); the time is the test's `now`, not the clock.
 */
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { Receive, type ReceiveError, ReceiverState } from "../src/index.js"
import { batchRequest, body, evm, now, otherSecret, request, secret, streamId } from "./support/signing.js"

/** What the receiver did: the batches it processed and the gaps it logged. */
const processed: Array<number> = []
const gaps: Array<ReceiveError.Gap> = []
let state = ReceiverState.initial

const statusOf = (error: ReceiveError.ReceiveError): number => {
  switch (error._tag) {
    case "AlreadyProcessed":
      return 200
    case "InvalidSignature":
    case "StaleTimestamp":
      return 401
    case "MalformedBatch":
      return 400
    case "InvalidConfig":
      return 500
    default:
      return 409
  }
}

const server: Server = createServer(async (incoming, response) => {
  const chunks: Array<Buffer> = []
  for await (const chunk of incoming) chunks.push(chunk as Buffer)
  const result = await Receive.receivePromise({ headers: incoming.headers, body: Buffer.concat(chunks), secret, state, now }).catch(() => undefined)
  if (result === undefined) {
    response.writeHead(500).end(JSON.stringify({ tag: "Defect" }))
    return
  }
  let status: number
  let tag = "Received"
  if (result.ok) {
    if (result.healed !== undefined) tag = "Healed"
    processed.push(result.batch.sequence)
    state = result.state
    status = 200
  } else if (result.error._tag === "Gap") {
    gaps.push(result.error)
    processed.push(result.error.batch.sequence)
    state = result.error.state
    status = 200
    tag = "Gap"
  } else {
    status = statusOf(result.error)
    tag = result.error._tag
  }
  response.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify({ tag }))
})

let url = ""
beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`
})
afterAll(async () => {
  server.closeAllConnections()
  await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())))
})

/** POSTs a signed request; returns the status and the tag the server answered with. */
const post = async (signed: { readonly headers: Record<string, string>; readonly body: string | Uint8Array }) => {
  const response = await fetch(url, { method: "POST", headers: signed.headers, body: signed.body })
  const { tag } = (await response.json()) as { tag: string }
  return { status: response.status, tag }
}

describe("a node:http receiver on the Promise API", () => {
  it("answers each delivery as the README says, and keeps the state in step", async () => {
    const first = batchRequest({ sequence: 1, coverage: [evm("0x1", 100, 109)] })
    assert.deepStrictEqual(await post(first), { status: 200, tag: "Received" })
    assert.deepStrictEqual(await post(first), { status: 200, tag: "AlreadyProcessed" })

    const tampered = { ...first, body: (first.body as string).replace("\"sequence\":1", "\"sequence\":2") }
    assert.deepStrictEqual(await post(tampered), { status: 401, tag: "InvalidSignature" })
    assert.deepStrictEqual(await post(batchRequest({ sequence: 2 }, { secret: otherSecret })), { status: 401, tag: "InvalidSignature" })
    assert.deepStrictEqual(await post(batchRequest({ sequence: 2 }, { timestamp: now - 3600 })), { status: 401, tag: "StaleTimestamp" })
    assert.deepStrictEqual(await post(request("{\"not\":\"a batch\"}", { id: "msg_2" })), { status: 400, tag: "MalformedBatch" })
    assert.deepStrictEqual(await post(batchRequest({ sequence: 2, streamId: "str_other" })), { status: 409, tag: "WrongStream" })

    // Batch 2 (blocks 110..119) is lost; batch 3 arrives, is accepted, and the gap is logged exactly.
    assert.deepStrictEqual(await post(batchRequest({ sequence: 3, coverage: [evm("0x1", 120, 129)] })), { status: 200, tag: "Gap" })
    assert.strictEqual(gaps.length, 1)
    assert.deepStrictEqual(gaps[0]!.missingSequences, { from: 2, to: 2 })
    assert.deepStrictEqual(gaps[0]!.missingBlocks, [{ scope: "0x1", from: "110", to: "119" }])

    assert.deepStrictEqual(await post(request(body({ sequence: 4, coverage: [evm("0x1", 130, 130)] }))), { status: 200, tag: "Received" })
    assert.deepStrictEqual(processed, [1, 3, 4])
    const hole = { sequences: [{ from: 2, to: 2 }], blocks: [{ scope: "0x1", from: "110", to: "119" }] }
    assert.deepStrictEqual(state, { streamId, sequence: 4, lastDeliveryId: "msg_4", coverage: { "0x1": { from: "100", to: "130" } }, missing: hole })
    // Batch 2 sent again as it was: healed, the hole gone, the sequence where it was; once more: processed already.
    const again = request(body({ sequence: 2, replay: true, coverage: [evm("0x1", 110, 119)] }))
    assert.deepStrictEqual(await post(again), { status: 200, tag: "Healed" })
    assert.deepStrictEqual(processed, [1, 3, 4, 2])
    assert.deepStrictEqual(state, { streamId, sequence: 4, lastDeliveryId: "msg_4", coverage: { "0x1": { from: "100", to: "130" } } })
    assert.deepStrictEqual(await post(again), { status: 200, tag: "AlreadyProcessed" })
  })
})
