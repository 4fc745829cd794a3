import { configDefaults, defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Under `./run mutate` (which sets CHAINQUERY_MUTATION), the tests that run the built program
    // (dist/, a child process) are left out: they cannot see a mutant, and would take the time.
    exclude: process.env["CHAINQUERY_MUTATION"] === "1"
      ? [...configDefaults.exclude, "test/e2e/**", "test/soak/**", "test/**/*.e2e.test.ts"]
      : configDefaults.exclude,
    // Property tests and tests over HTTP run long on a busy 2-core machine; a timeout is a failure
    // to investigate, not a speed check (speed is measured by `./run bench`).
    testTimeout: 60_000,
    // Two test files at a time, where vitest's default on 2 cores is one: most of these tests wait
    // on child processes and HTTP, so the suite takes about 310 s instead of 560 s. Their bounds are
    // sized for a loaded machine (see the e2e tests' timeouts).
    maxWorkers: 2,
    hookTimeout: 60_000,
    passWithNoTests: true,
    // One PostgreSQL server for the run: DATABASE_URL, or an embedded one (see the file).
    globalSetup: ["../../packages/watch/test/support/postgresSetup.ts"],
    reporters: ["default", ["json", { outputFile: ".vitest-results/results.json" }]]
  }
})
