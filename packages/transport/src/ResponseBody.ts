/**
 * Reading a response body safely: at most `maxBytes` (a larger body fails with a typed
 * `Transport` error instead of exhausting memory), then JSON that cannot pollute prototypes.
 *
 * @since 0.1.0
 */
import type { Errors } from "@chainquery/schema"
import { Effect, Stream } from "effect"
import * as Body from "./internal/body.js"
import type { HttpClientResponse } from "effect/http"

/**
 * The default largest body: 16 MiB (a page of 100 records is about 100 KiB).
 *
 * @example
 * ```ts
 * import { ResponseBody } from "@chainquery/transport"
 *
 * ResponseBody.defaultMaxBytes // 16777216
 * ```
 * @since 0.1.0
 */
export const defaultMaxBytes = 16 * 1024 * 1024


/**
 * Reads the body as text, failing once it grows past `maxBytes`: checked against
 * `Content-Length` before reading, then against what was read. An uncompressed body of declared
 * length is read in one go (HTTP framing stops it at the declared length); a compressed one, or
 * one without a length, is counted chunk by chunk as it arrives, so it never takes more than
 * `maxBytes` of memory.
 *
 * @example
 * ```ts
 * import { ResponseBody } from "@chainquery/transport"
 *
 * // const text = yield* ResponseBody.readText(response, 1024 * 1024)
 * ```
 * @since 0.1.0
 */
export const readText = (
  response: HttpClientResponse.HttpClientResponse,
  maxBytes: number
): Effect.Effect<string, Errors.Transport> => {
  const how = Body.plan(response.headers["content-length"], response.headers["content-encoding"], maxBytes)
  if (how === "tooLarge") return Effect.fail(Body.tooLarge(maxBytes))
  if (how === "whole") {
    // Never more characters than bytes: a longer text is past the cap however it was framed.
    return Effect.flatMap(
      Effect.mapError(response.text, Body.readFailed),
      (text) => text.length > maxBytes ? Effect.fail(Body.tooLarge(maxBytes)) : Effect.succeed(text)
    )
  }
  const collected = Body.collector(maxBytes)
  return response.stream.pipe(
    Stream.mapError(Body.readFailed),
    Stream.runForEach((chunk) => collected.add(chunk) ? Effect.void : Effect.fail(Body.tooLarge(maxBytes))),
    Effect.map(collected.text)
  )
}

const isDangerousKey = (key: string) => key === "__proto__" || key === "constructor" || key === "prototype"

/**
 * Drops, in place, every key that `parseJson` drops, at any depth. Walked with a stack of its own,
 * so that however deep the JSON nests (as deep as `JSON.parse` goes), it never overflows.
 */
const dropDangerousKeys = (value: unknown): void => {
  const pending: Array<unknown> = [value]
  while (pending.length > 0) {
    const next = pending.pop()
    if (typeof next !== "object" || next === null) continue
    if (Array.isArray(next)) {
      for (let i = 0; i < next.length; i++) if (typeof next[i] === "object") pending.push(next[i])
      continue
    }
    const record = next as Record<string, unknown>
    for (const key in record) {
      // `JSON.parse` made each of them a plain own key (it never sets a prototype): deleting it
      // removes just that key.
      if (isDangerousKey(key)) delete record[key]
      else if (typeof record[key] === "object") pending.push(record[key])
    }
  }
}

/**
 * Parses JSON; keys `__proto__`, `constructor` and `prototype` are dropped at any depth, however
 * they are spelled (`\u005f_proto__` too). `JSON.parse` itself never sets a prototype (it defines
 * `__proto__` as a plain own key), so the text is parsed once and the value walked. `undefined`
 * when the text is not JSON.
 *
 * @example
 * ```ts
 * import { ResponseBody } from "@chainquery/transport"
 *
 * ResponseBody.parseJson('{"__proto__": {"polluted": true}, "a": 1}') // { a: 1 }
 * ResponseBody.parseJson("{truncated") // undefined
 * ```
 * @since 0.1.0
 */
export const parseJson = (text: string): unknown => {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return undefined
  }
  dropDangerousKeys(value)
  return value
}
