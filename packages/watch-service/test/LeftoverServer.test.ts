/**
 * What the start of the embedded PostgreSQL makes of the process a lock (`postmaster.pid`) names:
 * only what is shown counts. A lock is stale when its process is gone, a zombie, or positively not
 * a PostgreSQL of this folder; one whose process may be this folder's PostgreSQL is never taken for
 * stale (`unknown`: the start stops and says what to check).
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs"
import { tmpdir } from "node:os"
import path from "node:path"
import { afterAll, assert, describe, it } from "vitest"
import { judge } from "../src/store/embedded/LeftoverServer.js"

const root = mkdtempSync(path.join(tmpdir(), "leftover-"))
const pgdata = path.join(root, "postgres")
const linked = path.join(root, "linked")
mkdirSync(pgdata)
symlinkSync(root, linked)
afterAll(() => rmSync(root, { recursive: true, force: true }))

const server = ["/opt/pg/bin/postgres", "-D", pgdata, "-p", "5432"]
const alive = (args: ReadonlyArray<string> | undefined, workingFolder?: string) => ({ liveness: "alive" as const, args, workingFolder })

describe("LeftoverServer.judge", () => {
  it("a process gone or not reaped is said so, whatever it was", () => {
    assert.strictEqual(judge({ liveness: "gone", args: undefined, workingFolder: undefined }, pgdata), "gone")
    assert.strictEqual(judge({ liveness: "zombie", args: undefined, workingFolder: undefined }, pgdata), "zombie")
  })

  it("this folder's server, by its -D, however the folder is written", () => {
    assert.strictEqual(judge(alive(server), pgdata), "server")
    assert.strictEqual(judge(alive(["/opt/pg/bin/postgres", "-D", path.join(linked, "postgres")]), pgdata), "server")
    assert.strictEqual(judge(alive(["postgres: checkpointer"], pgdata), pgdata), "server", "a worker working in the folder")
  })

  it("a program that is not PostgreSQL, or another folder's PostgreSQL, is another program", () => {
    assert.strictEqual(judge(alive(["/usr/bin/sleep", "120"]), pgdata), "other")
    assert.strictEqual(judge(alive(["/opt/pg/bin/postgres", "-D", path.join(root, "elsewhere")]), pgdata), "other")
    assert.strictEqual(judge(alive(["postgres: walwriter"], path.join(root, "elsewhere")), pgdata), "other")
  })

  it("a live process that may be this folder's PostgreSQL is unknown, never stale", () => {
    assert.strictEqual(judge(alive(undefined), pgdata), "unknown", "its arguments cannot be read")
    assert.strictEqual(judge(alive(["postgres: checkpointer"], undefined), pgdata), "unknown", "a worker whose folder cannot be read")
  })
})
