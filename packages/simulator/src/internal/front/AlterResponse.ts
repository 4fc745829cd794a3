/**
 * Altering the real response for the faults that need it (latency, truncated, stalled) and for
 * the `real` wire flavour: the handler's `writeHead`/`write`/`end` are wrapped to buffer what it
 * sends, then the response is rewritten, sent late, cut, or left unfinished. Only requests that
 * drew such a fault, or that the `real` flavour rewrites, pay for this.
 *
 * @internal
 */
import type { ServerResponse } from "node:http"
import type { OpenResponses } from "./OpenResponses.js"

/**
 * How to alter a real response: rewrite a 200 body (`rewrite`, for the `real` wire flavour), hold
 * the response until `notBefore` (a time from the front door's clock, for latency), and cut its
 * body in half (`truncated`, with a matching Content-Length) or send the head and the first half
 * and never finish (`stalled`).
 *
 * `{ notBefore: now() + 100, cut: undefined }`, for instance, only delays the response by 100 ms,
 * and `{ notBefore: now(), cut: "stalled" }` only stalls it.
 */
export interface Alteration {
  readonly notBefore: number
  readonly cut: "truncated" | "stalled" | undefined
  readonly rewrite?: ((body: Buffer) => Buffer) | undefined
}

type Callback = (error?: Error | null) => void
type Patched = Record<"writeHead" | "write" | "end", (...args: Array<any>) => unknown>
const methods = ["writeHead", "write", "end"] as const

const toBuffer = (chunk: unknown, encoding: unknown): Buffer | undefined => {
  if (chunk === undefined || chunk === null || typeof chunk === "function") return undefined
  if (typeof chunk === "string") return Buffer.from(chunk, typeof encoding === "string" ? encoding as BufferEncoding : "utf8")
  if (chunk instanceof Uint8Array) return Buffer.from(chunk)
  return Buffer.from(String(chunk))
}

/** Headers given to `writeHead` as an object with lower-case names (object or raw array forms). */
const headersOf = (given: unknown): Record<string, string | number | Array<string>> => {
  const out: Record<string, string | number | Array<string>> = {}
  const put = (name: unknown, value: unknown) => {
    const key = String(name).toLowerCase()
    const text = Array.isArray(value) ? value.map(String) : typeof value === "number" ? value : String(value)
    const previous = out[key]
    out[key] = previous === undefined ? text : [previous, text].flat().map(String)
  }
  if (Array.isArray(given)) {
    if (Array.isArray(given[0])) for (const pair of given as Array<Array<unknown>>) put(pair[0], pair[1])
    else for (let i = 0; i + 1 < given.length; i += 2) put(given[i], given[i + 1])
  } else if (typeof given === "object" && given !== null) {
    for (const [name, value] of Object.entries(given)) if (value !== undefined) put(name, value)
  }
  return out
}

/**
 * Wraps a response's `writeHead`, `write` and `end` to buffer what the real handler sends, then
 * applies the alteration when the handler ends: waits until `notBefore`, then sends the body
 * whole, cut in half, or half and never the rest. Only used on requests that drew such a fault, or whose answer the `real` wire flavour rewrites.
 *
 * Call it before passing the request on:
 * `alterResponse(res, { notBefore: now() + 250, cut: undefined }, open, now)` and then
 * `next(req, res)` delays the real response by 250 ms.
 */
export const alterResponse = (res: ServerResponse, alteration: Alteration, open: OpenResponses, now: () => number): void => {
  const patched = res as unknown as Patched
  const original = { writeHead: patched.writeHead, write: patched.write, end: patched.end }
  const ownBefore = new Set(methods.filter((name) => Object.hasOwn(res, name)))
  const chunks: Array<Buffer> = []
  let head: { status: number; message: string | undefined; headers: Record<string, string | number | Array<string>> } | undefined
  let ended = false

  patched.writeHead = (status: number, messageOrHeaders?: unknown, maybeHeaders?: unknown) => {
    // like Node: a non-string second argument is the headers unless a third one is given
    const hasMessage = typeof messageOrHeaders === "string"
    const given = hasMessage ? maybeHeaders : maybeHeaders ?? messageOrHeaders
    head = { status, message: hasMessage ? messageOrHeaders : undefined, headers: headersOf(given) }
    return res
  }
  patched.write = (chunk: unknown, encodingOrCallback?: unknown, callback?: unknown) => {
    const buffer = toBuffer(chunk, encodingOrCallback)
    if (buffer !== undefined && !ended) chunks.push(buffer)
    const cb = (typeof encodingOrCallback === "function" ? encodingOrCallback : callback) as Callback | undefined
    if (cb !== undefined) process.nextTick(cb)
    return true
  }
  patched.end = (chunk?: unknown, encodingOrCallback?: unknown, callback?: unknown) => {
    if (ended) return res
    ended = true
    if (res.destroyed) {
      restore()
      return original.end.call(res, chunk, encodingOrCallback, callback)
    }
    const buffer = toBuffer(chunk, encodingOrCallback)
    if (buffer !== undefined) chunks.push(buffer)
    const cb = [chunk, encodingOrCallback, callback].find((x) => typeof x === "function") as Callback | undefined
    const wait = Math.ceil(alteration.notBefore - now())
    if (wait <= 0) {
      // a stalled body stays open: `close()` ends it at shutdown
      if (alteration.cut === "stalled") open.add(res)
      flush(cb)
      return res
    }
    open.add(res)
    open.later(wait, () => flush(cb))
    return res
  }

  // back to the prototype's methods (or the instance's own, if it had any)
  const restore = () => {
    for (const name of methods) {
      if (ownBefore.has(name)) patched[name] = original[name]
      else delete (patched as Partial<Patched>)[name]
    }
  }

  // a 200 body rewritten, its Content-Length (if it had one) made the new length
  const rewritten = (body: Buffer, status: number, headers: Record<string, string | number | Array<string>>): Buffer => {
    if (alteration.rewrite === undefined || status !== 200 || body.length === 0) return body
    const after = alteration.rewrite(body)
    if (headers["content-length"] !== undefined) headers["content-length"] = after.length
    if (res.hasHeader("content-length")) res.setHeader("content-length", after.length)
    return after
  }

  const flush = (cb: Callback | undefined) => {
    restore()
    if (res.destroyed) return
    const headers = head?.headers ?? {}
    const status = head?.status ?? res.statusCode
    const body = rewritten(Buffer.concat(chunks), status, headers)
    const writeHead = (h: Record<string, string | number | Array<string>>) =>
      head?.message === undefined ? res.writeHead(status, h) : res.writeHead(status, head.message, h)
    if (alteration.cut === undefined) {
      writeHead(headers)
      res.end(body, cb)
      return
    }
    const half = body.subarray(0, Math.floor(body.length / 2))
    if (alteration.cut === "truncated") {
      delete headers["transfer-encoding"]
      res.removeHeader("transfer-encoding")
      res.removeHeader("content-length")
      writeHead({ ...headers, "content-length": half.length })
      res.end(half, cb)
      return
    }
    // stalled: the head and the first half, then nothing until the client or the server gives up
    writeHead(headers)
    if (half.length > 0) res.write(half)
    else res.flushHeaders()
  }
}
