/**
 * A fast path for decoding records. Schema's interpreter is general and costs ~1 µs per
 * transformed field; a page of 100 transfers has 2,300 fields. Each wire codec therefore carries,
 * as an annotation, the same plain parse function its schema getter uses, and `compile` assembles
 * them into one straight-line decoder per record schema. The fast decoder returns `undefined` when
 * anything does not fit; the caller then runs the schema itself, which gives the exact error.
 * The schema stays the single definition; the property tests check that both agree.
 *
 * @internal
 */
import type { Schema, SchemaAST } from "effect"

/** A plain decoder: the decoded value, or `undefined` when the input does not fit. */
export type FastDecode = (input: unknown) => unknown

const key = "chainquery/fastDecode"

/** Attaches a plain decoder to a schema. */
export const withFast = <S extends Schema.Top>(schema: S, decode: FastDecode): S =>
  schema.annotate({ [key]: decode } as never) as S

/** The attached decoder; on a refined schema `annotate` lands on its last check. */
const annotated = (ast: SchemaAST.AST): FastDecode | undefined =>
  (ast.annotations?.[key] ?? ast.checks?.at(-1)?.annotations?.[key]) as FastDecode | undefined

/**
 * A decoder that builds its output with one object literal, so every decoded record shares one
 * hidden class (measurably faster than adding keys one by one). Keys are JSON-quoted.
 */
const objectLiteral = (names: ReadonlyArray<string>, decoders: ReadonlyArray<FastDecode>): FastDecode | undefined => {
  const lines = names.map((name, i) =>
    `const v${i} = d[${i}](input[${JSON.stringify(name)}]); if (v${i} === undefined) return undefined;`
  )
  const literal = names.map((name, i) => `${JSON.stringify(name)}: v${i}`).join(", ")
  const body = [
    "return function decodeRecord(input) {",
    "if (typeof input !== \"object\" || input === null || Array.isArray(input)) return undefined;",
    ...lines,
    `return { ${literal} };`,
    "}"
  ].join("\n")
  try {
    return new Function("d", body)(decoders) as FastDecode
  } catch {
    return undefined // code generation is disallowed here (e.g. a strict CSP): use the generic loop
  }
}

const compileAst = (ast: SchemaAST.AST): FastDecode | undefined => {
  const own = annotated(ast)
  if (own !== undefined) return own
  if (ast.encoding !== undefined || ast.checks !== undefined) return undefined
  switch (ast._tag) {
    case "String":
      return (input) => (typeof input === "string" ? input : undefined)
    case "Boolean":
      return (input) => (typeof input === "boolean" ? input : undefined)
    case "Literal": {
      const literal = ast.literal
      return (input) => (input === literal ? input : undefined)
    }
    case "Arrays": {
      if (ast.elements.length !== 0 || ast.rest.length !== 1) return undefined
      const item = compileAst(ast.rest[0]!)
      if (item === undefined) return undefined
      return (input) => {
        if (!Array.isArray(input)) return undefined
        const out: Array<unknown> = []
        for (let i = 0; i < input.length; i++) {
          const value = item(input[i])
          if (value === undefined) return undefined
          out.push(value)
        }
        return out
      }
    }
    case "Objects": {
      if (ast.indexSignatures.length !== 0) return undefined
      const names: Array<string> = []
      const decoders: Array<FastDecode> = []
      const skipAbsent: Array<boolean> = []
      for (const ps of ast.propertySignatures) {
        const decode = compileAst(ps.type)
        if (decode === undefined || typeof ps.name !== "string") return undefined
        names.push(ps.name)
        decoders.push(decode)
        skipAbsent.push(annotated(ps.type) === undefined && ps.type.context?.isOptional === true)
      }
      const count = names.length
      const literal = skipAbsent.includes(true) ? undefined : objectLiteral(names, decoders)
      if (literal !== undefined) return literal
      return (input) => {
        if (typeof input !== "object" || input === null || Array.isArray(input)) return undefined
        const record = input as Record<string, unknown>
        const out: Record<string, unknown> = {}
        for (let i = 0; i < count; i++) {
          const name = names[i]!
          const raw = record[name]
          if (raw === undefined && skipAbsent[i]) continue
          const value = decoders[i]!(raw)
          if (value === undefined) return undefined
          out[name] = value
        }
        return out
      }
    }
    default:
      return undefined
  }
}

/** The fast decoder of a schema, or `undefined` when some part of it has none. */
export const compile = (schema: Schema.Top): FastDecode | undefined => compileAst(schema.ast)
