/**
 * Between listening and serving its routes, the service's HTTP server answers 503 (it used to
 * leave such a request unanswered for ever); once the routes' listener is added, they answer.
 */
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { afterEach, assert, describe, it } from "vitest"
import { answerWhileStarting } from "../src/api/HttpStarting.js"

let server: Server | undefined
afterEach(async () => {
  server?.closeAllConnections()
  await new Promise<void>((resolve) => (server === undefined ? resolve() : server.close(() => resolve())))
  server = undefined
})

const listening = async (): Promise<string> => {
  server = answerWhileStarting(createServer())
  await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

describe("HttpStarting.answerWhileStarting", () => {
  it("answers 503 starting, with Retry-After, before the routes are served", async () => {
    const url = await listening()
    const response = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(10_000) })
    assert.strictEqual(response.status, 503)
    assert.strictEqual(response.headers.get("retry-after"), "1")
    assert.deepInclude(await response.json(), { error: "starting" })
  })

  it("lets the routes answer alone once their listener is added", async () => {
    const url = await listening()
    server!.on("request", (_request, response) => response.end("served"))
    assert.strictEqual(server!.listenerCount("request"), 1)
    const response = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(10_000) })
    assert.strictEqual(response.status, 200)
    assert.strictEqual(await response.text(), "served")
  })
})
