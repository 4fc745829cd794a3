/**
 * The service's version, read at run time from `@chainquery/watch-service`'s `package.json`: the
 * OpenAPI document's `info.version`. Changesets bumps this package and `@chainquery/watcher`
 * together (a fixed group), so it is also what `chainquery-watcher --version` says. The file sits
 * two folders up from `src/api/` and from `dist/api/`, in the repository and where it is installed.
 *
 * @since 0.5.0
 */
import { createRequire } from "node:module"

const manifest: unknown = createRequire(import.meta.url)("../../package.json")

/**
 * The `version` of `@chainquery/watch-service`'s `package.json`, such as `0.4.0`.
 *
 * @example
 * ```ts
 * import { ApiVersion } from "@chainquery/watch-service"
 *
 * console.log(`chainquery-watcher serve ${ApiVersion.version}`)
 * ```
 * @since 0.5.0
 */
export const version: string = (() => {
  const value = typeof manifest === "object" && manifest !== null ? (manifest as { readonly version?: unknown }).version : undefined
  if (typeof value !== "string" || value === "") throw new Error("@chainquery/watch-service: its package.json has no version")
  return value
})()
