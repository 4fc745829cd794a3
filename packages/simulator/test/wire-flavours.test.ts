/**
 * The two wire flavours, over real HTTP on 127.0.0.1: the same requests to a `spec` simulator and
 * to a `real` one (same seed, same world) give answers with the same key paths, whose JSON types
 * differ exactly at the fields where the real service's captures (synthetic examples left out)
 * show a type service.md does not give; there the `real` answers carry the captured type. Both
 * decode with `@chainquery/schema` to the same values, the README's table lists exactly those
 * fields, and a bad flavour is refused before anything is served.
 */
import { EvmApi, type KeyPaths, LedgerApi } from "@chainquery/schema"
import { assert, describe, layer } from "@effect/vitest"
import { Effect, Exit, Layer, Schema } from "effect"
import { readFileSync } from "node:fs"
import { Simulator } from "../src/index.js"
import { endpointsOf } from "../src/internal/FastPath.js"
import { operationLabels, type OperationId } from "../src/internal/front/Routes.js"
import { capturedTypes } from "./support/captures.js"
import { get } from "./support/http.js"
import { type Shape, shapesOf } from "./support/shapes.js"
import { type Sample, sampleAnswers } from "./support/wireSamples.js"

const options = { seed: 7, indexing: false, history: 60 } as const

/** The 200 schema of each operation (`A1`..`B7`), as the HttpApi the simulator serves has it. */
const successSchemas: Readonly<Record<string, Schema.Decoder<unknown>>> = Object.fromEntries(
  [...endpointsOf(EvmApi.EvmApi), ...endpointsOf(LedgerApi.LedgerApi)].map(({ endpoint }) => [
    operationLabels[endpoint.identifier as OperationId],
    [...endpoint.success][0] as Schema.Decoder<unknown>
  ])
)

/** Paths inside JSON-text fields are the token's own keys, not fields. */
const isField = (path: string) => !/(^|\.)(metadata|token_properties)\./.test(path)

const fieldsOf = (shape: Shape): Shape => Object.fromEntries(Object.entries(shape).filter(([path]) => isField(path)))

const nonNull = (types: Iterable<KeyPaths.JsonType>): ReadonlyArray<KeyPaths.JsonType> => [...types].filter((type) => type !== "null")

/**
 * `A1 result[].log_index`, for each field the simulator sends (as `spec` shows) whose captured
 * types have none in common with the types service.md gives it (the captures show a value there).
 */
const capturedOtherwise = (specShapes: ReadonlyMap<string, Shape>): ReadonlyArray<string> => {
  const listed: Array<string> = []
  for (const [operation, paths] of capturedTypes()) {
    const spec = specShapes.get(operation) ?? {}
    for (const [path, captured] of paths) {
      const real = nonNull(captured)
      const sent = nonNull(spec[path] ?? [])
      if (real.length > 0 && sent.length > 0 && !sent.some((type) => real.includes(type))) listed.push(`${operation} ${path}`)
    }
  }
  return listed.toSorted()
}

