/**
 * `serve` on its embedded PostgreSQL, treated as an operator's terminal and a container runtime
 * treat it: signals go to the whole process group (a Ctrl-C), and a hard kill takes the group and
 * the database with it (a control-group kill, the OOM killer).
 *
 * - SIGINT to the group stops the service in order, the database last: exit 0, no PostgreSQL left,
 *   no stack trace (the same signal echoed at once counts once); a second signal during a slow
 *   shutdown exits at once.
 * - Ten hard kills in a row, each followed at once by a restart: each comes up, with every stream
 *   and wallet committed before.
 * - The superuser password is never world-readable while the database is initialised; the
 *   server's environment holds no secret of the service.
 * - A folder of an earlier version is switched to scram-sha-256; the server listens on 127.0.0.1
 *   only, with no Unix socket; a second service on a folder in use is refused.
 * - A server that cannot start fails the service with its last log lines (exit 1, no stack trace).
 */
import { type ChildProcess, spawn } from "node:child_process"
import { appendFileSync, chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs"
import path from "node:path"
import { afterAll, assert, describe, it } from "vitest"
import { workersIn } from "../../../../packages/watch-service/src/store/embedded/LeftoverServer.js"
import { bin, type Sim, sleep, tempDir, withSimulator } from "../e2e/support/e2e.js"
import { apiToken, call, serveArgs, until } from "./support/serveE2e.js"

const dir = tempDir("embedded")
// As root, the embedded server runs as the `postgres` user: the folders above its data must let it through.
chmodSync(dir.path, 0o755)

/** A `serve` in a process group (and session) of its own, as a terminal's foreground job is. */
class GroupedService {
  readonly child: ChildProcess
  stdout = ""
  stderr = ""
  readonly closed: Promise<{ readonly code: number | null; readonly signal: NodeJS.Signals | null }>

  constructor(args: ReadonlyArray<string>, env: Record<string, string>) {
    this.child = spawn(process.execPath, [bin, ...args], {
      detached: true,
      env: { ...process.env, DATABASE_URL: "", NO_COLOR: "1", MORALIS_API_KEY: "", CHAINQUERY_API_TOKEN: "", ...env },
      stdio: ["ignore", "pipe", "pipe"]
    })
    this.child.stdout!.on("data", (chunk: Buffer) => (this.stdout += chunk.toString()))
    this.child.stderr!.on("data", (chunk: Buffer) => (this.stderr += chunk.toString()))
    this.closed = new Promise((resolve) => this.child.on("close", (code, signal) => resolve({ code, signal })))
  }

  /** How it ended, or a failure naming `what` if it has not ended after `ms`. */
  endedWithin(ms: number, what: string): Promise<{ readonly code: number | null; readonly signal: NodeJS.Signals | null }> {
    return Promise.race([
      this.closed,
      sleep(ms).then(() => Promise.reject(new Error(`serve had not exited ${ms} ms after ${what}; stderr:\n${this.stderr.slice(-3000)}`)))
    ])
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null
  }

  get url(): string {
    return /^listening on (http:\/\/\S+)\n/.exec(this.stdout)?.[1] ?? ""
  }

  /** Sends `signal` to the whole group, as a terminal does. */
  signalGroup(signal: NodeJS.Signals): void {
    if (this.running) process.kill(-this.child.pid!, signal)
  }

  async ready(timeoutMs = 60_000): Promise<void> {
    const deadline = Date.now() + timeoutMs
    while (true) {
      if (!this.running) throw new Error(`serve exited while starting; stderr:\n${this.stderr.slice(-3000)}`)
      if (Date.now() > deadline) throw new Error(`serve was not ready after ${timeoutMs} ms; stderr:\n${this.stderr.slice(-3000)}`)
      if (this.url !== "") {
        const ready = await fetch(`${this.url}/readyz`, { signal: AbortSignal.timeout(5_000) }).then((response) => response.status === 200, () => false)
        if (ready) return
      }
      await sleep(100)
    }
  }
}

const started: Array<GroupedService> = []
afterAll(async () => {
  for (const service of started) {
    try {
      process.kill(-service.child.pid!, "SIGKILL")
    } catch {
      // gone already
    }
  }
  for (const folder of ["data", "cut-short"]) {
    for (const pid of workersIn(path.join(dir.path, folder, "postgres"))) killQuietly(pid, "SIGKILL")
  }
  await sleep(500)
  dir.remove()
})

const killQuietly = (pid: number, signal: NodeJS.Signals): void => {
  try {
    process.kill(pid, signal)
  } catch {
    // gone already
  }
}

const startServe = (sim: Sim, data: string, env: Record<string, string> = {}): GroupedService => {
  // The secrets from the environment, as the docs advise: the server's environment is checked for them.
  const secrets = new Set(["--api-key", sim.apiKey, "--api-token", apiToken])
  const args = serveArgs(sim, ["--data-dir", data]).filter((arg) => !secrets.has(arg))
  const service = new GroupedService(args, { CHAINQUERY_API_TOKEN: apiToken, MORALIS_API_KEY: sim.apiKey, ...env })
  started.push(service)
  return service
}

/** Lines that look like a JavaScript stack trace. */
const stackLines = (text: string): Array<string> => text.split("\n").filter((line) => /^\s+at\s/.test(line))

/** Every entry under `folder`, with its mode, as seen now. */
const entriesOf = (folder: string): Array<{ readonly path: string; readonly mode: number }> => {
  const out: Array<{ readonly path: string; readonly mode: number }> = []
  const walk = (at: string) => {
    let names: Array<string>
    try {
      names = readdirSync(at)
    } catch {
      return
    }
    for (const name of names) {
      const full = path.join(at, name)
      try {
        const stat = statSync(full)
        out.push({ path: full, mode: stat.mode & 0o777 })
        if (stat.isDirectory()) walk(full)
      } catch {
        // removed meanwhile
      }
    }
  }
  walk(folder)
  return out
}

describe("serve on its embedded PostgreSQL", () => {
  const data = path.join(dir.path, "data")
  const pgdata = path.join(data, "postgres")

  it("initialises privately, keeps secrets out of the server's environment, and stops in order on SIGINT to its process group", async () => {
    await withSimulator({ seed: 3801, indexing: false, chains: ["0x1"] }, async (sim) => {
      // The temporary folder the service (and so initdb's password file) uses, watched while it starts.
      const temp = path.join(dir.path, "tmp")
      mkdirSync(temp, { mode: 0o755 })
      const service = startServe(sim, data, { TMPDIR: temp })
      const seen = new Map<string, number>()
      while (service.url === "" && service.running) {
        for (const entry of entriesOf(temp)) seen.set(entry.path, entry.mode)
        await sleep(5)
      }
      await service.ready()
      // Something was made there (the private folder), and nothing of it let others read.
      assert.isAbove(seen.size, 0, "nothing seen in TMPDIR while the database was initialised")
      for (const [entry, mode] of seen) {
        assert.strictEqual(mode & 0o077, 0, `${entry} has mode ${mode.toString(8)} while the database is initialised`)
        assert.notMatch(path.basename(entry), /^pg-password-/)
      }
      assert.deepStrictEqual(entriesOf(temp), [], "the private folder is removed")

      // The server's environment: the C locale, and none of the service's secrets.
      const postmaster = Number(readFileSync(path.join(pgdata, "postmaster.pid"), "utf8").split("\n")[0])
      const environment = readFileSync(`/proc/${postmaster}/environ`, "utf8").split("\u0000")
      assert.include(environment, "LC_ALL=C")
      for (const secret of [apiToken, sim.apiKey]) assert.isFalse(environment.some((entry) => entry.includes(secret)), "a secret in the server's environment")
      assert.match(service.stderr, new RegExp(`keeps the service's data in ${pgdata}, on 127\\.0\\.0\\.1:\\d+`))

      const created = await call(service.url, "POST", "/v1/streams", { url: "http://127.0.0.1:9/hook", description: "kept" })
      assert.strictEqual(created.status, 201)
      const before = Date.now()
      service.signalGroup("SIGINT")
      // The same Ctrl-C again at once, as a parent that forwards it (`npm exec`) delivers it: one signal, not a second.
      process.kill(service.child.pid!, "SIGINT")
      const exited = await service.endedWithin(15_000, "SIGINT")
      assert.deepStrictEqual(exited, { code: 0, signal: null }, service.stderr.slice(-3000))
      assert.isBelow(Date.now() - before, 15_000)
      assert.deepStrictEqual(workersIn(pgdata), [], "a PostgreSQL process is left")
      assert.deepStrictEqual(stackLines(service.stderr + service.stdout), [])
      assert.notMatch(service.stderr, /ERROR|Could not release shards/)
    })
  }, 180_000)

  it("a second signal during a slow shutdown exits at once, and the database then stops by itself", async () => {
    await withSimulator({ seed: 3802, indexing: false, chains: ["0x1"] }, async (sim) => {
      const service = startServe(sim, data)
      await service.ready()
      // The database stops answering: the shutdown, which lets go of it last, waits.
      const stopped = workersIn(pgdata)
      assert.isAbove(stopped.length, 0)
      for (const pid of stopped) killQuietly(pid, "SIGSTOP")
      try {
        service.signalGroup("SIGINT")
        await sleep(2_000)
        assert.isTrue(service.running, "the shutdown was expected to wait for the stopped database")
        const before = Date.now()
        service.signalGroup("SIGINT")
        const exited = await service.endedWithin(5_000, "a second SIGINT")
        assert.isBelow(Date.now() - before, 5_000)
        assert.strictEqual(exited.code, 130, service.stderr.slice(-3000))
        assert.match(service.stderr, /SIGINT again: stopping now/)
      } finally {
        for (const pid of stopped) killQuietly(pid, "SIGCONT")
      }
      // Told to stop as the service exited, the server finishes its shutdown alone.
      await until("the database stopped", () => Promise.resolve(workersIn(pgdata).length === 0), 60_000)
    })
  }, 180_000)

  it("ten hard kills of the process group and the database, each followed at once by a restart that comes up and loses nothing", async () => {
    await withSimulator({ seed: 3803, indexing: false, chains: ["0x1"] }, async (sim) => {
      const streams: Array<string> = []
      for (let round = 1; round <= 10; round++) {
        const service = startServe(sim, data)
        await service.ready()
        const listed = await call(service.url, "GET", "/v1/streams?limit=1000")
        assert.includeMembers(listed.body.streams.map((stream: { id: string }) => stream.id), streams, `round ${round}: a stream committed before is missing`)
        const created = await call(service.url, "POST", "/v1/streams", { url: "http://127.0.0.1:9/hook", description: `round ${round}` })
        assert.strictEqual(created.status, 201)
        streams.push(created.body.id)
        // What a control-group kill does: the service's group and every process of the database at once.
        const database = workersIn(pgdata)
        process.kill(-service.child.pid!, "SIGKILL")
        for (const pid of database) killQuietly(pid, "SIGKILL")
        await service.closed
      }
      const last = startServe(sim, data)
      await last.ready()
      const listed = await call(last.url, "GET", "/v1/streams?limit=1000")
      assert.includeMembers(listed.body.streams.map((stream: { id: string }) => stream.id), streams)
      last.signalGroup("SIGTERM")
      assert.strictEqual((await last.closed).code, 0, last.stderr.slice(-3000))
    })
  }, 300_000)

  it("a lock naming a live program that is not PostgreSQL (an id reused after a reboot) is removed", async () => {
    await withSimulator({ seed: 3805, indexing: false, chains: ["0x1"] }, async (sim) => {
      const other = spawn("sleep", ["120"], { stdio: "ignore" })
      try {
        writeFileSync(path.join(pgdata, "postmaster.pid"), `${other.pid}\n${pgdata}\n`)
        const service = startServe(sim, data)
        await service.ready()
        assert.match(service.stderr, new RegExp(`removing the stale lock of .*its process id \\(${other.pid}\\) is now another program's`))
        assert.isNull(other.exitCode, "the other program was left alone")
        service.signalGroup("SIGTERM")
        assert.strictEqual((await service.endedWithin(30_000, "SIGTERM")).code, 0, service.stderr.slice(-3000))
      } finally {
        other.kill("SIGKILL")
      }
    })
  }, 120_000)

  it("a folder of an earlier version (clear-text password auth) is switched to scram-sha-256; the server listens on 127.0.0.1 only, with no Unix socket; a second service on the folder is refused", async () => {
    await withSimulator({ seed: 3807, indexing: false, chains: ["0x1"] }, async (sim) => {
      const hba = path.join(pgdata, "pg_hba.conf")
      const rules = () => readFileSync(hba, "utf8").split("\n").filter((line) => line.trim() !== "" && !line.trimStart().startsWith("#"))
      writeFileSync(hba, readFileSync(hba, "utf8").replaceAll("scram-sha-256", "password"))
      assert.isTrue(rules().every((line) => line.endsWith("password")))
      const service = startServe(sim, data)
      await service.ready()
      assert.isAbove(rules().length, 0)
      for (const line of rules()) assert.match(line, /\sscram-sha-256$/, line)
      // postmaster.pid: its fifth line is the socket folder (none), its sixth where it listens.
      const lock = readFileSync(path.join(pgdata, "postmaster.pid"), "utf8").split("\n")
      assert.strictEqual(lock[4], "", "a Unix socket")
      assert.strictEqual(lock[5], "127.0.0.1")
      // A second service on the same folder is refused, and the first one's database left alone.
      const second = startServe(sim, data)
      const refused = await second.endedWithin(60_000, "its start on a folder in use")
      assert.strictEqual(refused.code, 1, second.stderr.slice(-3000))
      assert.match(second.stderr, new RegExp(`another chainquery-watcher serve \\(pid ${service.child.pid}\\) uses ${data}`))
      assert.strictEqual((await fetch(`${service.url}/readyz`)).status, 200)
      service.signalGroup("SIGTERM")
      assert.strictEqual((await service.endedWithin(30_000, "SIGTERM")).code, 0, service.stderr.slice(-3000))
    })
  }, 120_000)

  it("a first start killed while the database is initialised is started over", async () => {
    await withSimulator({ seed: 3806, indexing: false, chains: ["0x1"] }, async (sim) => {
      const fresh = path.join(dir.path, "cut-short")
      const first = startServe(sim, fresh)
      await until("initdb under way", () => Promise.resolve(existsSync(path.join(fresh, "postgres", "PG_VERSION"))), 60_000)
      assert.isTrue(existsSync(path.join(fresh, "postgres.initialising")))
      process.kill(-first.child.pid!, "SIGKILL")
      await first.closed
      const second = startServe(sim, fresh)
      await second.ready()
      assert.isFalse(existsSync(path.join(fresh, "postgres.initialising")))
      const created = await call(second.url, "POST", "/v1/streams", { url: "http://127.0.0.1:9/hook" })
      assert.strictEqual(created.status, 201)
      second.signalGroup("SIGTERM")
      assert.strictEqual((await second.endedWithin(30_000, "SIGTERM")).code, 0, second.stderr.slice(-3000))
      assert.deepStrictEqual(workersIn(path.join(fresh, "postgres")), [])
    })
  }, 180_000)

  it("a server that does not start fails the service with its last log lines, without a stack trace", async () => {
    await withSimulator({ seed: 3804, indexing: false, chains: ["0x1"] }, async (sim) => {
      appendFileSync(path.join(pgdata, "postgresql.conf"), "\nnot_a_setting_of_postgres = 1\n")
      const service = startServe(sim, data)
      const exited = await service.closed
      assert.strictEqual(exited.code, 1, service.stderr.slice(-3000))
      assert.match(service.stderr, /cannot start PostgreSQL in .*: the server exited with 1; its last log lines:\n.*not_a_setting_of_postgres/s)
      assert.deepStrictEqual(stackLines(service.stderr), [])
    })
  }, 120_000)
})
