/**
 * Reading a response body safely: at most `maxBytes` (a larger body fails with a typed
 * `Transport` error instead of exhausting memory), then JSON that cannot pollute prototypes.
 *
 * @since 0.1.0
 */
import { Errors } from "@chainquery/schema"
import { Effect, Stream } from "effect"
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

const tooLarge = (maxBytes: number) =>
  new Errors.Transport({ reason: "BodyTooLarge", message: `the response body is larger than ${maxBytes} bytes` })

const failed = (error: { readonly message: string }) =>
  new Errors.Transport({ reason: "Network", message: `reading the response failed: ${error.message}` })

/**
 * Reads the body as text, failing once it grows past `maxBytes` (checked against
 * `Content-Length` first, then while streaming).
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
  const declared = Number(response.headers["content-length"])
  if (Number.isFinite(declared) && declared > maxBytes) return Effect.fail(tooLarge(maxBytes))
  const length = response.headers["content-length"]
  if (length !== undefined && /^\d+$/.test(length.trim()) && response.headers["content-encoding"] === undefined) {
    // An uncompressed body of declared length within the cap: read it in one go (the common case,
    // and cheaper). A compressed one is counted as it is inflated.
    return Effect.mapError(response.text, failed)
  }
  const chunks: Array<Uint8Array> = []
  let size = 0
  return response.stream.pipe(
    Stream.mapError(failed),
    Stream.runForEach((chunk) => {
      size += chunk.length
      if (size > maxBytes) return Effect.fail(tooLarge(maxBytes))
      chunks.push(chunk)
      return Effect.void
    }),
    Effect.map(() => Buffer.concat(chunks, size).toString("utf8"))
  )
}

/** Whether the text could hold a key to drop: plain substring scans, much cheaper than a regex. */
const mayHoldDangerousKey = (text: string): boolean =>
  text.includes("__proto__") || text.includes("constructor") || text.includes("prototype") || text.includes("\\u")

/**
 * Parses JSON; keys `__proto__`, `constructor` and `prototype` are dropped (only looked for when
 * the text contains one, or a `\u` escape that could spell one, so the common case is a plain
 * `JSON.parse`). `undefined` when the text is
 * not JSON.
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
  try {
    return mayHoldDangerousKey(text)
      ? JSON.parse(text, (key, value) => (key === "__proto__" || key === "constructor" || key === "prototype" ? undefined : value))
      : JSON.parse(text)
  } catch {
    return undefined
  }
}