/** The fields the README's table of the two flavours lists, as `A1 result[].log_index`. */
const readmeTable = (): ReadonlyArray<string> => {
  const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8")
  const section = readme.slice(readme.indexOf("### Two wire flavours"))
  const lines = section.slice(section.indexOf("|---|")).split("\n").slice(1)
  const rows = lines.slice(0, lines.findIndex((line) => !line.startsWith("| ")))
  return rows.flatMap((row) => {
    const [operations, fields] = row.split("|").slice(1, 3).map((cell) => cell.trim())
    const names = [...fields!.matchAll(/`([^`]+)`/g)].map((match) => match[1]!)
    return operations!.split(", ").flatMap((operation) => names.map((name) => `${operation} ${name}`))
  }).toSorted()
}

/** The answers of a `real` simulator to the same requests, and the shapes of both flavours. */
const bothFlavours = Effect.runSync(Effect.cached(Effect.gen(function*() {
  const spec = yield* Effect.flatMap(Simulator.Simulator, sampleAnswers)
  const real = yield* Effect.flatMap(Simulator.Simulator, sampleAnswers).pipe(
    Effect.provide(Simulator.layer({ ...options, wire: "real" }))
  )
  return { spec, real, specShapes: shapesOf(spec), realShapes: shapesOf(real) }
})))

const decoded = (sample: Sample): unknown => Schema.decodeUnknownSync(successSchemas[sample.operation]!)(sample.body)

describe("simulator, wire flavours", () => {
  layer(Simulator.layer(options), { timeout: "90 seconds" })((test) => {
    test.effect("sends the same fields in both, typed otherwise exactly where the captures are", () =>
      Effect.gen(function*() {
        const { specShapes, realShapes } = yield* bothFlavours
        const otherwise = capturedOtherwise(specShapes)
        assert.isAtLeast(otherwise.length, 15, `the captures differ from service.md at ${otherwise.join(", ")}`)
        const retyped: Array<string> = []
        for (const [operation, specShape] of specShapes) {
          const spec = fieldsOf(specShape)
          const real = fieldsOf(realShapes.get(operation) ?? {})
          assert.deepStrictEqual(Object.keys(real), Object.keys(spec), `${operation}: key paths`)
          for (const path of Object.keys(spec)) {
            if (JSON.stringify(spec[path]) !== JSON.stringify(real[path])) retyped.push(`${operation} ${path}`)
          }
        }
        assert.deepStrictEqual(retyped.toSorted(), otherwise)
        // and there, the real flavour sends the captured types
        const captured = capturedTypes()
        const unlike = otherwise.flatMap((field) => {
          const [operation, path] = field.split(" ") as [string, string]
          const types = captured.get(operation)!.get(path)!
          const sent = nonNull(realShapes.get(operation)![path]!)
          return sent.every((type) => types.has(type)) ? [] : [`${field}: sent ${sent.join("|")}, captured ${[...types].join("|")}`]
        })
        assert.deepStrictEqual(unlike, [])
      }), 90_000)

    test.effect("decodes both flavours with @chainquery/schema to the same values", () =>
      Effect.gen(function*() {
        const { spec, real } = yield* bothFlavours
        assert.strictEqual(real.length, spec.length)
        assert.strictEqual(new Set(spec.map((sample) => sample.operation)).size, 14)
        spec.forEach((sample, i) => {
          const other = real[i]!
          assert.strictEqual(other.url.replace(/^http:\/\/[^/]+/, ""), sample.url.replace(/^http:\/\/[^/]+/, ""))
          assert.deepStrictEqual(decoded(other), decoded(sample), `${sample.operation} ${sample.url}`)
        })
      }), 90_000)

    test.effect("lists in the README exactly the fields that differ", () =>
      Effect.gen(function*() {
        const { specShapes } = yield* bothFlavours
        assert.deepStrictEqual(readmeTable(), capturedOtherwise(specShapes))
      }), 90_000)

    test.effect("keeps Content-Length the length of the rewritten body, also behind a delay and on HEAD", () =>
      Effect.gen(function*() {
        const sim = yield* Simulator.Simulator
        const chain = sim.world.evm.chain("0x1")
        const busy = chain.blocks.filter((row) => row.transferEnd > row.transferStart).at(-1)!.number
        const urls = [`/api/v2.2/block/${busy}/nft/transfers?chain=eth`, `/api/v2.2/block/${busy}?chain=eth`]
        const answers = yield* Effect.gen(function*() {
          const real = yield* Simulator.Simulator
          const heads = yield* Effect.forEach(urls, (url) =>
            Effect.promise(() => fetch(`${real.url}${url}`, { method: "HEAD", headers: { "x-api-key": real.apiKey } })))
          yield* real.setFaults({ latency: { probability: 1, ms: 5, jitterMs: 5 } })
          const delayed = yield* Effect.forEach(urls, (url) => get(`${real.url}${url}`, { key: real.apiKey }))
          return delayed.map((answer, i) => ({ ...answer, headLength: heads[i]!.headers.get("content-length") }))
        }).pipe(Effect.provide(Simulator.layer({ ...options, wire: "real" })))
        for (const answer of answers) {
          assert.strictEqual(answer.status, 200)
          assert.strictEqual(Number(answer.headers.get("content-length")), Buffer.byteLength(answer.text))
          assert.strictEqual(Number(answer.headLength), Buffer.byteLength(answer.text), "HEAD gives the GET's length")
        }
        const [page, block] = answers.map((answer) => answer.json as Record<string, any>)
        assert.strictEqual(typeof page!.result[0].log_index, "number")
        assert.strictEqual(block!.number, String(busy))
        const spec = yield* get(`${sim.url}${urls[1]}`, { key: sim.apiKey })
        assert.strictEqual((spec.json as Record<string, unknown>).number, busy)
      }), 90_000)

    test.effect("refuses a flavour it does not have, naming the option", () =>
      Effect.gen(function*() {
        const exit = yield* Effect.exit(Layer.build(Simulator.layer({ wire: "raw" as "real" })).pipe(Effect.scoped))
        assert.isTrue(Exit.isFailure(exit))
        assert.include(String(Exit.isFailure(exit) ? exit.cause : ""), `wire must be "spec" or "real", got "raw"`)
      }))
  })
})
