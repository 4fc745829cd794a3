import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Property tests and tests over HTTP run long on a busy 2-core machine; a timeout is a failure
    // to investigate, not a speed check (speed is measured by `./run bench`).
    testTimeout: 60_000,
    // Two test files at a time: most of these tests wait on PostgreSQL and HTTP. Their bounds are
    // sized for a loaded machine.
    maxWorkers: 2,
    hookTimeout: 60_000,
    passWithNoTests: true,
    // One PostgreSQL server for the run: DATABASE_URL, or an embedded one (see the file).
    globalSetup: ["../watch/test/support/postgresSetup.ts"],
    reporters: ["default", ["json", { outputFile: ".vitest-results/results.json" }]]
  }
})
