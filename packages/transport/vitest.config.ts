import { defineConfig } from "vitest/config"

// The tests run in a zone far from GMT (UTC+12:45 or +13:45), so that a date read in the machine's
// time zone instead of GMT fails them on any machine, CI's UTC ones included. Set here, before the
// test workers start, it holds for the whole process (worker threads cannot change it).
process.env["TZ"] = "Pacific/Chatham"

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
