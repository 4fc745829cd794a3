/**
 * Test support: the real 200 responses of the service, from the fixtures the schema package
 * keeps with their provenance (`packages/schema/test/fixtures`, one folder per operation), as
 * the key paths (and the JSON types) each operation's captures show.
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

/** A 200 capture of an operation: its key (`A1/file.json`), its source notes and its body. */
interface Capture {
  readonly key: string
  readonly source: string
  readonly body: unknown
}

/** The 200 captures of each operation (`A1`..`B7`). */
const successCaptures = (): ReadonlyMap<string, ReadonlyArray<Capture>> => {
  const byOperation = new Map<string, Array<Capture>>()
  for (const operation of readdirSync(fixturesDir).filter((name) => /^[AB]\d$/.test(name))) {
    const captures: Array<Capture> = []
    for (const file of readdirSync(`${fixturesDir}${operation}`).filter((name) => name.endsWith(".json"))) {
      const source = readFileSync(`${fixturesDir}${operation}/${file.replace(/\.json$/, ".source.txt")}`, "utf8")
      if (!isSuccess(file, source)) continue
      const body = JSON.parse(readFileSync(`${fixturesDir}${operation}/${file}`, "utf8")) as unknown
      captures.push({ key: `${operation}/${file}`, source, body })
    }
    byOperation.set(operation, captures)
  }
  return byOperation
}

/** The key paths of the real 200 captures of each operation (`A1`..`B7`), merged per operation. */
export const capturedPaths = (): ReadonlyMap<string, ReadonlySet<string>> =>
  new Map([...successCaptures()].map(([operation, captures]) => {
    const paths = new Set<string>()
    for (const { body, key } of captures) {
      for (const path of KeyPaths.of(body)) {
        const spelled = spelledAsTheService(key, path)
        if (spelled !== undefined) paths.add(spelled)
      }
    }
    return [operation, paths] as const
  }))

/**
 * The JSON types the real service sends, per operation and key path: the 200 captures' shapes,
 * merged, without the synthetic ones (swagger examples whose source says `SYNTHETIC`: their
 * placeholders are not the service's types).
 */
export const capturedTypes = (): ReadonlyMap<string, ReadonlyMap<string, ReadonlySet<KeyPaths.JsonType>>> =>
  new Map([...successCaptures()].map(([operation, captures]) => {
    const types = new Map<string, Set<KeyPaths.JsonType>>()
    for (const { body, key } of captures.filter(({ source }) => !/SYNTHETIC/.test(source))) {
      for (const [path, found] of KeyPaths.shape(body)) {
        const spelled = spelledAsTheService(key, path)
        if (spelled === undefined) continue
        const known = types.get(spelled) ?? new Set()
        for (const type of found) known.add(type)
        types.set(spelled, known)
      }
    }
    return [operation, types] as const
  }))
