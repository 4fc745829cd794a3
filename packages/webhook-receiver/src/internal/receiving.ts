/**
 * The steps of `Receive.receive` that its Effect and the `WebhookReceiver` service share: the
 * tolerance checked, the clock read in unix seconds, and the checks of one request once the
 * settings are known good (signature, body, place in the stream), as a pure `Result`.
 */
import { Clock, Effect, Result, Schema } from "effect"
import type { Received } from "../Receive.js"
import type { Body, HeadersInput } from "../Signature.js"
import { ReceiverState } from "../ReceiverState.js"
import { InvalidConfig, type RequestError } from "../ReceiveError.js"
import * as Continuity from "./continuity.js"
import { decodeBatch } from "./decode.js"
import * as Signature from "../Signature.js"

/** The default tolerance of the timestamp, in seconds, either way. */
const defaultTolerance = 300

/** A tolerance, checked: a finite number of seconds, at least 0. */
export const checkTolerance = (toleranceSeconds: number | undefined): Result.Result<number, InvalidConfig> => {
  const tolerance = toleranceSeconds ?? defaultTolerance
  return Number.isFinite(tolerance) && tolerance >= 0
    ? Result.succeed(tolerance)
    : Result.fail(new InvalidConfig({ setting: "toleranceSeconds", message: `toleranceSeconds must be a number of seconds >= 0, not ${tolerance}` }))
}

const isState = Schema.is(ReceiverState)

/**
 * The checks of a request once the settings are known good: the signature, the body, then the
 * batch's place in the stream. A state that is not a `ReceiverState` is a defect.
 */
export const check = (
  key: ReadonlyArray<Uint8Array>,
  toleranceSeconds: number,
  request: { readonly headers: HeadersInput; readonly body: Body; readonly state: ReceiverState; readonly now: number }
): Result.Result<Received, RequestError> =>
  Result.gen(function*() {
    if (!isState(request.state)) {
      // The state comes from the kit or from ReceiverState's Schema: anything else is a bug.
      throw new TypeError("the state given to receive is not a ReceiverState: decode what you stored with ReceiverState.ReceiverState")
    }
    const verified = yield* Signature.verify(key, { headers: request.headers, body: request.body, now: request.now, toleranceSeconds })
    const batch = yield* decodeBatch(request.body, verified.id)
    const { healed, state, test } = yield* Continuity.advance(request.state, batch)
    return test === true ? { batch, state, test } : healed === undefined ? { batch, state } : { batch, state, healed }
  })

/** Unix seconds of the `Clock`. */
export const clockSeconds: Effect.Effect<number> = Effect.map(Clock.currentTimeMillis, (millis) => Math.floor(millis / 1000))

