/**
 * The HTTP server's limits, on the real `serve` process with small values: a connection that sends
 * nothing, one idle after an answer and one sending its body too slowly are closed within their
 * timeout; connections over `--http-max-connections` are closed as they come; a bad value exits 2
 * naming the flag.
 */
import { connect, type Socket } from "node:net"
import { afterAll, assert, describe, it } from "vitest"
import { runCli, withSimulator } from "../e2e/support/e2e.js"
import { apiToken, freshDatabase, serveArgs, type Service, startService } from "./support/serveE2e.js"

const cleanups: Array<() => Promise<void>> = []
afterAll(async () => {
  for (const cleanup of cleanups.toReversed()) await cleanup()
})

/** A raw connection to the service: what it received, and when it was closed (ms after it opened). */
interface Connection {
  readonly socket: Socket
  readonly received: () => string
  readonly closed: Promise<number>
  readonly isClosed: () => boolean
}

const open = (service: Service): Promise<Connection> =>
  new Promise((resolve, reject) => {
    const { hostname, port } = new URL(service.url)
    const socket = connect({ host: hostname, port: Number(port) })
    const started = Date.now()
    let text = ""
    let done = false
    socket.on("data", (chunk: Buffer) => (text += chunk.toString()))
    socket.on("error", () => undefined)
    const closed = new Promise<number>((settle) => socket.once("close", () => {
      done = true
      settle(Date.now() - started)
    }))
    cleanups.push(async () => void socket.destroy())
    socket.once("connect", () => resolve({ socket, received: () => text, closed, isClosed: () => done }))
    socket.once("error", reject)
  })

/** `promise`, or a failure naming `what` after `ms`. */
const within = async <A>(promise: Promise<A>, ms: number, what: string): Promise<A> => {
  let timer: ReturnType<typeof setTimeout> | undefined
  try {
    return await Promise.race([promise, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms)))])
  } finally {
    clearTimeout(timer)
  }
}

/** Waits until `condition` holds (every 25 ms), failing with `what` after `ms`. */
const until = async (condition: () => boolean, ms: number, what: string): Promise<void> => {
  const deadline = Date.now() + ms
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`)
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
}

const healthz = "GET /healthz HTTP/1.1\r\nHost: watcher\r\n\r\n"

/** Generous: the machine is shared and loaded; without the limits these connections stay open for a minute or more. */
const bound = 20_000

describe("the HTTP server's limits", () => {
  it("closes a connection that sends nothing, one idle after an answer, and one whose body is too slow", async () => {
    await withSimulator({ seed: 1631, indexing: false, chains: ["0x1"] }, async (sim) => {
      const database = await freshDatabase()
      cleanups.push(database.drop)
      const service = await startService(
        database.url,
        serveArgs(sim, ["--http-header-timeout", "1s", "--http-request-timeout", "2s", "--http-idle-timeout", "1s"])
      )
      cleanups.push(async () => void (await service.process.stop("SIGKILL")))

      const silent = await open(service)
      const idle = await open(service)
      idle.socket.write(healthz)
      await until(() => idle.received().includes("\r\n\r\n"), bound, "the answer to /healthz")
      assert.match(idle.received(), /^HTTP\/1\.1 200 /)
      assert.notMatch(idle.received(), /connection: close/i, "the answer keeps the connection alive")
      // Node announces its idle timeout (its default is 5 s): the configured one is in force.
      assert.match(idle.received(), /\r\nkeep-alive: timeout=1\r\n/i)
      const slow = await open(service)
      slow.socket.write(
        `POST /v1/streams HTTP/1.1\r\nHost: watcher\r\nAuthorization: Bearer ${apiToken}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{`
      )
      // A byte every 200 ms: the body would take 200 s.
      const drip = setInterval(() => slow.isClosed() || slow.socket.write(" "), 200)
      cleanups.push(async () => clearInterval(drip))

      await within(silent.closed, bound, "the silent connection closed")
      await within(idle.closed, bound, "the idle connection closed")
      const slowClosed = await within(slow.closed, bound, "the slow body cut")
      clearInterval(drip)
      assert.match(slow.received(), /^HTTP\/1\.1 408 /, "the slow request is answered 408")
      assert.isBelow(slowClosed, 30_000, "cut long before its body ended")
      assert.strictEqual((await service.process.stop("SIGTERM")).code, 0)
    })
  }, 120_000)

  it("closes the connections over --http-max-connections as they come, and takes new ones once others closed", async () => {
    await withSimulator({ seed: 1632, indexing: false, chains: ["0x1"] }, async (sim) => {
      const database = await freshDatabase()
      cleanups.push(database.drop)
      const service = await startService(database.url, serveArgs(sim, ["--http-max-connections", "2"]))
      cleanups.push(async () => void (await service.process.stop("SIGKILL")))

      const held = [await open(service), await open(service)]
      for (const connection of held) {
        connection.socket.write(healthz)
        await until(() => connection.received().includes("\r\n\r\n"), bound, "the answer on a held connection")
      }
      const over = await open(service)
      over.socket.write(healthz)
      await within(over.closed, bound, "the connection over the maximum closed")
      assert.strictEqual(over.received(), "", "no answer over the maximum")
      assert.isFalse(held.some((connection) => connection.isClosed()), "the held connections stay open")

      held[0]!.socket.destroy()
      await held[0]!.closed
      // The server counts the closed one out once it saw it close: try until a new one is answered.
      let answered = ""
      const deadline = Date.now() + bound
      while (answered === "") {
        assert.isBelow(Date.now(), deadline, "no new connection taken after one closed")
        const next = await open(service)
        next.socket.write(healthz)
        await until(() => next.isClosed() || next.received().includes("\r\n\r\n"), bound, "an answer or a close")
        answered = next.received()
        next.socket.destroy()
      }
      assert.match(answered, /^HTTP\/1\.1 200 /)
    })
  }, 120_000)

  it("a bad value exits 2 naming the flag", async () => {
    const fine = ["serve", "--api-key", "k", "--api-token", apiToken, "--data-dir", "/nonexistent/never-created"]
    const cases: ReadonlyArray<readonly [ReadonlyArray<string>, RegExp]> = [
      [["--http-header-timeout", "soon"], /--http-header-timeout: expected a duration/],
      [["--http-request-timeout", "10ms"], /--http-request-timeout/],
      [["--http-idle-timeout", "-1s"], /--http-idle-timeout/],
      [["--http-max-connections", "0"], /--http-max-connections: expected 1 to 1000000, got 0/],
      [["--http-header-timeout", "30s", "--http-request-timeout", "20s"], /--http-header-timeout \(30s\) must be at most --http-request-timeout \(20s\)/]
    ]
    for (const [flags, expected] of cases) {
      const run = await runCli([...fine, ...flags])
      assert.strictEqual(run.code, 2, `${flags.join(" ")}: ${run.stderr}`)
      assert.match(run.stderr, expected, flags.join(" "))
    }
  }, 120_000)
})
