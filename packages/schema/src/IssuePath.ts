/**
 * Where a decoding failure happened, as a readable path (`result[3].block_number`), taken from
 * the first problem in a schema issue tree.
 *
 * @since 0.1.0
 */
import type { SchemaIssue } from "effect"

/**
 * Renders property keys as a path: identifiers with dots, numbers in brackets.
 *
 * @example
 * ```ts
 * import { IssuePath } from "@chainquery/schema"
 *
 * IssuePath.format(["result", 3, "block_number"]) // "result[3].block_number"
 * ```
 * @since 0.1.0
 */
export const format = (path: ReadonlyArray<PropertyKey>): string =>
  path.reduce<string>((text, key) => {
    if (typeof key === "number") return `${text}[${key}]`
    const name = String(key)
    if (/^[A-Za-z_$][\w$]*$/.test(name)) return text === "" ? name : `${text}.${name}`
    return `${text}[${JSON.stringify(name)}]`
  }, "")

/**
 * The path of the first leaf problem in an issue tree (empty for the root).
 *
 * @example
 * ```ts
 * import { Exit, Schema } from "effect"
 * import { IssuePath } from "@chainquery/schema"
 *
 * const exit = Schema.decodeUnknownExit(Schema.Struct({ a: Schema.Array(Schema.Number) }))({ a: [1, "x"] })
 * // IssuePath.of(issue) === ["a", 1]
 * ```
 * @since 0.1.0
 */
export const of = (issue: SchemaIssue.Issue): ReadonlyArray<PropertyKey> => {
  const path: Array<PropertyKey> = []
  let current: SchemaIssue.Issue | undefined = issue
  while (current !== undefined) {
    switch (current._tag) {
      case "Pointer":
        path.push(...current.path)
        current = current.issue
        break
      case "Filter":
      case "Encoding":
        current = current.issue
        break
      case "Composite":
        current = current.issues[0]
        break
      case "AnyOf":
        current = current.issues[0]
        break
      default:
        current = undefined
    }
  }
  return path
}
