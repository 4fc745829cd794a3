// Type-checks every `@example` block of a package's doc comments, and every ```ts block of its
// README.md, against the built packages, so the docs cannot rot. Run from a package folder (its
// turbo task `examples`, after every build), or from the repository root for the root README:
//
//   node ../../scripts/check-examples.mjs
//
// Steps:
//   1. Find each doc comment (`/** … */`) in src/**/*.ts and each fenced ```ts block after an
//      `@example` tag in it (strip the leading ` * `), and each ```ts block of README.md.
//   2. Write each block as its own module into .examples/ (ignored by git), beside a tsconfig
//      (strict, NodeNext) and a node_modules/@chainquery/* of links to the workspace packages, so
//      `import { X } from "@chainquery/schema"` resolves through the package's `exports` to its
//      built `dist/` exactly as in a user's project.
//   3. Run the workspace's tsc on them; report each error at the source file and line of the
//      doc comment, and exit 1 if there is any.
// An example that needs a value it does not make says so with `declare const value: Type`.
// Plain Node (>= 22) ESM with no dependencies.
import { spawnSync } from "node:child_process"
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import path from "node:path"
import { repoRoot, workspacePackages } from "./workspace.mjs"

const packageDir = process.cwd()
const scratch = path.join(packageDir, ".examples")
const packageName = JSON.parse(readFileSync(path.join(packageDir, "package.json"), "utf8")).name

// --- 1. find the examples ----------------------------------------------------------------------

function sourceFiles(dir) {
  const files = []
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const abs = path.join(dir, entry.name)
    if (entry.isDirectory()) files.push(...sourceFiles(abs))
    else if (entry.isFile() && entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts")) files.push(abs)
  }
  return files.sort()
}

/** Every ```ts block after an @example tag: its code and the source line of its first line. */
function examplesOf(file) {
  const lines = readFileSync(file, "utf8").split("\n")
  const found = []
  let inComment = false
  let afterExample = false
  let block = null
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index]
    if (!inComment) {
      if (/^\s*\/\*\*/.test(line)) {
        inComment = true
        afterExample = false
      } else {
        continue
      }
    }
    const prefix = /^\s*\/?\*\*?\/?\s?/.exec(line)?.[0].length ?? 0
    const text = line.slice(prefix)
    if (block !== null) {
      if (/^\s*```\s*$/.test(text)) {
        found.push(block)
        block = null
      } else {
        block.code.push(text)
        block.indents.push(prefix)
      }
    } else if (/@example\b/.test(text)) {
      afterExample = true
    } else if (afterExample && /^\s*```(ts|typescript)\b/.test(text)) {
      block = { line: index + 2, code: [], indents: [] }
    } else if (/^\s*@\w+/.test(text)) {
      afterExample = false
    }
    if (/\*\//.test(line)) {
      if (block !== null) throw new Error(`${path.relative(repoRoot, file)}:${block.line - 1}: an example's code fence is not closed`)
      inComment = false
    }
  }
  return found
}

