/**
 * SERVE.md's five-minute tour, run as it is written: the first ```sh block under "The service in
 * five minutes", step by step, in a fresh temporary folder (the data dir: `./chainquery-data` and
 * `./chainquery-token` are made there, not in the checkout), and the receiver must print
 * two batches with events within 90 s of the wallet being added.
 *
 * Rewritten, and only this: the ports (4000, 5000, 8080 become free ones, everywhere in the
 * block), and `./run simulator --` and `./run serve --` become `node <checkout>/packages/simulator/
 * dist/bin.js` and `node <checkout>/apps/watcher/dist/bin.js serve`, the built binaries `./run`
 * execs: `./run` would first rebuild with turbo, slow and racing other builds in a test run.
 * Everything else runs as written, by bash, in an environment without the service's variables (as
 * a new terminal): the token file made by openssl, the `export`, the receiver one-liner, the curl
 * lines and the `STREAM=$(…)` capture. A step "in its own terminal" ends in a long-running command:
 * it runs in the background in its own process group until it prints the `listening on` line the
 * docs show, and the whole group is stopped in the finaliser.
 */
import { once } from "node:events"
import { chmodSync } from "node:fs"
import { createServer, type AddressInfo } from "node:net"
import { dirname } from "node:path"
import { fileURLToPath } from "node:url"
import { afterEach, assert, it } from "vitest"
import { WatchEvent } from "@chainquery/watch"
import { tempDir } from "../e2e/support/e2e.js"
import { ShellProcess } from "./support/shellProcess.js"
import { type Command, shellBlock, stepsOf } from "./support/shellTour.js"

const checkout = fileURLToPath(new URL("../../../../", import.meta.url))
const serveDoc = fileURLToPath(new URL("../../SERVE.md", import.meta.url))

