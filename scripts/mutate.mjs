// ./run mutate [package or area...] [-- stryker flags]: mutation testing with StrykerJS. Each named
// package's sources (src/**, index files left out), or an area's files, are broken one small
// change at a time and the package's vitest tests that import them (vitest's related mode) run
// against each break; a break no test notices "survives". Prints Stryker's table, then one line
// per package or area: its mutation score and counts. Too slow for CI on 2 cores (transport:
// about 45 minutes from scratch), so it is not part of ./run test.
//
//   node scripts/mutate.mjs                     transport and schema
//   node scripts/mutate.mjs transport           one package (a folder name under packages/ or apps/)
//   node scripts/mutate.mjs delivery reorg      areas (see `areas` below): some files of a package
//   node scripts/mutate.mjs service             every area of the service (delivery, stores, api)
//   node scripts/mutate.mjs transport -- --mutate src/Scrub.ts   extra flags go to `stryker run`
//   node scripts/mutate.mjs transport --force   every mutant again (runs are incremental otherwise)
//
// Tests that run the built program (dist/, a child process) cannot see a mutant: only tests that
// import the mutated modules count, so an area's score is that of its unit and in-process tests.
//
// Each run leaves .mutation/<name>.json (the mutation-testing-report schema) and
// .mutation/<name>.survivors.txt (one surviving mutant per line). Sandboxes go to .stryker-tmp/
// at the repository root: a sandbox sits two levels below the root, as a package does, so that
// its `extends: ../../tsconfig.base.json` still resolves.
// Plain Node (>= 22) ESM; the only dependencies are @stryker-mutator/core and its vitest runner.
import { spawnSync } from "node:child_process"
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import path from "node:path"
import { repoRoot, workspacePackages } from "./workspace.mjs"

// Package names come first; from the first flag (or a `--`) on, the rest goes to Stryker.
const args = process.argv.slice(2)
const firstFlag = args.findIndex((arg) => arg.startsWith("-"))
const names = firstFlag === -1 ? args : args.slice(0, firstFlag)
const strykerFlags = firstFlag === -1 ? [] : args.slice(firstFlag).filter((arg, index) => !(index === 0 && arg === "--"))

/**
 * Areas: the files of one concern in a package, mutated on their own (a whole package would take
 * hours), and optionally the test files that hold its promises (`tests`): every test that imports
 * the engine's state or reorganisation code replays whole chains, minutes a mutant, where the
 * area's own tests take seconds. `staticMutants: false` leaves out the mutants of code that runs
 * once, when a module loads (the service's API definition, its schemas and SQL constants): Stryker
 * can only test such a mutant by running every test of the area again in a fresh process, a
 * minute each over PostgreSQL, hours an area; they are counted as "ignored". `groups` name several
 * areas at once.
 */
const areas = {
  delivery: {
    package: "watch-service",
    staticMutants: false,
    files: [
      "store/DeliveryStore",
      "delivery/DeliveryWorker",
      "delivery/DeliveryWake",
      "delivery/DeliverySlots",
      "store/Outbox",
      "delivery/WebhookSender",
      "delivery/WebhookSignature",
      "delivery/WebhookBatch",
      "store/Statistics"
    ].map((name) => `src/${name}.ts`),
    tests: [
      "Coverage",
      "DeliverySlots",
      "DeliveryStore",
      "Outbox",
      "WebhookSender",
      "WebhookSignature",
      "batchOnTheWire",
      "deliveryLogLines",
      "deliveryLoop",
      "keptAliveConnection",
      "outboxBacklog",
      "deliveriesView",
      "pauseResume",
      "replayAndStats",
      "resumeRate",
      "tlsReceiver",
      "webhookBody"
    ].map((name) => `test/${name}.test.ts`)
  },
  stores: {
    package: "watch-service",
    staticMutants: false,
    files: ["store/StreamStore", "store/Coverage", "delivery/Heartbeats", "store/StreamSecrets"].map((name) => `src/${name}.ts`),
    tests: [
      "Coverage",
      "StreamStore",
      "StreamSecrets",
      "DeliveryStore",
      "Outbox",
      "ManagementApi",
      "pageLimits",
      "batchOnTheWire",
      "patchReplans",
      "streamChanges",
      "walletBaseline",
      "walletRemoval",
      "pauseResume",
      "replayAndStats",
      "resumeRate"
    ].map((name) => `test/${name}.test.ts`)
  },
  api: {
    package: "watch-service",
    staticMutants: false,
    files: ["api/ApiHandlers", "store/WalletAdmission", "api/ManagementApi", "api/ApiMiddleware", "model/Scopes", "delivery/AddressPolicy"].map((name) => `src/${name}.ts`),
    tests: [
      "AddressPolicy",
      "ManagementApi",
      "apiErrors",
      "chainNames",
      "deliveriesView",
      "headUnreadable",
      "pageLimits",
      "patchReplans",
      "pauseResume",
      "replayAndStats",
      "resumeRate",
      "streamChanges",
      "walletBaseline",
      "walletRemoval"
    ].map((name) => `test/${name}.test.ts`)
  },
  receiver: { package: "webhook-receiver", files: ["src/**/*.ts", "!src/**/index.ts"] },
  reorg: {
    package: "watch",
    files: ["deepReorg", "recentBlocks", "witness"].map((name) => `src/internal/cycle/${name}.ts`),
    tests: ["ReplacedBlockAllWallets", "CommonAncestor", "Witness", "NotIndexedBlockStopsCheck"].map((name) => `test/${name}.test.ts`)
  },
  state: {
    package: "watch",
    files: ["src/StateStore.ts", "src/PgStateStore.ts", "src/PgCheckpoints.ts", "src/internal/state/stateTables.ts", "src/internal/state/memoryTables.ts"],
    tests: ["StateStore", "StateStoreMemory", "StateStorePg", "PgCheckpoints", "StateFile", "ForgetRefusesPlannedCommit", "PlacementsLockInKeyOrder"].map((name) =>
      `test/${name}.test.ts`
    )
  }
}
const groups = { service: ["delivery", "stores", "api"], engine: ["reorg", "state"] }

