/**
 * What the console sends a browser: its script and its stylesheet, compressed as served (gzip,
 * the build's own files), against the goal of 200 KB together; brotli beside it for comparison (a
 * proxy in front may send that). Sizes, not times: one run is exact.
 *
 *   node packages/console/bench/size.bench.ts   (after a build; ./run bench does both)
 */
import { readFileSync } from "node:fs"
import { brotliCompressSync, gzipSync } from "node:zlib"

const goal = 200 * 1024
const folder = new URL("../dist/assets/", import.meta.url)
const manifest = JSON.parse(readFileSync(new URL("manifest.json", folder), "utf8")) as { readonly script: string; readonly style: string }

const sizes = [manifest.script, manifest.style].map((name) => {
  const bytes = readFileSync(new URL(name, folder))
  const served = readFileSync(new URL(`${name}.gz`, folder))
  if (gzipSync(bytes, { level: 9 }).length !== served.length) throw new Error(`${name}.gz is not the gzip of ${name}: rebuild the console`)
  return { name, bytes: bytes.length, gzip: served.length, brotli: brotliCompressSync(bytes).length }
})
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`
for (const size of sizes) console.log(`console ${size.name}: ${kb(size.bytes)}, ${kb(size.gzip)} gzip, ${kb(size.brotli)} brotli`)
const sent = sizes.reduce((sum, size) => sum + size.gzip, 0)
console.log(`console sent (script + stylesheet, gzip): ${kb(sent)} (goal < ${kb(goal)}): ${sent < goal ? "met" : "NOT MET"}`)
if (sent >= goal) process.exitCode = 1
