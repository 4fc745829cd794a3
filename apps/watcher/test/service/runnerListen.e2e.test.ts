/**
 * Where a runner of a cluster listens for the others (their protocol is not authenticated): with
 * its advertised address this host's name (what `--cluster` alone advertises, at port 34431: see
 * `clusterFlags.test.ts`), only where that name points, not on every interface; and it says so in
 * one line at start-up. The port is one found free below Linux's ephemeral range rather than
 * 34431, which an outgoing connection of another test may hold at that moment (`EADDRINUSE`).
 */
import { lookup } from "node:dns/promises"
import { connect } from "node:net"
import { hostname } from "node:os"
import { afterAll, assert, describe, it } from "vitest"
import { sleep, withSimulator } from "../e2e/support/e2e.js"
import { freePorts } from "./support/clusterE2e.js"
import { freshDatabase, serveArgs, startService } from "./support/serveE2e.js"

const cleanups: Array<() => Promise<void>> = []
afterAll(async () => {
  for (const cleanup of cleanups.toReversed()) await cleanup()
})

/** Whether a TCP connection to `host:port` is accepted (`false`: refused). */
const accepts = (host: string, port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = connect({ host, port })
    socket.once("connect", () => {
      socket.destroy()
      resolve(true)
    })
    socket.once("error", () => resolve(false))
  })

/** Some other loopback address than `resolved` (Linux answers all of 127.0.0.0/8): a runner on every interface takes it. */
const elsewhere = (resolved: string): string => resolved === "127.0.0.2" ? "127.0.0.3" : "127.0.0.2"

describe("the runners' port", () => {
  it("--cluster at this host's name listens where the name points, not on every interface, and says where", async () => {
    const port = (await freePorts(1))[0]!
    const resolved = (await lookup(hostname())).address
    await withSimulator({ seed: 1621, indexing: false, chains: ["0x1"] }, async (sim) => {
      const database = await freshDatabase()
      cleanups.push(database.drop)
      const service = await startService(database.url, serveArgs(sim, ["--cluster", "--runner-address", `${hostname()}:${port}`]))
      cleanups.push(async () => void (await service.process.stop("SIGKILL")))
      await service.process.waitFor(
        "the line saying where the runners' port listens",
        () => service.process.stderr.includes(`the runners' port listens on ${hostname()}:${port}`),
        30_000
      )
      assert.include(service.process.stderr, `(${resolved})`, "the address the name resolves to is told")
      // The socket may open just after the line: wait for it where it should be.
      const deadline = Date.now() + 30_000
      while (!(await accepts(resolved, port))) {
        assert.isBelow(Date.now(), deadline, `nothing listens on ${resolved}:${port}; stderr:\n${service.process.stderr.slice(-2000)}`)
        await sleep(100)
      }
      assert.isFalse(await accepts(elsewhere(resolved), port), `the runners' port answers on ${elsewhere(resolved)}: it listens on every interface`)
    })
  }, 120_000)
})