const packages = workspacePackages(["packages", "apps"])
const wanted = (names.length === 0 ? ["transport", "schema"] : names).flatMap((name) => groups[name] ?? [name])
const unknown = wanted.filter((name) => areas[name] === undefined && !packages.some((pkg) => path.basename(pkg.dir) === name))
if (unknown.length > 0) {
  console.error(`[mutate] unknown package(s) or area(s): ${unknown.join(", ")}; packages: ${packages.map((pkg) => path.basename(pkg.dir)).join(", ")}; areas: ${Object.keys(areas).join(", ")}; groups: ${Object.entries(groups).map(([group, members]) => `${group} (${members.join(", ")})`).join(", ")}`)
  process.exit(2)
}

const sandboxes = path.join(repoRoot, ".stryker-tmp")
const reports = path.join(repoRoot, ".mutation")
mkdirSync(reports, { recursive: true })
const stryker = path.join(repoRoot, "node_modules", ".bin", "stryker")

/** Stryker's options for one package (`{ dir, name }`) or area of it (`name`, `files`), run from its folder. */
const configFor = (pkg, name, files, tests, staticMutants = true) => ({
  testRunner: "vitest",
  plugins: ["@stryker-mutator/vitest-runner"],
  vitest: { configFile: "vitest.config.ts" },
  mutate: files,
  ...(tests === undefined ? {} : { testFiles: tests }),
  ignoreStatic: !staticMutants,
  // Not copied to the sandbox: what no test reads. `dist` is (tests of a bin run it), so do not
  // build while a run starts; those tests run the unmutated build and cannot catch a mutant.
  ignorePatterns: ["bench", ".vitest-results", ".turbo"],
  coverageAnalysis: "perTest",
  concurrency: 2,
  // A mutant times out after 1.5x its tests' time in the first run plus 2 s (Stryker's default is
  // 5 s): a mutant that stops a TestClock test from ending would otherwise cost 5 s more each.
  timeoutMS: 2000,
  // The first run of an area's tests (watch-service's over PostgreSQL) takes minutes on 2 cores.
  dryRunTimeoutMinutes: 30,
  reporters: ["clear-text", "progress-append-only", "json"],
  jsonReporter: { fileName: path.join(reports, `${name}.json`) },
  tempDirName: path.relative(pkg.dir, sandboxes),
  // TypeScript 7 has no JavaScript API for Stryker to rewrite tsconfig paths with; the sandbox sits
  // at the same depth as the package instead (see tempDirName), so no rewrite is needed.
  tsconfigFile: "tsconfig.stryker-needs-no-rewrite.json",
  cleanTempDir: "always",
  // Mutants whose code and covering tests are unchanged since the last run keep their result; pass
  // `--force` to test them all again.
  incremental: true,
  incrementalFile: path.join(reports, `${name}.incremental.json`)
})