/** A TCP port of 127.0.0.1 no one listens on right now. */
const freePort = async (): Promise<number> => {
  const server = createServer().listen(0, "127.0.0.1")
  await once(server, "listening")
  const port = (server.address() as AddressInfo).port
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

/** The tour's text with its ports replaced by free ones and `./run` by the binaries it runs. */
const rewrite = (text: string, ports: ReadonlyMap<string, number>): string => {
  let rewritten = text
    .replaceAll("./run simulator -- ", `node ${checkout}packages/simulator/dist/bin.js `)
    .replaceAll("./run serve -- ", `node ${checkout}apps/watcher/dist/bin.js serve `)
  for (const [port, free] of ports) rewritten = rewritten.replace(new RegExp(`\\b${port}\\b`, "g"), String(free))
  return rewritten
}

/** A shell assignment whose value is one command substitution: `[export ]NAME=$(…)`. */
const assignmentOf = (text: string): string | undefined => /^(?:export )?([A-Za-z_][A-Za-z0-9_]*)=\$\([\s\S]*\)$/.exec(text)?.[1]

const kinds: ReadonlySet<string> = new Set(WatchEvent.kinds)

/** The receiver's lines `msg_… sequence N kind kind …`, with the batches' sequence and kinds. */
const batchesOf = (stdout: string) =>
  stdout.split("\n").flatMap((line) => {
    const match = /^(msg_\S+) sequence (\d+)((?: \S+)*)$/.exec(line)
    return match === null ? [] : [{ line, sequence: Number(match[2]), kinds: match[3]!.trim().split(" ").filter((kind) => kind !== "") }]
  })

const running: Array<ShellProcess> = []
const cleanups: Array<() => void> = []

afterEach(async () => {
  // The service first (it stops its embedded PostgreSQL), then the rest; every group as a whole.
  await Promise.all(running.splice(0).toReversed().map((process) => process.stop()))
  for (const cleanup of cleanups.splice(0)) cleanup()
})

it("the five-minute tour, pasted as it is: the receiver prints batches with events", async () => {
  const block = shellBlock(serveDoc, "## The service in five minutes")
  const steps = stepsOf(block)
  const ports = new Map<string, number>()
  for (const [, port] of block.matchAll(/(?:--port |\.listen\()(\d+)/g)) ports.set(port!, await freePort())
  assert.deepStrictEqual([...ports.keys()], ["4000", "5000", "8080"], "the ports the tour listens on")
  const dir = tempDir("tour")
  cleanups.push(dir.remove)
  // As root, the embedded PostgreSQL runs as the `postgres` user: the folder must let it through.
  chmodSync(dir.path, 0o755)
  const env: NodeJS.ProcessEnv = { ...process.env, PATH: `${dirname(process.execPath)}:${process.env["PATH"] ?? ""}`, NO_COLOR: "1" }
  for (const name of ["CHAINQUERY_API_TOKEN", "DATABASE_URL", "CHAINQUERY_RUNNER_ADDRESS", "MORALIS_API_KEY", "STREAM"]) delete env[name]

  /** Runs a command to its end, as a terminal would; fails unless it exits 0. */
  const foreground = async (command: Command, text: string): Promise<string> => {
    const shell = new ShellProcess(`set -e\n${text}`, { cwd: dir.path, env })
    running.push(shell)
    const limit = setTimeout(() => void shell.stop(0), 60_000)
    const { code } = await shell.closed
    clearTimeout(limit)
    running.splice(running.indexOf(shell), 1)
    assert.strictEqual(code, 0, `${command.text}\n${shell.output}`)
    return shell.stdout
  }

  let receiver: ShellProcess | undefined
  let walletsAdded = 0
  for (const step of steps) {
    const ownTerminal = step.comment.includes("(in its own terminal)")
    for (const [index, command] of step.commands.entries()) {
      const text = rewrite(command.text, ports)
      const name = assignmentOf(command.text)
      if (ownTerminal && index === step.commands.length - 1) {
        const shell = new ShellProcess(text, { cwd: dir.path, env })
        running.push(shell)
        const listening = command.shows.map((line) => rewrite(line, ports)).find((line) => line.startsWith("listening on "))
        assert.isDefined(listening, `step ${step.number} shows the line it prints once it listens`)
        // The service initialises its embedded PostgreSQL first: seconds, more on a loaded machine.
        await shell.waitFor(`step ${step.number}: ${listening}`, (process) => `${process.stdout}${process.stderr}`.includes(listening!), 120_000)
        if (/\.listen\(/.test(command.text)) receiver = shell
      } else if (name !== undefined) {
        env[name] = await foreground(command, `${text}\nprintf '%s' "$${name}"`)
        assert.notStrictEqual(env[name], "", `step ${step.number}: ${name} is set`)
      } else {
        const printed = await foreground(command, text)
        if (/\/wallets\b/.test(command.text)) {
          assert.match(printed, /"added":1\b/, `step ${step.number}: the wallet is added`)
          walletsAdded = Date.now()
        }
      }
    }
  }
  assert.match(env["STREAM"] ?? "", /^str_\w+$/, "STREAM holds the stream's id")
  assert.isDefined(receiver, "the tour starts a receiver")
  assert.notStrictEqual(walletsAdded, 0, "the tour adds a wallet")

  // Generous for a loaded 2-core machine: on an idle one the first batch comes within 5 s.
  const withEvents = (process: ShellProcess) => batchesOf(process.stdout).filter((batch) => batch.kinds.length > 0).length
  await receiver!.waitFor("a batch with events", (process) => withEvents(process) >= 1, 90_000)
  const first = Date.now() - walletsAdded
  await receiver!.waitFor("two batches with events", (process) => withEvents(process) >= 2, Math.max(0, walletsAdded + 90_000 - Date.now()))
  const batches = batchesOf(receiver!.stdout)
  console.info(`serve tour: the first batch with events ${first} ms after the wallet was added, ${batches.length} batches after ${Date.now() - walletsAdded} ms`)
  assert.deepStrictEqual(batches.map((batch) => batch.sequence), batches.map((_, index) => index + 1), receiver!.stdout)
  for (const batch of batches) {
    for (const kind of batch.kinds) assert.isTrue(kinds.has(kind), `an event kind: ${kind} in ${batch.line}`)
  }
}, 360_000)
