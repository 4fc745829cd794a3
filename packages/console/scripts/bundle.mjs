// Bundles the console's browser code (app/main.ts, with the management API's HttpApi definitions and
// effect, tree-shaken and minified by rolldown) and its stylesheet into dist/assets/, named by
// their content's hash (served as immutable), each beside its gzip, with console.html naming them and
// manifest.json naming the three. A bundle that still imports a Node built-in fails
// the build: nothing of the server may reach the page.
//
//   node scripts/bundle.mjs     (the package's build, after tsc)
//
// Plain Node (>= 22) ESM; rolldown is the package's devDependency.
import { createHash } from "node:crypto"
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import path from "node:path"
import { fileURLToPath } from "node:url"
import { gzipSync } from "node:zlib"
import { build } from "rolldown"

const packageDir = path.dirname(path.dirname(fileURLToPath(import.meta.url)))
const assets = path.join(packageDir, "dist", "assets")
const serviceManifest = JSON.parse(readFileSync(path.join(packageDir, "node_modules", "@chainquery", "watch-service", "package.json"), "utf8"))

// The API's version is read from its package.json by Node at run time; in the page it is a constant.
const apiVersion = {
  name: "api-version",
  load(id) {
    if (/[\\/]watch-service[\\/](dist|src)[\\/]api[\\/]ApiVersion\.(js|ts)$/.test(id)) {
      return `export const version = ${JSON.stringify(serviceManifest.version)}`
    }
    return null
  }
}

const result = await build({
  input: path.join(packageDir, "app", "main.ts"),
  platform: "browser",
  cwd: packageDir,
  tsconfig: path.join(packageDir, "tsconfig.app.json"),
  external: [/^node:/],
  plugins: [apiVersion],
  write: false,
  output: { format: "esm", minify: true, codeSplitting: false }
})
const chunks = result.output.filter((item) => item.type === "chunk")
if (chunks.length !== 1) throw new Error(`expected one chunk, got ${chunks.length}`)
const script = chunks[0].code
const leftover = /\bfrom\s*["']node:[a-z_]+["']|\bimport\s*\(?\s*["']node:[a-z_]+["']/.exec(script)
if (leftover !== null) throw new Error(`the console's bundle imports a Node built-in (${leftover[0]}): a server module reached the page`)

// The stylesheet, with its comments and runs of white space taken out.
const style = readFileSync(path.join(packageDir, "app", "console.css"), "utf8")
  .replace(/\/\*[\s\S]*?\*\//g, "")
  .replace(/\s+/g, " ")
  .replace(/\s*([{}:;,>])\s*/g, "$1")
  .trim()

const named = (base, extension, text) => `${base}.${createHash("sha256").update(text).digest("hex").slice(0, 12)}.${extension}`
const files = { script: named("console", "js", script), style: named("console", "css", style) }
const html = readFileSync(path.join(packageDir, "app", "console.html"), "utf8")
  .replace("{{script}}", `/console/assets/${files.script}`)
  .replace("{{style}}", `/console/assets/${files.style}`)

rmSync(assets, { recursive: true, force: true })
mkdirSync(assets, { recursive: true })
const sizes = {}
for (const [name, text] of [[files.script, script], [files.style, style], ["console.html", html]]) {
  const bytes = Buffer.from(text, "utf8")
  const gzipped = gzipSync(bytes, { level: 9 })
  writeFileSync(path.join(assets, name), bytes)
  writeFileSync(path.join(assets, `${name}.gz`), gzipped)
  sizes[name] = { bytes: bytes.length, gzip: gzipped.length }
}
writeFileSync(path.join(assets, "manifest.json"), `${JSON.stringify({ html: "console.html", ...files }, null, 2)}\n`)
const sent = sizes[files.script].gzip + sizes[files.style].gzip
console.log(`[console] ${files.script} and ${files.style}: ${(sent / 1024).toFixed(1)} KB gzip together`)
