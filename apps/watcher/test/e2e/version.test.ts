/**
 * One version everywhere: `chainquery-watcher --version` (the built CLI), the package's
 * `package.json`, `@chainquery/watch-service`'s (bumped with it: a fixed group of changesets) and
 * the OpenAPI document's `info.version` are the same.
 */
import { OpenApi } from "effect/http-api"
import { readFileSync } from "node:fs"
import { describe, expect, it } from "vitest"
import { ManagementApi } from "@chainquery/watch-service"
import { runCli } from "./support/e2e.js"

const manifestOf = (url: URL) => JSON.parse(readFileSync(url, "utf8")) as { readonly version: string }
const manifest = manifestOf(new URL("../../package.json", import.meta.url))
const serviceManifest = manifestOf(new URL("../../../../packages/watch-service/package.json", import.meta.url))
const changesets = JSON.parse(readFileSync(new URL("../../../../.changeset/config.json", import.meta.url), "utf8")) as {
  readonly fixed: ReadonlyArray<ReadonlyArray<string>>
}

describe("the version", () => {
  it("--version, package.json and the OpenAPI document's info.version agree", async () => {
    expect(manifest.version).toMatch(/^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?$/)
    expect(manifest.version, "the package has a version of its own, not a placeholder").not.toBe("0.0.0")
    const run = await runCli(["--version"])
    expect(run.code).toBe(0)
    expect(run.stdout.trim()).toBe(`chainquery-watcher v${manifest.version}`)
    expect(serviceManifest.version).toBe(manifest.version)
    expect(changesets.fixed).toContainEqual(["@chainquery/watcher", "@chainquery/watch-service"])
    expect(OpenApi.fromApi(ManagementApi.Api).info.version).toBe(manifest.version)
  }, 60_000)
})
