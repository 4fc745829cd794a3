/**
 * One version everywhere: `chainquery-watcher --version` (the built CLI), the package's
 * `package.json` and the OpenAPI document's `info.version` are the same, read from the one file.
 */
import { OpenApi } from "effect/http-api"
import { readFileSync } from "node:fs"
import { describe, expect, it } from "vitest"
import { Api } from "../../src/service/ManagementApi.js"
import { runCli } from "./support/e2e.js"

const manifest = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { readonly version: string }

describe("the version", () => {
  it("--version, package.json and the OpenAPI document's info.version agree", async () => {
    expect(manifest.version).toMatch(/^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?$/)
    expect(manifest.version, "the package has a version of its own, not a placeholder").not.toBe("0.0.0")
    const run = await runCli(["--version"])
    expect(run.code).toBe(0)
    expect(run.stdout.trim()).toBe(`chainquery-watcher v${manifest.version}`)
    expect(OpenApi.fromApi(Api).info.version).toBe(manifest.version)
  }, 60_000)
})
