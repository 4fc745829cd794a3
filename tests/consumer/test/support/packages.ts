/**
 * The workspace's publishable packages, packed the way they are published: `pnpm pack` (which
 * turns `workspace:` ranges into versions), then read back from the tarball with `tar`.
 */
import { execFileSync } from "node:child_process"
import { existsSync, readdirSync, readFileSync } from "node:fs"
import path from "node:path"
import { fileURLToPath } from "node:url"

export const repoRoot = fileURLToPath(new URL("../../../../", import.meta.url))

export interface Manifest {
  readonly name: string
  readonly version: string
  readonly private?: boolean
  readonly bin?: Readonly<Record<string, string>>
  readonly exports?: unknown
  readonly dependencies?: Readonly<Record<string, string>>
  readonly peerDependencies?: Readonly<Record<string, string>>
  readonly devDependencies?: Readonly<Record<string, string>>
  readonly optionalDependencies?: Readonly<Record<string, string>>
}

export interface Packed {
  readonly dir: string
  readonly tarball: string
  /** The package.json inside the tarball (what the registry would serve). */
  readonly manifest: Manifest
  /** The paths inside the tarball, without the leading `package/`. */
  readonly entries: ReadonlySet<string>
}

/** Every package under packages/ and apps/ that is not private. */
export const publishable = (): ReadonlyArray<{ readonly dir: string; readonly manifest: Manifest }> =>
  ["packages", "apps"].flatMap((group) =>
    readdirSync(path.join(repoRoot, group), { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && existsSync(path.join(repoRoot, group, entry.name, "package.json")))
      .map((entry) => {
        const dir = path.join(repoRoot, group, entry.name)
        return { dir, manifest: JSON.parse(readFileSync(path.join(dir, "package.json"), "utf8")) as Manifest }
      })
      .filter(({ manifest }) => manifest.private !== true)
  ).toSorted((a, b) => a.manifest.name.localeCompare(b.manifest.name))

/** Packs one package into `destination` with pnpm and reads the tarball back. */
export const pack = (dir: string, destination: string): Packed => {
  const tarball = packTarball(dir, destination)
  return { dir, tarball, manifest: packedManifest(tarball), entries: entriesOf(tarball) }
}

/** Packs one package into `destination` with pnpm; returns the tarball's path. */
const packTarball = (dir: string, destination: string): string => {
  const before = new Set(existsSync(destination) ? readdirSync(destination) : [])
  execFileSync("pnpm", ["pack", "--pack-destination", destination], { cwd: dir, stdio: ["ignore", "pipe", "pipe"] })
  const made = readdirSync(destination).filter((file) => file.endsWith(".tgz") && !before.has(file))
  if (made.length !== 1) throw new Error(`pnpm pack in ${dir} made ${made.length} tarballs`)
  return path.join(destination, made[0]!)
}

/** The paths inside a tarball, without the leading `package/`. */
const entriesOf = (tarball: string): ReadonlySet<string> =>
  new Set(
    execFileSync("tar", ["-tzf", tarball], { encoding: "utf8" })
      .split("\n")
      .filter((line) => line.startsWith("package/"))
      .map((line) => line.slice("package/".length))
  )

/** The package.json inside a tarball (what the registry would serve). */
const packedManifest = (tarball: string): Manifest =>
  JSON.parse(execFileSync("tar", ["-xzOf", tarball, "package/package.json"], { encoding: "utf8" })) as Manifest

/** Every file path an `exports` map points at (conditions and subpaths flattened). */
export const exportTargets = (exports: unknown): ReadonlyArray<string> => {
  if (typeof exports === "string") return [exports]
  if (exports === null || typeof exports !== "object") return []
  return Object.values(exports).flatMap(exportTargets)
}

/** Every dependency range of a manifest, as `section name@range`. */
export const dependencyRanges = (manifest: Manifest): ReadonlyArray<string> =>
  (["dependencies", "peerDependencies", "optionalDependencies", "devDependencies"] as const).flatMap((section) =>
    Object.entries(manifest[section] ?? {}).map(([name, range]) => `${section} ${name}@${range}`)
  )
