import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Property tests and tests over HTTP run long on a busy 2-core machine; a timeout is a failure
    // to investigate, not a speed check (speed is measured by `./run bench`).
    testTimeout: 60_000,
    hookTimeout: 60_000,
    passWithNoTests: true,
    reporters: ["default", ["json", { outputFile: ".vitest-results/results.json" }]]
  }
})
