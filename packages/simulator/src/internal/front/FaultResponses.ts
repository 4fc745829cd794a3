/**
 * How the front door answers by itself: the service's 429, 5xx errors, a malformed 200, a huge
 * 200 streamed in chunks, and a dropped connection.
 *
 * @internal
 */
import { STATUS_CODES, type IncomingMessage, type OutgoingHttpHeaders, type ServerResponse } from "node:http"
import type { OpenResponses } from "./OpenResponses.js"

/**
 * Answers with a JSON body and an exact Content-Length.
 *
 * Extra `headers` go out with the content type and length ({@link sendRateLimited} sends
 * `Retry-After` this way); nothing is sent on a response already destroyed.
 */
export const sendJson = (res: ServerResponse, status: number, body: unknown, headers: OutgoingHttpHeaders = {}): void => {
  sendText(res, status, JSON.stringify(body), headers)
}

const sendText = (res: ServerResponse, status: number, text: string, headers: OutgoingHttpHeaders): void => {
  if (res.destroyed) return
  res.writeHead(status, {
    ...headers,
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(text)
  })
  res.end(text)
}

/**
 * The 429 the service sends past its rate limit, with `Retry-After` in whole seconds.
 *
 * `sendRateLimited(res, 2)` answers 429 with `Retry-After: 2` and
 * `{"message":"Rate Limit exceeded"}`.
 */
export const sendRateLimited = (res: ServerResponse, retryAfterSeconds: number): void =>
  sendJson(res, 429, { message: "Rate Limit exceeded" }, { "retry-after": String(retryAfterSeconds) })

/**
 * A 5xx with the status's standard text as message (`{"message":"Bad Gateway"}`).
 *
 * `sendServerError(res, 503)` sends `{"message":"Service Unavailable"}`; a status with no standard
 * text gets `Internal Server Error`.
 */
export const sendServerError = (res: ServerResponse, status: number): void =>
  sendJson(res, status, { message: STATUS_CODES[status] ?? "Internal Server Error" })

/**
 * The body of a `malformed` fault: the start of a page, then an upstream error page. Not JSON.
 *
 * It begins like a real page (`{"result": [`), so a client fails only part-way through parsing it.
 */
export const malformedBody = "{\"result\": [{\"block_number\":\"1\",\"token_address\":\"0x" +
  "<html><body><h1>502 Bad Gateway</h1>upstream connect error or disconnect/reset before headers</body></html>"

/**
 * A 200 whose body is not JSON (see {@link malformedBody}).
 *
 * It sends {@link malformedBody} with a JSON content type and an exact Content-Length.
 */
export const sendMalformed = (res: ServerResponse): void => sendText(res, 200, malformedBody, {})

/**
 * Drops the connection without any response (the client sees a socket reset or hang-up).
 *
 * It takes the request, not the response, and destroys `req.socket`.
 */
export const resetConnection = (req: IncomingMessage): void => {
  req.socket.destroy()
}

const hugeHead = "{\"page\":0,\"page_size\":100,\"cursor\":null,\"result\":["
const hugeTail = "]}"
const hugeItem = "{\"token_address\":\"0x0000000000000000000000000000000000000000\",\"token_id\":\"1\",\"filler\":\"" +
  "x".repeat(900) + "\"}"
const itemsPerChunk = 64
let hugeChunk: Buffer | undefined

/**
 * The total size of the `huge` body for a minimum size: header, `n` identical items, tail, the
 * smallest `n >= 1` that makes it strictly larger than `minBytes`.
 *
 * `hugeBodySize(2 * 1024 * 1024).bytes`, for instance, is just over 2 MiB (by less than one item).
 */
export const hugeBodySize = (minBytes: number): { readonly items: number; readonly bytes: number } => {
  const fixed = hugeHead.length + hugeTail.length - 1
  const items = Math.max(1, Math.floor((minBytes - fixed) / (hugeItem.length + 1)) + 1)
  return { items, bytes: fixed + items * (hugeItem.length + 1) }
}

/**
 * Streams a 200 with a valid JSON body larger than `minBytes`, in 64 KiB chunks, honouring
 * back-pressure, so that the server never holds the body. The response is tracked in `open`.
 *
 * A `huge` fault with the default size calls `streamHuge(res, 32 * 1024 * 1024, open)`;
 * `open.close()` at shutdown ends a stream still running.
 */
export const streamHuge = (res: ServerResponse, minBytes: number, open: OpenResponses): void => {
  if (res.destroyed) return
  const { bytes, items } = hugeBodySize(minBytes)
  hugeChunk ??= Buffer.from(("," + hugeItem).repeat(itemsPerChunk))
  const chunk = hugeChunk
  const perItem = hugeItem.length + 1
  open.add(res)
  res.writeHead(200, { "content-type": "application/json; charset=utf-8", "content-length": bytes })
  res.write(hugeHead + hugeItem)
  let left = items - 1
  const pump = (): void => {
    while (left > 0) {
      if (res.destroyed) return
      const n = Math.min(left, itemsPerChunk)
      left -= n
      const ok = res.write(n === itemsPerChunk ? chunk : chunk.subarray(0, n * perItem))
      if (!ok) {
        res.once("drain", pump)
        return
      }
    }
    if (!res.destroyed) res.end(hugeTail)
  }
  pump()
}
