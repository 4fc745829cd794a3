/**
 * The consumer check's scratch folder and the versions it installs.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs"
import { createRequire } from "node:module"
import path from "node:path"

const require = createRequire(import.meta.url)

/** Scratch folders of earlier runs older than this were left by a run that was killed. */
const staleAfterMillis = 6 * 60 * 60 * 1000

/**
 * A new folder `<parent>/<prefix>XXXXXX`; first removes the folders with the same prefix that an
 * earlier, killed run left behind (older than six hours, so a run in progress keeps its own).
 */
export const newScratchDir = (parent: string, prefix: string): string => {
  const now = Date.now()
  for (const name of readdirSync(parent)) {
    if (!name.startsWith(prefix)) continue
    const dir = path.join(parent, name)
    try {
      if (now - statSync(dir).mtimeMs > staleAfterMillis) rmSync(dir, { recursive: true, force: true })
    } catch {
      // removed by someone else meanwhile
    }
  }
  return mkdtempSync(path.join(parent, prefix))
}

/** The version of a package installed in the workspace (what its lockfile chose). */
export const workspaceVersion = (name: string): string =>
  (JSON.parse(readFileSync(require.resolve(`${name}/package.json`), "utf8")) as { readonly version: string }).version

/** Whether `version` (x.y.z) is in a caret range `^a.b.c`; any other range form is refused. */
export const satisfiesCaret = (version: string, range: string): boolean => {
  const want = /^\^(\d+)\.(\d+)\.(\d+)$/.exec(range)
  const have = /^(\d+)\.(\d+)\.(\d+)$/.exec(version)
  if (want === null) throw new Error(`only caret ranges are checked here, got ${JSON.stringify(range)}`)
  if (have === null) return false
  const [a, b, c] = want.slice(1).map(Number) as [number, number, number]
  const [x, y, z] = have.slice(1).map(Number) as [number, number, number]
  if (x !== a) return false
  if (a === 0) return b === 0 ? y === 0 && z === c : y === b && z >= c
  return y > b || (y === b && z >= c)
}
