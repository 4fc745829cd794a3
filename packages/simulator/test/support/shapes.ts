/**
 * Test support: the merged shape of a simulator's answers, per operation: each key path with the
 * sorted JSON types sent there (`KeyPaths.shape` of every answer, merged), paths sorted.
 */
import { KeyPaths } from "@chainquery/schema"
import type { Sample } from "./wireSamples.js"

/** The shape of one operation's answers: key path -> sorted JSON types. */
export type Shape = Readonly<Record<string, ReadonlyArray<KeyPaths.JsonType>>>

/** The merged shape of the answers of each operation (`A1`..`B7`). */
export const shapesOf = (answers: ReadonlyArray<Sample>): ReadonlyMap<string, Shape> => {
  const merged = new Map<string, Map<string, Set<KeyPaths.JsonType>>>()
  for (const { body, operation } of answers) {
    let paths = merged.get(operation)
    if (paths === undefined) merged.set(operation, paths = new Map())
    for (const [path, types] of KeyPaths.shape(body)) {
      const known = paths.get(path)
      if (known === undefined) paths.set(path, new Set(types))
      else for (const type of types) known.add(type)
    }
  }
  return new Map([...merged].map(([operation, paths]) => [
    operation,
    Object.fromEntries([...paths].toSorted(([a], [b]) => a.localeCompare(b)).map(([p, t]) => [p, [...t].toSorted()]))
  ]))
}
