/**
 * Test support: the real 200 responses of the service, from the fixtures the schema package
 * keeps with their provenance (`packages/schema/test/fixtures`, one folder per operation), as
 * the key paths each operation's captures show.
 *
 * Two captures are spelled otherwise than a page of the service, and are read as what they are:
 * - `B5/code-comment-single-item-2024.json` is one record pasted from a page: its paths are the
 *   paths of `result[]`;
 * - A7's swagger example has one `position` where the service sends a `positions` list.
 * Inside JSON-text fields (`metadata`, `token_properties`), keys are the token's own, not fields.
 */
import { KeyPaths } from "@chainquery/schema"
import { readdirSync, readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"

const fixturesDir = fileURLToPath(new URL("../../../schema/test/fixtures/", import.meta.url))

const singleRecords: ReadonlySet<string> = new Set(["B5/code-comment-single-item-2024.json"])

/** Whether a capture is a 200: its source names the status, or its file name does (`-404-`). */
const isSuccess = (file: string, source: string): boolean => {
  const stated = /http status:\s*(\d{3})/i.exec(source)?.[1]
  return stated === undefined ? !/-[45]\d\d-/.test(`-${file}`) : stated === "200"
}

const spelledAsTheService = (key: string, path: string): string | undefined => {
  if (/(^|\.)(metadata|token_properties)\./.test(path)) return undefined
  if (singleRecords.has(key)) return `result[].${path}`
  return path === "[].position" ? "[].positions" : path.replace(/^\[\]\.position\./, "[].positions[].")
}

/** The key paths of the real 200 captures of each operation (`A1`..`B7`), merged per operation. */
export const capturedPaths = (): ReadonlyMap<string, ReadonlySet<string>> => {
  const byOperation = new Map<string, Set<string>>()
  for (const operation of readdirSync(fixturesDir).filter((name) => /^[AB]\d$/.test(name))) {
    const paths = new Set<string>()
    for (const file of readdirSync(`${fixturesDir}${operation}`).filter((name) => name.endsWith(".json"))) {
      const source = readFileSync(`${fixturesDir}${operation}/${file.replace(/\.json$/, ".source.txt")}`, "utf8")
      if (!isSuccess(file, source)) continue
      const body = JSON.parse(readFileSync(`${fixturesDir}${operation}/${file}`, "utf8")) as unknown
      for (const path of KeyPaths.of(body)) {
        const spelled = spelledAsTheService(`${operation}/${file}`, path)
        if (spelled !== undefined) paths.add(spelled)
      }
    }
    byOperation.set(operation, paths)
  }
  return byOperation
}
