/**
 * The README's ```ts examples, run as written: a block is taken from README.md by the heading it
 * sits under and written as a module into `.scratch/` (ignored by git) with only these changes:
 * the package is imported from its source (so a mutant of the kit is what runs), each
 * `declare const x: T` becomes `const x: T = readme.x` (the test gives the values the README leaves
 * to the reader), and the listed replacements, each required to match exactly once.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import path from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"

const packageDir = fileURLToPath(new URL("../..", import.meta.url))
const scratch = path.join(packageDir, ".scratch")

/** What the examples' `declare const` lines are bound to (set by the test before the import). */
export const readme: Record<string, unknown> = {}

/** The first ```ts block after the line `## <heading>` of README.md. */
export const readmeBlock = (heading: string): string => {
  const text = readFileSync(path.join(packageDir, "README.md"), "utf8")
  const start = text.indexOf(`\n## ${heading}\n`)
  if (start === -1) throw new Error(`README.md has no section "## ${heading}"`)
  const block = /```ts\n([\s\S]*?)\n```/.exec(text.slice(start))
  if (block === null) throw new Error(`README.md's section "${heading}" has no ts block`)
  return block[1]!
}

/** `code` with `search` replaced by `replacement`, which must occur exactly once. */
const replaceOnce = (code: string, search: string, replacement: string): string => {
  const count = code.split(search).length - 1
  if (count !== 1) throw new Error(`the README example has ${count} occurrences of ${JSON.stringify(search)}, not 1`)
  return code.replace(search, () => replacement)
}

/**
 * Writes the block of `heading` as `.scratch/<name>.ts`, changed as described above, and imports
 * it; `appended` is code added after it (an `export` of a value the block makes).
 */
export const runReadmeBlock = async (
  heading: string,
  name: string,
  options: { readonly replacements?: ReadonlyArray<readonly [string, string]>; readonly appended?: string } = {}
): Promise<Record<string, unknown>> => {
  let code = replaceOnce(readmeBlock(heading), "from \"@chainquery/webhook-receiver\"", "from \"../src/index.js\"")
  for (const [search, replacement] of options.replacements ?? []) code = replaceOnce(code, search, replacement)
  const declared = /^declare const (\w+)(: [^\n]*?)( \/\/[^\n]*)?$/gm
  if (!code.includes("\ndeclare const ")) throw new Error(`the README example of "${heading}" declares nothing for the test to give`)
  code = code.replace(declared, (_, id: string, type: string, comment: string | undefined) => `const ${id}${type} = readme.${id}${comment ?? ""}`)
  mkdirSync(scratch, { recursive: true })
  const file = path.join(scratch, `${name}.ts`)
  const harness = path.relative(scratch, fileURLToPath(new URL("./readme.js", import.meta.url))).split(path.sep).join("/")
  writeFileSync(file, `import { readme } from "${harness}"\n${code}\n${options.appended ?? ""}\n`)
  return (await import(pathToFileURL(file).href)) as Record<string, unknown>
}
