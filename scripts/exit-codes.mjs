// A failing test must fail the run: for each workspace package with a `test` script, one test
// written to fail is run by that script (`pnpm run test`, its own vitest config and global setup),
// and the script must exit non-zero having counted it. Issue #39: a global setup that hooked the
// process's exit made `vitest run` exit 0 with failing tests, and turbo called the task a success.
//
//   node scripts/exit-codes.mjs      checks every package; exits 1 naming those that exit 0
//
// `./run test` runs it after turbo. The test sits in <package>/.exit-check/test/ (vitest's `--dir`),
// out of the package's own test folder and turbo's inputs, and is removed after the run; the JSON
// report is not written (`--reporter=default`), so the package's results are left as they are.
// Plain Node (>= 22) ESM with no dependencies.
import { spawn } from "node:child_process"
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import path from "node:path"
import { fileURLToPath } from "node:url"
import { workspacePackages } from "./workspace.mjs"

const failingTest = `import { expect, it } from "vitest"\n\nit("fails on purpose (scripts/exit-codes.mjs)", () => {\n  expect(1).toBe(2)\n})\n`

/** Runs the failing test with `pkg`'s test script: its exit code and the end of its output. */
const runFailing = (pkg) =>
  new Promise((resolve) => {
    const folder = path.join(pkg.dir, ".exit-check")
    mkdirSync(path.join(folder, "test"), { recursive: true })
    writeFileSync(path.join(folder, "test", "failing.test.ts"), failingTest)
    const child = spawn("pnpm", ["run", "--silent", "test", "--dir", ".exit-check", "--reporter=default"], {
      cwd: pkg.dir,
      stdio: ["ignore", "pipe", "pipe"]
    })
    let output = ""
    child.stdout.on("data", (chunk) => (output += chunk))
    child.stderr.on("data", (chunk) => (output += chunk))
    child.once("close", (code, signal) => {
      rmSync(folder, { recursive: true, force: true })
      resolve({ code: code ?? signal, output })
    })
  })

/**
 * The packages whose test script does not fail on a failing test, each with why, checking three at
 * a time. For example `await packagesHidingFailures()` is `[]` when every package's run fails.
 */
export async function packagesHidingFailures() {
  const packages = workspacePackages().filter((pkg) => JSON.parse(readFileSync(path.join(pkg.dir, "package.json"), "utf8")).scripts?.test !== undefined)
  const problems = []
  const queue = [...packages]
  const worker = async () => {
    for (let pkg = queue.shift(); pkg !== undefined; pkg = queue.shift()) {
      const { code, output } = await runFailing(pkg)
      const counted = /fails on purpose/.test(output) && /1 failed/.test(output)
      if (code === 0) problems.push(`${pkg.name}: its test script exited 0 with a failing test`)
      else if (!counted) problems.push(`${pkg.name}: its test script exited ${code} without running the failing test:\n${output.slice(-1500)}`)
    }
  }
  await Promise.all([worker(), worker(), worker()])
  return { checked: packages.length, problems }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { checked, problems } = await packagesHidingFailures()
  for (const problem of problems) console.log(`[exit-codes] ${problem}`)
  console.log(`[exit-codes] ${checked - problems.length} of ${checked} packages fail their run on a failing test`)
  process.exitCode = problems.length > 0 ? 1 : 0
}
