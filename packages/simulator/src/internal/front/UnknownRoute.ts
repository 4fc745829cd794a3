/**
 * The answer to a request that is none of the 14 operations (an unknown path, or a method other
 * than GET/HEAD): a 404 with a JSON body, in the error shape of the family the path belongs to,
 * as the service answers it (never an empty body).
 *
 * @internal
 */
import type { IncomingMessage, ServerResponse } from "node:http"
import { sendJson } from "./FaultResponses.js"
import type { Family } from "./Normalise.js"

/**
 * The body of the 404 for `method path`: family A (and paths under neither family) `{"message"}`;
 * family B, whose service answers errors in its framework's shape, `{"statusCode", "message",
 * "error"}`.
 *
 * `unknownRouteBody("A", "POST", "/api/v2.2/block/1")` is
 * `{ message: "Cannot POST /api/v2.2/block/1" }`.
 */
export const unknownRouteBody = (family: Family, method: string, path: string): Record<string, unknown> => {
  const message = `Cannot ${method} ${path}`
  return family === "B" ? { statusCode: 404, message, error: "Not Found" } : { message }
}

/**
 * Answers 404 with {@link unknownRouteBody} for the request's method and `rawUrl`, the target as
 * the client sent it (before the front door normalised it) without its query or fragment. The
 * target is not parsed: any text a client sends (`http://[bad/x`, `//host/path`) is answered.
 */
export const sendUnknownRoute = (family: Family, rawUrl: string) => (req: IncomingMessage, res: ServerResponse): void => {
  const path = rawUrl.split(/[?#]/, 1)[0] ?? rawUrl
  sendJson(res, 404, unknownRouteBody(family, req.method ?? "GET", path))
}
