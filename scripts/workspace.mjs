// The workspace's package folders, as pnpm-workspace.yaml lays them out (packages/*, apps/*,
// tests/*), for the scripts. Plain Node ESM with no dependencies.
import { existsSync, readdirSync, readFileSync } from "node:fs"
import path from "node:path"
import { fileURLToPath } from "node:url"

/** The repository's root folder. */
export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")

const byCodePoint = (a, b) => (a < b ? -1 : a > b ? 1 : 0)

/**
 * Every package of the given groups: its folder (absolute) and its package.json's name, in a
 * stable order. For example `workspacePackages(["packages", "apps"])`.
 */
export function workspacePackages(groups = ["packages", "apps", "tests"]) {
  const found = []
  for (const group of groups) {
    const groupDir = path.join(repoRoot, group)
    if (!existsSync(groupDir)) continue
    for (const entry of readdirSync(groupDir, { withFileTypes: true })) {
      const manifest = path.join(groupDir, entry.name, "package.json")
      if (entry.isDirectory() && existsSync(manifest)) {
        found.push({ dir: path.join(groupDir, entry.name), name: JSON.parse(readFileSync(manifest, "utf8")).name })
      }
    }
  }
  return found.sort((a, b) => byCodePoint(a.dir, b.dir))
}