/** Counts of a mutation-testing-report file, by status. */
const countsOf = (reportFile) => {
  const report = JSON.parse(readFileSync(reportFile, "utf8"))
  const counts = {}
  const survivors = []
  for (const [file, { mutants }] of Object.entries(report.files)) {
    for (const mutant of mutants) {
      counts[mutant.status] = (counts[mutant.status] ?? 0) + 1
      if (mutant.status === "Survived" || mutant.status === "NoCoverage") {
        survivors.push(`${file}:${mutant.location.start.line} ${mutant.mutatorName}${mutant.replacement === undefined ? "" : ` -> ${mutant.replacement.split("\n")[0].slice(0, 60)}`}`)
      }
    }
  }
  return { counts, survivors }
}

/** One line for a package: its score and counts, `partial` when the run was stopped before its end. */
const summaryOf = (pkg, name, reportFile, partial) => {
  const { counts, survivors } = countsOf(reportFile)
  const killed = (counts.Killed ?? 0) + (counts.Timeout ?? 0)
  const valid = killed + (counts.Survived ?? 0) + (counts.NoCoverage ?? 0)
  const score = valid === 0 ? 0 : (100 * killed) / valid
  const survivorsFile = path.join(reports, `${name}.survivors.txt`)
  writeFileSync(survivorsFile, survivors.join("\n") + "\n")
  const stopped = partial ? ` (partial: the run was stopped; ${Object.values(counts).reduce((a, b) => a + b, 0)} mutants have a result, the next run goes on from them)` : ""
  return `${pkg.name}${name === path.basename(pkg.dir) ? "" : ` (${name})`}: mutation score ${score.toFixed(1)}%${stopped} (${killed} killed of ${valid}: ${counts.Killed ?? 0} by a failing test, ${counts.Timeout ?? 0} by a timeout; ${counts.Survived ?? 0} survived, ${counts.NoCoverage ?? 0} not covered; ${(counts.CompileError ?? 0) + (counts.RuntimeError ?? 0)} invalid, ${counts.Ignored ?? 0} ignored); survivors in ${path.relative(repoRoot, survivorsFile)}`
}

// Ctrl-C (or SIGTERM) reaches Stryker too, which saves what it has tested to the incremental file;
// this process ignores it, waits for Stryker, then reports that much and stops.
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => {})
let interrupted = false
/** Whether Stryker ended on Ctrl-C or SIGTERM (130, 143), as seen once `spawnSync` returns. */
const stoppedBySignal = (result) => result.signal !== null || result.status === 130 || result.status === 143

const summaries = []
let failed = false
for (const name of wanted) {
  if (interrupted) break
  const area = areas[name]
  const pkg = packages.find((candidate) => path.basename(candidate.dir) === (area?.package ?? name))
  const configFile = path.join(reports, `${name}.stryker.config.json`)
  writeFileSync(configFile, JSON.stringify(configFor(pkg, name, area?.files ?? ["src/**/*.ts", "!src/**/index.ts"], area?.tests, area?.staticMutants), null, 2))
  const reportFile = path.join(reports, `${name}.json`)
  const incrementalFile = path.join(reports, `${name}.incremental.json`)
  rmSync(reportFile, { force: true })
  console.log(`[mutate] ${area === undefined ? pkg.name : `${pkg.name} (${name})`}: stryker run (${path.relative(repoRoot, pkg.dir)})`)
  // CHAINQUERY_MUTATION: a package's vitest config may leave out the tests that run its built
  // program (apps/watcher does), which cannot see a mutant.
  const result = spawnSync(stryker, ["run", configFile, ...strykerFlags], { cwd: pkg.dir, stdio: "inherit", env: { ...process.env, CHAINQUERY_MUTATION: "1" } })
  if (result.status === 0 && existsSync(reportFile)) {
    summaries.push(summaryOf(pkg, name, reportFile, false))
  } else if (stoppedBySignal(result) && existsSync(incrementalFile)) {
    interrupted = true
    failed = true
    summaries.push(summaryOf(pkg, name, incrementalFile, true))
  } else if (result.status === 0) {
    summaries.push(`${pkg.name}: no report (a dry run only?)`)
  } else {
    failed = true
    summaries.push(`${pkg.name}: stryker failed (exit ${result.status ?? result.signal})`)
  }
}
console.log("")
for (const line of summaries) console.log(`[mutate] ${line}`)
process.exit(failed ? 1 : 0)
