/**
 * The body as a batch: UTF-8, JSON, the shape of `Batch.Batch`, and a `deliveryId` equal to the
 * `webhook-id` header. A failure is a `MalformedBatch` naming the field of the first problem
 * (`"body"` for the body as a whole), as a path such as `coverage[1].toBlock`.
 */
import { Result, Schema, SchemaIssue } from "effect"
import { Batch } from "../Batch.js"
import type { Body } from "../Signature.js"
import { MalformedBatch } from "../ReceiveError.js"

const decodeJson = Schema.decodeUnknownResult(Schema.fromJsonString(Batch))
const formatter = SchemaIssue.makeFormatterStandardSchemaV1()
const utf8 = new TextDecoder("utf-8", { fatal: true })

/** `coverage[1].toBlock`: identifiers after dots, indexes in brackets. */
const formatPath = (path: ReadonlyArray<PropertyKey>): string =>
  path.reduce<string>((text, key) => {
    if (typeof key === "number") return `${text}[${key}]`
    const name = String(key)
    if (/^[A-Za-z_$][\w$]*$/.test(name)) return text === "" ? name : `${text}.${name}`
    return `${text}[${JSON.stringify(name)}]`
  }, "")

/** The keys that tell an EVM range or wallet (`chain`) from an Aptos one (`network`). */
const discriminators = new Set<PropertyKey>(["chain", "network"])

interface Problem {
  readonly path: ReadonlyArray<PropertyKey>
  readonly message: string
}

/**
 * The problem to report. A range or a wallet is one of two shapes, so its failure lists the
 * problems of both; the missing discriminator of the shape it is not (`network` of an EVM range)
 * is noise, unless neither is present.
 */
const firstProblem = (problems: ReadonlyArray<Problem>): Problem => {
  const isNoise = (problem: Problem) => problem.message === "Missing key" && discriminators.has(problem.path.at(-1) ?? "")
  const relevant = problems.find((problem) => !isNoise(problem))
  if (relevant !== undefined) return relevant
  const first = problems[0] ?? { path: [], message: "Expected a batch" }
  return { path: first.path.slice(0, -1), message: "Expected a chain (EVM) or a network (Aptos)" }
}

const malformed = (field: string, message: string) => Result.fail(new MalformedBatch({ field, message }))

/** Decodes the body of a request whose `webhook-id` is `deliveryId`. */
export const decodeBatch = (body: Body, deliveryId: string): Result.Result<Batch, MalformedBatch> => {
  let text: string
  if (typeof body === "string") {
    text = body
  } else {
    try {
      text = utf8.decode(body)
    } catch {
      return malformed("body", "the body is not UTF-8 text")
    }
  }
  const decoded = decodeJson(text)
  if (Result.isFailure(decoded)) {
    const problem = firstProblem(
      formatter(decoded.failure.issue).issues.map((issue) => ({
        path: (issue.path ?? []).map((segment) => (typeof segment === "object" ? segment.key : segment)),
        message: issue.message
      }))
    )
    return problem.path.length === 0
      ? malformed("body", `the body is not a batch: ${problem.message}`)
      : malformed(formatPath(problem.path), `the batch's ${formatPath(problem.path)} is invalid: ${problem.message}`)
  }
  if (decoded.success.test !== (decoded.success.sequence === 0)) {
    return decoded.success.test
      ? malformed("sequence", `the batch's sequence is invalid: a test event carries sequence 0, not ${decoded.success.sequence}`)
      : malformed("sequence", "the batch's sequence is invalid: Expected a value greater than or equal to 1 (0 only for a test event)")
  }
  if (decoded.success.deliveryId !== deliveryId) {
    return malformed("deliveryId", `the batch's deliveryId ${decoded.success.deliveryId} is not the webhook-id header ${deliveryId}`)
  }
  return Result.succeed(decoded.success)
}
