/**
 * What the service answers when a request does not fit its parameters: 400 with the body shape of
 * the family (`{"message": ...}` for A, `{"statusCode", "message": [...], "error"}` for B) and a
 * message that names the parameter. HttpApi's own answer would be an empty 400.
 *
 * @internal
 */
import { IssuePath } from "@chainquery/schema"
import { Effect, type SchemaIssue } from "effect"
import { HttpServerResponse } from "effect/http"
import { HttpApiError } from "effect/http-api"

const missing = (issue: SchemaIssue.Issue): boolean => {
  let current: SchemaIssue.Issue | undefined = issue
  while (current !== undefined) {
    if (current._tag === "MissingKey") return true
    current = current._tag === "Pointer" || current._tag === "Filter" || current._tag === "Encoding"
      ? current.issue
      : current._tag === "Composite" || current._tag === "AnyOf"
      ? current.issues[0]
      : undefined
  }
  return false
}

/** The service-style message for a parameter that failed to decode. */
export const messageOf = (family: "A" | "B", issue: SchemaIssue.Issue, detail: string, raw: unknown): string => {
  const path = IssuePath.of(issue)
  const field = String(path[0] ?? "parameter")
  if (missing(issue)) return family === "A" ? `${field} is required` : `${field} should not be empty`
  if (field === "limit") {
    const value = Number(Array.isArray(raw) ? raw[0] : raw)
    if (Number.isFinite(value) && value < 1) return "limit must not be less than 1"
    if (Number.isFinite(value) && value > 100) return "limit must not be greater than 100"
    return "limit must be an integer number"
  }
  if (family === "A") return `[C0005] Invalid ${field} provided`
  const first = detail.split("\n")[0] ?? ""
  return `${field} ${first.startsWith("Expected ") ? `must be ${first.slice("Expected ".length)}` : first}`
}

/** The 400 response for a request whose parameters failed to decode. */
export const badRequestResponse = (family: "A" | "B", message: string) =>
  HttpServerResponse.jsonUnsafe(
    family === "A" ? { message } : { statusCode: 400, message: [message], error: "Bad Request" },
    { status: 400 }
  )

/**
 * Wraps the HttpApi app: a request that failed to decode gets the service's 400 body instead of
 * an empty one. `familyOf` tells which family a request belongs to and `queryOf` its raw query.
 */
export const withServiceBadRequests = <E, R>(
  app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>,
  familyOf: () => Effect.Effect<{ readonly family: "A" | "B"; readonly query: Record<string, unknown> }, never, R>
) =>
  app.pipe(
    Effect.catchDefect((defect) => {
      if (!HttpApiError.HttpApiSchemaError.is(defect) || (defect.kind !== "Params" && defect.kind !== "Query")) {
        return Effect.die(defect)
      }
      return Effect.map(familyOf(), ({ family, query }) => {
        const field = String(IssuePath.of(defect.cause.issue)[0] ?? "")
        return badRequestResponse(family, messageOf(family, defect.cause.issue, defect.cause.message, query[field]))
      })
    })
  )
