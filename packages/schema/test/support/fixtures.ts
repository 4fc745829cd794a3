/**
 * Reads the real responses in `test/fixtures/` (copied into the repository with their
 * provenance; see its README): one folder per operation (A1..A7, B1..B7) and `_errors/`, each
 * body with a `.source.txt` that may give its HTTP status.
 */
import { readdirSync, readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"

export const fixturesDir = fileURLToPath(new URL("../fixtures/", import.meta.url))

export interface Fixture {
  readonly operation: string
  readonly file: string
  readonly status: number
  readonly body: unknown
}

const statusOf = (operation: string, file: string, source: string): number => {
  const stated = /http status:\s*(\d{3})/i.exec(source)?.[1]
  if (stated !== undefined) return Number(stated)
  const named = /-(\d{3})-/.exec(`-${file}`)?.[1]
  if (named !== undefined && named !== "200") return Number(named)
  return operation === "_errors" ? 400 : 200
}

/** Every fixture body, parsed, with its operation folder and status. */
export const loadFixtures = (): ReadonlyArray<Fixture> =>
  readdirSync(fixturesDir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .flatMap(({ name: operation }) =>
      readdirSync(`${fixturesDir}${operation}`)
        .filter((file) => file.endsWith(".json"))
        .map((file) => {
          const path = `${fixturesDir}${operation}/${file}`
          const source = readFileSync(path.replace(/\.json$/, ".source.txt"), "utf8")
          return {
            operation,
            file,
            status: statusOf(operation, file, source),
            body: JSON.parse(readFileSync(path, "utf8")) as unknown
          }
        })
    )
