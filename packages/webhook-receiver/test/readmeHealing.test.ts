/**
 * The README's recipe "From a gap to a healed state", run as written (see `support/readme.ts`)
 * against a stand-in of the service on 127.0.0.1 that records what it is asked: a state missing
 * sequences 2 and 4 asks, in one call, for the batches 2 to 4 with the bearer token; a state with
 * nothing missing, or bound to no stream yet, asks nothing. (The real service answering it, and the
 * batches healing the state, are checked end to end in `apps/watcher/test/service/healing.e2e.test.ts`.)
 */
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import type { ReceiverState } from "../src/index.js"
import { ReceiverState as State } from "../src/index.js"
import { readme, runReadmeBlock } from "./support/readme.js"
import { streamId } from "./support/signing.js"

const asked: Array<{ readonly method: string; readonly path: string; readonly authorization: string; readonly body: unknown }> = []
const server: Server = createServer(async (request, response) => {
  const chunks: Array<Buffer> = []
  for await (const chunk of request) chunks.push(chunk as Buffer)
  asked.push({ method: request.method ?? "", path: request.url ?? "", authorization: request.headers.authorization ?? "", body: JSON.parse(Buffer.concat(chunks).toString("utf8")) })
  response.writeHead(202, { "content-type": "application/json" }).end(JSON.stringify({ deliveries: 3, events: 12 }))
})
let askForReplay: (state: ReceiverState.ReceiverState) => Promise<number | undefined>

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  readme.serviceUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  readme.apiToken = "token-of-the-test"
  askForReplay = (await runReadmeBlock("From a gap to a healed state", "healing")).askForReplay as typeof askForReplay
})
afterAll(async () => {
  server.closeAllConnections()
  await new Promise<void>((resolve) => server.close(() => resolve()))
})

describe("the README's recipe from a gap to a healed state, run as written", () => {
  it("asks for every missing batch in one call, and for nothing when nothing is missing", async () => {
    const holes: ReceiverState.ReceiverState = {
      streamId,
      sequence: 5,
      lastDeliveryId: "msg_5",
      coverage: { "0x1": { from: "100", to: "149" } },
      missing: { sequences: [{ from: 2, to: 2 }, { from: 4, to: 4 }], blocks: [{ scope: "0x1", from: "110", to: "119" }] }
    }
    assert.strictEqual(await askForReplay(holes), 202)
    assert.deepStrictEqual(asked, [{
      method: "POST",
      path: `/v1/streams/${streamId}/replay`,
      authorization: "Bearer token-of-the-test",
      body: { fromSequence: 2, toSequence: 4 }
    }])
    const { missing: _, ...healed } = holes
    assert.isUndefined(await askForReplay(healed))
    assert.isUndefined(await askForReplay(State.initial))
    assert.strictEqual(asked.length, 1)
  })
})
