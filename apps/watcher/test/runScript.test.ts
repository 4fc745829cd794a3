/**
 * The checkout's `./run`, as `./run watch|serve|simulator|start` use it: the program runs from the
 * folder the user called `./run` in (so `--state rel/path`, `--wallets-file`, `--data-dir` and
 * the default `./chainquery-data` are the user's paths, not the checkout's), and turbo's output
 * is shown only when the build fails.
 *
 * The script runs for real (bash, its toolchain checks, its install stamp, its build step), in a
 * copy of the checkout's layout in a temporary folder: there, `pnpm` is a stand-in (its version,
 * an install that does nothing, a turbo build that prints a banner and fails when told to) and the
 * programs print the folder they run in and their arguments. Not the real checkout: `./run`
 * would run turbo there, whose cache hits write `dist/` again while other test files run it.
 */
import { spawnSync } from "node:child_process"
import { chmodSync, copyFileSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, assert, describe, it } from "vitest"
import { tempDir } from "./e2e/support/e2e.js"

const runScript = fileURLToPath(new URL("../../../run", import.meta.url))
const pnpmVersion = /^pnpm_version="([^"]+)"$/m.exec(readFileSync(runScript, "utf8"))![1]!

const dir = tempDir("run-script")
afterAll(dir.remove)
const checkout = join(dir.path, "checkout")
const caller = join(dir.path, "elsewhere", "project")

const write = (path: string, text: string, executable = false) => {
  mkdirSync(dirname(path), { recursive: true })
  writeFileSync(path, text)
  if (executable) chmodSync(path, 0o755)
}

const program = `console.log(JSON.stringify({ cwd: process.cwd(), program: process.argv[1], args: process.argv.slice(2) }))\n`
mkdirSync(checkout, { recursive: true })
copyFileSync(runScript, join(checkout, "run"))
chmodSync(join(checkout, "run"), 0o755)
for (const manifest of ["package.json", "pnpm-lock.yaml", "pnpm-workspace.yaml", "apps/watcher/package.json", "packages/simulator/package.json", "tests/consumer/package.json"]) {
  write(join(checkout, manifest), "{}\n")
}
write(join(checkout, "apps/watcher/dist/bin.js"), program)
write(join(checkout, "packages/simulator/dist/bin.js"), program)
write(
  join(checkout, ".tools/bin/pnpm"),
  `#!/usr/bin/env bash
case "$1" in
  --version) echo ${pnpmVersion} ;;
  install) mkdir -p node_modules ;;
  exec)
    echo "• turbo 2.0.0 (a stand-in)"
    if [ -n "\${FAKE_BUILD_FAILS:-}" ]; then echo "apps/watcher: error TS2322: a type error"; exit 1; fi
    echo "Tasks: 9 successful, 9 total" ;;
  *) exit 3 ;;
esac
`,
  true
)
mkdirSync(caller, { recursive: true })

/** Runs the copied `./run` with `args` from the caller's folder. */
const run = (args: ReadonlyArray<string>, env: Record<string, string> = {}) => {
  const result = spawnSync(join(checkout, "run"), args, {
    cwd: caller,
    encoding: "utf8",
    timeout: 60_000,
    env: { ...process.env, PATH: `${dirname(process.execPath)}:${process.env["PATH"] ?? ""}`, ...env }
  })
  return { code: result.status, stdout: result.stdout, stderr: result.stderr }
}

/** What the stand-in program printed: where it ran, which file, with which arguments. */
const ranAs = (stdout: string): { readonly cwd: string; readonly program: string; readonly args: ReadonlyArray<string> } => JSON.parse(stdout)

describe("./run", () => {
  it.each([
    ["watch", "apps/watcher/dist/bin.js", ["--state", "rel/state.sqlite", "--wallets-file", "wallets.txt"], []],
    ["serve", "apps/watcher/dist/bin.js", ["--data-dir", "data"], ["serve"]],
    ["simulator", "packages/simulator/dist/bin.js", ["--port", "4000"], []],
    ["start", "apps/watcher/dist/bin.js", [], ["demo"]]
  ] as const)("%s runs its program by its absolute path from the caller's folder, where relative paths resolve", (command, file, flags, first) => {
    const result = run([command, "--", ...flags])
    assert.strictEqual(result.code, 0, result.stderr)
    const ran = ranAs(result.stdout)
    assert.strictEqual(ran.cwd, realpathSync(caller), "the program runs in the caller's folder")
    assert.strictEqual(realpathSync(ran.program), realpathSync(join(checkout, file)))
    assert.deepStrictEqual(ran.args, [...first, ...flags], "the arguments as given")
  })

  it("keeps turbo's output back when the build succeeds", () => {
    const result = run(["watch", "--", "--help"])
    assert.strictEqual(result.code, 0, result.stderr)
    assert.notInclude(result.stderr, "turbo")
    assert.notInclude(result.stdout, "turbo")
    assert.deepStrictEqual(ranAs(result.stdout).args, ["--help"])
  })

  it("shows turbo's output when the build fails, and runs nothing", () => {
    const result = run(["serve", "--", "--port", "8080"], { FAKE_BUILD_FAILS: "1" })
    assert.strictEqual(result.code, 1)
    assert.include(result.stderr, "• turbo 2.0.0 (a stand-in)")
    assert.include(result.stderr, "error TS2322: a type error")
    assert.include(result.stderr, "[run] the build failed")
    assert.strictEqual(result.stdout, "")
  })
})
