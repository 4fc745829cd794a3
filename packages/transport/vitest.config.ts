import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    passWithNoTests: true,
    reporters: ["default", ["json", { outputFile: ".vitest-results/results.json" }]]
  }
})