/** Every ```ts block of a Markdown file: its code and the line of its first line. */
function markdownExamplesOf(file) {
  const lines = readFileSync(file, "utf8").split("\n")
  const found = []
  let block = null
  lines.forEach((line, index) => {
    if (block === null) {
      if (/^```(ts|typescript)\b/.test(line)) block = { line: index + 2, code: [], indents: [] }
    } else if (/^```\s*$/.test(line)) {
      found.push(block)
      block = null
    } else {
      block.code.push(line)
      block.indents.push(0)
    }
  })
  if (block !== null) throw new Error(`${path.relative(repoRoot, file)}:${block.line - 1}: a code fence is not closed`)
  return found
}

// --- 2. write them into .examples/ -------------------------------------------------------------

// An example may import any workspace package, so the `examples` task must wait for every build:
// a package missing from its dependsOn would race its build (and replay a stale cached result).
const libraries = workspacePackages(["packages", "apps"])
const turboTasks = JSON.parse(readFileSync(path.join(repoRoot, "turbo.json"), "utf8")).tasks
for (const task of ["examples", "//#examples"]) {
  const waitsFor = new Set(turboTasks[task]?.dependsOn ?? [])
  const notAwaited = libraries.filter(({ name }) => !waitsFor.has(`${name}#build`))
  if (notAwaited.length > 0) {
    console.log(`[examples] turbo.json: the ${task} task must depend on ${notAwaited.map(({ name }) => `"${name}#build"`).join(", ")}`)
    process.exit(1)
  }
}

rmSync(scratch, { recursive: true, force: true })
mkdirSync(path.join(scratch, "node_modules", "@chainquery"), { recursive: true })
for (const { name, dir } of libraries) {
  symlinkSync(dir, path.join(scratch, "node_modules", name), "dir")
}

const origins = new Map() // scratch file name -> { file, line, indents }
let count = 0
const readme = path.join(packageDir, "README.md")
const documents = [
  ...(existsSync(path.join(packageDir, "src")) ? sourceFiles(path.join(packageDir, "src")) : []).map((file) => ({ file, examples: examplesOf(file) })),
  ...(existsSync(readme) ? [{ file: readme, examples: markdownExamplesOf(readme) }] : [])
]
for (const { file, examples } of documents) {
  const relative = path.relative(packageDir, file)
  for (const example of examples) {
    // The running count keeps names unique (src/a/b.ts and src/a_b.ts would otherwise collide).
    const name = `${String(count).padStart(4, "0")}_${relative.replace(/[\\/]/g, "_").replace(/\.(ts|md)$/, "")}_L${example.line}.ts`
    const code = example.code.join("\n")
    // Each example is a module of its own (moduleDetection force), so names never clash.
    writeFileSync(path.join(scratch, name), `${code}\n`)
    origins.set(name, { file: relative, line: example.line, indents: example.indents })
    count++
  }
}

writeFileSync(
  path.join(scratch, "tsconfig.json"),
  JSON.stringify(
    {
      compilerOptions: {
        target: "ES2023",
        lib: ["ES2023"],
        module: "NodeNext",
        moduleResolution: "NodeNext",
        types: ["node"],
        strict: true,
        noEmit: true,
        skipLibCheck: true,
        moduleDetection: "force"
      },
      include: ["*.ts"]
    },
    null,
    2
  )
)

if (count === 0) {
  console.log(`[examples] ${packageName}: no @example blocks`)
  process.exit(0)
}

// --- 3. type-check -----------------------------------------------------------------------------

const tsc = path.join(repoRoot, "node_modules", "typescript", "bin", "tsc")
const result = spawnSync(process.execPath, [tsc, "-p", path.join(scratch, "tsconfig.json"), "--pretty", "false"], {
  cwd: scratch,
  encoding: "utf8"
})
if (result.error) throw result.error

const output = `${result.stdout}${result.stderr}`.trim()
const failing = new Set()
const report = output.split("\n").filter((line) => line !== "").map((line) => {
  const match = /^(.+?\.ts)\((\d+),(\d+)\): (.*)$/.exec(line)
  const origin = match === null ? undefined : origins.get(path.basename(match[1]))
  if (match === null || origin === undefined) return line
  failing.add(match[1])
  const column = Number(match[3]) + (origin.indents[Number(match[2]) - 1] ?? 0)
  return `${origin.file}:${origin.line + Number(match[2]) - 1}:${column} (example at line ${origin.line}): ${match[4]}`
})

if (result.status === 0 && report.length === 0) {
  console.log(`[examples] ${packageName}: ${count} examples type-check`)
  process.exit(0)
}
for (const line of report) console.log(line)
console.log(`[examples] ${packageName}: ${failing.size} of ${count} examples do not type-check (tsc exit ${result.status})`)
process.exit(1)
