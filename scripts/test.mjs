// ./run test: type-checks, lints and tests every package through turbo, then adds up the
// vitest reports so the last line of output is always "N passed, N failed, N skipped".
//
//   node scripts/test.mjs [extra turbo args, e.g. --filter=@chainquery/schema --force]
//
// Steps:
//   1. Delete every workspace package's .vitest-results (packages/*, apps/*, tests/*), so stale reports never
//      count, then run turbo: build, check (tsc), lint (oxlint), examples (every @example of the
//      doc comments type-checked against the built packages) and test (vitest; the consumer check
//      in tests/consumer is one of them). A cache hit restores .vitest-results/** (a declared test
//      output). Everything the tests read is inside the repository, so turbo's input hashes cover it.
//   2. Sum every */*/.vitest-results/results.json that is present, whatever turbo's exit code, and
//      list each failed test with the first line of its error.
//   3. Check that each package's test script fails on a failing test (scripts/exit-codes.mjs):
//      a run that reports success with failures would hide them from turbo and its cache.
//   4. Exit non-zero if turbo failed, any test failed, a package hid a failure, or no test ran.
// Plain Node (>= 22) ESM with no dependencies.
import { spawnSync } from "node:child_process"
import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs"
import path from "node:path"
import { packagesHidingFailures } from "./exit-codes.mjs"
import { repoRoot, workspacePackages } from "./workspace.mjs"

const reportRelPath = path.join(".vitest-results", "results.json")

const byCodePoint = (a, b) => (a < b ? -1 : a > b ? 1 : 0)

// --- 1. clear stale reports, run turbo ---------------------------------------------------------

for (const { dir } of workspacePackages()) {
  rmSync(path.join(dir, ".vitest-results"), { recursive: true, force: true })
}

const turboArgs = ["exec", "turbo", "run", "build", "check", "lint", "examples", "test", "--output-logs=new-only", "--continue", ...process.argv.slice(2)]
console.log(`[test] pnpm ${turboArgs.join(" ")}`)
const turbo = spawnSync("pnpm", turboArgs, {
  cwd: repoRoot,
  stdio: "inherit"
})

const problems = []
if (turbo.error) {
  problems.push(`could not start turbo (pnpm exec turbo): ${turbo.error.message}`)
} else if (turbo.signal) {
  problems.push(`turbo was killed by ${turbo.signal}`)
} else if (turbo.status !== 0) {
  problems.push(`turbo exited with code ${turbo.status} (a build, check, lint, examples or test task failed; see above)`)
}

// --- 2. add up the vitest reports --------------------------------------------------------------

// Every <top>/<name>/.vitest-results/results.json (what the glob */*/... matches: no dot folders).
function findReports() {
  const reports = []
  for (const top of readdirSync(repoRoot, { withFileTypes: true })) {
    if (!top.isDirectory() || top.name.startsWith(".") || top.name === "node_modules") continue
    for (const sub of readdirSync(path.join(repoRoot, top.name), { withFileTypes: true })) {
      if (!sub.isDirectory() || sub.name.startsWith(".")) continue
      const dir = path.join(top.name, sub.name)
      if (existsSync(path.join(repoRoot, dir, reportRelPath))) reports.push(dir)
    }
  }
  return reports.sort(byCodePoint)
}

function packageName(dir) {
  try {
    return JSON.parse(readFileSync(path.join(repoRoot, dir, "package.json"), "utf8")).name ?? dir
  } catch {
    return dir
  }
}

const num = (value) => (Number.isFinite(value) ? value : 0)

// The first line of a failure message, without colour codes, cut to one screen line.
const firstLine = (text) => String(text ?? "").replace(/\u001b\[[0-9;]*m/g, "").split("\n").find((line) => line.trim() !== "")?.trim().slice(0, 300) ?? ""

// "package > file > test name: first line of the error", for every test (or file) that failed, so
// the end of a CI log says which ones without scrolling back through turbo's interleaved output.
function failedTests(name, dir, suites, brokenFiles) {
  const file = (suite) => path.relative(path.join(repoRoot, dir), suite?.name ?? "?")
  return [
    ...brokenFiles.map((suite) => `${name} > ${file(suite)}: ${firstLine(suite.message) || "failed to load"}`),
    ...suites.flatMap((suite) =>
      (Array.isArray(suite?.assertionResults) ? suite.assertionResults : [])
        .filter((test) => test?.status === "failed")
        .map((test) => `${name} > ${file(suite)} > ${test.fullName ?? test.title}: ${firstLine(test.failureMessages?.[0])}`)
    )
  ]
}

const rows = []
const failures = []
const totals = { passed: 0, failed: 0, skipped: 0 }
for (const dir of findReports()) {
  const file = path.join(dir, reportRelPath)
  let report
  try {
    report = JSON.parse(readFileSync(path.join(repoRoot, file), "utf8"))
  } catch (error) {
    problems.push(`unreadable report ${file}: ${error.message}`)
    rows.push({ name: packageName(dir), passed: 0, failed: 1, skipped: 0, note: "unreadable report" })
    totals.failed += 1
    continue
  }
  // A test file that failed to load (syntax error, bad import, throw at top level) has status
  // "failed" and no assertion results; vitest counts it in no test total, so count it as 1 failed.
  const suites = Array.isArray(report.testResults) ? report.testResults : []
  const brokenFiles = suites.filter(
    (suite) => suite?.status === "failed" && (!Array.isArray(suite.assertionResults) || suite.assertionResults.length === 0)
  )
  const row = {
    name: packageName(dir),
    passed: num(report.numPassedTests),
    failed: num(report.numFailedTests) + brokenFiles.length,
    skipped: num(report.numPendingTests) + num(report.numTodoTests),
    note: brokenFiles.length > 0
      ? `${brokenFiles.length} file(s) failed to load: ${brokenFiles.map((s) => path.relative(path.join(repoRoot, dir), s.name ?? "?")).join(", ")}`
      : ""
  }
  rows.push(row)
  failures.push(...failedTests(row.name, dir, suites, brokenFiles))
  totals.passed += row.passed
  totals.failed += row.failed
  totals.skipped += row.skipped
}

console.log("")
console.log("[test] results by package:")
if (rows.length === 0) {
  console.log("  (no .vitest-results/results.json found)")
} else {
  const width = Math.max(...rows.map((r) => r.name.length))
  for (const r of rows) {
    const counts = `${r.passed} passed, ${r.failed} failed, ${r.skipped} skipped`
    console.log(`  ${r.name.padEnd(width)}  ${counts}${r.note ? `  (${r.note})` : ""}`)
  }
}

if (failures.length > 0) {
  console.log("")
  console.log("[test] failed:")
  for (const failure of failures) console.log(`  ${failure}`)
}

// --- 3. a failing test fails each package's run ------------------------------------------------

const exitCodes = await packagesHidingFailures()
console.log("")
console.log(`[test] ${exitCodes.checked - exitCodes.problems.length} of ${exitCodes.checked} packages fail their test script on a failing test`)
problems.push(...exitCodes.problems)

// --- 4. verdict --------------------------------------------------------------------------------

if (totals.failed > 0) problems.push(`${totals.failed} test(s) failed`)
if (totals.passed + totals.failed === 0) problems.push("no tests ran at all (no vitest report counted a test)")
for (const problem of problems) console.log(`[test] FAIL: ${problem}`)

console.log(`${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`)
process.exitCode = problems.length > 0 ? 1 : 0
