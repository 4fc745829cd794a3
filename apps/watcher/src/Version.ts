/**
 * The watcher's version, read at run time from its `package.json` (the one source: changesets
 * bumps it at each release), so that `chainquery-watcher --version` and the OpenAPI document's
 * `info.version` say the same. The file sits one folder up from `src/` and from `dist/`, in the
 * repository and where the package is installed.
 *
 * @since 0.5.0
 */
import { createRequire } from "node:module"

const manifest: unknown = createRequire(import.meta.url)("../package.json")

/**
 * The `version` of `@chainquery/watcher`'s `package.json`, such as `0.4.0`.
 *
 * @example
 * ```ts
 * import { Version } from "@chainquery/watcher"
 *
 * console.log(`chainquery-watcher ${Version.version}`)
 * ```
 * @since 0.5.0
 */
export const version: string = (() => {
  const value = typeof manifest === "object" && manifest !== null ? (manifest as { readonly version?: unknown }).version : undefined
  if (typeof value !== "string" || value === "") throw new Error("@chainquery/watcher: its package.json has no version")
  return value
})()
