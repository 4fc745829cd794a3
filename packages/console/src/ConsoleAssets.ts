/**
 * The console's built files (`dist/assets/`, made by the package's build): its page, its one
 * script and its one stylesheet, each with its gzip, read once into memory. Their names carry a
 * hash of their content, so a browser may keep them for good.
 *
 * @since 0.1.0
 */
import { Data, Effect } from "effect"
import { readFile } from "node:fs/promises"

/**
 * One file as it is sent: its bytes, their gzip, and its media type.
 *
 * @example
 * ```ts
 * import type { ConsoleAssets } from "@chainquery/console"
 *
 * const size = (asset: ConsoleAssets.Asset) => asset.gzip.length
 * ```
 * @since 0.1.0
 */
export interface Asset {
  readonly name: string
  readonly contentType: string
  readonly bytes: Uint8Array
  readonly gzip: Uint8Array
}

/**
 * The console's files: the page, and the script and stylesheet by name.
 *
 * @example
 * ```ts
 * import type { ConsoleAssets } from "@chainquery/console"
 *
 * const scriptName = (assets: ConsoleAssets.Assets) => assets.script.name // "console.0123456789ab.js"
 * ```
 * @since 0.1.0
 */
export interface Assets {
  readonly page: Asset
  readonly script: Asset
  readonly style: Asset
  /** The script or the stylesheet named `name`, if it is one of them. */
  readonly byName: (name: string) => Asset | undefined
}

/**
 * The console's files could not be read: the package was not built (`./run` builds it).
 *
 * @example
 * ```ts
 * import { ConsoleAssets } from "@chainquery/console"
 *
 * new ConsoleAssets.ConsoleNotBuilt({ folder: "/srv/console/dist/assets", reason: "ENOENT" }).message
 * ```
 * @since 0.1.0
 */
export class ConsoleNotBuilt extends Data.TaggedError("ConsoleNotBuilt")<{ readonly folder: string; readonly reason: string }> {
  override get message() {
    return `the console's files are not in ${this.folder} (${this.reason}): build @chainquery/console first`
  }
}

/**
 * Where the build puts the files: `dist/assets/` of this package (from `src/` and `dist/` alike).
 *
 * @example
 * ```ts
 * import { ConsoleAssets } from "@chainquery/console"
 *
 * ConsoleAssets.folder.pathname.endsWith("/dist/assets/") // true
 * ```
 * @since 0.1.0
 */
export const folder = new URL("../dist/assets/", import.meta.url)

const contentTypes: Record<string, string> = {
  html: "text/html; charset=utf-8",
  js: "text/javascript; charset=utf-8",
  css: "text/css; charset=utf-8"
}

/**
 * Reads the files listed by the build's `manifest.json` in `from` ({@link folder} unless given).
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { ConsoleAssets } from "@chainquery/console"
 *
 * const sizes = Effect.map(ConsoleAssets.load(), (assets) => assets.script.gzip.length + assets.style.gzip.length)
 * ```
 * @since 0.1.0
 */
export const load = (from: URL = folder): Effect.Effect<Assets, ConsoleNotBuilt> =>
  Effect.tryPromise({
    try: async () => {
      const manifest = JSON.parse(await readFile(new URL("manifest.json", from), "utf8")) as {
        readonly html: string
        readonly script: string
        readonly style: string
      }
      const read = async (name: string): Promise<Asset> => ({
        name,
        contentType: contentTypes[name.slice(name.lastIndexOf(".") + 1)] ?? "application/octet-stream",
        bytes: await readFile(new URL(name, from)),
        gzip: await readFile(new URL(`${name}.gz`, from))
      })
      const [page, script, style] = await Promise.all([read(manifest.html), read(manifest.script), read(manifest.style)])
      return { page, script, style, byName: (name: string) => name === script.name ? script : name === style.name ? style : undefined }
    },
    catch: (error) => new ConsoleNotBuilt({ folder: from.pathname, reason: error instanceof Error ? error.message : String(error) })
  })
