/**
 * The consumer check: every publishable package as a user gets it from the registry. Each is
 * packed with `pnpm pack`; the tarballs must hold every file their manifest points at and no
 * `workspace:` range, and pass publint and arethetypeswrong. Then they are installed with npm into
 * a scratch project outside the workspace (its own package.json, `effect` from the registry at our
 * peer range), where two small programs are type-checked under TypeScript strict with
 * `moduleResolution` nodenext and bundler, and run: program/main.ts against the packed simulator's
 * bin; program/client.ts drives the packed watcher's real `serve` with the packed watch-service's
 * typed client.
 */
import { execFileSync, spawn, spawnSync } from "node:child_process"
import { chmodSync, copyFileSync, mkdirSync, rmSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { dependencyRanges, exportTargets, pack, type Packed, publishable, repoRoot } from "./support/packages.js"
import { newScratchDir, satisfiesCaret, workspaceVersion } from "./support/scratch.js"

const require = createRequire(import.meta.url)
const tsc = path.join(path.dirname(require.resolve("typescript/package.json")), "bin", "tsc")
/** The bins pnpm linked for this package (publint, attw). */
const localBin = (name: string) => path.join(repoRoot, "tests", "consumer", "node_modules", ".bin", name)

/** The npm the check installs with: pinned here, run by the project's Node, not whatever npm the machine has. */
const npmCli = path.join(repoRoot, "tests", "consumer", "node_modules", "npm", "bin", "npm-cli.js")

/**
 * The environment of a child: the project's Node first on PATH, without what pnpm sets for the
 * script it runs (lifecycle and package variables, pnpm-only settings); a user's npm settings
 * (registry, proxy, certificates) are kept.
 */
const childEnv = (): NodeJS.ProcessEnv => {
  const env: NodeJS.ProcessEnv = {}
  const pnpmOnly = new Set(["npm_config_store_dir", "npm_config_user_agent", "npm_execpath", "npm_node_execpath", "npm_command"])
  for (const [key, value] of Object.entries(process.env)) {
    if (pnpmOnly.has(key) || key.startsWith("npm_lifecycle_") || key.startsWith("npm_package_") || key.startsWith("pnpm_")) continue
    env[key] = value
  }
  env.PATH = `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH ?? ""}`
  env.NO_COLOR = "1"
  return env
}

/** Runs a command; returns its exit code and what it printed. */
const run = (command: string, args: ReadonlyArray<string>, cwd: string, timeout = 240_000) => {
  const result = spawnSync(command, args, { cwd, env: childEnv(), encoding: "utf8", timeout, killSignal: "SIGKILL" })
  if (result.error) throw result.error
  return { status: result.status, output: `${result.stdout}${result.stderr}` }
}

/** Runs the pinned npm. */
const npm = (args: ReadonlyArray<string>, cwd: string, timeout?: number) => run(process.execPath, [npmCli, ...args], cwd, timeout)

/**
 * Runs the program in a process group of its own and waits for it; the group (the program and
 * the simulator it started) is killed when it ends or after `timeout`, whatever happened.
 */
const runProgram = (script: string, cwd: string, timeout: number) =>
  new Promise<{ readonly status: number | null; readonly output: string }>((resolve, reject) => {
    const child = spawn(process.execPath, [script], { cwd, env: childEnv(), detached: true, stdio: ["ignore", "pipe", "pipe"] })
    let output = ""
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()))
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()))
    const killGroup = () => {
      try {
        process.kill(-child.pid!, "SIGKILL")
      } catch {
        // the group is gone already
      }
    }
    const timer = setTimeout(killGroup, timeout)
    // Also when this worker exits first (vitest stopped, the test timed out).
    process.once("exit", killGroup)
    const done = () => {
      clearTimeout(timer)
      process.off("exit", killGroup)
      killGroup()
    }
    child.once("error", (error) => {
      done()
      reject(error)
    })
    child.once("close", (status) => {
      done()
      resolve({ status, output })
    })
  })

let scratch = ""
let tarballDir = ""
let project = ""
let packed: ReadonlyArray<Packed> = []
const removeScratch = () => rmSync(scratch, { recursive: true, force: true })

