/**
 * Runs a simulated operation inside a handler: its plain errors become the service's error bodies
 * (400 with the service's message, 404), in the error schemas the HttpApi declares.
 *
 * @internal
 */
import { ErrorBody } from "@chainquery/schema"
import { Effect } from "effect"
import { InvalidCursor } from "./Cursor.js"
import { BadRequestProblem, NotFoundProblem } from "./Problems.js"

/** Family A: `{"message": ...}` with 400 or 404. */
export const answerEvm = <A>(run: () => A): Effect.Effect<A, ErrorBody.EvmBadRequestBody | ErrorBody.NotFoundBody> =>
  Effect.suspend(() => {
    try {
      return Effect.succeed(run())
    } catch (error) {
      if (error instanceof NotFoundProblem) return Effect.fail(new ErrorBody.NotFoundBody({ message: error.message }))
      if (error instanceof BadRequestProblem || error instanceof InvalidCursor) {
        return Effect.fail(new ErrorBody.EvmBadRequestBody({ message: error.message }))
      }
      return Effect.die(error)
    }
  })

/** Family B: 400 as `{"statusCode": 400, "message": [...], "error": "Bad Request"}`. */
export const answerLedger = <A>(run: () => A): Effect.Effect<A, ErrorBody.LedgerBadRequestBody> =>
  Effect.suspend(() => {
    try {
      return Effect.succeed(run())
    } catch (error) {
      if (error instanceof BadRequestProblem || error instanceof InvalidCursor) {
        return Effect.fail(ledgerBadRequest(error.message))
      }
      return Effect.die(error)
    }
  })

/** Family B's 400 body for one message. */
export const ledgerBadRequest = (message: string) =>
  new ErrorBody.LedgerBadRequestBody({ statusCode: 400, message: [message], error: "Bad Request" })
