import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Packing, `npm install` from the registry and two type-checks run long on a busy 2-core
    // machine; a timeout is a failure to investigate, not a speed check.
    testTimeout: 300_000,
    hookTimeout: 600_000,
    reporters: ["default", ["json", { outputFile: ".vitest-results/results.json" }]]
  }
})
