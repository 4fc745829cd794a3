/**
 * Issue #19 at the CLI: against a hostile service (an error page that prints the key, a 401 that
 * echoes it, a redirect to another origin on 127.0.0.2), `chainquery-watcher --once` fails with
 * the reason on stderr, the key never appears in anything it prints, and the other origin is never
 * asked. `http:` to a host that is not loopback exits 2 before any request, unless
 * `--allow-insecure-http` (then one warning). `0.0.0.0` reaches this machine's servers on Linux
 * without being a loopback name.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createServer, type Server, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { join } from "node:path"
import { runCli, tempDir } from "./support/e2e.js"

const key = "cq+live/5f3a9c0e7b2d4a6f8e1c3b5d7a9f0e2c4b6d8f0a=="
const forms = [key, encodeURIComponent(key), key.slice(0, 8)]
const dir = tempDir("key-safety")

/** How the hostile service answers, by the first segment of the path the CLI was given. */
const answers: Record<string, (response: ServerResponse) => void> = {
  "html-500": (response) => {
    response.writeHead(500, { "content-type": "text/html" })
    response.end(`<html><body><pre>request headers: x-api-key: ${key}</pre></body></html>`)
  },
  "echo-401": (response) => {
    response.writeHead(401, { "content-type": "application/json" })
    response.end(JSON.stringify({ message: `Invalid key ${key}` }))
  },
  "redirect-302": (response) => {
    response.writeHead(302, { location: `http://127.0.0.2:${portOf(elsewhere)}/collect?key=${encodeURIComponent(key)}` })
    response.end()
  }
}

let asked: Array<string> = []
let elsewhereAsked = 0
const service: Server = createServer((request, response) => {
  asked.push(request.url ?? "")
  const answer = answers[(request.url ?? "").split("/")[1] ?? ""]
  if (answer === undefined) response.writeHead(404).end()
  else answer(response)
})
const elsewhere: Server = createServer((_, response) => void (elsewhereAsked++, response.end("{}")))
const portOf = (server: Server) => (server.address() as AddressInfo).port
beforeAll(() =>
  Promise.all([[service, "127.0.0.1"], [elsewhere, "127.0.0.2"]].map(([server, host]) =>
    new Promise<void>((resolve) => (server as Server).listen(0, host as string, resolve))
  )))
afterAll(async () => {
  await Promise.all([service, elsewhere].map((server) => new Promise((resolve) => server.close(resolve))))
  dir.remove()
})

const watch = (baseUrl: string, ...extra: Array<string>) =>
  runCli([
    "--wallet", "eth:0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed", "--once", "--format", "json", "--watch", "transfers",
    "--request-timeout", "5s", "--state", join(dir.path, `${asked.length}-${extra.length}.db`),
    "--api-key", key, "--evm-base-url", baseUrl, ...extra
  ])

describe("the CLI against a hostile service", () => {
  // A refused key is the operator's to fix: exit 2, as bad input.
  for (const [name, reason, code] of [
    ["html-500", /x-api-key: <redacted>/, 1],
    ["echo-401", /refused the API key \(HTTP 401: .*Invalid key <redacted>/, 2],
    ["redirect-302", /Redirected|redirects are not followed/, 1]
  ] as const) {
    it(`${name}: fails with the reason, prints no trace of the key, asks no other origin`, async () => {
      asked = []
      const result = await watch(`http://127.0.0.1:${portOf(service)}/${name}`)
      expect(result.code, result.stderr).toBe(code)
      expect(result.stderr).toMatch(reason)
      expect(asked.length, "the service was asked").toBeGreaterThan(0)
      for (const form of forms) {
        expect(result.stdout).not.toContain(form)
        expect(result.stderr).not.toContain(form)
      }
      expect(elsewhereAsked).toBe(0)
    })
  }
})

describe("http: to a host that is not loopback", () => {
  it("exits 2 before any request, naming the flag and --allow-insecure-http", async () => {
    asked = []
    const result = await watch(`http://0.0.0.0:${portOf(service)}/echo-401`)
    expect(result.code, result.stderr).toBe(2)
    expect(result.stderr).toMatch(/Invalid --evm-base-url option: expected an https: URL .*or with --allow-insecure-http\), got http:\/\/0\.0\.0\.0:\d+\/echo-401/)
    expect(result.stdout).toBe("")
    expect(asked).toEqual([])
  })

  it("is sent with --allow-insecure-http, with one warning and no key", async () => {
    asked = []
    const result = await watch(`http://0.0.0.0:${portOf(service)}/echo-401`, "--allow-insecure-http")
    expect(result.code, result.stderr).toBe(2)
    expect(asked.length).toBeGreaterThan(0)
    expect(result.stderr.match(/sent in clear text/g)?.length).toBe(1)
    for (const form of forms) expect(result.stderr).not.toContain(form)
  })
})