beforeAll(() => {
  // Outside the workspace: from inside it, Node would resolve what a tarball forgot to declare
  // from the workspace's node_modules and hide the bug.
  scratch = newScratchDir(tmpdir(), "chainquery-consumer-")
  // Traversable by others: run as root, the embedded PostgreSQL of client.ts's `serve` runs as the
  // user postgres, which must reach its data folder inside.
  chmodSync(scratch, 0o711)
  process.once("exit", removeScratch)
  tarballDir = path.join(scratch, "tarballs")
  project = path.join(scratch, "project")
  mkdirSync(tarballDir, { recursive: true })
  packed = publishable().map(({ dir }) => pack(dir, tarballDir))
})

afterAll(() => {
  process.off("exit", removeScratch)
  removeScratch()
})

describe("the packed tarballs", () => {
  it("are one per publishable package, the watcher, its console and the nine libraries", () => {
    expect(packed.map((p) => p.manifest.name)).toEqual([
      "@chainquery/console",
      "@chainquery/evm-client",
      "@chainquery/ledger-client",
      "@chainquery/pagination",
      "@chainquery/schema",
      "@chainquery/simulator",
      "@chainquery/transport",
      "@chainquery/watch",
      "@chainquery/watch-service",
      "@chainquery/watcher",
      "@chainquery/webhook-receiver"
    ])
  })

  it("hold every file their exports and bins point at, a LICENSE, no build or test leftovers and no workspace: range", () => {
    const problems: Array<string> = []
    for (const { manifest, entries } of packed) {
      const targets = [...exportTargets(manifest.exports), ...Object.values(manifest.bin ?? {})]
      if (targets.length === 0) problems.push(`${manifest.name}: no exports`)
      for (const target of targets) {
        if (!entries.has(target.replace(/^\.\//, ""))) problems.push(`${manifest.name}: ${target} is not in the tarball`)
      }
      if (!entries.has("LICENSE")) problems.push(`${manifest.name}: no LICENSE`)
      for (const entry of entries) {
        if (entry.endsWith(".tsbuildinfo") || entry.startsWith("test/")) problems.push(`${manifest.name}: ships ${entry}`)
      }
      for (const range of dependencyRanges(manifest)) {
        if (range.includes("workspace:")) problems.push(`${manifest.name}: ${range}`)
      }
    }
    expect(problems).toEqual([])
  })

  it("declare effect (and @effect/platform-node where used) as a peer of every library", () => {
    for (const { manifest } of packed) {
      if (manifest.name === "@chainquery/watcher") continue // an app: it may depend on effect directly
      expect(manifest.peerDependencies?.effect, manifest.name).toMatch(/^\^4\./)
      expect(manifest.dependencies?.effect, manifest.name).toBeUndefined()
      expect(manifest.dependencies?.["@effect/platform-node"], manifest.name).toBeUndefined()
    }
  })

  it("pass publint with no error and no warning (--strict)", () => {
    for (const { manifest, tarball } of packed) {
      const { status, output } = run(localBin("publint"), ["run", "--strict", tarball], scratch)
      expect({ name: manifest.name, status, errors: output.match(/^Errors:[\s\S]*/m)?.[0] ?? "" }).toEqual({
        name: manifest.name,
        status: 0,
        errors: ""
      })
    }
  })

  it("pass arethetypeswrong with no problem (ESM-only profile: the packages ship ESM alone)", () => {
    for (const { manifest, tarball } of packed) {
      const { status, output } = run(localBin("attw"), [tarball, "--profile", "esm-only", "--format", "ascii"], scratch)
      expect({ name: manifest.name, status, output: status === 0 ? "" : output }).toEqual({ name: manifest.name, status: 0, output: "" })
    }
  })
})

describe("the tarballs installed with npm into a project outside the workspace", () => {
  beforeAll(() => {
    mkdirSync(path.join(project, "src"), { recursive: true })
    const schema = packed.find((p) => p.manifest.name === "@chainquery/schema")!
    const simulator = packed.find((p) => p.manifest.name === "@chainquery/simulator")!
    // The versions the workspace was tested with, from the registry; each must be in our peer range.
    const effect = workspaceVersion("effect")
    const platformNode = workspaceVersion("@effect/platform-node")
    expect(satisfiesCaret(effect, schema.manifest.peerDependencies!.effect!), `effect ${effect}`).toBe(true)
    expect(satisfiesCaret(platformNode, simulator.manifest.peerDependencies!["@effect/platform-node"]!), `platform-node ${platformNode}`).toBe(true)
    writeFileSync(
      path.join(project, "package.json"),
      JSON.stringify(
        {
          name: "chainquery-consumer",
          private: true,
          type: "module",
          dependencies: {
            ...Object.fromEntries(packed.map((p) => [p.manifest.name, `file:${p.tarball}`])),
            effect,
            "@effect/platform-node": platformNode
          },
          devDependencies: { "@types/node": workspaceVersion("@types/node") }
        },
        null,
        2
      )
    )
    const base = {
      target: "ES2023",
      lib: ["ES2023"],
      types: ["node"],
      strict: true,
      exactOptionalPropertyTypes: true,
      noUncheckedIndexedAccess: true,
      skipLibCheck: true,
      rootDir: "src"
    }
    writeFileSync(
      path.join(project, "tsconfig.nodenext.json"),
      JSON.stringify({ compilerOptions: { ...base, module: "NodeNext", moduleResolution: "NodeNext", outDir: "dist" }, include: ["src"] })
    )
    writeFileSync(
      path.join(project, "tsconfig.bundler.json"),
      JSON.stringify({ compilerOptions: { ...base, module: "ESNext", moduleResolution: "Bundler", noEmit: true }, include: ["src"] })
    )
    for (const program of ["main.ts", "client.ts", "startSimulator.ts"]) {
      copyFileSync(path.join(repoRoot, "tests", "consumer", "test", "program", program), path.join(project, "src", program))
    }
    // A registry connection can drop: up to three tries, as ./run does for its toolchain.
    let install = npm(["install", "--no-audit", "--no-fund", "--loglevel=error"], project, 300_000)
    for (let attempt = 2; attempt <= 3 && install.status !== 0; attempt++) {
      install = npm(["install", "--no-audit", "--no-fund", "--loglevel=error"], project, 300_000)
    }
    if (install.status !== 0) throw new Error(`npm install failed (${install.status}):\n${install.output}`)
  })

  it("has exactly one copy of effect", () => {
    const { status, output } = npm(["ls", "effect", "--all", "--parseable"], project)
    const copies = new Set(output.split("\n").filter((line) => line.endsWith(`${path.sep}effect`)))
    expect({ status, copies: [...copies] }).toEqual({ status: 0, copies: [path.join(project, "node_modules", "effect")] })
  })

  it("type-checks a program using every package with moduleResolution nodenext", () => {
    const { status, output } = run(process.execPath, [tsc, "-p", "tsconfig.nodenext.json", "--pretty", "false"], project)
    expect({ status, output }).toEqual({ status: 0, output: "" })
  })

  it("type-checks the same program with moduleResolution bundler", () => {
    const { status, output } = run(process.execPath, [tsc, "-p", "tsconfig.bundler.json", "--pretty", "false"], project)
    expect({ status, output }).toEqual({ status: 0, output: "" })
  })

  it("runs it: the simulator through its bin, one operation of each family, a stream, the schema, the watcher and its engine as a stream", async () => {
    execFileSync(process.execPath, [tsc, "-p", "tsconfig.nodenext.json"], { cwd: project, env: childEnv() })
    const { status, output } = await runProgram(path.join(project, "dist", "main.js"), project, 180_000)
    expect(status, output).toBe(0)
    const summary = JSON.parse(output.trim().split("\n").at(-1)!) as Record<string, unknown>
    expect(summary.a2).toBe(5)
    expect(summary.streamed).toBeGreaterThan(5)
    expect(summary.streamed).toBeLessThanOrEqual(25)
    expect(summary.b3).toBeGreaterThan(0)
    expect(summary.decodedHash).toMatch(/^0x[0-9a-f]{64}$/)
    expect(summary.event).toMatch(/^nft\.(received|sent)$/)
    expect(summary.watched).toBeGreaterThan(0)
    expect(summary.retries).toBe(3)
    expect(summary.paginate).toBe("function")
  })

  it("runs the typed client of the packed watch-service against the packed watcher's real serve", async () => {
    execFileSync(process.execPath, [tsc, "-p", "tsconfig.nodenext.json"], { cwd: project, env: childEnv() })
    const { status, output } = await runProgram(path.join(project, "dist", "client.js"), project, 240_000)
    expect(status, output).toBe(0)
    const summary = JSON.parse(output.trim().split("\n").at(-1)!) as Record<string, unknown>
    expect(summary.stream).toMatch(/^str_[0-9a-z]{21}$/)
    expect(summary).toMatchObject({ added: 1, deliveries: 0, replayed: 0, missing: "NotFound", stopped: 0 })
  })
})
