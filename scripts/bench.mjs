// ./run bench: runs every benchmark of the workspace (packages/*/bench/*.bench.ts and
// apps/*/bench/*.bench.ts) one after another, each in its own Node process, against the built
// packages. Each prints its own figures, measured in one run, with medians and ratios: machines
// here are shared and noisy, so absolute times vary and ratios are what to compare.
//
//   node scripts/bench.mjs [filter]   only the benchmark files whose path contains `filter`
import { spawnSync } from "node:child_process"
import { existsSync, readdirSync } from "node:fs"
import os from "node:os"
import path from "node:path"
import { fileURLToPath } from "node:url"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")
const filter = process.argv[2] ?? ""

const files = ["packages", "apps"].flatMap((group) => {
  const groupDir = path.join(root, group)
  if (!existsSync(groupDir)) return []
  return readdirSync(groupDir).flatMap((pkg) => {
    const dir = path.join(groupDir, pkg, "bench")
    if (!existsSync(dir)) return []
    return readdirSync(dir)
      .filter((file) => file.endsWith(".bench.ts"))
      .sort()
      .map((file) => path.join(dir, file))
  })
}).filter((file) => file.includes(filter))

console.log(`chainquery benchmarks: node ${process.version}, ${os.cpus().length} cores, ${os.cpus()[0]?.model ?? "cpu"}`)
let failed = 0
for (const file of files) {
  console.log("")
  const result = spawnSync(process.execPath, [file], { cwd: path.dirname(file), stdio: "inherit" })
  if (result.status !== 0) {
    failed++
    console.log(`${path.relative(root, file)} FAILED (exit ${result.status ?? result.signal})`)
  }
}
console.log("")
console.log(`${files.length - failed} benchmark(s) ran, ${failed} failed`)
process.exit(failed === 0 ? 0 : 1)
