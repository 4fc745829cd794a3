// ./run soak: the seeded soak of the watcher CLI (apps/watcher/test/soak, issue #18). Each
// scenario is drawn from its own seed, played against an in-process simulator with faults,
// reorganisations, kill -9 and wallets added through --backfill, and judged against the ground
// truth. A failure prints the scenario, what went wrong and the command that replays it.
//
//   node scripts/soak.mjs [--scenarios N] [--seed S] [--concurrency C]   N scenarios (default 3)
//                                                                        seeded from S (default 18)
//   node scripts/soak.mjs --replay X [--concurrency C]                   the scenario of seed X only
//
// It runs vitest in apps/watcher on test/soak/soak.test.ts with SOAK_SCENARIOS, SOAK_SEED,
// SOAK_REPLAY, SOAK_CONCURRENCY and SOAK_TIMEOUT_MS set, streams its output, then prints
// "soak: N scenarios, P clean, F failed, in T s" and exits with vitest's status (2 on bad flags).
// Plain Node (>= 22) ESM with no dependencies; the watcher must be built (./run soak builds it).
import { spawnSync } from "node:child_process"
import { readFileSync, statSync } from "node:fs"
import path from "node:path"
import { repoRoot } from "./workspace.mjs"

const usage = `usage: ./run soak -- [--scenarios N] [--seed S] [--concurrency C]
       ./run soak -- --replay X [--concurrency C]
  --scenarios N    how many scenarios (an integer >= 1; default 3)
  --seed S         the soak's seed; scenario i's seed derives from S and i (an integer; default 18)
  --replay X       play only the scenario of seed X (as a failure prints it)
  --concurrency C  scenarios played at once (1 to 4; default 1)`

const fail = (message) => {
  console.error(`soak: ${message}\n${usage}`)
  process.exit(2)
}

/** Parses `--name value` and `--name=value` flags; anything else is an error. */
const parse = (argv) => {
  const flags = {}
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]
    if (arg === "-h" || arg === "--help") {
      console.log(usage)
      process.exit(0)
    }
    const match = /^--(scenarios|seed|replay|concurrency)(?:=(.*))?$/.exec(arg)
    if (match === null) fail(`unknown argument "${arg}"`)
    const [, name, inline] = match
    const value = inline ?? argv[++i]
    if (value === undefined || value === "") fail(`--${name} needs a value`)
    if (name in flags) fail(`--${name} is given twice`)
    if (!/^-?\d+$/.test(value) || !Number.isSafeInteger(Number(value))) fail(`--${name} must be an integer, got "${value}"`)
    flags[name] = Number(value)
  }
  if (flags.scenarios !== undefined && flags.scenarios < 1) fail(`--scenarios must be at least 1, got ${flags.scenarios}`)
  if (flags.concurrency !== undefined && (flags.concurrency < 1 || flags.concurrency > 4)) {
    fail(`--concurrency must be from 1 to 4, got ${flags.concurrency}`)
  }
  if (flags.replay !== undefined && (flags.scenarios !== undefined || flags.seed !== undefined)) {
    fail("--replay plays one scenario: it does not go with --scenarios or --seed")
  }
  for (const name of ["seed", "replay"]) {
    if (flags[name] !== undefined && (flags[name] < -(2 ** 31) || flags[name] > 2 ** 32 - 1)) fail(`--${name} must fit in 32 bits, got ${flags[name]}`)
  }
  return flags
}

const flags = parse(process.argv.slice(2))
const scenarios = flags.replay !== undefined ? 1 : flags.scenarios ?? 3
const concurrency = flags.concurrency ?? 1
/** Per scenario (the test file stops a scenario 15 s before it to report what it did). */
const perScenarioMs = 150_000
const rounds = Math.ceil(scenarios / concurrency)

const env = {
  ...process.env,
  SOAK_SCENARIOS: String(scenarios),
  SOAK_CONCURRENCY: String(concurrency),
  SOAK_TIMEOUT_MS: String(perScenarioMs)
}
delete env.SOAK_SEED
delete env.SOAK_REPLAY
if (flags.seed !== undefined) env.SOAK_SEED = String(flags.seed)
if (flags.replay !== undefined) env.SOAK_REPLAY = String(flags.replay)

const watcherDir = path.join(repoRoot, "apps", "watcher")
// Where apps/watcher/vitest.config.ts has the json reporter write its report.
const report = path.join(watcherDir, ".vitest-results", "results.json")
const args = ["exec", "vitest", "run", "test/soak/soak.test.ts", "--testTimeout", String(perScenarioMs * (concurrency > 1 ? rounds : 1))]
const what = flags.replay !== undefined ? `the scenario of seed ${flags.replay}` : `${scenarios} scenario(s) from seed ${flags.seed ?? "18 (default)"}`
console.log(`[soak] ${what}, ${concurrency} at a time: pnpm ${args.join(" ")} (in apps/watcher)`)

const started = Date.now()
const vitest = spawnSync("pnpm", args, {
  cwd: watcherDir,
  env,
  stdio: "inherit",
  // A bound on the whole run, past the scenarios' own timeouts.
  timeout: perScenarioMs * rounds + 120_000,
  killSignal: "SIGKILL"
})
const seconds = Math.round((Date.now() - started) / 1000)

let clean = 0
let failed = scenarios
try {
  if (statSync(report).mtimeMs < started) throw new Error("stale")
  const results = JSON.parse(readFileSync(report, "utf8"))
  clean = results.numPassedTests ?? 0
  failed = scenarios - clean
} catch {
  console.error(`[soak] vitest wrote no report (${path.relative(repoRoot, report)}): counting every scenario as failed`)
}

if (vitest.error) console.error(`[soak] vitest did not run to its end: ${vitest.error.message}`)
console.log(`soak: ${scenarios} scenarios, ${clean} clean, ${failed} failed, in ${seconds} s`)
process.exit(vitest.status ?? 1)
